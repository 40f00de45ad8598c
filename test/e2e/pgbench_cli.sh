#!/usr/bin/env bash
# lbench started under the name `pgbench` (a symlink) against pgbench 15
# itself, on one private PostgreSQL: the same command lines through both,
# compared by the structure of their reports (each line's words, numbers
# aside), their exit statuses, their stderr messages where lbench uses
# pgbench's words, and the tables' contents after -i.  Also -V, --help,
# -b list, --show-script, the PG* environment variables and DBNAME, and
# `lbench --pgbench-compat`.
# Port: 4492 by default (LB_PG_SANDBOX_PORT for another one).
# shellcheck disable=SC2015  # `cond && pass || fail`: pass and fail always succeed
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
pg_env_clean
export LB_PG_SANDBOX_PORT=${LB_PG_SANDBOX_PORT:-4492}
REAL=$(command -v pgbench || echo /usr/lib/postgresql/15/bin/pgbench)
pg_sandbox_start pgcli
if ! "$REAL" --version 2>/dev/null | grep -q 'PostgreSQL) 15'; then
  fail pgcli_pgbench15 "pgbench 15 not found (contrib/install-deps.sh test installs postgresql-15)"; exit 1
fi
mkdir -p "$T/bin"
ln -s "$(realpath "$LB")" "$T/bin/pgbench"
PGB=$T/bin/pgbench
export PGPASSWORD=sbtest
C=(-h 127.0.0.1 -p "$LB_PG_PORT" -U sbtest)
q() { "${PSQL[@]}" -c "$1" 2>&1; }

# shape FILE: the report's lines with every number as N and the padding
# that aligns numbers as one space (-r's columns are as wide as pgbench's,
# the numbers in them are not the same width), the version line left out:
# it names each tool.
shape() { grep -v '^pgbench (' "$1" | sed -E 's/-?[0-9]+(\.[0-9]+)?/N/g; s/NaN/N/g; s/ +/ /g'; }

# both NAME ARGS...: run pgbench and lbench-as-pgbench with ARGS; pass NAME
# when the exit statuses are equal and the stdout shapes too.
both() {
  local name=$1; shift
  run "${name}_pg" "$REAL" "$@"; local rc_pg=$rc
  run "${name}_lb" "$PGB" "$@"; local rc_lb=$rc
  if [ "$rc_pg" != "$rc_lb" ]; then
    fail "$name" "exit $rc_lb, pgbench's $rc_pg: $(head -c 300 "$T/${name}_lb.err")"; return
  fi
  if diff <(shape "$T/${name}_pg.out") <(shape "$T/${name}_lb.out") >"$T/$name.diff"; then pass "$name"
  else fail "$name" "report lines differ: $(head -6 "$T/$name.diff" | tr '\n' '|')"; fi
}

# ---- what is answered without a server ----------------------------------------
expect_ok version '^pgbench \(PostgreSQL\) 15 \(lbench ' "$PGB" -V
expect_ok version_long '^pgbench \(PostgreSQL\) 15' "$PGB" --version
run help "$PGB" --help
[ "$rc" = 0 ] && grep -qx '  pgbench \[OPTION\]... \[DBNAME\]' "$T/help.out" && grep -qx 'Initialization options:' "$T/help.out" &&
  grep -qx 'Benchmarking options:' "$T/help.out" && grep -qx 'Common options:' "$T/help.out" &&
  grep -qx 'Options to select what to run:' "$T/help.out" && grep -q 'benchmarking tool for PostgreSQL' "$T/help.out" &&
  grep -q '^Report bugs to ' "$T/help.out" && pass help_layout || fail help_layout "exit $rc: $(head -c 300 "$T/help.out")"
for args in "-b list" "--show-script=tpcb-like" "--show-script=se" "--show-script=simple"; do
  n=show_$(echo "$args" | tr -c 'a-z' _)
  "$REAL" $args >"$T/$n.pgo" 2>"$T/$n.pge"; rc_pg=$?
  run "$n" "$PGB" $args
  [ "$rc" = "$rc_pg" ] && [ -s "$T/$n.err" ] && cmp -s "$T/$n.pge" "$T/$n.err" && cmp -s "$T/$n.pgo" "$T/$n.out" && pass "$n" ||
    fail "$n" "exit $rc (pgbench $rc_pg): $(diff "$T/$n.pge" "$T/$n.err" | head -4 | tr '\n' '|')"
done
expect_ok compat_option '^pgbench \(PostgreSQL\) 15' "$LB" --pgbench-compat -V
run lbench_name_version "$LB" --version
grep -q '^lbench ' "$T/lbench_name_version.out" && pass lbench_name_unchanged || fail lbench_name_unchanged "$(cat "$T/lbench_name_version.out")"

# ---- bad command lines: pgbench's status and first words ----------------------
bad=0
for args in "-c x" "-c 0" "--bogus" "-x" "a b" "-t 1 -T 1" "-i -c 2" "-i -I x" "-M nope" "-b nope" "-R abc" \
            "-D novalue" "-F 5 -i" "-c" "-i --partition-method=hash" "-i --partitions=2 --partition-method=list" \
            "--partitions=2 -t 1" "-t 1 --progress-timestamp" "-i -v" "-i --partition-method=BAD" \
            "-b select-only@-1" "-b se@one" "-f x@-1" "-T 1 -t 1 --progress-timestamp -P 1" \
            "$(printf -- '-S %.0s' $(seq 129))"; do
  "$REAL" "${C[@]}" $args >/dev/null 2>"$T/bad.pge"; rc_pg=$?
  "$PGB" "${C[@]}" $args >/dev/null 2>"$T/bad.lbe"; rc_lb=$?
  # the first line's words, the program's path and getopt's quoting aside
  w_pg=$(head -1 "$T/bad.pge" | sed -E 's#^[^ ]*pgbench:#pgbench:#')
  w_lb=$(head -1 "$T/bad.lbe")
  if [ "$rc_pg" != 1 ] || [ "$rc_lb" != 1 ] || [ "$w_pg" != "$w_lb" ]; then
    bad=1; fail "bad_args_${args// /_}" "exit $rc_lb (pgbench $rc_pg): '$w_lb' vs '$w_pg'"
  fi
done
[ "$bad" = 0 ] && pass bad_command_lines
# pgbench's three lines for a bad seed, as one
one_line bad_seed_words '^pgbench: error: error while setting random seed from --random-seed option: unrecognized random seed option "one" \(Expecting an unsigned integer, "time" or "rand"\)$' \
  "$PGB" "${C[@]}" --random-seed=one -t 1
one_line no_tables '^pgbench: error: table pgbench_branches does not exist: Perhaps you need to do initialization \("pgbench -i"\) in database "postgres"$' \
  "$PGB" "${C[@]}" -t 1 postgres
run no_server "$PGB" -h 127.0.0.1 -p 1 -U sbtest -t 1
# under lbench's own name: what only PostgreSQL has, and the steps, checked first
one_line lbench_partitions_mysql '^lbench: --partitions: PostgreSQL only \(this run uses --db-driver=mysql\)$' \
  "$LB" pgbench --db-driver=mysql --partitions=2 prepare
one_line lbench_init_steps_bad "^lbench: --init-steps=dtx: unknown step 'x' \(expected the letters dtgGvpf\)$" \
  "$LB" pgbench --db-driver=pgsql --init-steps=dtx prepare
[ "$rc" = 1 ] && grep -q '^pgbench: error: ' "$T/no_server.err" && pass no_server || fail no_server "exit $rc: $(head -2 "$T/no_server.err")"

# ---- -i: the same tables as pgbench's -----------------------------------------
tables() {
  q "SELECT relname, relpersistence, relkind, reloptions, pg_get_expr(relpartbound, oid), reltablespace
       FROM pg_class WHERE relname LIKE 'pgbench%' ORDER BY 1;
     SELECT conname, contype FROM pg_constraint WHERE conrelid::regclass::text LIKE 'pgbench%' ORDER BY 1;
     SELECT 'a', count(*), sum(bid), sum(abalance), count(DISTINCT filler) FROM pgbench_accounts;
     SELECT 'b', count(*), sum(bid), sum(bbalance) FROM pgbench_branches;
     SELECT 't', count(*), sum(tid), sum(bid), sum(tbalance) FROM pgbench_tellers;
     SELECT 'h', count(*) FROM pgbench_history;
     SELECT attrelid::regclass, attname, format_type(atttypid, atttypmod) FROM pg_attribute
       WHERE attrelid::regclass::text LIKE 'pgbench%' AND attnum > 0 ORDER BY 1, attnum"
}
for args in "-s 2" "-s 1 -F 90 --foreign-keys --unlogged-tables -q" "-s 1 -I dtgp -n" "-s 2 --partitions=3 -F 80" \
            "-s 1 -I dtGvp --partitions=4 --partition-method=hash --unlogged-tables" \
            "-s 1 --tablespace=pg_default --index-tablespace=pg_default"; do
  n=init_$(echo "$args" | tr -c 'a-z0-9' _)
  run "${n}_pg" "$REAL" "${C[@]}" -i $args sbtest; rc_pg=$rc
  tables >"$T/$n.pgt"
  run "${n}_lb" "$PGB" "${C[@]}" -i $args sbtest
  tables >"$T/$n.lbt"
  steps() { grep -E '^(dropping|creating|generating|vacuuming|done in)' "$1" | sed -E 's/[0-9.]+ s/N s/g; s/ \(.*side\)//'; }
  if [ "$rc" = "$rc_pg" ] && [ "$rc" = 0 ] && [ "$(wc -l < "$T/$n.lbt")" -gt 10 ] && cmp -s "$T/$n.pgt" "$T/$n.lbt" &&
     diff <(steps "$T/${n}_pg.err") <(steps "$T/${n}_lb.err") >/dev/null; then pass "$n"
  else fail "$n" "exit $rc (pgbench $rc_pg): $(diff "$T/$n.pgt" "$T/$n.lbt" | head -4 | tr '\n' '|') $(diff <(steps "$T/${n}_pg.err") <(steps "$T/${n}_lb.err") | head -3 | tr '\n' '|')"; fi
done
# a statement the server refuses: pgbench's error and detail lines, status 1
run init_refused_pg "$REAL" "${C[@]}" -i --tablespace=lbench_no_such_ts sbtest; rc_pg=$rc
run init_refused "$PGB" "${C[@]}" -i --tablespace=lbench_no_such_ts sbtest
[ "$rc" = 1 ] && [ "$rc_pg" = 1 ] && [ "$(grep '^pgbench: ' "$T/init_refused.err")" = "$(grep '^pgbench: ' "$T/init_refused_pg.err" |
  sed 's/aid    int/aid int/; s/,\([a-z]\)/, \1/g')" ] && pass init_refused ||
  fail init_refused "exit $rc (pgbench $rc_pg): $(grep '^pgbench: ' "$T/init_refused.err" | tr '\n' '|')"
# a run over partitioned accounts names them in the report, as pgbench's
"$PGB" "${C[@]}" -i -s 1 --partitions=2 --partition-method=hash -q sbtest >/dev/null 2>&1
both run_partitioned "${C[@]}" -c 2 -t 10 -S sbtest
grep -q '^partition method: hash$' "$T/run_partitioned_lb.out" && grep -q '^partitions: 2$' "$T/run_partitioned_lb.out" &&
  pass run_partition_lines || fail run_partition_lines "$(head -5 "$T/run_partitioned_lb.out" | tr '\n' '|')"
"$PGB" "${C[@]}" -i -s 2 -q sbtest >/dev/null 2>&1

# ---- the vacuum before a run ----------------------------------------------------
# pgbench's: VACUUM of branches and tellers and pgbench_history truncated
# (then the run's 3 rows); -v: pgbench_accounts too; -n: none of it.
vac() { q "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = '$1'" | tr -d ' '; }
vacuum_case() {
  local bin=$1 o=$2
  q "TRUNCATE pgbench_history; INSERT INTO pgbench_history SELECT 1, 1, 1, 1, now() FROM generate_series(1, 7)" >/dev/null
  local a0 b0
  a0=$(vac pgbench_accounts); b0=$(vac pgbench_branches)
  "$bin" "${C[@]}" -c 1 -t 3 -N $o sbtest >/dev/null 2>"$T/vac.err"
  echo "[$o] history $(q "SELECT count(*) FROM pgbench_history" | tr -d ' ') accounts" \
    "+$(( $(vac pgbench_accounts) - a0 )) branches +$(( $(vac pgbench_branches) - b0 )):" \
    "$(grep '^starting vacuum' "$T/vac.err" | tr '\n' '|')"
}
for o in "" "-v" "-n -v" "-n"; do
  w_pg=$(vacuum_case "$REAL" "$o"); w_lb=$(vacuum_case "$PGB" "$o")
  [ -n "$w_lb" ] && [ "$w_pg" = "$w_lb" ] && pass "vacuum_${o// /}" || fail "vacuum_${o// /}" "$w_lb vs pgbench's $w_pg"
done

# ---- runs: the same report lines ------------------------------------------------
both run_default "${C[@]}" sbtest
both run_clients "${C[@]}" -c 3 -j 2 -t 20 -S sbtest
both run_time "${C[@]}" -c 2 -j 2 -T 2 -P 1 -M prepared sbtest
both run_weights "${C[@]}" -c 2 -t 15 -b select-only@3 -b simple-update@1 -M extended sbtest
both run_rate "${C[@]}" -c 2 -T 2 -R 50 -N -n sbtest
printf '\\set aid random(1, 1000)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n' >"$T/my.sql"
both run_file "${C[@]}" -c 2 -t 10 -f "$T/my.sql" -D x=1 --random-seed=5 sbtest
# scripts numbered in the command line's order, files and built-ins mixed
both run_order "${C[@]}" -c 1 -t 200 -f "$T/my.sql@2" -b select-only -b simple-update -f "$T/my.sql" sbtest
[ "$(grep '^SQL script' "$T/run_order_lb.out")" = "$(grep '^SQL script' "$T/run_order_pg.out")" ] &&
  grep -q '^SQL script 2: <builtin: select only>$' "$T/run_order_lb.out" && pass script_order ||
  fail script_order "$(grep '^SQL script' "$T/run_order_lb.out" | tr '\n' '|')"
# the seed given is announced, in pgbench's line
grep -x 'pgbench: setting random seed to 5' "$T/run_file_pg.err" >/dev/null && grep -x 'pgbench: setting random seed to 5' "$T/run_file_lb.err" \
  >/dev/null && pass seed_line || fail seed_line "$(head -2 "$T/run_file_lb.err" | tr '\n' '|')"
# progress lines: pgbench's words on stderr
prog() { grep '^progress: ' "$1" | sed -E 's/-?[0-9]+(\.[0-9]+)?/N/g' | sort -u; }
[ -n "$(prog "$T/run_time_lb.err")" ] && [ "$(prog "$T/run_time_lb.err")" = "$(prog "$T/run_time_pg.err")" ] &&
  pass progress_lines || fail progress_lines "$(grep -m2 progress "$T/run_time_lb.err" | tr '\n' '|') vs $(grep -m1 progress "$T/run_time_pg.err")"
# --progress-timestamp: the same lines, the Unix time (between the run's
# start and end) in place of the elapsed time
t0=$(date +%s)
both run_stamp "${C[@]}" -c 1 -T 2 -P 1 --progress-timestamp -S -n sbtest
t1=$(date +%s)
ts=$(sed -nE 's/^progress: ([0-9]+)\.[0-9]{3} s, .*/\1/p' "$T/run_stamp_lb.err" | head -1)
[ -n "$ts" ] && [ "$ts" -ge "$t0" ] && [ "$ts" -le "$t1" ] && [ "$(prog "$T/run_stamp_lb.err")" = "$(prog "$T/run_stamp_pg.err")" ] &&
  pass progress_timestamp || fail progress_timestamp "'$ts' not in $t0..$t1: $(grep -m1 progress "$T/run_stamp_lb.err") vs $(grep -m1 progress "$T/run_stamp_pg.err")"
# -R without -P: no progress; the lag line in the report (both() compared it)
grep -q '^rate limit schedule lag: ' "$T/run_rate_lb.out" && pass rate_lag_line || fail rate_lag_line "$(head -c 300 "$T/run_rate_lb.out")"
# the environment reaches libpq (run_env gave no -h/-p/-U and no DBNAME)
PGHOST=127.0.0.1 PGPORT=$LB_PG_PORT PGUSER=sbtest PGDATABASE=sbtest run env_vars "$PGB" -c 1 -t 3 -S
[ "$rc" = 0 ] && grep -q '^number of transactions actually processed: 3/3$' "$T/env_vars.out" && pass env_vars ||
  fail env_vars "exit $rc: $(head -c 300 "$T/env_vars.err")"
# -l: pgbench's log file, named after the PID
(cd "$T" && "$PGB" "${C[@]}" -c 1 -t 4 -S -l sbtest >/dev/null 2>&1)
[ "$(cat "$T"/pgbench_log.* 2>/dev/null | wc -l)" = 4 ] && pass log_file || fail log_file "$(ls "$T")"

# ---- a client aborting: status 2, pgbench's last line ---------------------------
printf '\\set x 1 / 0\nSELECT 1;\n' >"$T/bad.sql"
both run_abort "${C[@]}" -c 2 -t 3 -f "$T/bad.sql" sbtest
[ "$rc" = 2 ] && [ "$(tail -1 "$T/run_abort_lb.err")" = "$(tail -1 "$T/run_abort_pg.err")" ] && pass abort_status ||
  fail abort_status "exit $rc: $(tail -1 "$T/run_abort_lb.err")"

# ---- -r: per-statement latencies ------------------------------------------------
# stmts FILE: the statements of -r's lists, in order (the numbers aside)
stmts() { grep -E '^ {3}[ 0-9.]{11}  [ 0-9]{10}  ' "$1" | cut -c29-; }
same_stmts() {
  local name=$1
  [ "$(stmts "$T/${name}_lb.out" | wc -l)" -ge "$2" ] && [ "$(stmts "$T/${name}_lb.out")" = "$(stmts "$T/${name}_pg.out")" ] &&
    pass "${name}_statements" || fail "${name}_statements" "$(diff <(stmts "$T/${name}_pg.out") <(stmts "$T/${name}_lb.out") | head -4 | tr '\n' '|')"
}
both run_r_builtin "${C[@]}" -c 2 -t 10 -r sbtest
same_stmts run_r_builtin 11
both run_r_file "${C[@]}" -c 2 -t 10 -r -b simple-update -f "$T/my.sql" sbtest
same_stmts run_r_file 9
grep -q '^ - statement latencies in milliseconds and failures:$' "$T/run_r_file_lb.out" && pass r_per_script ||
  fail r_per_script "$(head -c 400 "$T/run_r_file_lb.out")"
# lbench's own: each statement's count is the transactions', its average and percentiles positive
run r_json "$LB" pgbench $P --threads=2 --time=0 --events=20 --report-per-command --output=json run
cp "$T/r_json.out" "$T/r.json"
json_assert r_json_commands "$T/r.json" '(function() local c = r.pgbench.scripts[1].commands; local n = 0
  for _, x in ipairs(c) do if x.count ~= 20 or not (x.latency_avg_ms > 0 and x.latency_p99_ms > 0) then return false end
  n = n + x.count end; return #c == 11 and n == r.pgbench.transactions * 11 end)()'
run r_text "$LB" pgbench $P --threads=1 --time=0 --events=5 --file="$T/my.sql" --report-per-command run
[ "$rc" = 0 ] && grep -q 'statement latencies in milliseconds (count, avg, p50, p95, p99, max, failures, retries):' "$T/r_text.out" &&
  grep -Eq '^ +5 .*  SELECT abalance FROM pgbench_accounts WHERE aid = :aid;$' "$T/r_text.out" && pass r_lbench_report ||
  fail r_lbench_report "exit $rc: $(tail -c 400 "$T/r_text.out") $(head -c 300 "$T/r_text.err")"

# ---- -C: a connection per transaction (the server's session count) -------------
sessions() { q "SELECT sessions FROM pg_stat_database WHERE datname = 'sbtest'"; }
s0=$(sessions)
both run_connect "${C[@]}" -c 2 -t 15 -C -M prepared -S sbtest
s1=$(sessions)
run connect_lb_only "$PGB" "${C[@]}" -c 2 -t 15 -C -S sbtest
s2=$(sessions)
run no_connect "$PGB" "${C[@]}" -c 2 -t 15 -S sbtest
s3=$(sessions)
# lbench's run: 30 transactions, 30 sessions, plus its few fixed ones; without -C only the fixed ones
d=$((s2 - s1)); d0=$((s3 - s2))
[ "$rc" = 0 ] && [ "$d" -ge 30 ] && [ "$d" -le 36 ] && [ "$d0" -lt 10 ] && grep -q '^average connection time = ' "$T/run_connect_lb.out" &&
  grep -q '^tps = .* (including reconnection times)$' "$T/run_connect_lb.out" && pass connect_sessions ||
  fail connect_sessions "sessions +$d with -C, +$d0 without (pgbench: +$((s1 - s0)) for both runs)"
run connect_own "$LB" pgbench $P --threads=2 --time=0 --events=10 --connect-per-transaction run
[ "$rc" = 0 ] && grep -q '^connections opened: 10 (one per transaction)$' "$T/connect_own.out" && pass connect_lbench_report ||
  fail connect_lbench_report "exit $rc: $(grep -i connect "$T/connect_own.out" | head -3) $(head -c 300 "$T/connect_own.err")"

# ---- -L: late transactions counted; under -R, those late at their start skipped --
printf '\\sleep 20 ms\nSELECT 1;\n' >"$T/sleep.sql"
both run_late "${C[@]}" -c 1 -t 8 -L 10 -f "$T/sleep.sql" -n sbtest
grep -qx 'number of transactions above the 10.0 ms latency limit: 8/8 (100.000%)' "$T/run_late_lb.out" && pass late_counted ||
  fail late_counted "$(grep -i 'latency limit' "$T/run_late_lb.out")"
run late_none "$PGB" "${C[@]}" -c 1 -t 4 -L 5000 -f "$T/sleep.sql" -n sbtest
grep -qx 'number of transactions above the 5000.0 ms latency limit: 0/4 (0.000%)' "$T/late_none.out" && pass late_none ||
  fail late_none "exit $rc: $(grep -i 'latency limit' "$T/late_none.out") $(head -c 200 "$T/late_none.err")"
# 100 tps scheduled, 20 ms each: most slots are more than 10 ms late at their start
both run_skip "${C[@]}" -c 1 -T 2 -R 100 -L 10 -f "$T/sleep.sql" -n sbtest
sk=$(sed -nE 's/^number of transactions skipped: ([0-9]+) .*/\1/p' "$T/run_skip_lb.out")
[ "${sk:-0}" -gt 20 ] && pass skip_counted || fail skip_counted "skipped: '${sk}' $(head -c 300 "$T/run_skip_lb.err")"

# ---- serialization failures: failed past --max-tries, retried with the same values -
# Four clients update one row under REPEATABLE READ: most tries meet a
# serialization failure.  With pgbench's default of one try they end
# failed (counted, the clients go on); with ten, fewer do, and the retries
# are counted where pgbench counts them (the UPDATE's line under -r).
q "DROP TABLE IF EXISTS lb_xy; CREATE TABLE lb_xy (x int PRIMARY KEY, y int); INSERT INTO lb_xy VALUES (1, 0);
   DROP TABLE IF EXISTS lb_xy_log; CREATE TABLE lb_xy_log (v int)" >/dev/null
printf '%s\n' '\set v random(1, 1000000000)' 'BEGIN ISOLATION LEVEL REPEATABLE READ;' 'SELECT y FROM lb_xy WHERE x = 1;' \
  '\sleep 1 ms' 'UPDATE lb_xy SET y = :v WHERE x = 1;' 'END;' >"$T/ser.sql"
both run_ser_fail "${C[@]}" -c 4 -j 2 -t 30 -f "$T/ser.sql" -n sbtest
pr=$(sed -nE 's|^number of transactions actually processed: ([0-9]+)/120$|\1|p' "$T/run_ser_fail_lb.out")
fl=$(sed -nE 's/^number of failed transactions: ([0-9]+) .*/\1/p' "$T/run_ser_fail_lb.out")
[ -n "$pr" ] && [ -n "$fl" ] && [ "$fl" -gt 0 ] && [ $((pr + fl)) = 120 ] && pass ser_failed_counted ||
  fail ser_failed_counted "processed '$pr' failed '$fl': $(grep -E 'processed|failed' "$T/run_ser_fail_lb.out" | tr '\n' '|')"
both run_ser_tries "${C[@]}" -c 4 -j 2 -t 30 -f "$T/ser.sql" --max-tries=10 --failures-detailed -r -n sbtest
fl10=$(sed -nE 's/^number of failed transactions: ([0-9]+) .*/\1/p' "$T/run_ser_tries_lb.out")
sf=$(sed -nE 's/^number of serialization failures: ([0-9]+) .*/\1/p' "$T/run_ser_tries_lb.out")
rt=$(sed -nE 's/^total number of retries: ([0-9]+)$/\1/p' "$T/run_ser_tries_lb.out")
upd=$(stmts "$T/run_ser_tries_lb.out" | grep -c 'UPDATE lb_xy')
ur=$(grep -E '^ {3}[ 0-9.]{11}  [ 0-9]{10}  [ 0-9]{10}  UPDATE lb_xy' "$T/run_ser_tries_lb.out" | awk '{print $3}')
[ -n "$fl10" ] && [ "$fl10" -lt "$fl" ] && [ "$sf" = "$fl10" ] && [ "${rt:-0}" -gt 0 ] && [ "$ur" = "$rt" ] && [ "$upd" = 1 ] &&
  pass ser_retried_counted || fail ser_retried_counted "failed $fl10 (one try: $fl), serialization '$sf', retries '$rt', UPDATE's '$ur'"
# The progress line's counts: failed always, retried and retries with
# --max-tries other than 1, skipped under -R with -L, in pgbench's words;
# its failed transactions are the report's (the last piece of an interval
# aside, which pgbench does not print either).
both run_ser_prog "${C[@]}" -c 4 -j 2 -T 3 -P 1 -f "$T/ser.sql" -n sbtest
both run_ser_prog_tries "${C[@]}" -c 4 -j 2 -T 2 -P 1 -R 200 -L 50 -f "$T/ser.sql" --max-tries=2 -n sbtest
pf=$(sed -nE 's/^progress: .* ([0-9]+) failed.*/\1/p' "$T/run_ser_prog_lb.err" | awk '{ s += $1 } END { print s + 0 }')
rf=$(sed -nE 's/^number of failed transactions: ([0-9]+) .*/\1/p' "$T/run_ser_prog_lb.out")
[ -n "$(prog "$T/run_ser_prog_lb.err")" ] && [ "$(prog "$T/run_ser_prog_lb.err")" = "$(prog "$T/run_ser_prog_pg.err")" ] &&
  [ -n "$(prog "$T/run_ser_prog_tries_lb.err")" ] &&
  [ "$(prog "$T/run_ser_prog_tries_lb.err")" = "$(prog "$T/run_ser_prog_tries_pg.err")" ] &&
  [ "${pf:-0}" -gt 0 ] && [ "$pf" -le "${rf:-0}" ] && pass progress_failed ||
  fail progress_failed "failed $pf in the lines, $rf in the report: $(grep -m1 progress "$T/run_ser_prog_tries_lb.err") vs $(grep -m1 progress "$T/run_ser_prog_tries_pg.err")"
# -l: a failed transaction's line, as pgbench writes it; in the aggregate
# log, the failure columns (with --failures-detailed) add up to the report's.
logshape() { cat "$1"/pgbench_log.* | awk '{ $3 = ($3 ~ /^[0-9]+$/) ? "N" : $3; print NF, $3 }' | sort -u; }
for v in "failed:" "detailed:--failures-detailed --max-tries=2"; do
  n=${v%%:*}; o=${v#*:}
  for tool in pg lb; do
    rm -rf "$T/lg_$tool" && mkdir "$T/lg_$tool"
    bin=$REAL; [ $tool = lb ] && bin=$PGB
    (cd "$T/lg_$tool" && "$bin" "${C[@]}" -c 4 -j 2 -t 30 -f "$T/ser.sql" -l $o -n sbtest >out 2>err)
  done
  ls_pg=$(logshape "$T/lg_pg"); ls_lb=$(logshape "$T/lg_lb")
  nl=$(cat "$T"/lg_lb/pgbench_log.* | wc -l)
  grep -Eq ' (failed|serialization) ' <(cat "$T"/lg_lb/pgbench_log.*) && [ "$ls_pg" = "$ls_lb" ] && [ "$nl" = 120 ] &&
    pass "log_failed_$n" || fail "log_failed_$n" "$nl lines: $(echo "$ls_lb" | tr '\n' '|') vs $(echo "$ls_pg" | tr '\n' '|')"
done
rm -rf "$T/lg_lb" && mkdir "$T/lg_lb"
(cd "$T/lg_lb" && "$PGB" "${C[@]}" -c 4 -j 2 -T 2 -f "$T/ser.sql" -l --aggregate-interval=1 --failures-detailed -n sbtest >out 2>err)
sf=$(sed -nE 's/^number of serialization failures: ([0-9]+) .*/\1/p' "$T/lg_lb/out")
lf=$(cat "$T"/lg_lb/pgbench_log.* | awk '{ s += $14 } END { print s + 0 }')
lc=$(cat "$T"/lg_lb/pgbench_log.* | awk '{ s += $2 } END { print s + 0 }')
pr=$(sed -nE 's|^number of transactions actually processed: ([0-9]+)$|\1|p' "$T/lg_lb/out")
[ -n "$sf" ] && [ "$sf" -gt 0 ] && [ "$lf" = "$sf" ] && [ "$lc" = "$pr" ] && pass log_aggregate_failures ||
  fail log_aggregate_failures "serialization failures $sf, in the log $lf; processed $pr, in the log $lc"

# A retry draws nothing new: the script logs its value before it conflicts,
# so every try logs a row and the distinct values are one per transaction.
q "TRUNCATE lb_xy_log" >/dev/null
{ echo '\set v random(1, 1000000000)'; echo 'INSERT INTO lb_xy_log VALUES (:v);'; tail -n +2 "$T/ser.sql"; } >"$T/ser_log.sql"
run ser_same_values "$PGB" "${C[@]}" -c 4 -j 2 -t 30 -f "$T/ser_log.sql" --max-tries=10 -n sbtest
rows=$(q "SELECT count(*) FROM lb_xy_log" | tr -d ' '); dv=$(q "SELECT count(DISTINCT v) FROM lb_xy_log" | tr -d ' ')
rt=$(sed -nE 's/^total number of retries: ([0-9]+)$/\1/p' "$T/ser_same_values.out")
[ "$rc" = 0 ] && [ "$dv" = 120 ] && [ -n "$rt" ] && [ "$rt" -gt 0 ] && [ "$rows" = $((120 + rt)) ] && pass ser_retry_same_values ||
  fail ser_retry_same_values "exit $rc: $rows rows, $dv distinct values, retries '$rt'"
run ser_zero_needs_T "$PGB" "${C[@]}" -c 2 -t 5 -f "$T/ser.sql" --max-tries=0 sbtest
[ "$rc" = 1 ] && grep -q 'unlimited number of transaction tries can only be used with --latency-limit or a duration' \
  "$T/ser_zero_needs_T.err" && pass ser_unlimited_needs_T || fail ser_unlimited_needs_T "exit $rc: $(head -2 "$T/ser_zero_needs_T.err")"
# --verbose-errors: pgbench's lines for each failure and what follows it.
errlines() { grep -E '^pgbench: client [0-9]+ ' "$1" | sed -E 's/-?[0-9]+/N/g' | sort -u; }
run ser_verbose_pg "$REAL" "${C[@]}" -c 4 -j 1 -t 10 -f "$T/ser.sql" --max-tries=2 --verbose-errors -n sbtest
run ser_verbose_lb "$PGB" "${C[@]}" -c 4 -j 1 -t 10 -f "$T/ser.sql" --max-tries=2 --verbose-errors -n sbtest
if [ "$rc" = 0 ] && [ -n "$(errlines "$T/ser_verbose_lb.err")" ] &&
   diff <(errlines "$T/ser_verbose_pg.err") <(errlines "$T/ser_verbose_lb.err") >"$T/ser_verbose.diff"; then
  pass ser_verbose_errors
else fail ser_verbose_errors "exit $rc: $(head -4 "$T/ser_verbose.diff" | tr '\n' '|')"; fi

# ---- a run with -v and -s: pgbench_accounts vacuumed too, pgbench's warning on -s ----
vacs() { q "SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'pgbench_accounts'" | tr -d ' '; }
v0=$(vacs)
run vacuum_all "$PGB" "${C[@]}" -v -S -t 1 -s 7 sbtest
# the counter is the server's, flushed when lbench's session ends: read until it moves
for _ in 1 2 3 4 5 6 7 8 9 10; do [ "$(vacs)" -gt "$v0" ] && break; sleep 0.5; done
[ "$rc" = 0 ] && [ "$(vacs)" -gt "$v0" ] && pass vacuum_all || fail vacuum_all "exit $rc, vacuum_count $v0 -> $(vacs)"
grep -qE '^pgbench: warning: scale option ignored, using count from pgbench_branches table \([0-9]+\)$' "$T/vacuum_all.err" &&
  pass scale_ignored_warning || fail scale_ignored_warning "$(head -3 "$T/vacuum_all.err")"

# ---- -d/--debug: pgbench's trace, line for line with one client -------------------
# (the random values are not in it; \set shows its variable alone; pgbench
# says "receiving" again each time it wakes up for the same result, so
# repeated lines count once)
for mode in prepared extended simple; do
  "$REAL" "${C[@]}" -n -t 3 -M $mode -f contrib/pgscript/tpcb-like.sql -d sbtest >/dev/null 2>"$T/debug_$mode.pge"
  run "debug_$mode" "$PGB" "${C[@]}" -n -t 3 -M $mode -f contrib/pgscript/tpcb-like.sql -d sbtest
  # simple mode sends the values themselves: compare without them
  tr_vals() { grep '^pgbench: client' "$1" | sed -E 's/-?[0-9]+/N/g' | uniq; }
  if [ "$rc" = 0 ] && [ "$(grep -c 'client 0 sending' "$T/debug_$mode.err")" = 21 ] &&
     diff <(tr_vals "$T/debug_$mode.pge") <(tr_vals "$T/debug_$mode.err") >"$T/debug_$mode.diff"; then
    pass "debug_$mode"
  else fail "debug_$mode" "exit $rc: $(head -6 "$T/debug_$mode.diff" | tr '\n' '|')"; fi
done
grep -qE "^pgbench: pghost: 127\.0\.0\.1 pgport: $LB_PG_PORT nclients: 1 nxacts: 3 dbName: sbtest$" "$T/debug_simple.err" \
  && pass debug_header || fail debug_header "$(grep -m1 pghost "$T/debug_simple.err")"
# Without -d, none of it.
run no_debug "$PGB" "${C[@]}" -n -t 3 -f contrib/pgscript/tpcb-like.sql sbtest
[ "$rc" = 0 ] && ! grep -q 'client 0 sending' "$T/no_debug.err" && pass no_debug || fail no_debug "exit $rc"

# ---- a server's error in pgbench's words: libpq's whole report ------------------------
# errsame NAME SCRIPT_TEXT [ARGS...]: the same exit status and the same error lines.
errsame() {
  local name=$1 text=$2; shift 2
  printf '%b' "$text" >"$T/$name.sql"
  "$REAL" "${C[@]}" -n -t 1 "$@" -f "$T/$name.sql" sbtest >/dev/null 2>"$T/$name.pge"; local rc_pg=$?
  run "$name" "$PGB" "${C[@]}" -n -t 1 "$@" -f "$T/$name.sql" sbtest
  if [ "$rc" = "$rc_pg" ] && [ -s "$T/$name.err" ] && diff <(grep -v '^pgbench: error: Run was aborted' "$T/$name.pge") \
       <(grep -v '^pgbench: error: Run was aborted' "$T/$name.err") >"$T/$name.diff"; then pass "$name"
  else fail "$name" "exit $rc (pgbench $rc_pg): $(head -6 "$T/$name.diff" | tr '\n' '|')"; fi
}
errsame sqlerr_extended 'select 1;\nselect 1 / 0;\n' -M extended
errsame sqlerr_prepared 'select 1;\nselect 1 / 0;\n' -M prepared
# The statement as written, ';' included, is what the server reports in LINE.
errsame sqlerr_line_extended '\\set aid 5\nselect :aid, nosuchcol from pgbench_branches;\n' -M extended
errsame sqlerr_detail 'do $$ begin raise exception $q$no %$q$, 1 using detail = $q$why$q$, hint = $q$how$q$; end $$;\n' -M simple
errsame copy_in_script 'copy pgbench_branches from stdin;\n'
# A connection that fails: libpq's line, as pgbench prints it.
run no_database "$PGB" "${C[@]}" -n -t 1 no-such-database
[ "$rc" = 1 ] && grep -qx "pgbench: error: connection to server at \"127.0.0.1\", port $LB_PG_PORT failed: FATAL:  database \"no-such-database\" does not exist" "$T/no_database.err" \
  && pass no_database || fail no_database "exit $rc: $(head -2 "$T/no_database.err")"
# A script's syntax error: pgbench's three lines (where, the line, a caret).
for e in '\\set i 1 +' '\\set i (1 +' '\\set x 1 * * 2'; do
  n=syntax_$((${n_syn:-0} + 1)); n_syn=${n#syntax_}
  printf '%b\n' "$e" >"$T/$n.sql"
  "$REAL" -n -t 1 -f "$T/$n.sql" >/dev/null 2>"$T/$n.pge"; rc_pg=$?
  run "$n" "$PGB" -n -t 1 -f "$T/$n.sql"
  [ "$rc" = "$rc_pg" ] && cmp -s "$T/$n.pge" "$T/$n.err" && pass "$n" || fail "$n" "exit $rc (pgbench $rc_pg): $(diff "$T/$n.pge" "$T/$n.err" | tr '\n' '|')"
done

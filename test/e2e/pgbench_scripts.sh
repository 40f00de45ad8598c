#!/usr/bin/env bash
# pgbench's custom scripts (--file, --define, --random-seed) against
# pgbench 15 itself, on the same private PostgreSQL: the same scripts with
# the same seed must print the same debug() values (every function and
# operator, \gset, \aset, \if, in prepared and simple mode) and write the
# same rows from several clients with weighted scripts (threads and
# virtual users); bad scripts refused in one line before anything runs;
# run-time errors naming the client, command, file and line; pgbench's
# logs (-l, --sampling-rate, --aggregate-interval) read by one parser from
# both tools, with lbench's counts equal to its own; and, on a
# private MariaDB, a portable script drawing the values pgbench draws.
# Ports: those of test/e2e/pgbench.sh (5444, 3321), under its lock; set
# LB_PG_SANDBOX_PORT / LB_SANDBOX_PORT / LB_SANDBOX_DIR for other ones.
# shellcheck disable=SC2015  # `cond && pass || fail`: pass and fail always succeed
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
pg_env_clean
suite_lock pgscript_lock /tmp/lbench-test-pgbench.lock 500 "run of the pgbench suites"

export LB_PG_SANDBOX_PORT=${LB_PG_SANDBOX_PORT:-5444}
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR:-/tmp/lbench-test-pgscript-mysql} LB_SANDBOX_PORT=${LB_SANDBOX_PORT:-3321}
PGBENCH=$(command -v pgbench || echo /usr/lib/postgresql/15/bin/pgbench)
S=test/e2e/scripts/pgscript
pg_sandbox_start pgscript
if ! "$PGBENCH" --version 2>/dev/null | grep -q 'PostgreSQL) 15'; then
  fail pgscript_pgbench15 "pgbench 15 not found (contrib/install-deps.sh test installs postgresql-15)"; exit 1
fi
B="$LB pgbench $P"
PGB=(env PGPASSWORD=sbtest PGDATABASE=sbtest "$PGBENCH" -h 127.0.0.1 -p "$LB_PG_PORT" -U sbtest -n)
q() { "${PSQL[@]}" -c "$1" 2>&1; }

# same NAME FILE_A FILE_B: the two outputs' debug lines are equal, and there are some.
same() {
  local n
  n=$(grep -c '^debug' "$2")
  if [ "$n" -gt 0 ] && diff <(grep '^debug' "$2") <(grep '^debug' "$3") >"$T/$1.diff"; then pass "$1"
  else fail "$1" "$n pgbench lines; first differences: $(head -4 "$T/$1.diff" 2>/dev/null)"; fi
}

# ---- every function and operator, value by value ----------------------------------
D=(n=5 t=yes f=of "s= 12" x=2.5e1)
for mode in prepared simple; do
  ps=auto; [ $mode = simple ] && ps=disable
  "${PGB[@]}" -f $S/values.sql -t 3 --random-seed=12345 -M $mode "${D[@]/#/-D}" >/dev/null 2>"$T/pg_values_$mode.err"
  run "values_$mode" $B --file=$S/values.sql --threads=1 --events=3 --random-seed=12345 --db-ps-mode=$ps \
    "${D[@]/#/--define=}" run
  [ "$rc" -eq 0 ] && pass "values_${mode}_run" || fail "values_${mode}_run" "exit $rc: $(grep -v '^debug' "$T/values_$mode.err" | head -3)"
  same "values_$mode" "$T/pg_values_$mode.err" "$T/values_$mode.err"
done
# The same seed again gives the same values; another seed others.
run values_again $B --file=$S/values.sql --threads=1 --events=3 --random-seed=12345 "${D[@]/#/--define=}" run
same values_seed_repeats "$T/values_prepared.err" "$T/values_again.err"
run values_other $B --file=$S/values.sql --threads=1 --events=3 --random-seed=12346 "${D[@]/#/--define=}" run
! diff -q <(grep '^debug' "$T/values_prepared.err") <(grep '^debug' "$T/values_other.err") >/dev/null \
  && pass values_other_seed || fail values_other_seed "seed 12346 drew what 12345 drew"

# Simple mode's text: a value longer than the first buffer, an integer, an
# undefined variable left as written; the same as pgbench.
long=$(printf '%0700d' 0)
"${PGB[@]}" -f $S/text.sql -t 2 -M simple -Dlong="$long" >/dev/null 2>"$T/pg_text.err"
run text_simple $B --file=$S/text.sql --events=2 --protocol=simple --define=long="$long" run
same text_simple "$T/pg_text.err" "$T/text_simple.err"
grep -q '^debug(script=0,command=[0-9]*): int 700$' "$T/text_simple.err" && pass text_simple_long \
  || fail text_simple_long "$(grep -m3 debug "$T/text_simple.err" | tr '\n' ' ')"

# ---- query modes (--protocol, pgbench's -M): what the server sees -----------------------
# Prepared statements on the server (prepared mode only), the type of a
# variable (a literal in simple mode; an untyped parameter in extended and
# prepared mode, which the server refuses there: the client aborts in
# the same command as pgbench's), a compound command (simple mode only).
cmdno() { grep -o 'aborted in command [0-9]*' "$1" | head -1; }
for mode in simple extended prepared; do
  for f in modes compound; do
    "${PGB[@]}" -f $S/$f.sql -t 2 -M $mode >/dev/null 2>"$T/pg_${f}_$mode.err"
    run "${f}_$mode" $B --file=$S/$f.sql --events=2 --protocol=$mode --result-file="$T/${f}_$mode.json" run
    diff <(grep '^debug' "$T/pg_${f}_$mode.err") <(grep '^debug' "$T/${f}_$mode.err") >/dev/null && pass "${f}_$mode" \
      || fail "${f}_$mode" "pgbench: $(grep -c '^debug' "$T/pg_${f}_$mode.err") debug lines; lbench: $(head -c 300 "$T/${f}_$mode.err")"
    [ "$(cmdno "$T/pg_${f}_$mode.err")" = "$(cmdno "$T/${f}_$mode.err")" ] && pass "${f}_${mode}_abort" \
      || fail "${f}_${mode}_abort" "pgbench: $(cmdno "$T/pg_${f}_$mode.err"); lbench: $(cmdno "$T/${f}_$mode.err")"
  done
  json_assert "modes_${mode}_report" "$T/compound_$mode.json" "r.pgbench.query_mode == '$mode'"
done
grep -q 'debug(script=0,command=4): int 7' "$T/modes_simple.err" && grep -q 'aborted in command 2' "$T/modes_extended.err" \
  && grep -q 'debug(script=0,command=2): int 1' "$T/modes_prepared.err" && grep -q 'debug(script=0,command=2): int 0' "$T/modes_extended.err" \
  && grep -q 'debug(script=0,command=2): int 2' "$T/compound_simple.err" && grep -q 'aborted in command 0' "$T/compound_prepared.err" \
  && pass modes_differ || fail modes_differ "the three modes did not send what they should: $(grep -h debug "$T"/modes_*.err | tr '\n' ' ')"
run modes_ps_mode $B --file=$S/modes.sql --events=1 --db-ps-mode=extended --result-file="$T/modes_ps.json" run
json_assert modes_ps_mode "$T/modes_ps.json" "r.pgbench.query_mode == 'extended'"
one_line bad_protocol '^lbench: --protocol=x: expected simple, extended or prepared$' $LB pgbench --db-driver=pgsql --pgsql-port=1 --file=$S/modes.sql --protocol=x run

# ---- several clients, weighted scripts: the rows they write -------------------------
q "DROP TABLE IF EXISTS pgscript_log; CREATE TABLE pgscript_log (tool int, client int, n int, script int, a bigint, g bigint)" >/dev/null
# (24 per client: lbench's 24 events are shared by its clients, not 8 each,
# so any of its clients may run up to all of them)
"${PGB[@]}" -f $S/log1.sql@3 -f $S/log2.sql@2 -c 3 -j 3 -t 24 --random-seed=777 -D n=0 -D tool=0 >/dev/null 2>"$T/pg_log.err"
rows() { q "SELECT count(*) FROM pgscript_log WHERE tool = $1"; }
[ "$(rows 0)" = 72 ] && pass pg_log_rows || fail pg_log_rows "pgbench wrote $(rows 0) rows: $(tail -2 "$T/pg_log.err")"
# lbench's rows (fewer per client) must each be pgbench's row of the same client and number.
differ() { q "SELECT count(*) FROM (SELECT client, n, script, a, g FROM pgscript_log WHERE tool = $1
  EXCEPT SELECT client, n, script, a, g FROM pgscript_log WHERE tool = 0) d"; }
run log_threads $B --file=$S/log1.sql@3 --file=$S/log2.sql@2 --threads=3 --events=24 --random-seed=777 \
  --define=n=0 --define=tool=1 --result-file="$T/log.json" run
[ "$rc" -eq 0 ] && [ "$(rows 1)" = 24 ] && [ "$(differ 1)" = 0 ] && pass log_threads_rows \
  || fail log_threads_rows "exit $rc, $(rows 1) rows, $(differ 1) unlike pgbench's: $(head -3 "$T/log_threads.err")"
json_assert log_threads_types "$T/log.json" 'r.types["'$S'/log1.sql"].events + r.types["'$S'/log2.sql"].events == 24 and r.pgbench.transaction_type == "multiple scripts" and r.pgbench.scripts[1].weight == 3'
run log_vus $B --file=$S/log1.sql@3 --file=$S/log2.sql@2 --threads=1 --connections=3 --events=24 --random-seed=777 \
  --define=n=0 --define=tool=2 run
[ "$rc" -eq 0 ] && [ "$(rows 2)" = 24 ] && [ "$(differ 2)" = 0 ] && pass log_vus_rows \
  || fail log_vus_rows "exit $rc, $(rows 2) rows, $(differ 2) unlike pgbench's: $(head -3 "$T/log_vus.err")"
# Mixed with a built-in script: a tpcb-like transaction is one of the draws.
"${PGB[@]}" -i -s 1 -q >/dev/null 2>&1
run log_builtin $B --builtin=select-only@1 --file=$S/log1.sql@3 --threads=2 --events=40 --random-seed=5 \
  --define=n=0 --define=tool=3 --result-file="$T/log_b.json" run
json_assert log_builtin_mixed "$T/log_b.json" 'r.status == "ok" and r.types["select-only"].events + r.types["'$S'/log1.sql"].events == 40 and r.types["select-only"].events > 0 and r.pgbench.scripts[1].name == "select-only"'
json_assert log_builtin_rows "$T/log_b.json" 'r.types["'$S'/log1.sql"].events == '"$(rows 3)"

# ---- bad scripts: one line, before anything runs --------------------------------------
B0="$LB pgbench --db-driver=pgsql --pgsql-port=1"   # nothing listens there: the refusal comes first
one_line bad_expr "^lbench: $S/bad_expr.sql:2: syntax error in command \"set\": expected an operand, found end of line at column [0-9]+: " \
  $B0 --file=$S/bad_expr.sql run
one_line bad_if "^lbench: $S/bad_if.sql:1: .if without matching .endif$" $B0 --file=$S/bad_if.sql run
one_line bad_sleep "^lbench: $S/bad_sleep.sql:2: unrecognized time unit, must be us, ms or s \(hour\)" $B0 --file=$S/bad_sleep.sql run
one_line bad_command "^lbench: $S/bad_command.sql:1: invalid command in command \"nosuch\"$" $B0 --file=$S/bad_command.sql run
one_line bad_args "^lbench: $S/bad_args.sql:1: unexpected number of arguments \(random\)" $B0 --file=$S/bad_args.sql run
one_line bad_file '^lbench: could not open file "/nonexistent.sql"' $B0 --file=/nonexistent.sql run
one_line bad_weight '^lbench: invalid weight specification: @x$' $B0 --file=$S/values.sql@x run
one_line bad_seed '^lbench: --random-seed=x: expected an unsigned integer, "time" or "rand"$' $B0 --file=$S/values.sql --random-seed=x run
printf '\\sleep\n' >"$T/sleep0.sql"
one_line bad_sleep_arg "^lbench: $T/sleep0.sql:1: missing argument in command \"sleep\": .sleep$" $B0 --file="$T/sleep0.sql" run
{ printf '\\shell echo'; for _ in $(seq 255); do printf ' a'; done; echo; } >"$T/shell256.sql"
one_line bad_shell_args "^lbench: $T/shell256.sql:1: too many arguments in command \"shell\"$" $B0 --file="$T/shell256.sql" run
one_line bad_define '^lbench: invalid variable definition: "novalue"$' $B0 --file=$S/values.sql --define=novalue run

# ---- run-time errors: the client aborts alone; which client, command, script, where, what ----
# aborted NAME REGEX CMD...: a non-zero exit, no traceback, the client's
# line on stderr matching REGEX, and the run's last line saying it was aborted.
aborted() {
  local name=$1 re=$2; shift 2
  run "$name" "$@"
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 124 ] || grep -q 'stack traceback' "$T/$name.err"; then
    fail "$name" "exit $rc: $(head -c 400 "$T/$name.err")"
  elif ! grep -Eq -- "$re" "$T/$name.err"; then fail "$name" "stderr does not match /$re/: $(head -c 400 "$T/$name.err")"
  elif ! tail -1 "$T/$name.err" | grep -Eq '^lbench: run aborted: [0-9]+ of [0-9]+ client\(s\) aborted'; then
    fail "$name" "last line: $(tail -1 "$T/$name.err")"
  else pass "$name"; fi
}
aborted div_zero "^lbench: client 0 aborted in command 1 \(set\) of script 0 \($S/divzero.sql:2\); evaluation of meta-command failed: division by zero$" \
  $B --file=$S/divzero.sql --threads=1 --events=5 run
aborted no_gset_row "^lbench: client 0 aborted in command 0 \(SQL\) of script 0 \($S/nogset.sql:1\); .gset: query 0: expected one row, got 0$" \
  $B --file=$S/nogset.sql --threads=1 --events=5 run
printf '\\shell lbench-no-such-command-x\n' >"$T/shellfail.sql"
aborted shell_failed "^lbench: client 0 aborted in command 0 \(shell\) of script 0 \($T/shellfail.sql:1\); execution of meta-command failed: shell: could not launch shell command$" \
  $B --file="$T/shellfail.sql" --threads=1 --events=5 run
aborted gset_bad_name "^lbench: client 0 aborted in command 0 \(SQL\) of script 0 \($S/gset_badname.sql:1\); error storing into variable bad name!$" \
  $B --file=$S/gset_badname.sql --threads=1 --events=5 run
aborted undefined_var '^lbench: client 0 aborted in command 0 \(set\) of script 0 .*: undefined variable "n"$' \
  $B --file=$S/log1.sql --threads=1 --events=5 run
aborted sql_error "^lbench: client 0 aborted in command 0 \(SQL\) of script 0 \($S/sqlerr.sql:2\); SQL error, state = '42703': column \"nosuchcol\" does not exist" \
  $B --file=$S/sqlerr.sql --threads=1 --events=5 run
# One client of three fails: pgbench and lbench abort that one alone, in the same command, and
# the others write their rows; lbench counts exactly the transactions they made.
"${PGB[@]}" -f $S/abort_one.sql -c 3 -j 3 -t 5 -D tool=20 >/dev/null 2>"$T/pg_abort.err"
pg_rc=$?
[ "$pg_rc" = 2 ] && [ "$(rows 20)" = 10 ] && pass pg_abort_one || fail pg_abort_one "pgbench: exit $pg_rc, $(rows 20) rows"
for mode in threads vus; do
  [ $mode = threads ] && how=(--threads=3) || how=(--threads=1 --connections=3)
  aborted "abort_one_$mode" "^lbench: client 1 aborted in command 1 \(set\) of script 0 \($S/abort_one.sql:3\); evaluation of meta-command failed: division by zero$" \
    $B --file=$S/abort_one.sql "${how[@]}" --time=1 --define=tool=21 --result-file="$T/abort_$mode.json" run
  json_assert "abort_one_${mode}_counts" "$T/abort_$mode.json" "r.pgbench.aborted_clients == 1 and r.totals.events > 0 and r.totals.events == $(rows 21)"
  [ "$(q "SELECT count(DISTINCT client) || ',' || count(*) FILTER (WHERE client = 1) FROM pgscript_log WHERE tool = 21")" = 2,0 ] \
    && [ "$(grep -c 'aborted in' "$T/abort_one_$mode.err")" = 1 ] && pass "abort_one_${mode}_others_go_on" \
    || fail "abort_one_${mode}_others_go_on" "rows by client: $(q "SELECT client, count(*) FROM pgscript_log WHERE tool = 21 GROUP BY 1")"
  q "DELETE FROM pgscript_log WHERE tool = 21" >/dev/null
done
# pgbench names the same client and command.
where() { grep -o 'client [0-9]* aborted in command [0-9]* ([a-z]*) of script [0-9]*' "$1"; }
[ -n "$(where "$T/pg_abort.err")" ] && [ "$(where "$T/pg_abort.err")" = "$(where "$T/abort_one_threads.err")" ] \
  && pass abort_one_as_pgbench || fail abort_one_as_pgbench "pgbench: $(where "$T/pg_abort.err"); lbench: $(where "$T/abort_one_threads.err")"

# A script that ends inside a transaction block: each client runs it once,
# that transaction counted, then aborts (as pgbench, whose figures must match).
printf 'BEGIN;\nSELECT 1;\n' >"$T/open_tx.sql"
"${PGB[@]}" -f "$T/open_tx.sql" -c 2 -j 2 -t 3 >"$T/pg_open_tx.out" 2>"$T/pg_open_tx.err"
pg_rc=$?
aborted open_tx "^lbench: client [01] aborted: end of script reached without completing the last transaction$" \
  $B --file="$T/open_tx.sql" --threads=2 --events=6 --result-file="$T/open_tx.json" run
json_assert open_tx_counted "$T/open_tx.json" 'r.pgbench.aborted_clients == 2 and r.totals.events == 2'
[ "$pg_rc" = 2 ] && grep -q 'actually processed: 2/6' "$T/pg_open_tx.out" \
  && [ "$(grep -c 'end of script reached without completing the last transaction' "$T/pg_open_tx.err")" = 2 ] \
  && pass open_tx_as_pgbench || fail open_tx_as_pgbench "pgbench: exit $pg_rc, $(grep processed "$T/pg_open_tx.out")"
# Closed, the same script runs to the end.
printf 'BEGIN;\nSELECT 1;\nCOMMIT;\n' >"$T/closed_tx.sql"
expect_ok closed_tx 'transactions: +6 ' $B --file="$T/closed_tx.sql" --threads=2 --events=6 run

# ---- logs: pgbench's files, read by one parser -------------------------------------------
# logcheck KIND FILE...: what a parser of pgbench's logs reads (KIND txn:
# 6 fields, lag: 7 with the schedule lag, sampled: 6 with gaps in the
# numbers, agg: 15 fields over consecutive intervals of IVL seconds);
# prints the transactions it counted, or "bad: FILE:LINE: why".
logcheck() {
  local kind=$1; shift
  awk -v kind="$kind" -v ivl="${IVL:-1}" '
    function bad(why) { print "bad: " FILENAME ":" FNR ": " why; err = 1; exit 1 }
    {
      for (i = 1; i <= NF; i++) if ($i !~ /^[0-9]+$/) bad("field " i " is not a count: " $i)
      if (kind == "agg") {
        if (NF != 15) bad(NF " fields")
        if ($2 > 0 && ($5 > $6 || $3 < $5 * $2 || $3 > $6 * $2)) bad("min/max/sum disagree")
        if ((FILENAME in last) && $1 != last[FILENAME] + ivl) bad("interval " $1 " after " last[FILENAME])
        last[FILENAME] = $1; n += $2; next
      }
      if (NF != (kind == "lag" ? 7 : 6)) bad(NF " fields")
      if ($6 >= 1000000 || $5 < 1700000000) bad("time " $5 " " $6)
      if (kind != "sampled" && $2 != seen[$1] + 1) bad("transaction " $2 " of client " $1 " after " seen[$1] + 0)
      if (kind == "sampled" && $2 <= seen[$1]) bad("transaction " $2 " of client " $1 " after " seen[$1])
      seen[$1] = $2; n++
    }
    END { if (!err) print n + 0 }' "$@"
}
# logs_ok NAME KIND WANT FILE...: the parser reads them all and counts WANT.
logs_ok() {
  local name=$1 kind=$2 want=$3 got; shift 3
  got=$(logcheck "$kind" "$@" 2>&1)
  [ "$got" = "$want" ] && pass "$name" || fail "$name" "counted '$got', expected $want"
}
events() { $LB test/cli/scripts/json_assert.lua check --file="$1" --expr='print(r.totals.events) or true' 2>/dev/null | head -1; }
PGL="$T/pgl" LBL="$T/lbl"
mkdir -p "$PGL" "$LBL"
(cd "$PGL" && "${PGB[@]}" -f "$OLDPWD/$S/log1.sql" -D n=0 -D tool=9 -c 2 -j 2 -t 15 -l >/dev/null 2>&1)
# names DIR: the files' names, the process id as PID.
names() { for f in "$1"/*; do basename "$f"; done | sed -E 's/\.[0-9]+(\.|$)/.PID\1/' | sort | tr '\n' ' '; }
[ "$(names "$PGL")" = "pgbench_log.PID pgbench_log.PID.1 " ] && pass pg_log_names || fail pg_log_names "pgbench wrote: $(names "$PGL")"
logs_ok pg_log_parsed txn 30 "$PGL"/pgbench_log.*
run lb_log $B --file=$S/log1.sql --define=n=0 --define=tool=9 --threads=2 --time=2 --log --log-prefix="$LBL/lb" \
  --result-file="$T/lb_log.json" run
n=$(events "$T/lb_log.json")
[ "$(names "$LBL")" = "lb.PID lb.PID.1 " ] && pass lb_log_names || fail lb_log_names "lbench wrote: $(names "$LBL")"
[ "$rc" -eq 0 ] && [ "${n:-0}" -gt 0 ] && logs_ok lb_log_counts txn "$n" "$LBL"/lb.* \
  || fail lb_log_counts "exit $rc, $n events: $(head -3 "$T/lb_log.err")"
[ "$(awk '$4 != 0' "$LBL"/lb.* | wc -l)" = 0 ] && [ "$(cut -d' ' -f1 "$LBL"/lb.* | sort -u | tr '\n' ' ')" = "0 1 " ] \
  && pass lb_log_fields || fail lb_log_fields "script numbers or client ids: $(head -2 "$LBL"/lb.*)"
# Virtual users: a thread's clients share its file; built-in scripts are logged too, their script numbers.
rm -f "$LBL"/*
run lb_log_vus $B --builtin=select-only@1,simple-update@1 --threads=2 --connections=5 --events=300 --log \
  --log-prefix="$LBL/vu" --result-file="$T/lb_log_vus.json" run
[ "$rc" -eq 0 ] && [ "$(names "$LBL")" = "vu.PID vu.PID.1 " ] && logs_ok lb_log_vus txn 300 "$LBL"/vu.* \
  || fail lb_log_vus "exit $rc, files $(names "$LBL"): $(head -3 "$T/lb_log_vus.err")"
[ "$(cut -d' ' -f1,4 "$LBL"/vu.* | sort -u | wc -l)" = 10 ] && pass lb_log_vus_ids \
  || fail lb_log_vus_ids "client/script pairs: $(cut -d' ' -f1,4 "$LBL"/vu.* | sort -u | tr '\n' ,)"
# Under --rate: the schedule lag as a seventh field.
rm -f "$LBL"/*
run lb_log_rate $B --file=$S/log1.sql --define=n=0 --define=tool=9 --threads=1 --events=20 --rate=200 --log \
  --log-prefix="$LBL/r" run
logs_ok lb_log_rate lag 20 "$LBL"/r.*
(cd "$PGL" && rm -f ./* && "${PGB[@]}" -f "$OLDPWD/$S/log1.sql" -D n=0 -D tool=9 -c 1 -t 20 -R 200 -l >/dev/null 2>&1)
logs_ok pg_log_rate lag 20 "$PGL"/pgbench_log.*
# Each line's figures against a known wait and the wall clock, for both
# tools: a transaction of \sleep 30 ms logs a latency of 30 000 us or more
# (less than 0.5 s more), its end (epoch s and us) lies between the wall
# clock's readings before and after the run, and consecutive ends are at
# least 30 ms apart.
printf '\\sleep 30 ms\nSELECT 1;\n' > "$T/sleep30.sql"
# timed_ok NAME T0 T1 FILE...: the check above on the lines of FILE...
timed_ok() {
  local name=$1 t0=$2 t1=$3; shift 3
  local bad
  bad=$(cat "$@" | awk -v t0="$t0" -v t1="$t1" '{ end = $5 * 1000000 + $6
      if ($3 < 30000 || $3 >= 530000) print "latency " $3
      if (end < t0 || end > t1) print "end " end " outside " t0 "-" t1
      if (NR > 1 && end - last < 30000) print "ends " last " and " end
      last = end } END { if (NR != 8) print NR " lines" }')
  [ -z "$bad" ] && pass "$name" || fail "$name" "$(echo "$bad" | head -3 | tr '\n' ';')"
}
rm -f "$LBL"/*
t0=$(date +%s%6N)
run lb_log_sleep $B --file="$T/sleep30.sql" --threads=1 --events=8 --log --log-prefix="$LBL/w" run
timed_ok lb_log_timed "$t0" "$(date +%s%6N)" "$LBL"/w.*
rm -f "$PGL"/*
t0=$(date +%s%6N)
(cd "$PGL" && "${PGB[@]}" -f "$T/sleep30.sql" -c 1 -t 8 -l >/dev/null 2>&1)
timed_ok pg_log_timed "$t0" "$(date +%s%6N)" "$PGL"/pgbench_log.*
# --sampling-rate: the same seed logs the same transactions as pgbench's.
(cd "$PGL" && rm -f ./* && "${PGB[@]}" -f "$OLDPWD/$S/log1.sql" -D n=0 -D tool=9 -c 1 -t 40 --random-seed=31 -l \
  --sampling-rate=0.3 >/dev/null 2>&1)
rm -f "$LBL"/*
run lb_log_sampled $B --file=$S/log1.sql --define=n=0 --define=tool=9 --threads=1 --events=40 --random-seed=31 --log \
  --sampling-rate=0.3 --log-prefix="$LBL/s" run
picked() { cut -d' ' -f1,2 "$@" | tr '\n' ' '; }
p=$(picked "$PGL"/pgbench_log.*) l=$(picked "$LBL"/s.*)
[ -n "$p" ] && [ "$p" = "$l" ] && [ "$(logcheck sampled "$LBL"/s.*)" -lt 40 ] && pass lb_log_sampled_as_pgbench \
  || fail lb_log_sampled_as_pgbench "pgbench logged [$p], lbench [$l]"
# --aggregate-interval: pgbench's 15 columns; lbench's counts add up to its transactions.
(cd "$PGL" && rm -f ./* && "${PGB[@]}" -f "$OLDPWD/$S/log1.sql" -D n=0 -D tool=9 -c 2 -j 2 -T 2 -l \
  --aggregate-interval=1 >/dev/null 2>&1)
got=$(logcheck agg "$PGL"/pgbench_log.*)
[ "${got:-0}" -gt 0 ] 2>/dev/null && pass pg_log_agg_parsed || fail pg_log_agg_parsed "$got"
rm -f "$LBL"/*
run lb_log_agg $B --file=$S/log1.sql --define=n=0 --define=tool=9 --threads=2 --time=3 --log --aggregate-interval=1 \
  --log-prefix="$LBL/a" --result-file="$T/lb_log_agg.json" run
logs_ok lb_log_agg agg "$(events "$T/lb_log_agg.json")" "$LBL"/a.*
one_line log_refused '^lbench: log sampling \(--sampling-rate\) and aggregation \(--aggregate-interval\) cannot be used at the same time$' \
  $B0 --file=$S/log1.sql --log --sampling-rate=0.5 --aggregate-interval=1 run
one_line log_needed '^lbench: log aggregation is allowed only when actually logging transactions$' \
  $B0 --file=$S/log1.sql --aggregate-interval=1 run
q "DELETE FROM pgscript_log WHERE tool = 9" >/dev/null

# ---- MySQL/MariaDB: the same draws as pgbench's on PostgreSQL ------------------------------
"${PGB[@]}" -f $S/portable.sql -t 4 --random-seed=99 >/dev/null 2>"$T/pg_portable.err"
sandbox_start pgscript_mysql
trap 'contrib/mariadb-sandbox.sh stop >/dev/null 2>&1; contrib/postgres-sandbox.sh stop >/dev/null 2>&1 && rm -rf "$PGBASE"; rm -rf "$T"' EXIT
for ps in auto disable extended; do
  run "mysql_portable_$ps" $LB pgbench $M --file=$S/portable.sql --threads=1 --events=4 --random-seed=99 --db-ps-mode=$ps run
  [ "$rc" -eq 0 ] && pass "mysql_portable_${ps}_run" || fail "mysql_portable_${ps}_run" "exit $rc: $(grep -v '^debug' "$T/mysql_portable_$ps.err" | head -3)"
  same "mysql_portable_$ps" "$T/pg_portable.err" "$T/mysql_portable_$ps.err"
done
# MariaDB's server status says when a script left its transaction open.
aborted mysql_open_tx "^lbench: client 0 aborted: end of script reached without completing the last transaction$" \
  $LB pgbench $M --file="$T/open_tx.sql" --threads=1 --events=3 --vacuum=off run
expect_ok mysql_closed_tx 'transactions: +3 ' $LB pgbench $M --file="$T/closed_tx.sql" --threads=1 --events=3 --vacuum=off run

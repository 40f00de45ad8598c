#!/usr/bin/env bash
# pgbench's pipelines (\startpipeline, \syncpipeline, \endpipeline) against
# pgbench 15 itself, on one private PostgreSQL: the same script with the
# same seed writes the same rows in extended and prepared mode (one
# client: lbench's -t is shared by the clients), -r lists the same
# commands, pgbench's aborts (simple mode, nested, \endpipeline alone,
# \gset and \aset inside, a script ending with its pipeline open, a
# statement's error) have pgbench's words and exit status, many clients
# over virtual users write every row, a serialization failure inside a
# pipeline is retried; and on a private MariaDB the script is refused
# before the run in one line naming FILE:LINE.
# Ports: PostgreSQL 4493, MariaDB 3323 (LB_PG_SANDBOX_PORT,
# LB_SANDBOX_PORT, LB_SANDBOX_DIR for others).
# shellcheck disable=SC2015  # `cond && pass || fail`: pass and fail always succeed
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
pg_env_clean
export LB_PG_SANDBOX_PORT=${LB_PG_SANDBOX_PORT:-4493}
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR:-/tmp/lbench-test-pgpipe-mysql} LB_SANDBOX_PORT=${LB_SANDBOX_PORT:-3323}
REAL=$(command -v pgbench || echo /usr/lib/postgresql/15/bin/pgbench)
pg_sandbox_start pgpipe
if ! "$REAL" --version 2>/dev/null | grep -q 'PostgreSQL) 15'; then
  fail pgpipe_pgbench15 "pgbench 15 not found (contrib/install-deps.sh test installs postgresql-15)"; exit 1
fi
export PGPASSWORD=sbtest PGHOST=127.0.0.1 PGPORT=$LB_PG_PORT PGUSER=sbtest PGDATABASE=sbtest
PGB=("$LB" --pgbench-compat)
q() { "${PSQL[@]}" -c "$1" 2>&1; }
q "CREATE TABLE pp (c int, k int, v int)" >/dev/null

# The pipeline's rows: three statements, then a transaction in one.
cat >"$T/rows.sql" <<'EOF'
\set v random(1, 1000000)
\startpipeline
insert into pp values (:client_id, 1, :v);
insert into pp values (:client_id, 2, :v + 1);
select :v;
\endpipeline
\startpipeline
begin;
insert into pp values (:client_id, 3, :v + 2);
end;
\endpipeline
EOF
rows() { "${PSQL[@]}" -c "SELECT c, k, v FROM pp ORDER BY 1, 2, 3"; }
for m in extended prepared; do
  q "TRUNCATE pp" >/dev/null
  run "rows_${m}_pg" "$REAL" -n -M $m -t 10 --random-seed=31 -f "$T/rows.sql" -r
  rows >"$T/rows_$m.pg"
  q "TRUNCATE pp" >/dev/null
  run "rows_${m}_lb" "${PGB[@]}" -n -M $m -t 10 --random-seed=31 -f "$T/rows.sql" -r
  rows >"$T/rows_$m.lb"
  [ "$rc" = 0 ] && [ "$(wc -l <"$T/rows_$m.lb")" = 30 ] && cmp -s "$T/rows_$m.pg" "$T/rows_$m.lb" && pass "rows_$m" ||
    fail "rows_$m" "exit $rc, $(wc -l <"$T/rows_$m.lb") rows: $(diff "$T/rows_$m.pg" "$T/rows_$m.lb" | head -4 | tr '\n' '|')"
  # -r: the same commands in the same order, the pipeline's own lines included
  cmds() { sed -n '/^statement latencies/,$p' "$1" | sed -E 's/^ +[0-9.]+ +[0-9]+ +//'; }
  diff <(cmds "$T/rows_${m}_pg.out") <(cmds "$T/rows_${m}_lb.out") >"$T/r_$m.diff" && grep -q '\\endpipeline' "$T/rows_${m}_lb.out" &&
    pass "per_command_$m" || fail "per_command_$m" "$(head -6 "$T/r_$m.diff" | tr '\n' '|')"
done

# \syncpipeline (pgbench 17's; pgbench 15 has none): the same rows as
# pgbench's run of the script without it.
sed 's/^\(insert into pp values (:client_id, 1, :v);\)$/\1\n\\syncpipeline/' "$T/rows.sql" >"$T/sync.sql"
grep -q syncpipeline "$T/sync.sql" || fail sync_script "no \\syncpipeline in $T/sync.sql"
q "TRUNCATE pp" >/dev/null
run sync_lb "${PGB[@]}" -n -M prepared -t 10 --random-seed=31 -f "$T/sync.sql"
rows >"$T/sync.lb"
[ "$rc" = 0 ] && cmp -s "$T/rows_prepared.pg" "$T/sync.lb" && pass syncpipeline ||
  fail syncpipeline "exit $rc: $(head -2 "$T/sync_lb.err") $(diff "$T/rows_prepared.pg" "$T/sync.lb" | head -3 | tr '\n' '|')"

# ---- aborts: pgbench's words and status ----------------------------------------
# first_error FILE: the first error line, lbench's "(FILE:LINE)" aside.
first_error() { grep -m1 'error:' "$1" | sed -E 's#^[^ ]*pgbench:#pgbench:#; s/ \([^()]*:[0-9]+\);/;/'; }
abort_case() {
  local name=$1 mode=$2 text=$3
  printf '%b' "$text" >"$T/$name.sql"
  run "${name}_pg" "$REAL" -n -M "$mode" -t 1 -f "$T/$name.sql"; local rc_pg=$rc
  run "${name}_lb" "${PGB[@]}" -n -M "$mode" -t 1 -f "$T/$name.sql"
  local w_pg w_lb
  w_pg=$(first_error "$T/${name}_pg.err"); w_lb=$(first_error "$T/${name}_lb.err")
  [ "$rc" = "$rc_pg" ] && [ -n "$w_pg" ] && [ "$w_pg" = "$w_lb" ] && pass "abort_$name" ||
    fail "abort_$name" "exit $rc (pgbench $rc_pg): '$w_lb' vs '$w_pg'"
}
abort_case simple simple '\\startpipeline\nselect 1;\n\\endpipeline\n'
abort_case twice extended '\\startpipeline\n\\startpipeline\n\\endpipeline\n'
abort_case nostart extended 'select 1;\n\\endpipeline\n'
abort_case gset extended '\\startpipeline\nselect 1 as f \\gset\n\\endpipeline\n'
abort_case aset prepared '\\startpipeline\nselect 1 as f \\aset\n\\endpipeline\n'
abort_case open prepared '\\startpipeline\nselect 1;\n'
abort_case argument extended '\\startpipeline now\nselect 1;\n\\endpipeline\n'
# A statement's error ends the pipeline at \endpipeline (the command pgbench
# names too); pgbench words it in its own way there: status and command.
printf '\\startpipeline\nselect 1/0;\nselect 2;\n\\endpipeline\n' >"$T/err.sql"
run err_pg "$REAL" -n -M extended -t 1 -f "$T/err.sql"; rc_pg=$rc
run err_lb "${PGB[@]}" -n -M extended -t 1 -f "$T/err.sql"
[ "$rc" = "$rc_pg" ] && grep -q 'aborted in command 3 .*division by zero' "$T/err_lb.err" && pass abort_statement_error ||
  fail abort_statement_error "exit $rc (pgbench $rc_pg): $(head -2 "$T/err_lb.err")"

# ---- many clients, virtual users ------------------------------------------------
q "TRUNCATE pp" >/dev/null
run vu "${PGB[@]}" -n -M prepared -c 6 -j 2 -t 5 -f "$T/sync.sql"
n=$("${PSQL[@]}" -c "SELECT count(*) FROM pp")
[ "$rc" = 0 ] && [ "$n" = 90 ] && pass virtual_users || fail virtual_users "exit $rc, $n rows (90): $(head -3 "$T/vu.err")"

# A serialization failure inside a pipeline: retried (lbench's own name
# retries until it passes), every transaction's rows there once.
q "CREATE TABLE pq (id int PRIMARY KEY, n int); INSERT INTO pq VALUES (1, 0)" >/dev/null
cat >"$T/ser.sql" <<'EOF'
\startpipeline
begin isolation level repeatable read;
update pq set n = n + 1 where id = 1;
select pg_sleep(0.01);
end;
\endpipeline
EOF
run serial "$LB" pgbench $P --file="$T/ser.sql" --protocol=extended --threads=3 --events=30 --vacuum=off run
n=$("${PSQL[@]}" -c "SELECT n FROM pq")
[ "$rc" = 0 ] && [ "$n" = 30 ] && grep -q 'retr' "$T/serial.out" && pass serialization_retried ||
  fail serialization_retried "exit $rc, n = $n (30): $(head -3 "$T/serial.err")"

# ---- MySQL/MariaDB: refused before the run --------------------------------------
sandbox_start pgpipe_mysql
trap 'contrib/mariadb-sandbox.sh stop >/dev/null 2>&1; contrib/postgres-sandbox.sh stop >/dev/null 2>&1 && rm -rf "$PGBASE"; rm -rf "$T"' EXIT
one_line mysql_refused "^lbench: $T/rows.sql:2: \\\\startpipeline needs PostgreSQL's pipeline mode" \
  "$LB" pgbench $M --file="$T/rows.sql" --threads=1 --events=1 run

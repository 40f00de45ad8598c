#!/usr/bin/env bash
# slap (mysqlslap's job) end to end against a private MariaDB (its own
# sandbox on port 3367): every load type, exact statement counts checked
# against the server's Com_* counters and the result document, --query and
# --create from files and strings, --commit, --detach, the schema dropped or
# kept, JSON/CSV/--csv output, compare on two slap results, option errors.
# No timing assertions.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR_SLAP:-/tmp/lbench-test-slap} LB_SANDBOX_PORT=${LB_SANDBOX_PORT_SLAP:-3367}
# Two copies of this suite (concurrent `make test` runs) would share the
# sandbox and its counters: the second waits for the first to finish.
sandbox_lock slap
sandbox_start slap
M="--mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-user=sbtest --mysql-password=sbtest"   # no --mysql-db: slap works in its own schema (--create-schema)
SQL() { mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest -N -B -e "$1" 2>&1; }
stat() { SQL "SHOW GLOBAL STATUS LIKE '$1'" | awk '{print $2}'; }
# delta NAME CMD...: runs CMD (as `run NAME`), sets $d_<counter> for the
# Com_select/insert/update/commit deltas over it.
delta() {
  local name=$1; shift
  local s0 i0 u0 c0
  s0=$(stat Com_select); i0=$(stat Com_insert); u0=$(stat Com_update); c0=$(stat Com_commit)
  run "$name" "$@"
  d_select=$(( $(stat Com_select) - s0 )); d_insert=$(( $(stat Com_insert) - i0 ))
  d_update=$(( $(stat Com_update) - u0 )); d_commit=$(( $(stat Com_commit) - c0 ))
}
ok_run() { # ok_run NAME: the last `run` exited 0
  [ "$rc" -eq 0 ] && pass "$1" || fail "$1" "exit $rc: $(head -c 400 "$T/$1.err")"
}
eq() { # eq NAME GOT WANT
  [ "$2" = "$3" ] && pass "$1" || fail "$1" "got '$2', want '$3'"
}
A="--auto-generate-sql"
# Levels 1,2 x 2 iterations x 60 statements = 240 statements per job.
L="--concurrency=1,2 --iterations=2 --number-of-queries=60"

# ---- load types: counts on the server --------------------------------------
delta slap_read $LB slap $M $A --auto-generate-sql-load-type=read --auto-generate-sql-write-number=0 $L \
  --result-file="$T/read.json" run
ok_run slap_read
eq slap_read_com_select "$d_select" 240
n=$(grep -c '^Benchmark$' "$T/slap_read.out"); eq slap_read_blocks "$n" 2
for re in 'Average number of seconds to run all queries: [0-9]+\.[0-9]{3} seconds' \
          'Minimum number of seconds to run all queries: ' 'Maximum number of seconds to run all queries: ' \
          'Number of clients running queries: 2$' 'Average number of queries per client: 30$' \
          'Queries per second: [0-9.]+' 'Query latency \(ms\): min [0-9.]+  avg [0-9.]+  p50 [0-9.]+  p95 [0-9.]+  p99 [0-9.]+  max'; do
  grep -Eq -- "$re" "$T/slap_read.out" && pass "slap_output_$(echo "$re" | cut -c1-24 | tr -c 'a-zA-Z0-9\n' _)" \
    || fail slap_output "no line /$re/ in: $(head -c 400 "$T/slap_read.out")"
done
json_assert slap_read_doc "$T/read.json" 'r.scenario == "slap" and r.status == "ok" and #r.slap.runs == 4 and #r.slap.summary == 2 and r.totals.statements == 240 and r.totals.queries_by_type.select == 240 and r.slap.load_type == "read"'
json_assert slap_read_runs "$T/read.json" 'r.slap.runs[1].concurrency == 1 and r.slap.runs[1].iteration == 1 and r.slap.runs[4].concurrency == 2 and r.slap.runs[4].iteration == 2 and r.slap.runs[4].statements == 60 and r.slap.runs[4].latency_ms.percentiles["99"] > 0'
json_assert slap_read_summary "$T/read.json" 'r.slap.summary[2].min_s <= r.slap.summary[2].avg_s and r.slap.summary[2].avg_s <= r.slap.summary[2].max_s and r.slap.summary[2].statements_per_client == 30 and r.slap.summary[2].latency_ms.count == 120 and r.latency_ms.count == 240'
# What the server did in each round (--server-stats): its Questions counter
# saw at least the round's statements; the server's identity once.
json_assert slap_read_server "$T/read.json" 'r.server.product == "MariaDB" and r.server.stats == nil and (function()
  for _, run in ipairs(r.slap.runs) do
    if math.floor(run.server.questions_per_sec * run.server.window_s + 0.5) < run.statements then return false end
    if run.host == nil then return false end -- (its CPU shares may be absent: a round can be under a clock tick)
  end
  return true end)()'
eq slap_schema_dropped "$(SQL "SHOW DATABASES LIKE 'mysqlslap'")" ""

# ---- the run history: slap's document stored as written --------------------------
run slap_history $LB slap $M $A --auto-generate-sql-load-type=read --auto-generate-sql-write-number=0 \
  --concurrency=1 --iterations=1 --number-of-queries=10 --result-file="$T/hist.json" --history="$T/slap.db" run
ok_run slap_history
$LB history show 1 --history="$T/slap.db" >"$T/hist_show.json" 2>"$T/hist_show.err"
check slap_history_show_equals_file cmp "$T/hist_show.json" "$T/hist.json"
expect_ok slap_history_list ' slap +run +.*concurrency=1 .*number_of_queries=10 .* ok$' $LB history list --history="$T/slap.db"

delta slap_write $LB slap $M $A --auto-generate-sql-load-type=write --auto-generate-sql-write-number=0 $L run
ok_run slap_write
eq slap_write_com_insert "$d_insert" 240

delta slap_update $LB slap $M $A --auto-generate-sql-load-type=update --auto-generate-sql-add-autoincrement $L run
ok_run slap_update
eq slap_update_com_update "$d_update" 240

delta slap_mixed $LB slap $M $A --auto-generate-sql-load-type=mixed --auto-generate-sql-write-number=0 $L \
  --result-file="$T/mixed.json" run
ok_run slap_mixed
eq slap_mixed_com_insert_select "$((d_insert + d_select))" 240
# Every client alternates INSERT, SELECT from the top: 30 each per round.
json_assert slap_mixed_doc "$T/mixed.json" 'r.totals.queries_by_type.insert == 120 and r.totals.queries_by_type.select == 120'

run slap_key $LB slap $M $A --auto-generate-sql-load-type=key --auto-generate-sql-add-autoincrement $L --result-file="$T/key.json" run
ok_run slap_key
json_assert slap_key_doc "$T/key.json" 'r.totals.statements == 240 and r.totals.queries_by_type.select == 240 and r.status == "ok"'

run slap_guid $LB slap $M $A --auto-generate-sql-load-type=key --auto-generate-sql-guid-primary \
  --auto-generate-sql-secondary-indexes=2 --number-int-cols=3 --number-char-cols=2 --concurrency=3 \
  --number-of-queries=100 --result-file="$T/guid.json" run
ok_run slap_guid_key
json_assert slap_guid_doc "$T/guid.json" 'r.totals.statements == 100 and r.totals.queries_by_type.select == 100 and r.slap.summary[1].statements_per_client == 33'

run slap_exec_number $LB slap $M $A --auto-generate-sql-load-type=write --auto-generate-sql-execute-number=7 \
  --concurrency=3 --result-file="$T/exec.json" run
json_assert slap_execute_number "$T/exec.json" 'r.totals.statements == 21 and r.totals.queries_by_type.insert == 21'

# Without --number-of-queries every client runs the statement list once.
run slap_default_count $LB slap $M $A --auto-generate-sql-load-type=read --auto-generate-sql-unique-query-number=4 \
  --concurrency=3 --result-file="$T/dflt.json" run
json_assert slap_default_count "$T/dflt.json" 'r.totals.statements == 12'

# ---- --create and --query from files --------------------------------------
printf 'CREATE TABLE a (b int, c varchar(20));\nINSERT INTO a VALUES (23, "x");\n' >"$T/create.sql"
printf -- '-- comments are skipped\nINSERT INTO a VALUES (1, "y");\nSELECT * FROM a\n  WHERE b = 23;\n' >"$T/query.sql"
delta slap_files $LB slap $M --create="$T/create.sql" --query="$T/query.sql" --delimiter=';' \
  --concurrency=2,3 --iterations=2 --number-of-queries=11 --result-file="$T/files.json" run
ok_run slap_query_file
# Quotas 6+5 and 4+4+3 statements: 3+3 and 2+2+2 inserts per round; plus
# the --create insert of each of the 4 rounds.
eq slap_query_file_com_insert "$d_insert" $((2 * 6 + 2 * 6 + 4))
eq slap_query_file_com_select "$d_select" $((2 * 5 + 2 * 5))
json_assert slap_query_file_doc "$T/files.json" 'r.totals.statements == 44 and r.slap.load_type == "query" and r.slap.statements == 2'

# One statement per line (no ';' anywhere): mysqlslap's default delimiter.
printf 'SELECT 1\nSELECT 2\nSELECT 3\n' >"$T/lines.sql"
run slap_lines $LB slap $M --query="$T/lines.sql" --create-schema=sbtest --concurrency=2 --result-file="$T/lines.json" run
json_assert slap_newline_delimited "$T/lines.json" 'r.totals.statements == 6 and r.slap.statements == 3'
eq slap_query_only_keeps_schema "$(SQL "SHOW DATABASES LIKE 'sbtest'")" sbtest

# ---- --create + --query strings, --no-drop ---------------------------------
SQL "DROP DATABASE IF EXISTS slapkeep" >/dev/null
run slap_nodrop $LB slap $M --create-schema=slapkeep --create="CREATE TABLE t (i int);INSERT INTO t VALUES (0)" \
  --query="INSERT INTO t VALUES (1);SELECT COUNT(*) FROM t" --concurrency=2 --number-of-queries=10 --iterations=2 --no-drop run
ok_run slap_create_query_strings
# The last round's data stays: the --create row plus 5 inserts (2 clients, quota 5 each: I S I S I).
eq slap_no_drop_kept "$(SQL "SELECT COUNT(*) FROM slapkeep.t")" 7
expect_fail slap_no_drop_refuses_existing "schema 'slapkeep' exists" $LB slap $M --create-schema=slapkeep \
  --create="CREATE TABLE t (i int)" --query="SELECT 1" --no-drop run
SQL "DROP DATABASE IF EXISTS slapkeep" >/dev/null

# ---- --commit ------------------------------------------------------------
delta slap_commit $LB slap $M $A --auto-generate-sql-load-type=write --auto-generate-sql-write-number=0 \
  --concurrency=2 --number-of-queries=100 --commit=10 --create-schema=slapc --no-drop run
ok_run slap_commit
# 50 statements per client: 5 commits each, plus one as each client ends.
eq slap_commit_count "$d_commit" 12
eq slap_commit_rows "$(SQL "SELECT COUNT(*) FROM slapc.t1")" 100
SQL "DROP DATABASE IF EXISTS slapc" >/dev/null

# ---- --detach --------------------------------------------------------------
c0=$(stat Connections)
run slap_detach $LB slap $M $A --auto-generate-sql-load-type=read --concurrency=2 --number-of-queries=100 --detach=10 \
  --result-file="$T/detach.json" run
c1=$(stat Connections)
ok_run slap_detach
# main 1 + clients 2 + reconnects 2 x 4 (before statements 11, 21, 31, 41) + the status query itself
# + the one connection that samples the server's counters (--server-stats).
eq slap_detach_connections $((c1 - c0)) $((1 + 2 + 8 + 1 + 1))
json_assert slap_detach_doc "$T/detach.json" 'r.totals.statements == 100'

# ---- engines, output formats, compare ------------------------------------
run slap_engine $LB slap $M $A --engine=innodb,aria --number-of-queries=20 --concurrency=2 --result-file="$T/engine.json" run
ok_run slap_engines
grep -q 'Running for engine aria' "$T/slap_engine.out" && pass slap_engine_block || fail slap_engine_block "$(head -c 300 "$T/slap_engine.out")"
json_assert slap_engine_doc "$T/engine.json" 'r.slap.runs[1].engine == "innodb" and r.slap.runs[2].engine == "aria" and r.totals.statements == 40'
run slap_csv $LB slap $M $A --engine=innodb,aria --number-of-queries=20 --concurrency=2 --csv="$T/slap.csv" run
ok_run slap_csv
n=$(grep -Ec '^(innodb|aria),mixed,[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{3},2,10$' "$T/slap.csv"); eq slap_csv_lines "$n" 2
eq slap_csv_replaces_blocks "$(grep -c Benchmark "$T/slap_csv.out")" 0

run slap_json $LB slap $M $A --number-of-queries=20 --concurrency=1,2 --output=json run
ok_run slap_output_json
$LB test/cli/scripts/json_assert.lua check --file="$T/slap_json.out" --expr='r.totals.statements == 40 and #r.slap.summary == 2' >/dev/null 2>&1 \
  && pass slap_output_json_doc || fail slap_output_json_doc "$(head -c 300 "$T/slap_json.out")"
expect_ok slap_output_csv '^innodb,mixed,2,1,' $LB slap $M $A --number-of-queries=20 --concurrency=1,2 --output=csv run
expect_ok slap_compare 'duration \(s\)' $LB compare "$T/read.json" "$T/key.json"

# ---- bad input: one line on stderr, exit 1 --------------------------------
one_line() { # one_line NAME REGEX ARGS...
  local name=$1 re=$2; shift 2
  expect_fail "$name" "$re" $LB slap $M "$@" run || return
  [ "$(wc -l <"$T/$name.err")" -eq 1 ] && pass "${name}_one_line" || fail "${name}_one_line" "$(cat "$T/$name.err")"
}
one_line slap_bad_concurrency "--concurrency=1,x: 'x' is not a number of clients" $A --concurrency=1,x
one_line slap_bad_concurrency_zero "'0' is not a number of clients" $A --concurrency=0
one_line slap_bad_load_type "--auto-generate-sql-load-type=bogus: expected one of read, write, key, update, mixed" $A --auto-generate-sql-load-type=bogus
one_line slap_key_needs_pk "needs a primary key" $A --auto-generate-sql-load-type=key
one_line slap_auto_and_query "cannot be combined with --query" $A --query="SELECT 1"
one_line slap_nothing_to_run "nothing to run" --concurrency=2
one_line slap_missing_file "--query=/nonexistent/q.sql: no such file" --query=/nonexistent/q.sql
one_line slap_too_few_queries "--number-of-queries=3 is less than --concurrency=5" $A --concurrency=5 --number-of-queries=3
one_line slap_bad_iterations "--iterations=0: expected an integer >= 1" $A --iterations=0
one_line slap_bad_number "--number-of-queries=ten: expected an integer" $A --number-of-queries=ten
one_line slap_bad_query "Table 'sbtest.nosuch' doesn't exist" --query="SELECT * FROM nosuch" --create-schema=sbtest
expect_fail slap_no_command "give the command" $LB slap $M $A

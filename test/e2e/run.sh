#!/usr/bin/env bash
# End-to-end tests against a real MariaDB: a private sandbox server on a
# loopback port, started here and stopped (by its PID) at the end.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR:-/tmp/lbench-test-sandbox} LB_SANDBOX_PORT=${LB_SANDBOX_PORT:-3317}
sandbox_start e2e
SQL() { mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest sbtest -N -e "$1" 2>&1; }
E=test/e2e/scripts

# the DB layer in C, on a non-blocking connection (a virtual user's) and
# on a blocking one (a worker thread's: lb_db_conn_opts.blocking).  Its
# failed checks print FAIL lines and exit 1; any other status is a crash,
# which would leave the cases after it unrun and unseen.
db_suite() {   # db_suite PREFIX: the cases' names prefixed
  build/e2e/test_db_mysql | sed -E "s/^(PASS|FAIL) /\\1 $1/"
  local rc=${PIPESTATUS[0]}
  [ "$rc" -le 1 ] || fail "${1}test_db_mysql_exit" "exited with status $rc"
}
db_suite ""
LB_DB_BLOCKING=1 db_suite blocking.

# the Lua SQL API
expect_ok sql_api '^API OK$' $LB $E/api.lua check $M

# every stock scenario: prepare (row counts checked), run, cleanup
for s in oltp_read_only oltp_read_write oltp_write_only oltp_point_select oltp_insert oltp_delete \
         oltp_update_index oltp_update_non_index select_random_points select_random_ranges; do
  run "${s}_prepare" $LB $s $M --tables=2 --table-size=2000 --threads=2 prepare
  if [ "$rc" -ne 0 ]; then fail "${s}_prepare" "exit $rc: $(head -3 "$T/${s}_prepare.err")"; continue; fi
  n1=$(SQL "SELECT COUNT(*) FROM sbtest1"); n2=$(SQL "SELECT COUNT(*) FROM sbtest2")
  [ "$n1" = 2000 ] && [ "$n2" = 2000 ] && pass "${s}_prepare_rows" || fail "${s}_prepare_rows" "rows $n1/$n2"
  run "${s}_run" $LB $s $M --tables=2 --table-size=2000 --threads=2 --time=2 --result-file="$T/$s.json" run
  [ "$rc" -eq 0 ] && pass "${s}_run" || fail "${s}_run" "exit $rc: $(head -3 "$T/${s}_run.err")"
  json_assert "${s}_result" "$T/$s.json" 'r.status == "ok" and r.totals.events > 0 and r.totals.queries.total >= r.totals.events and r.totals.errors == r.totals.ignored_errors'
  run "${s}_cleanup" $LB $s $M --tables=2 cleanup
  [ "$rc" -eq 0 ] && [ "$(SQL "SHOW TABLES LIKE 'sbtest%'")" = "" ] && pass "${s}_cleanup" || fail "${s}_cleanup" "tables left: $(SQL 'SHOW TABLES')"
done
# exact per-transaction query mix (restarted events re-run their queries)
json_assert oltp_rw_query_mix "$T/oltp_read_write.json" '(r.totals.ignored_errors == 0 and r.totals.queries.read == 14 * r.totals.events and r.totals.queries.write == 4 * r.totals.events and r.totals.queries.other == 2 * r.totals.events) or (r.totals.ignored_errors > 0 and r.totals.queries.read >= 14 * r.totals.events and r.totals.queries.write >= 4 * r.totals.events)'
json_assert oltp_rw_query_types "$T/oltp_read_write.json" 'r.totals.queries_by_type.update >= 2 * r.totals.events and r.totals.queries_by_type.delete >= r.totals.events and r.totals.queries_by_type.insert >= r.totals.events and r.totals.queries_by_type.select == r.totals.queries.read'
json_assert oltp_ro_query_mix "$T/oltp_read_only.json" 'r.totals.queries.read == 14 * r.totals.events and r.totals.queries.write == 0'

# bulk_insert: rows land in one table per thread
run bulk_prepare $LB bulk_insert $M --threads=2 prepare
run bulk_run $LB bulk_insert $M --threads=2 --events=30000 --time=0 run
rows=$(SQL "SELECT (SELECT COUNT(*) FROM sbtest1) + (SELECT COUNT(*) FROM sbtest2)")
[ "$rows" = 30000 ] && pass bulk_insert_rows || fail bulk_insert_rows "rows=$rows: $(head -3 "$T/bulk_run.err")"
run bulk_cleanup $LB bulk_insert $M --threads=2 cleanup

# prepared vs client-side statements give the same workload
$LB oltp_read_only $M --tables=1 --table-size=1000 prepare >/dev/null 2>&1
run ps_disable $LB oltp_read_only $M --tables=1 --table-size=1000 --events=200 --time=0 --db-ps-mode=disable --result-file="$T/psd.json" run
run ps_auto $LB oltp_read_only $M --tables=1 --table-size=1000 --events=200 --time=0 --result-file="$T/psa.json" run
json_assert ps_disable_same_queries "$T/psd.json" 'r.totals.queries.total == 200 * 16'
json_assert ps_auto_same_queries "$T/psa.json" 'r.totals.queries.total == 200 * 16'
expect_ok db_debug '^debug: query: SELECT c FROM sbtest1 WHERE id=[0-9]+$' $LB oltp_point_select $M --tables=1 --table-size=1000 --events=3 --time=0 --db-debug --db-ps-mode=disable run
expect_ok password_env 'transactions:' env LBENCH_MYSQL_PASSWORD=sbtest $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --tables=1 --table-size=1000 --time=0.5 run
printf 'sbtest\n' > "$T/pw"
expect_ok password_file 'transactions:' $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-password-file="$T/pw" --tables=1 --table-size=1000 --time=0.5 run
json_assert password_redacted "$T/psa.json" 'r.options.mysql_password == "***"'
expect_ok socket_connect 'transactions:' $LB oltp_point_select --mysql-socket="$LB_MYSQL_SOCKET" --mysql-password=sbtest --tables=1 --table-size=1000 --time=0.5 run

# What the server and the host did (issue 31), against known facts: 2000
# point selects read exactly 2000 rows by the server's own counter, over
# the run and summed over its intervals; the sampling connection is never
# counted as the workload's; the settings are the server's.
run observe $LB oltp_point_select $M --tables=1 --table-size=1000 --events=2000 --time=0 --report-interval=0.05 \
  --result-file="$T/obs.json" run
json_assert observe_not_counted "$T/obs.json" 'r.totals.events == 2000 and r.totals.queries.total == 2000'
json_assert observe_rows_read "$T/obs.json" 'math.floor(r.server.stats.rows_read_per_sec * r.server.stats.window_s + 0.5) == 2000'
json_assert observe_rows_read_intervals "$T/obs.json" '(function() local n = 0
  for _, iv in ipairs(r.intervals) do n = n + math.floor(iv.server.rows_read_per_sec * iv.server.window_s + 0.5) end
  return n == 2000 end)()'
bp=$(SQL "SELECT @@innodb_buffer_pool_size")
json_assert observe_settings "$T/obs.json" 'r.server.product == "MariaDB" and r.server.settings.innodb_buffer_pool_size == "'"$bp"'"
  and r.server.version:find("MariaDB", 1, true) and r.server.data_directory ~= nil'
json_assert observe_storage "$T/obs.json" 'type(r.server.storage.fs) == "string"
  and r.server.data_directory:sub(1, #r.server.storage.mount_point) == r.server.storage.mount_point'
json_assert observe_host "$T/obs.json" 'r.host_stats.cpu.user_pct >= 0 and r.host_stats.cpu.user_pct <= 100
  and r.intervals[1].host.cpu ~= nil'
# The server's process, found through its pid file, in % of a CPU.
json_assert observe_server_process "$T/obs.json" 'r.host_stats.server_pid == '"$LB_SANDBOX_PID"'
  and r.host_stats.server_cpu_pct > 0 and r.intervals[1].host.server_cpu_pct ~= nil and r.host_stats.client_cpu_pct > 0'
expect_ok observe_text '^    MariaDB .*buffer pool hit [0-9.]+ %' $LB oltp_point_select $M --tables=1 --table-size=1000 --time=0.3 run
run observe_off $LB oltp_point_select $M --tables=1 --table-size=1000 --time=0.3 --server-stats=off --result-file="$T/obs_off.json" run
json_assert observe_off_nothing "$T/obs_off.json" 'r.server == nil and r.host_stats == nil'
# An account that may not open the sampling connection (one connection
# allowed, the worker's): one line, the run whole and ok.
mariadb -S "$LB_MYSQL_SOCKET" -uroot -e "CREATE USER IF NOT EXISTS 'lbcap'@'127.0.0.1' IDENTIFIED BY 'lbcap'
  WITH MAX_USER_CONNECTIONS 1; GRANT SELECT ON sbtest.* TO 'lbcap'@'127.0.0.1'"
expect_ok observe_refused "^    server statistics not recorded: .*max_user_connections" $LB oltp_point_select \
  --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-user=lbcap --mysql-password=lbcap --tables=1 \
  --table-size=1000 --events=200 --time=0 --result-file="$T/obs_cap.json" run
# (no check of the host's CPU: 200 events may fit in one tick of /proc/stat)
json_assert observe_refused_run_whole "$T/obs_cap.json" 'r.status == "ok" and r.totals.events == 200'
json_assert observe_refused_notice "$T/obs_cap.json" 'r.server.notice:find("max_user_connections", 1, true)
  and r.server.stats == nil and r.host_stats ~= nil'
# --server-stats=all: every variable, the same values as the server's.
run observe_all $LB oltp_point_select $M --tables=1 --table-size=1000 --events=10 --time=0 --server-stats=all \
  --result-file="$T/obs_all.json" run
nvars=$(SQL "SELECT COUNT(*) FROM information_schema.GLOBAL_VARIABLES")
json_assert observe_all_variables "$T/obs_all.json" '(function() local n = 0
  for _ in require("lbench.json").pairs(r.server.variables) do n = n + 1 end
  return n == '"${nvars:-0}"' and r.server.variables.innodb_buffer_pool_size == "'"$bp"'" end)()'

# a sweep through the local socket reports the server's CPU per transaction
run sweep_cpu $LB sweep --threads=1,2 --time=1 oltp_point_select --mysql-socket="$LB_MYSQL_SOCKET" --mysql-password=sbtest \
  --tables=1 --table-size=1000 --result-file="$T/sweep.json"
json_assert sweep_server_cpu "$T/sweep.json" '#r.points == 2 and r.points[1].cpu.server_us_per_event > 0 and r.points[2].cpu.client_us_per_event > 0 and r.points[2].cpu.server_pid == '"$LB_SANDBOX_PID"
check sweep_cpu_columns grep -q 'server us/ev' "$T/sweep_cpu.out"

# sysbench's own scripts, unmodified
for f in /usr/share/sysbench/*.lua; do
  s=$(basename "$f" .lua)
  [ "$s" = oltp_common ] && continue
  O="--tables=1 --table-size=1000"
  [ "$s" = bulk_insert ] && O=""
  $LB "$f" $M $O cleanup >/dev/null 2>&1
  run "sb_${s}_prepare" $LB "$f" $M $O --threads=2 prepare
  run "sb_${s}_run" $LB "$f" $M $O --threads=2 --time=1 run
  if [ "$rc" -eq 0 ] && grep -q 'transactions:' "$T/sb_${s}_run.out"; then pass "sysbench_script_$s"; else
    fail "sysbench_script_$s" "exit $rc: $(head -c 300 "$T/sb_${s}_run.err") $(head -c 300 "$T/sb_${s}_prepare.err")"; fi
  run "sb_${s}_cleanup" $LB "$f" $M $O --threads=2 cleanup
  [ "$rc" -eq 0 ] && pass "sysbench_script_${s}_cleanup" || fail "sysbench_script_${s}_cleanup" "$(head -c 300 "$T/sb_${s}_cleanup.err")"
done

# errors: ignored deadlocks restart the event; other errors stop the run
$LB $E/deadlock.lua $M prepare >/dev/null 2>&1
run deadlock $LB $E/deadlock.lua $M --threads=2 --time=3 --result-file="$T/dl.json" run
[ "$rc" -eq 0 ] && pass deadlock_run || fail deadlock_run "exit $rc: $(head -3 "$T/deadlock.err")"
json_assert deadlock_ignored_counted "$T/dl.json" 'r.totals.ignored_errors > 0 and r.totals.errors_by_code["1213"] == r.totals.ignored_errors and r.totals.events > 0'
expect_fail deadlock_not_ignored '1213' $LB $E/deadlock.lua $M --threads=2 --time=3 --db-ignore-errors=none run
expect_fail fatal_error "errno = 1146.*lb_no_such_table" $LB $E/bad_query.lua $M --time=2 --result-file="$T/bad.json" run
json_assert fatal_error_result "$T/bad.json" 'r.status == "error" and r.error:match("1146")'
check fatal_error_report grep -q 'total number of events' "$T/fatal_error.out"
$LB $E/deadlock.lua $M cleanup >/dev/null 2>&1

# a retried event's failed transaction is rolled back, not committed by
# the retry's BEGIN: only the even tries' rows are in the table
$LB $E/retry_rollback.lua $M prepare >/dev/null 2>&1
run retry_rollback $LB $E/retry_rollback.lua $M --db-ignore-errors=1146 --events=50 --result-file="$T/rr.json" run
json_assert retry_rollback_run "$T/rr.json" 'r.status == "ok" and r.totals.events == 50 and r.totals.ignored_errors == 50'
got=$(SQL "SELECT CONCAT(COUNT(*), ' ', SUM(try % 2)) FROM lb_retry")
[ "$got" = "50 0" ] && pass retry_rollback_rows || fail retry_rollback_rows "rows and odd tries: $got (want '50 0')"
$LB $E/retry_rollback.lua $M cleanup >/dev/null 2>&1

# latency of a known server-side delay
run server_sleep $LB $E/sleep_query.lua $M --ms=20 --time=1 --threads=2 --result-file="$T/ss.json" run
json_assert server_sleep_latency "$T/ss.json" 'r.latency_ms.min >= 20 and r.totals.queries.read == r.totals.events'

# a server restart mid-run: every thread reconnects and the run completes
$LB oltp_point_select $M --tables=1 cleanup >/dev/null 2>&1
$LB oltp_point_select $M --tables=1 --table-size=1000 prepare >/dev/null 2>&1
( $LB oltp_point_select $M --tables=1 --table-size=1000 --threads=8 --time=8 --result-file="$T/rc.json" run >"$T/rc.out" 2>"$T/rc.err"; echo $? >"$T/rc.rc" ) &
bg=$!
sleep 2
contrib/mariadb-sandbox.sh restart >"$T/restart.log" 2>&1 || fail server_restart "$(tail -3 "$T/restart.log")"
wait $bg
[ "$(cat "$T/rc.rc")" = 0 ] && pass reconnect_run || fail reconnect_run "exit $(cat "$T/rc.rc"): $(head -5 "$T/rc.err")"
json_assert reconnect_counted "$T/rc.json" 'r.totals.reconnects >= 8 and r.totals.events > 0'

# --time is honoured while the server does not answer (SIGSTOP)
set -a; . "$LB_SANDBOX_DIR/env"; set +a
# Workers cut off at the deadline: the run keeps its report but is not ok.
server_stopped_run time_honoured_sigstop 'echo "$LB_SANDBOX_PID"' \
  'stuck past the deadline.*waiting for the server: execute: SELECT c FROM sbtest1 WHERE id' \
  $LB oltp_point_select $M --tables=1 --table-size=1000 --threads=4 --time=3 run
$LB oltp_point_select $M --tables=1 cleanup >/dev/null 2>&1

# host lists spread connections round-robin: the second thread gets the
# second host (127.0.0.2, where the sandbox does not listen)
# (prepare: the main state creates the tables over the first host, then the
# second loader thread fails to reach the second host)
expect_fail host_round_robin "cannot connect to 127.0.0.2:$LB_MYSQL_PORT" $LB oltp_point_select --mysql-host=127.0.0.1,127.0.0.2 \
  --mysql-port=$LB_MYSQL_PORT --mysql-password=sbtest --threads=2 --tables=2 --table-size=100 prepare
$LB oltp_point_select $M --tables=2 cleanup >/dev/null 2>&1
expect_ok host_list_one_thread "Creating table 'sbtest1'" $LB oltp_point_select --mysql-host=127.0.0.1,127.0.0.2 \
  --mysql-port=$LB_MYSQL_PORT --mysql-password=sbtest --threads=1 --tables=1 --table-size=1000 prepare
$LB oltp_point_select $M --tables=1 cleanup >/dev/null 2>&1

# bad credentials, bad host: one clear line, non-zero exit
expect_fail bad_password "cannot connect to 127.0.0.1:$LB_MYSQL_PORT as 'sbtest' \(mysql\): error 1045" $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-password=wrong run --time=1
expect_fail bad_host "cannot connect to 127.0.0.1:1 .*error 200[23]" $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=1 --mysql-password=sbtest run --time=1
for n in bad_password bad_host; do
  [ "$(wc -l < "$T/$n.err")" -eq 1 ] && pass "${n}_one_line" || fail "${n}_one_line" "$(cat "$T/$n.err")"
done

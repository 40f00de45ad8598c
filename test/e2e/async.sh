#!/usr/bin/env bash
# Async mode against a real MariaDB (a private sandbox on its own port):
# 1,000 connections on 2 threads, think time, the metrics endpoint checked
# against the final totals, query counts equal to thread mode, sysbench's
# script unmodified, and connection loss, ignored and fatal errors.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=${LB_ASYNC_SANDBOX_DIR:-/tmp/lbench-test-async} LB_SANDBOX_PORT=${LB_ASYNC_SANDBOX_PORT:-3357}
sandbox_start async
D="--tables=1 --table-size=10000"
E=test/e2e/scripts
$LB oltp_point_select $M $D cleanup >/dev/null 2>&1
run prepare $LB oltp_point_select $M $D prepare
[ "$rc" -eq 0 ] && pass async_prepare || fail async_prepare "$(head -3 "$T/prepare.err")"

# 1,000 connections on 2 threads at a fixed rate: no errors, every one used
run c1000 $LB oltp_point_select $M $D --threads=2 --connections=1000 --rate=2000 --rate-mode=constant --time=4 \
  --result-file="$T/c1000.json" run
[ "$rc" -eq 0 ] && pass async_1000_run || fail async_1000_run "exit $rc: $(head -3 "$T/c1000.err")"
json_assert async_1000_no_errors "$T/c1000.json" 'r.status == "ok" and r.totals.errors == 0 and r.totals.ignored_errors == 0 and r.totals.reconnects == 0'
json_assert async_1000_rate "$T/c1000.json" 'r.totals.events >= 7600 and r.totals.events <= 8002 and r.totals.queries.read == r.totals.events and r.queue_ms ~= nil'
json_assert async_1000_all_used "$T/c1000.json" 'r.fairness.connections.count == 1000 and r.fairness.connections.unused == 0 and r.fairness.connections.events_min >= 1'

# think time keeps 500 connections idle without burning client CPU
run think $LB $E/think.lua $M --threads=2 --connections=500 --think-ms=200 --time=3 --result-file="$T/think.json" run
[ "$rc" -eq 0 ] && pass async_think_run || fail async_think_run "exit $rc: $(head -3 "$T/think.err")"
json_assert async_think_rate "$T/think.json" 'r.totals.events > 500 * 3 / 0.2 * 0.7 and r.totals.events < 500 * 3 / 0.2 + 1000 and r.latency_ms.min >= 200'
json_assert async_think_cpu "$T/think.json" 'r.cpu.client_s < 0.5 * r.duration_s and r.fairness.connections.unused == 0'

# the metrics endpoint: a live scrape, then one after the run against the totals
port=$((20000 + RANDOM % 12000))  # below the ephemeral range (32768-), where client sockets would collide
( $LB $E/metrics_probe.lua $M --threads=2 --connections=50 --time=3 --report-interval=1 --metrics-addr=127.0.0.1:$port \
    --port=$port --scrape-file="$T/final.txt" --result-file="$T/met.json" run >"$T/met.out" 2>"$T/met.err" ) &
bg=$!
got=""
for _ in $(seq 40); do
  sleep 0.25
  if curl -sf "http://127.0.0.1:$port/metrics" >"$T/live.txt" 2>/dev/null && grep -q '^lbench_interval_latency_seconds{quantile=' "$T/live.txt"; then got=1; break; fi
done
wait $bg
if [ -n "$got" ] && grep -q '^lbench_run_active 1$' "$T/live.txt" && grep -q '^lbench_connections_open 50$' "$T/live.txt"; then
  pass metrics_live_scrape; else fail metrics_live_scrape "$(head -c 500 "$T/live.txt") $(head -3 "$T/met.err")"; fi
m() { awk -v k="$1" '$1 == k {print $2}' "$T/final.txt"; }
ev=$(m lbench_events_total); sel=$(m 'lbench_queries_total{type="select"}'); rec=$(m lbench_reconnects_total)
q99=$(m 'lbench_interval_latency_seconds{quantile="0.99"}')
json_assert metrics_final_equals_totals "$T/met.json" "r.totals.events == ${ev:--1} and r.totals.queries.read == ${sel:--1} and r.totals.reconnects == ${rec:--1} and ${q99:--1} > 0"
check metrics_final_no_errors bash -c "! grep -q '^lbench_query_errors_total{' '$T/final.txt'"

# async and thread mode: the same query counts for the same --events
for mode in thread async; do
  C=""; [ $mode = async ] && C="--connections=64"
  run "ro_$mode" $LB oltp_read_only $M $D --threads=2 $C --events=300 --time=0 --result-file="$T/ro_$mode.json" run
done
json_assert async_thread_same_queries "$T/ro_async.json" 'r.totals.events == 300 and r.totals.queries.total == 300 * 16 and r.totals.queries.read == 300 * 14'
json_assert thread_same_queries "$T/ro_thread.json" 'r.totals.events == 300 and r.totals.queries.total == 300 * 16 and r.totals.queries.read == 300 * 14'

# sysbench's own script, unmodified, in async mode
expect_ok async_sysbench_point_select 'Connections fairness \(100 connections\)' \
  $LB /usr/share/sysbench/oltp_point_select.lua $M $D --threads=2 --connections=100 --time=2 run
check async_sysbench_queries grep -Eq 'read: +[1-9]' "$T/async_sysbench_point_select.out"

# errors: ignored deadlocks restart events; a fatal error stops the run
$LB $E/deadlock.lua $M prepare >/dev/null 2>&1
run deadlock $LB $E/deadlock.lua $M --threads=2 --connections=8 --time=2 --result-file="$T/dl.json" run
json_assert async_deadlock_ignored "$T/dl.json" 'r.status == "ok" and r.totals.ignored_errors > 0 and r.totals.errors_by_code["1213"] and r.totals.events > 0'
$LB $E/deadlock.lua $M cleanup >/dev/null 2>&1
expect_fail async_fatal_error "errno = 1146.*lb_no_such_table" $LB $E/bad_query.lua $M --connections=10 --time=2 run
expect_fail async_bad_password "cannot connect to 127.0.0.1:$LB_MYSQL_PORT as 'sbtest' \(mysql\): error 1045" \
  $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-password=wrong --connections=10 --time=1 run

# a server restart mid-run: every connection reconnects and the run completes
( $LB oltp_point_select $M $D --threads=2 --connections=200 --time=7 --result-file="$T/rc.json" run >"$T/rc.out" 2>"$T/rc.err"; echo $? >"$T/rc.rc" ) &
bg=$!
sleep 2
contrib/mariadb-sandbox.sh restart >"$T/restart.log" 2>&1 || fail async_server_restart "$(tail -3 "$T/restart.log")"
wait $bg
[ "$(cat "$T/rc.rc")" = 0 ] && pass async_reconnect_run || fail async_reconnect_run "exit $(cat "$T/rc.rc"): $(head -5 "$T/rc.err")"
json_assert async_reconnect_counted "$T/rc.json" 'r.totals.reconnects >= 200 and r.totals.events > 0 and r.fairness.connections.unused == 0'

# --time is honoured while the server does not answer (SIGSTOP)
set -a; . "$LB_SANDBOX_DIR/env"; set +a
# Workers cut off at the deadline: the run keeps its report but is not ok.
server_stopped_run async_time_honoured_sigstop 'echo "$LB_SANDBOX_PID"' \
  "stuck past the deadline.*waiting for the server: virtual users' operations" \
  $LB oltp_point_select $M $D --threads=2 --connections=100 --time=3 run
# Figures over time against known answers (test/cli/intervals.sh has the
# cases without a server): a server-side wait, SELECT SLEEP(0.03), in
# thread mode (the worker blocks in the client library) and in async mode
# (virtual users wait in the event loop); each interval and the warm-up
# hold the events that completed in them (ends_check.lua), one per thread
# or user of slack.
for mode in threads async; do
  extra="--threads=2"; slack=2
  [ "$mode" = async ] && { extra="--threads=2 --connections=8"; slack=8; }
  mkdir -p "$T/sleep_$mode.log"
  run "sql_sleep_$mode" $LB test/cli/scripts/timed.lua --kind=sql --ms=30 $M $extra --time=3 --warmup-time=1 \
    --report-interval=1 --log="$T/sleep_$mode.log" --result-file="$T/sleep_$mode.json" run
  if [ "$rc" -ne 0 ]; then fail "sql_sleep_${mode}_intervals" "exit $rc: $(head -3 "$T/sql_sleep_$mode.err")"
  elif $LB test/cli/scripts/ends_check.lua check --file="$T/sleep_$mode.json" --log="$T/sleep_$mode.log" --slack=$slack \
       >"$T/sleep_$mode.check" 2>&1; then pass "sql_sleep_${mode}_intervals"
  else fail "sql_sleep_${mode}_intervals" "$(tr '\n' ' ' < "$T/sleep_$mode.check" | head -c 400)"; fi
done
$LB oltp_point_select $M $D cleanup >/dev/null 2>&1

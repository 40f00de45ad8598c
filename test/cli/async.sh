#!/usr/bin/env bash
# Async mode (--connections) without a server: virtual users on the null
# driver and on sleeps, their per-VU state, stop conditions, pacing across
# users, think time that does not burn CPU, and the metrics endpoint.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
S=test/cli/scripts
N="--mysql-dry-run --tables=1 --table-size=1000"

# every virtual user runs events; fairness per connection in text and JSON
run null_async $LB oltp_point_select $N --threads=2 --connections=101 --time=1 --result-file="$T/null.json" run
[ "$rc" -eq 0 ] && pass async_null_run || fail async_null_run "exit $rc: $(head -3 "$T/null_async.err")"
json_assert async_every_connection_used "$T/null.json" 'r.connections == 101 and r.fairness.connections.count == 101 and r.fairness.connections.unused == 0 and r.fairness.connections.events_min > 0'
check async_fairness_text grep -q 'Connections fairness (101 connections)' "$T/null_async.out"
check async_header grep -q 'Number of connections: 101 (async: 50-51 per thread)' "$T/null_async.out"

# per-VU globals and module state; thread_init/thread_done once per VU
run vu_state $LB $S/vu_state.lua run --threads=2 --connections=40 --time=1
if [ "$rc" -eq 0 ] && [ "$(grep -c '^done vu [0-9]*$' "$T/vu_state.out")" -eq 40 ] && [ "$(grep '^done vu' "$T/vu_state.out" | sort -u | wc -l)" -eq 40 ]; then
  pass async_state_per_vu; else fail async_state_per_vu "exit $rc: $(head -c 400 "$T/vu_state.err")"; fi

# --events is exact; async and thread mode give the same query counts
run ev_async $LB oltp_read_only $N --threads=2 --connections=30 --events=500 --time=0 --result-file="$T/ev_a.json" run
run ev_thread $LB oltp_read_only $N --threads=2 --events=500 --time=0 --result-file="$T/ev_t.json" run
json_assert async_events_exact "$T/ev_a.json" 'r.totals.events == 500 and r.totals.queries.total == 500 * 16'
json_assert thread_events_same_queries "$T/ev_t.json" 'r.totals.events == 500 and r.totals.queries.total == 500 * 16'

# sysbench's own script, unmodified (globals set in thread_init)
expect_ok async_sysbench_script 'Connections fairness \(20 connections\)' \
  $LB /usr/share/sysbench/oltp_point_select.lua $N --threads=2 --connections=20 --time=0.5 run

# think time: 400 users sleeping 50 ms per event on one thread keep it idle
run think $LB $S/sleep.lua run --ms=50 --threads=1 --connections=400 --time=2 --result-file="$T/think.json"
json_assert async_think_throughput "$T/think.json" 'r.totals.events > 400 * 2 / 0.05 * 0.8 and r.totals.events <= 400 * 2 / 0.05 + 400'
json_assert async_think_idle_cpu "$T/think.json" 'r.cpu.client_s < 0.3 * r.duration_s'
json_assert async_think_latency "$T/think.json" 'r.latency_ms.min >= 50'

# pacing across users: the target rate holds, queue time is reported
run rate $LB $S/sleep.lua run --ms=5 --threads=2 --connections=60 --rate=2000 --rate-mode=constant --time=2 --result-file="$T/rate.json"
json_assert async_rate_count "$T/rate.json" 'r.totals.events >= 3900 and r.totals.events <= 4002 and r.queue_ms ~= nil and r.fairness.connections.unused == 0'
json_assert async_rate_latency "$T/rate.json" 'r.latency_ms.min >= 5'
# asked for more than the users can do: the backlog shows as latency
run co $LB $S/sleep.lua run --ms=100 --threads=1 --connections=10 --rate=200 --rate-mode=constant --time=2 --result-file="$T/co.json"
json_assert async_coordinated_omission "$T/co.json" 'r.latency_ms.max > 500 and r.queue_ms.max > 400'

# stop conditions: a signal ends sleeping users early; a VU error fails the run
( $LB $S/sleep.lua run --ms=10000 --connections=50 --time=60 >"$T/sig.out" 2>&1; echo $? >"$T/sig.rc" ) &
bg=$!; sleep 1; kill -INT $bg 2>/dev/null; pkill -INT -f "sleep.lua run --ms=10000 --connections=50" 2>/dev/null
for _ in $(seq 40); do kill -0 $bg 2>/dev/null || break; sleep 0.25; done
if kill -0 $bg 2>/dev/null; then kill -9 $bg; fail async_sigint "still running 10 s after SIGINT"
elif [ "$(cat "$T/sig.rc")" = 130 ] && grep -q 'total number of events' "$T/sig.out"; then pass async_sigint
else fail async_sigint "rc=$(cat "$T/sig.rc"): $(tail -3 "$T/sig.out")"; fi
expect_fail async_runtime_error "runtime_error.lua:1: boom in the event" $LB $S/runtime_error.lua run --connections=10 --time=1
check async_runtime_error_traceback grep -q 'stack traceback' "$T/async_runtime_error.err"
expect_fail async_fewer_connections "--connections=2: must be at least --threads=4" $LB $S/empty.lua run --threads=4 --connections=2

# metrics endpoint: refused off loopback, scraped during a run
expect_fail metrics_remote_refused "--metrics-addr=0.0.0.0:9100: 0.0.0.0 is not a loopback address; add --metrics-allow-remote" \
  $LB $S/empty.lua run --time=0.1 --metrics-addr=0.0.0.0:9100
expect_fail metrics_bad_addr "--metrics-addr=x: expected HOST:PORT" $LB $S/empty.lua run --time=0.1 --metrics-addr=x
port=$((20000 + RANDOM % 12000))  # below the ephemeral range (32768-), where client sockets would collide
( $LB oltp_read_only $N --threads=2 --connections=20 --time=3 --metrics-addr=127.0.0.1:$port --result-file="$T/met.json" run >"$T/met.out" 2>&1 ) &
bg=$!
got=""
for _ in $(seq 40); do
  sleep 0.25
  if curl -sf "http://127.0.0.1:$port/metrics" >"$T/scrape.txt" 2>/dev/null && grep -q '^lbench_interval_latency_seconds{quantile=' "$T/scrape.txt"; then got=1; break; fi
done
wait $bg
if [ -n "$got" ] && grep -q '^lbench_run_active 1$' "$T/scrape.txt" && grep -q '^lbench_virtual_users 20$' "$T/scrape.txt" \
   && grep -q '^lbench_connections_open 20$' "$T/scrape.txt" && grep -Eq '^lbench_events_total [1-9][0-9]*$' "$T/scrape.txt"; then
  pass metrics_scrape_live; else fail metrics_scrape_live "$(head -c 600 "$T/scrape.txt")"; fi
ev=$(awk '/^lbench_events_total / {print $2}' "$T/scrape.txt")
sel=$(awk '/^lbench_queries_total\{type="select"\} / {print $2}' "$T/scrape.txt")
json_assert metrics_scrape_below_totals "$T/met.json" "r.totals.events >= ${ev:-0} and r.totals.queries.read >= ${sel:-0} and ${ev:-0} > 0 and ${sel:-0} >= 14 * ${ev:-0}"
rm -rf "$T"

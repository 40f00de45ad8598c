#!/usr/bin/env bash
# The threaded core under ThreadSanitizer: workers, barrier, interval swaps,
# pacing, stop paths and parallel commands, with several threads.
LB=$1
. test/lib.sh
S=test/cli/scripts
expect_ok tsan_run 'total number of events' $LB $S/typed.lua run --threads=4 --time=2 --report-interval=0.2 --percentiles=50,99
expect_ok tsan_rate 'total number of events' $LB $S/sleep.lua run --ms=1 --threads=3 --time=2 --rate=300 --report-interval=0.5 --warmup-time=0.5
expect_ok tsan_events 'total number of events: +20000' $LB $S/empty.lua run --threads=4 --events=20000 --time=0
expect_ok tsan_parallel 'worker 3 of 4' $LB $S/opts.lua par --threads=4
expect_ok tsan_sql_null 'transactions:' $LB oltp_read_write --db-driver=null --threads=4 --time=2 --report-interval=0.5 run
# async workers (event loops, wakeups) with the metrics thread scraped meanwhile
# Ports below the ephemeral range (32768-), where client sockets would collide.
mport=$((20000 + RANDOM % 12000)); ( for _ in $(seq 20); do sleep 0.25; curl -sf "http://127.0.0.1:$mport/metrics" >/dev/null 2>&1; done ) &
expect_ok tsan_async 'Connections fairness' $LB oltp_read_write --db-driver=null --threads=3 --connections=60 --time=3 --rate=3000 --report-interval=0.5 --metrics-addr=127.0.0.1:$mport run
wait
expect_fail tsan_error 'boom in the event' $LB $S/runtime_error.lua run --threads=4 --time=2
# events longer than the report interval: collections that give up and
# take the released buffer later, a warm-up tick; and a stop by SIGTERM.
expect_ok tsan_slow_events 'total number of events' $LB $S/sleep.lua run --ms=150 --threads=3 --time=1.5 --report-interval=0.1 --warmup-time=0.35
( $LB $S/sleep.lua run --ms=3 --threads=3 --connections=30 --time=30 --report-interval=0.2 >"$T/tsan_term.out" 2>"$T/tsan_term.err"; echo $? >"$T/tsan_term.rc" ) &
sleep 1.5; pkill -TERM -f "sleep.lua run --ms=3 --threads=3 --connections=30" 2>/dev/null; wait
[ "$(cat "$T/tsan_term.rc")" = 143 ] && pass tsan_sigterm || fail tsan_sigterm "exit $(cat "$T/tsan_term.rc"): $(tail -3 "$T/tsan_term.err")"
for f in "$T"/*.err; do
  if grep -q 'WARNING: ThreadSanitizer' "$f"; then fail "tsan_clean_$(basename "$f" .err)" "$(grep -m1 -A12 'WARNING: ThreadSanitizer' "$f")"; fi
done
pass tsan_reports_checked
rm -rf "$T"

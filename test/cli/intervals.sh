#!/usr/bin/env bash
# Figures over time against known answers (issue 27): every event counts
# in the interval, warm-up or phase in which it completed, whatever it did
# while it ran.  timed.lua writes down when each event ended; ends_check.lua
# counts the true completions of every interval and holds lbench's figures
# against them, interval by interval (not only their sums), allowing one
# event per thread or virtual user for an event that ended within
# microseconds of a boundary.  No timing of the machine is asserted: the
# true counts come from the events' own clocks.  No server needed (the
# SELECT SLEEP cases are in test/e2e/async.sh).
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
S=test/cli/scripts

# known NAME SLACK ARGS...: a timed.lua run, then the check of its intervals
known() {
  local name=$1 slack=$2; shift 2
  mkdir -p "$T/$name.log"
  run "$name" $LB $S/timed.lua run --log="$T/$name.log" --report-interval=1 --result-file="$T/$name.json" "$@"
  if [ "$rc" -ne 0 ]; then fail "$name" "exit $rc: $(head -c 300 "$T/$name.err")"; return 1; fi
  if $LB $S/ends_check.lua check --file="$T/$name.json" --log="$T/$name.log" --slack="$slack" >"$T/$name.check" 2>&1; then
    pass "$name"
  else
    fail "$name" "$(tr '\n' ' ' < "$T/$name.check" | head -c 500)"
  fi
}

# A blocking C call of 30 ms in each of 2 threads (the reporter cannot reach
# a worker inside it), with a warm-up: 66, 66, ... not 0, 66, 63, 124.
known blocking_call 2 --kind=usleep --ms=30 --threads=2 --time=3 --warmup-time=2
json_assert blocking_call_warmup_counted "$T/blocking_call.json" 'r.warmup_events > 100 and r.intervals[1].warmup and r.intervals[2].warmup'
# The same with the fallback when the kernel has no membarrier (a full
# fence per record instead of the reporter's barrier).
LB_NO_MEMBARRIER=1 known blocking_call_fenced 2 --kind=usleep --ms=30 --threads=2 --time=3 --warmup-time=1
# lbench.sleep in threads, and in virtual users (async mode: one per user).
known sleep_threads 2 --kind=sleep --ms=30 --threads=2 --time=3 --warmup-time=1
known sleep_async 12 --kind=sleep --ms=30 --threads=2 --connections=12 --time=3 --warmup-time=1
# Threads fairness in async mode: each thread's busy time is wall time with
# an event in flight (its 6 users overlap), not the sum of their latencies
# (about 6 x 3 s); the text calls it busy time.
json_assert sleep_async_busy_time "$T/sleep_async.json" 'r.fairness.exec_time_avg_s > 2.5 and r.fairness.exec_time_avg_s <= r.duration_s + 0.01'
grep -q 'busy time (avg/stddev)' "$T/sleep_async.out" && pass sleep_async_busy_label || fail sleep_async_busy_label "$(grep -A2 'Threads fairness' "$T/sleep_async.out")"
# Events longer than the interval: 1.3 s events, 1 s intervals.  Completions
# at 1.3, 2.6, 3.9, 5.2 (and 6.5, in flight at the deadline): 0, N, N, N, 0,
# then the last interval to the end of the measured period.
known long_events 0 --kind=usleep --ms=1300 --threads=2 --time=6
json_assert long_events_series "$T/long_events.json" '(function() local e = {} for i = 1, 5 do e[i] = r.intervals[i].events end
  return #r.intervals == 6 and table.concat(e, ",") == "0,2,2,2,0" and r.intervals[6].events == 4 end)()'
# Under --rate, below capacity and above it (a backlog: every event ends
# later than intended, and counts where it ended).
known rate_below 2 --kind=usleep --ms=1 --threads=2 --time=3 --rate=200 --rate-mode=constant
json_assert rate_below_each "$T/rate_below.json" '(function() for i = 1, #r.intervals - 1 do
  if math.abs(r.intervals[i].events - 200) > 2 then return false end end return true end)()'
known rate_above 2 --kind=usleep --ms=30 --threads=2 --time=3 --rate=200
# Phases of a rate schedule: each phase's events are those that completed in it.
known phases 2 --kind=usleep --ms=5 --threads=2 --rate=100@1.5,300@1.5 --phases=low,high --warmup-time=1

# Overload, the standard saturation test: --rate at 3x and 30x what two
# threads of 30 ms events can do.  The run ends at --time (plus the events
# in flight), status ok, exit 0, and reports the intended starts it did not
# begin: with constant spacing, begun + not begun = rate x time exactly.
for x in 3 30; do
  rate=$((x * 200 / 3))
  run "overload_${x}x" $LB $S/timed.lua run --log="$T" --kind=usleep --ms=30 --threads=2 --time=3 --rate=$rate \
    --rate-mode=constant --result-file="$T/over$x.json"
  [ "$rc" -eq 0 ] && grep -q 'not started (backlog at the end)' "$T/overload_${x}x.out" && pass "overload_${x}x_exit_ok" \
    || fail "overload_${x}x_exit_ok" "exit $rc: $(tail -2 "$T/overload_${x}x.err")"
  json_assert "overload_${x}x_backlog" "$T/over$x.json" "r.status == 'ok' and r.duration_s < 3.5
    and r.totals.events + r.queue_ms.not_started == $((rate * 3)) and r.queue_ms.max > 500"
done

rm -rf "$T"

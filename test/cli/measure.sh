#!/usr/bin/env bash
# The numbers themselves, against known inputs: run durations in every mode
# (threads, --rate, async with think times, warm-up, events limit, a signal)
# against --time and the wall clock; intervals that tile the run (their
# events add up to the totals, each interval's events equal its latency
# count); status and exit code of an interrupted run; result files checked
# before the run and written atomically.  No server needed.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
S=test/cli/scripts

# Lua predicates over a result `r` (json_assert), shared by the cases below.
TILES='(function() local s, ok = 0, true
  for _, iv in ipairs(r.intervals) do
    if not iv.warmup then s = s + iv.events end
    if iv.events ~= iv.latency_ms.count then ok = false end
  end
  return ok and s == r.totals.events and r.totals.events == r.latency_ms.count end)()'

# wall_run NAME CMD...: run, and keep the wall time (s) in $T/NAME.wall
wall_run() {
  local name=$1; shift
  local t0 t1
  t0=$(date +%s.%N)
  run "$name" "$@"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >"$T/$name.wall"
}

# Async virtual users that think 700 ms per event: the run lasts --time,
# not until the last event ended (that gave 2.80 s and 5.71 events/s).
wall_run async_think $LB $S/sleep.lua run --ms=700 --threads=2 --connections=4 --time=3 --report-interval=1 \
  --result-file="$T/async_think.json"
json_assert async_think_duration "$T/async_think.json" "r.duration_s >= 2.999 and r.duration_s <= 3.05 and r.duration_s <= $(cat "$T/async_think.wall")"
json_assert async_think_rate "$T/async_think.json" 'math.abs(r.totals.events_per_sec - r.totals.events / r.duration_s) < 1e-9 and r.totals.events >= 12 and r.totals.events <= 20'
json_assert async_think_intervals "$T/async_think.json" "#r.intervals == 3 and r.intervals[3].time_s == 3 and $TILES"

# Thread mode under --rate: every interval is reported (the last one was
# lost), the duration is --time.
run rate_thread $LB $S/empty.lua run --time=4 --report-interval=2 --rate=50 --result-file="$T/rate_thread.json"
if [ "$(grep -c '^\[ [24]s \]' "$T/rate_thread.out")" = 2 ]; then pass rate_thread_lines
else fail rate_thread_lines "expected [ 2s ] and [ 4s ]: $(tr '\n' '|' <"$T/rate_thread.out") $(grep -o '"intervals":.*' "$T/rate_thread.json" | head -c 600)"; fi
json_assert rate_thread_duration "$T/rate_thread.json" 'r.duration_s >= 3.999 and r.duration_s < 4.05'
json_assert rate_thread_intervals "$T/rate_thread.json" "#r.intervals == 2 and $TILES"
run rate_thread_const $LB $S/empty.lua run --time=2 --threads=2 --report-interval=0.5 --rate=400 --rate-mode=constant \
  --result-file="$T/rate_const.json"
json_assert rate_const_intervals "$T/rate_const.json" "#r.intervals == 4 and r.totals.events >= 798 and r.totals.events <= 802 and $TILES"

# Async under --rate.
run rate_async $LB $S/sleep.lua run --ms=5 --threads=2 --connections=20 --time=2 --report-interval=1 --rate=300 \
  --result-file="$T/rate_async.json"
json_assert rate_async_intervals "$T/rate_async.json" "#r.intervals == 2 and r.duration_s >= 1.999 and r.duration_s < 2.05 and $TILES"

# Plain thread mode with sleeps inside events: the run ends with the last
# event in flight at the deadline (its work is counted).
wall_run thread_sleep $LB $S/sleep.lua run --ms=300 --threads=2 --time=2 --report-interval=0.5 --result-file="$T/thread_sleep.json"
json_assert thread_sleep_duration "$T/thread_sleep.json" "r.duration_s >= 2 and r.duration_s <= 2.35 and r.duration_s <= $(cat "$T/thread_sleep.wall")"
json_assert thread_sleep_intervals "$T/thread_sleep.json" "$TILES"

# Warm-up: an interval ends at the warm-up end, the measured ones add up.
run warm_tiles $LB $S/sleep.lua run --ms=20 --threads=2 --warmup-time=0.75 --time=1.5 --report-interval=0.5 \
  --result-file="$T/warm_tiles.json"
json_assert warm_tiles "$T/warm_tiles.json" "r.warmup_events > 0 and r.duration_s >= 1.5 and r.duration_s < 1.6 and $TILES"
json_assert warm_tick "$T/warm_tiles.json" '(function() for _, iv in ipairs(r.intervals) do if iv.time_s == 0.75 and iv.warmup then return true end end end)()'
json_assert warm_fairness "$T/warm_tiles.json" 'math.abs(2 * r.fairness.events_avg - r.totals.events) < 1e-9'

# A supervising thread that sleeps longer (lbench.supervisor_tick_ms, as
# sysbench's CPU tests set it): the intervals still end at their instants
# and tile the run (the last one ends with the event in flight at the
# deadline), the warm-up still ends on time, and the run lasts --time by
# the wall clock; also with the stock cpu scenario (250 ms).
wall_run slow_tick $LB $S/tick.lua run --tick=1000 --threads=2 --warmup-time=0.5 --time=2 --report-interval=0.25 \
  --result-file="$T/slow_tick.json"
json_assert slow_tick_duration "$T/slow_tick.json" "r.duration_s >= 2 and r.duration_s < 2.05 and r.duration_s + 0.5 <= $(cat "$T/slow_tick.wall")"
json_assert slow_tick_intervals "$T/slow_tick.json" "(function() local n, at = 0, {} for _, iv in ipairs(r.intervals) do n = n + 1; at[#at + 1] = iv.time_s end
  return n == 10 and at[2] == 0.5 and at[9] == 2.25 and at[10] >= 2.5 and at[10] < 2.55 and r.intervals[2].warmup and not r.intervals[3].warmup end)() and $TILES"
wall_run cpu_tick $LB cpu --threads=2 --time=2 --report-interval=0.5 --result-file="$T/cpu_tick.json" run
json_assert cpu_tick_intervals "$T/cpu_tick.json" "#r.intervals == 4 and r.intervals[3].time_s == 1.5 and r.intervals[4].time_s >= 2 and r.intervals[4].time_s < 2.05 and r.duration_s >= 2 and r.duration_s < 2.05 and r.duration_s <= $(cat "$T/cpu_tick.wall") and $TILES"

# Events limit: the last, partial interval is reported too.
run events_tiles $LB $S/sleep.lua run --ms=1 --threads=2 --events=700 --time=0 --report-interval=0.2 \
  --result-file="$T/events_tiles.json"
json_assert events_tiles "$T/events_tiles.json" "r.totals.events == 700 and r.status == 'ok' and $TILES"

# A script that sleeps only between events still counts its whole period.
run async_null $LB $S/empty.lua run --threads=2 --connections=8 --time=1 --report-interval=0.25 --result-file="$T/async_null.json"
json_assert async_null_intervals "$T/async_null.json" "#r.intervals == 4 and r.duration_s >= 0.999 and r.duration_s < 1.05 and $TILES"

# The null database driver (the SQL path without a server), threads and async.
run null_sql $LB oltp_read_write --db-driver=null --threads=2 --time=1 --report-interval=0.25 --result-file="$T/null_sql.json" run
json_assert null_sql_tiles "$T/null_sql.json" "#r.intervals == 4 and r.duration_s >= 1 and r.duration_s < 1.05 and r.totals.queries.total == 20 * r.totals.events and $TILES"
run null_sql_async $LB oltp_read_write --db-driver=null --threads=2 --connections=40 --rate=2000 --time=1 --report-interval=0.5 \
  --result-file="$T/null_sql_async.json" run
json_assert null_sql_async_tiles "$T/null_sql_async.json" "#r.intervals == 2 and r.duration_s >= 0.999 and r.duration_s < 1.05 and $TILES"

# SIGTERM: stops within a second, keeps what it measured, says interrupted.
( $LB $S/sleep.lua run --ms=5 --threads=2 --time=60 --report-interval=0.5 --result-file="$T/term.json" >"$T/term.out" 2>"$T/term.err"
  echo $? >"$T/term.rc" ) &
bg=$!; sleep 1.5; pkill -TERM -f "sleep.lua run --ms=5 --threads=2 --time=60" 2>/dev/null
for _ in $(seq 20); do kill -0 $bg 2>/dev/null || break; sleep 0.1; done
if kill -0 $bg 2>/dev/null; then kill -9 $bg; fail sigterm_run_stops "still running 2 s after SIGTERM"
elif [ "$(cat "$T/term.rc")" = 143 ] && grep -q 'Run interrupted (signal)' "$T/term.out" && grep -q 'run interrupted' "$T/term.err"; then
  pass sigterm_run_stops
else fail sigterm_run_stops "rc=$(cat "$T/term.rc"): $(tail -3 "$T/term.out") $(cat "$T/term.err")"; fi
json_assert sigterm_result "$T/term.json" "r.status == 'interrupted' and r.stop_reason == 'signal' and r.duration_s > 1 and r.duration_s < 3 and $TILES"

# A sweep stopped by a signal: the point says interrupted, is nobody's
# baseline, and the sweep exits with the signal's status.
( $LB sweep --threads=1,2 --time=5 $S/empty.lua --result-file="$T/sweep_int.json" >"$T/sweep_int.out" 2>"$T/sweep_int.err"
  echo $? >"$T/sweep_int.rc" ) &
bg=$!; sleep 1.5; pkill -INT -f "sweep --threads=1,2 --time=5" 2>/dev/null; wait $bg
[ "$(cat "$T/sweep_int.rc")" = 130 ] && grep -q 'sweep interrupted by a signal after 1 of 2' "$T/sweep_int.err" \
  && pass sweep_interrupted_exit || fail sweep_interrupted_exit "rc=$(cat "$T/sweep_int.rc"): $(cat "$T/sweep_int.err")"
json_assert sweep_interrupted_point "$T/sweep_int.json" 'r.status == "interrupted" and #r.points == 1 and r.points[1].status == "interrupted" and r.summary[1].status == "interrupted" and r.summary[1].scale_factor == nil and r.summary[1].baseline == nil and r.host ~= nil and r.options ~= nil'

# Result files: refused before the run, written whole.
expect_fail result_dir_missing '^lbench: --result-file=/nonexistent/dir/x.json: cannot write there' \
  $LB $S/empty.lua run --time=5 --result-file=/nonexistent/dir/x.json
if grep -q 'total number of events' "$T/result_dir_missing.out"; then fail result_refused_before_run "the run happened first"
else pass result_refused_before_run; fi
mkdir -p "$T/adir"
expect_fail result_is_dir 'is a directory' $LB $S/empty.lua run --time=0.1 --result-file="$T/adir"
echo 'old' >"$T/replace.json"
run result_replace $LB $S/empty.lua run --time=0.1 --result-file="$T/replace.json"
json_assert result_replaced "$T/replace.json" 'r.status == "ok"'
if ls -a "$T" | grep -q -- '\.tmp-\|lbench-probe'; then fail result_no_temp_left "$(ls -a "$T" | grep -- '\.tmp-\|probe')"
else pass result_no_temp_left; fi

# the counters start at the barrier: thread_init's 5 queries per thread (or
# per virtual user) are in no total and no interval (the null driver's
# count: one query per event)
run init_queries $LB $S/init_queries.lua --db-driver=null --threads=2 --events=1000 --report-interval=0.05 \
  --result-file="$T/initq.json" run
json_assert init_queries_not_counted "$T/initq.json" 'r.totals.events == 1000 and r.totals.queries.total == 1000'
run init_queries_async $LB $S/init_queries.lua --db-driver=null --threads=2 --connections=20 --events=1000 \
  --result-file="$T/initqa.json" run
json_assert init_queries_not_counted_async "$T/initqa.json" 'r.totals.events == 1000 and r.totals.queries.total == 1000'

# ---- phases: a --rate schedule --------------------------------------------
# Constant spacing: each phase's events are its schedule's integral (steps
# rate x seconds, a ramp's area) within the boundary's few events; the
# phases add up to the totals, their own histograms to their events, and
# the intervals are cut at the boundaries and say their phase.
PH='(function(want, tol)
  if #r.phases ~= #want then return false end
  local sum = 0
  for i, w in ipairs(want) do
    local p = r.phases[i]
    if p.name ~= w[1] or math.abs(p.events - w[2]) > tol * w[2] or p.latency_ms.count ~= p.events then return false end
    sum = sum + p.events
  end
  return sum == r.totals.events end)'
run phases_steps $LB $S/empty.lua run --threads=2 --rate=1000@1.5,3000@1.5 --phases=low,high --rate-mode=constant \
  --report-interval=0.5 --result-file="$T/ph1.json"
json_assert phases_steps_counts "$T/ph1.json" "$PH({ { 'low', 1500 }, { 'high', 4500 } }, 0.02)"
json_assert phases_steps_time "$T/ph1.json" 'r.duration_s >= 2.999 and r.duration_s <= 3.05 and r.options.time == 3
  and r.phases[2].start_s == 1.5 and math.abs(r.phases[1].duration_s - 1.5) < 0.01'
json_assert phases_steps_intervals "$T/ph1.json" "#r.intervals == 6 and r.intervals[3].phase == 'low'
  and r.intervals[4].phase == 'high' and math.abs(r.intervals[3].time_s - 1.5) < 1e-6 and $TILES"
grep -q 'phase: high' "$T/phases_steps.out" && grep -Eq '^    low +1000 ' "$T/phases_steps.out" \
  && pass phases_steps_text || fail phases_steps_text "$(grep -E 'phase|low|high' "$T/phases_steps.out" | head -5)"
# A ramp from 0, after a warm-up run at the first rate (excluded).
run phases_ramp $LB $S/empty.lua run --threads=2 --rate=ramp:0-4000@2,500@1 --rate-mode=constant --warmup-time=0.5 \
  --result-file="$T/ph2.json"
json_assert phases_ramp_counts "$T/ph2.json" "$PH({ { 'ramp:0-4000@2', 4000 }, { '500@1', 500 } }, 0.02)"
# Poisson arrivals (counts within 6 %, five standard deviations), async virtual users.
run phases_poisson_async $LB $S/empty.lua run --threads=2 --connections=40 --rate=2000@2,6000@1 \
  --result-file="$T/ph3.json"
json_assert phases_poisson_async_counts "$T/ph3.json" "$PH({ { '2000@2', 4000 }, { '6000@1', 6000 } }, 0.06)"
# Mistakes: one line each.
one_line phases_without_schedule '--phases: names the entries of a --rate schedule' $LB $S/empty.lua run --phases=a,b
one_line phases_count '--phases: 3 name\(s\) for 2 --rate entries' $LB $S/empty.lua run --rate=1@1,2@1 --phases=a,b,c
one_line phases_bad_entry "--rate=1000@x: entry 1 '1000@x': expected RATE@SECONDS" $LB $S/empty.lua run --rate=1000@x
one_line phases_time_conflict "--time=5: --rate's schedule lasts 2 s" $LB $S/empty.lua run --rate=1@1,2@1 --time=5

# A run that fails keeps what it measured: a script's error at its 200th
# event after 199 recorded ones (the worker that failed once zeroed its
# counters on its way out, so events read 0 beside 199 latencies).
cat > "$T/fail_at.lua" <<'LUA'
local n = 0
function event()
  n = n + 1
  if n == 200 then error("failing on purpose at event 200") end
end
LUA
run failed_run_keeps_events $LB "$T/fail_at.lua" run --threads=1 --time=10 --result-file="$T/fail_at.json"
[ "$rc" -eq 1 ] && pass failed_run_exit_1 || fail failed_run_exit_1 "exit $rc"
json_assert failed_run_counts "$T/fail_at.json" "r.status == 'error' and r.totals.events == 199
  and r.latency_ms.count == 199 and r.duration_s < 10"

rm -rf "$T"

#!/usr/bin/env bash
# lbench-mpi: several processes (ranks, started by a real mpirun on this
# machine) as one run.  With the null driver and test scripts: the merged
# counters, per-type counts and histogram against sums computed here from
# the ranks' own documents, the job's thread numbering, --events split
# exactly, the start skew and clock offsets, the intervals (the same on
# every rank), the phases of a --rate schedule, the CPU and connection
# fairness of the job, measured rounds (lbench.run from a custom command,
# fileio precondition, lbench sweep) as runs of the job, a failure on one
# rank, an option mismatch, plain lbench refusing.  Against a private
# MariaDB (port 3392): a 2-rank OLTP prepare (each table once, all rows),
# a 2-rank run (the server's CPU counted once), a server error and a
# killed connection on one rank, and a 2-rank TPC-C prepare, run and
# check.  The exact merge, a stalled rank and a failure again over Open
# MPI's TCP transport alone.  No timing assertions.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
mpi_setup mpi
S=test/e2e/scripts
E=test/cli/scripts/empty.lua
CHECK() { # CHECK NAME COMMAND MERGED RANK_FILES...: an mpi_check.lua cross-check
  local name=$1 cmd=$2 merged=$3; shift 3
  local ranks; ranks=$(IFS=,; echo "$*")
  if $LB $S/mpi_check.lua "$cmd" --merged="$merged" --ranks="$ranks" >"$T/$name.ck" 2>&1; then pass "$name"
  else fail "$name" "$(head -c 400 "$T/$name.ck")"; fi
}

# ---- the build -------------------------------------------------------------
check mpi_plain_lbench_no_mpi bash -c "! ldd ./lbench | grep -q libmpi"
check mpi_liblbench_no_mpi bash -c "! ldd build/liblbench.so | grep -q libmpi"
check mpi_binary_links_mpi bash -c "ldd $LBM | grep -q libmpi"
ALLOW_STDOUT=1 expect_fail mpi_plain_refuses '^lbench: started as one of 2 MPI ranks: use lbench-mpi' \
  "${MPI[@]}" -np 2 ./lbench $E --time=1 run
[ "$(grep -c 'use lbench-mpi' "$T/mpi_plain_refuses.err")" -eq 2 ] && ! grep -q 'stack traceback' "$T/mpi_plain_refuses.err" \
  && pass mpi_plain_refuses_one_line_each || fail mpi_plain_refuses_one_line_each "$(head -c 400 "$T/mpi_plain_refuses.err")"

# ---- figures over time, 2 ranks: a blocking C call in every thread ----------
# Each interval and the warm-up of the job hold the events that completed
# in them on every rank (ends_check.lua against the events' own end times;
# one host, one clock), one per thread of slack.
mkdir -p "$T/ends"
run mpi_intervals_known "${MPI[@]}" -np 2 "$LBM" test/cli/scripts/timed.lua --kind=usleep --ms=30 --threads=4 --time=3 \
  --warmup-time=1 --report-interval=1 --log="$T/ends" --result-file="$T/ends.json" run
if [ "$rc" -ne 0 ]; then fail mpi_intervals_known "exit $rc: $(head -3 "$T/mpi_intervals_known.err")"
elif $LB test/cli/scripts/ends_check.lua check --file="$T/ends.json" --log="$T/ends" --slack=4 >"$T/ends.check" 2>&1; then
  pass mpi_intervals_known
else fail mpi_intervals_known "$(tr '\n' ' ' < "$T/ends.check" | head -c 400)"; fi

# ---- 2 ranks x 2 threads, null driver: merge, numbering ------------------------
mkdir -p "$T/tids"
expect_ok mpi_run 'start skew between ranks: [0-9.]+ ms' "${MPI[@]}" -np 2 "$LBM" $S/mpi_job.lua --threads=2 --time=1 \
  --rand-seed=7 --out-dir="$T/tids" --result-file="$T/job.json" --rank-result-file="$T/rank%r.json" run
[ "$(grep -c '^General statistics:' "$T/mpi_run.out")" -eq 1 ] && pass mpi_one_report || fail mpi_one_report "$(grep -c 'General statistics' "$T/mpi_run.out") reports"
json_assert mpi_doc "$T/job.json" "r.status == 'ok' and r.nranks == 2 and r.threads == 4 and #r.ranks == 2
  and r.mpi_library:match('MPI') and r.start_skew_ms >= 0 and r.start_skew_ms < 10000 and r.options.threads == 4
  and r.merge_ms >= 0"
json_assert mpi_ranks_entries "$T/job.json" "r.ranks[1].rank == 0 and r.ranks[2].rank == 1 and r.ranks[1].threads == 2
  and r.ranks[2].threads == 2 and r.ranks[1].status == 'ok' and r.ranks[1].latency_ms.count == r.ranks[1].totals.events
  and r.ranks[1].host ~= nil and r.ranks[1].cpu ~= nil"
json_assert mpi_duration_slowest "$T/job.json" "r.duration_s == math.max(r.ranks[1].duration_s, r.ranks[2].duration_s)
  and math.abs(r.totals.events_per_sec - r.totals.events / r.duration_s) < 1e-6 * r.totals.events_per_sec"
json_assert mpi_fairness_job "$T/job.json" "math.abs(r.fairness.events_avg - r.totals.events / 4) < 1e-6 * r.totals.events"
# Clock offsets to rank 0 (one host: one clock, so each estimate lies
# within its own error bound, half the round trip; the slack is the
# estimate's integer-nanosecond rounding); rank 0's is 0.
CLOCKS="(function() for i, e in ipairs(r.ranks) do
    if type(e.clock_offset_ms) ~= 'number' or type(e.clock_rtt_ms) ~= 'number' then return false end
    if i > 1 and (e.clock_rtt_ms <= 0 or math.abs(e.clock_offset_ms) > e.clock_rtt_ms / 2 + 2e-6) then return false end
  end return r.ranks[1].clock_offset_ms == 0 and r.ranks[1].clock_rtt_ms == 0 end)()"
json_assert mpi_clock_offsets "$T/job.json" "$CLOCKS"
grep -Eq "start skew between ranks: [0-9.]+ ms \(on rank 0's clock: largest clock offset -?[0-9.]+ ms, known within" \
  "$T/mpi_run.out" && pass mpi_clock_line || fail mpi_clock_line "$(grep 'start skew' "$T/mpi_run.out")"
json_assert mpi_rank_doc "$T/rank1.json" "r.threads == 2 and r.status == 'ok' and r.nranks == nil"
CHECK mpi_counters_are_sums counters "$T/job.json" "$T/rank0.json" "$T/rank1.json"
CHECK mpi_histogram_is_bucket_sum histogram "$T/job.json" "$T/rank0.json" "$T/rank1.json"
CHECK mpi_percentiles_from_sum percentiles "$T/job.json" "$T/rank0.json" "$T/rank1.json"
# The checks can fail: a document against ranks it is not the sum of.
if $LB $S/mpi_check.lua counters --merged="$T/job.json" --ranks="$T/rank0.json,$T/rank0.json" >/dev/null 2>&1; then
  fail mpi_check_detects "a wrong sum passed"; else pass mpi_check_detects; fi
# Thread ids 0..3, each seen once, by the rank that owns it; the job's
# threads and size seen everywhere; one --rand-seed, four streams.
tids_ok() {
  local t n
  for t in 0 1 2 3; do
    [ -f "$T/tids/tid.$t" ] || return 1
    n=$(wc -l < "$T/tids/tid.$t"); [ "$n" -eq 1 ] || return 1
    read -r rank size threads _ < "$T/tids/tid.$t"
    [ "$rank" -eq $((t / 2)) ] && [ "$size" -eq 2 ] && [ "$threads" -eq 4 ] || return 1
  done
  [ "$(ls "$T/tids" | wc -l)" -eq 4 ] && [ "$(cut -d' ' -f4 "$T"/tids/tid.* | sort -u | wc -l)" -eq 4 ]
}
check mpi_thread_ids_once tids_ok

# Async mode: virtual users numbered over the job (3 per rank of 1 thread).
mkdir -p "$T/vus"
cat > "$T/vu.lua" <<'LUA'
lbench.cmdline.options = { out_dir = { "directory for one file per virtual user", "" } }
function thread_init(tid)
  local f = assert(io.open(string.format("%s/vu.%d", lbench.opt.out_dir, lbench.vu), "a"))
  f:write(string.format("%d %d\n", lbench.rank, tid))
  f:close()
end
function event() end
LUA
expect_ok mpi_async '' "${MPI[@]}" -np 2 "$LBM" "$T/vu.lua" --threads=1 --connections=6 --time=1 --out-dir="$T/vus" run
vus_ok() {
  local v
  for v in 0 1 2 3 4 5; do
    [ "$(cat "$T/vus/vu.$v" 2>/dev/null)" = "$((v / 3)) $((v / 3))" ] || return 1
  done
  [ "$(ls "$T/vus" | wc -l)" -eq 6 ]
}
check mpi_virtual_users_once vus_ok

# ---- interval reports: rank 0 prints the job's, each the merge of the ranks' --------
expect_ok mpi_intervals '^\[ 0.25s \] thds: 4 ' "${MPI[@]}" -np 2 "$LBM" $S/mpi_job.lua --threads=2 --time=1 \
  --report-interval=0.25 --result-file="$T/iv.json" --rank-result-file="$T/iv%r.json" run
CHECK mpi_intervals_are_sums intervals "$T/iv.json" "$T/iv0.json" "$T/iv1.json"
CHECK mpi_intervals_counters counters "$T/iv.json" "$T/iv0.json" "$T/iv1.json"
json_assert mpi_intervals_lines "$T/iv.json" "#r.intervals == $(grep -c '^\[ ' "$T/mpi_intervals.out")"
# A stalled rank (SIGSTOP for 0.7 s, about three intervals, once its run
# is under way: rank 1 writes its PID at its first event): it makes every
# slot it missed, so both ranks report the same intervals, matched one to
# one (the job's marks rank 1 missing where its part came late), and rank
# 0's own document has every slot of the 2 s run.  Three ranks: rank 2's
# parts are never held up behind rank 1's (each sender its own receive).
cat > "$T/stall.lua" <<'LUA'
lbench.cmdline.options = { pid_file = { "where rank 1 writes its PID", "" } }
local written = false
function event()
  if written or lbench.rank ~= 1 then return end
  written = true
  local f = assert(io.open(lbench.opt.pid_file .. ".tmp", "w"))
  f:write(require("lbench.cpu").self_pid(), "\n")
  f:close()
  os.rename(lbench.opt.pid_file .. ".tmp", lbench.opt.pid_file)
end
LUA
"${MPI[@]}" -np 3 "$LBM" "$T/stall.lua" --pid-file="$T/stall.pid" --threads=1 --time=2 --report-interval=0.25 \
  --result-file="$T/st.json" --rank-result-file="$T/st%r.json" run >"$T/mpi_stall.out" 2>"$T/mpi_stall.err" &
mpi_pid=$!
for _ in $(seq 300); do [ -s "$T/stall.pid" ] && break; sleep 0.05; done
sleep 0.4; kill -STOP "$(cat "$T/stall.pid")"; sleep 0.7; kill -CONT "$(cat "$T/stall.pid")"
wait "$mpi_pid" && pass mpi_stall_run || fail mpi_stall_run "$(head -c 300 "$T/mpi_stall.err")"
CHECK mpi_stall_intervals_aligned intervals "$T/st.json" "$T/st0.json" "$T/st1.json" "$T/st2.json"
json_assert mpi_stall_rank0_slots "$T/st0.json" "#r.intervals == 8"
# Held behind rank 1, rank 2 would be missing wherever rank 1 is; on a
# loaded host either may also be late on its own, so the test asks for an
# interval that rank 1 missed and rank 2 made (not for rank 2 never late).
json_assert mpi_stall_others_not_held "$T/st.json" "(function() for _, iv in ipairs(r.intervals) do
  local m = {}; for _, k in ipairs(iv.missing_ranks or {}) do m[k] = true end
  if m[1] and not m[2] then return true end end return false end)()"
# compare, plot and report read the job's document as any other.
expect_ok mpi_compare '^events +[0-9]+ +[0-9]+' $LB compare "$T/iv.json" "$T/iv0.json"
run mpi_plot $LB plot "$T/iv.json" --out="$T/plot" --format=svg
[ "$rc" -eq 0 ] && ls "$T/plot"/*.svg >/dev/null 2>&1 && pass mpi_plot || fail mpi_plot "exit $rc: $(head -c 300 "$T/mpi_plot.err")"
run mpi_html $LB report "$T/iv.json" --out="$T/iv.html"
[ "$rc" -eq 0 ] && [ -s "$T/iv.html" ] && pass mpi_html_report || fail mpi_html_report "exit $rc: $(head -c 300 "$T/mpi_html.err")"
# ... and the page shows each rank's own figures beside the job's.
n=$(sed -n '/<table class="lb-table ranks-table">/,/<\/table>/p' "$T/iv.html" | grep -c '^<tr>')
[ "$n" = 2 ] && grep -q 'id="ranks"' "$T/iv.html" && grep -q 'clock offset ms' "$T/iv.html" && pass mpi_html_ranks || fail mpi_html_ranks "$n rank rows"
run mpi_intervals_json "${MPI[@]}" -np 2 "$LBM" $S/mpi_job.lua --threads=1 --time=1 --report-interval=0.5 --output=json run
[ "$rc" -eq 0 ] && [ "$(grep -c '"events_per_sec"' "$T/mpi_intervals_json.out")" -eq 3 ] && pass mpi_intervals_json_lines \
  || fail mpi_intervals_json_lines "exit $rc: $(head -c 300 "$T/mpi_intervals_json.out")"

# The job's CPU: the ranks' client CPU summed, per event over the job's events.
CHECK mpi_cpu_is_sum cpu "$T/job.json" "$T/rank0.json" "$T/rank1.json"
json_assert mpi_cpu_ranks_kept "$T/job.json" "r.ranks[1].cpu.client_s ~= nil and r.ranks[2].cpu.client_s ~= nil"

# ---- a --rate schedule over 2 ranks: the job's phases ------------------------------
# A warm-up (its end between two ticks), a step and a ramp, each rank
# pacing half the rate: each job phase is the merge of the ranks' same
# phase (mpi_check phases), its events its schedule's integral within
# 5 % (a phase's events are counted when the reporter collects at its
# boundary: 2 ranks x 2 threads and 2 reporters share 2 cores here),
# every rank's intervals the same, labelled alike.
expect_ok mpi_phases 'phase: ramp' "${MPI[@]}" -np 2 "$LBM" $S/mpi_job.lua --threads=2 --rate=1000@1.5,ramp:0-2000@1.5 \
  --phases=lo,ramp --rate-mode=constant --warmup-time=0.4 --report-interval=0.3 --result-file="$T/ph.json" \
  --rank-result-file="$T/ph%r.json" run
CHECK mpi_phases_merged phases "$T/ph.json" "$T/ph0.json" "$T/ph1.json"
json_assert mpi_phases_schedule "$T/ph.json" "#r.phases == 2 and r.phases[1].name == 'lo' and r.phases[2].name == 'ramp'
  and math.abs(r.phases[1].events - 1500) <= 75 and math.abs(r.phases[2].events - 1500) <= 75
  and r.phases[1].events + r.phases[2].events == r.totals.events and r.phases[2].start_s == 1.5"
CHECK mpi_phases_intervals intervals "$T/ph.json" "$T/ph0.json" "$T/ph1.json"
json_assert mpi_phases_interval_labels "$T/ph.json" "(function() local lo, ramp, warm = 0, 0, 0
  for _, iv in ipairs(r.intervals) do
    if iv.warmup then warm = warm + 1
    elseif iv.time_s <= 1.9 + 1e-9 then lo = lo + 1; if iv.phase ~= 'lo' then return false end
    else ramp = ramp + 1; if iv.phase ~= 'ramp' then return false end end
  end
  return warm == 2 and lo == 6 and ramp == 6 end)()"
[ "$(grep -c '^Phases:' "$T/mpi_phases.out")" -eq 1 ] && grep -Eq '^    lo +1000 ' "$T/mpi_phases.out" \
  && pass mpi_phases_text_once || fail mpi_phases_text_once "$(grep -E '^Phases|^    (lo|ramp) ' "$T/mpi_phases.out" | head -5)"

# ---- async mode: connection fairness over the job -------------------------------
expect_ok mpi_lanes '' "${MPI[@]}" -np 2 "$LBM" $E --threads=2 --connections=10 --time=1 --rate=2000 \
  --result-file="$T/lanes.json" --rank-result-file="$T/lanes%r.json" run
CHECK mpi_connections_fairness connections "$T/lanes.json" "$T/lanes0.json" "$T/lanes1.json"
json_assert mpi_connections_job "$T/lanes.json" "r.fairness.connections.count == 10 and r.fairness.connections.unused == 0
  and not r.fairness.connections.includes_warmup"

# ---- --events split exactly over 4 ranks ----------------------------------------
expect_ok mpi_events '' "${MPI[@]}" -np 4 "$LBM" $E --events=1001 --time=0 --result-file="$T/ev.json" \
  --rank-result-file="$T/ev%r.json" run
json_assert mpi_events_exact "$T/ev.json" "r.totals.events == 1001 and #r.ranks == 4 and r.ranks[1].totals.events == 251
  and r.ranks[4].totals.events == 250"
json_assert mpi_clock_offsets_4 "$T/ev.json" "$CLOCKS"
CHECK mpi_events_sums counters "$T/ev.json" "$T/ev0.json" "$T/ev1.json" "$T/ev2.json" "$T/ev3.json"

# ---- fileio: one file set prepared once, read and written by every rank ------------
F="--target-dir=$T/fio --file-num=4 --file-total-size=8M --threads=1"
expect_ok mpi_fileio_prepare 'Created 4 files' "${MPI[@]}" -np 2 "$LBM" fileio $F prepare
expect_ok mpi_fileio_run 'Ranks: 2' "${MPI[@]}" -np 2 "$LBM" fileio $F --file-test-mode=rndrw --time=1 \
  --result-file="$T/fio.json" --rank-result-file="$T/fio%r.json" run
CHECK mpi_fileio_sums counters "$T/fio.json" "$T/fio0.json" "$T/fio1.json"
json_assert mpi_fileio_io "$T/fio.json" "r.io.reads > 0 and r.io.writes > 0 and r.nranks == 2"

expect_ok mpi_fileio_precondition 'round +2:' "${MPI[@]}" -np 2 "$LBM" fileio $F --file-test-mode=rndrw \
  --precondition=workload:2 --precondition-round-time=0.3 --result-file="$T/pre.json" --rank-result-file="$T/pre%r.json" \
  precondition
CHECK mpi_precondition_round_is_job precondition_round "$T/pre.json" "$T/pre0.json" "$T/pre1.json"
# The check fails on a wrong sum: rank 1's part left out (rank 0 twice
# could pass: the ranks' I/O totals may be equal).
if $LB $S/mpi_check.lua precondition_round --merged="$T/pre.json" --ranks="$T/pre0.json" >/dev/null 2>&1; then
  fail mpi_precondition_check_detects "a wrong sum passed"; else pass mpi_precondition_check_detects; fi

# ---- measured rounds from a main-state command (lbench.run), sweeps ----------------
# Each round is a run of the whole job: rank 0's script gets the merge of
# every rank's figures, the threads are numbered over the job.
R="$T/rounds"
mkdir -p "$R"
expect_ok mpi_rounds '^round 2: [0-9]+ events, 2 threads, 2 ranks, status ok' "${MPI[@]}" -np 2 "$LBM" $S/mpi_rounds.lua \
  --threads=2 --job-threads=2 --round-time=0.5 --out-dir="$R" rounds
[ "$(grep -c '^round ' "$T/mpi_rounds.out")" -eq 2 ] && grep -q '^round 1: [0-9]* events, 4 threads, 2 ranks, status ok' \
  "$T/mpi_rounds.out" && pass mpi_rounds_on_rank0 || fail mpi_rounds_on_rank0 "$(head -c 400 "$T/mpi_rounds.out")"
for i in 1 2; do
  CHECK mpi_round${i}_counters_are_sums counters "$R/r$i.json" "$R/r$i.0.json" "$R/r$i.1.json"
  CHECK mpi_round${i}_histogram_is_bucket_sum histogram "$R/r$i.json" "$R/r$i.0.json" "$R/r$i.1.json"
done
json_assert mpi_round_threads "$R/r2.json" "r.threads == 2 and r.nranks == 2 and r.ranks[1].threads == 1
  and r.ranks[2].threads == 1"
# Thread ids 0..JOB-1 of round N, each once, by the rank that owns it.
round_tids_ok() { # ROUND JOB_THREADS
  local t n rank threads per=$(($2 / 2))
  for t in $(seq 0 $(($2 - 1))); do
    n=$(wc -l < "$R/round$1/tid.$t" 2>/dev/null) && [ "$n" -eq 1 ] || return 1
    read -r rank threads < "$R/round$1/tid.$t"
    [ "$rank" -eq $((t / per)) ] && [ "$threads" -eq "$2" ] || return 1
  done
  [ "$(ls "$R/round$1" | wc -l)" -eq "$2" ]
}
check mpi_round1_thread_ids round_tids_ok 1 4
check mpi_round2_thread_ids round_tids_ok 2 2
# A failure on rank 1 inside a round stops the job's round, which the
# command sees as failed (naming the rank); the round was cut short.
R="$T/rounds_fail"
mkdir -p "$R"
run mpi_round_fail "${MPI[@]}" -np 2 "$LBM" $S/mpi_rounds.lua --threads=1 --round-time=60 --fail-rank=1 --out-dir="$R" rounds
[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && grep -q 'lbench-mpi: round 1: rank 1 (.*): injected failure on rank 1' \
  "$T/mpi_round_fail.err" && [ ! -e "$R/r2.json" ] && pass mpi_round_fail_names_rank \
  || fail mpi_round_fail_names_rank "exit $rc: $(head -c 400 "$T/mpi_round_fail.err")"
json_assert mpi_round_fail_doc "$R/r1.json" "r.status == 'error' and r.error:match('^rank 1 %(') and r.ranks[2].status == 'error'
  and r.ranks[1].stopped_by == 1 and r.duration_s < 50"
run mpi_round_threads_odd "${MPI[@]}" -np 2 "$LBM" $S/mpi_rounds.lua --threads=1 --job-threads=3 --round-time=0.2 \
  --out-dir="$R" rounds
[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && [ "$(grep -c '^lbench-mpi: ' "$T/mpi_round_threads_odd.err")" -eq 1 ] \
  && grep -q "lbench.run threads=3: under lbench-mpi a round runs the job's threads, a multiple of its 2 ranks" \
  "$T/mpi_round_threads_odd.err" && ! grep -q 'stack traceback' "$T/mpi_round_threads_odd.err" \
  && pass mpi_round_threads_refused || fail mpi_round_threads_refused "exit $rc: $(head -c 400 "$T/mpi_round_threads_odd.err")"
# A round started where the other ranks do not follow (a run's init())
# is refused in one line instead of waiting for them forever.
printf 'function init() lbench.run{ time = 0.1 } end\nfunction event() end\n' > "$T/init_round.lua"
run mpi_round_outside "${MPI[@]}" -np 2 "$LBM" "$T/init_round.lua" --time=1 run
[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && grep -q '^lbench-mpi: lbench.run: under lbench-mpi only a main-state command' \
  "$T/mpi_round_outside.err" && ! grep -q 'stack traceback' "$T/mpi_round_outside.err" && pass mpi_round_outside_refused \
  || fail mpi_round_outside_refused "exit $rc: $(head -c 400 "$T/mpi_round_outside.err")"
# lbench sweep: rank 0 drives it, each point is a run of the job.
expect_ok mpi_sweep '^Sweep results' "${MPI[@]}" -np 2 "$LBM" sweep --threads=1,2 $S/mpi_job.lua --time=0.5 \
  --result-file="$T/sw.json" --rank-result-file="$T/sw%r.json"
[ "$(grep -c '^Sweep results' "$T/mpi_sweep.out")" -eq 1 ] && pass mpi_sweep_one_report || fail mpi_sweep_one_report \
  "$(grep -c '^Sweep results' "$T/mpi_sweep.out") reports"
json_assert mpi_sweep_points "$T/sw.json" "#r.points == 2 and r.points[1].nranks == 2 and r.points[1].threads == 2
  and r.points[2].threads == 4 and r.points[2].ranks[1].threads == 2 and r.points[2].ranks[2].threads == 2"
ALL="--merged=$T/sw.json --point=2 --ranks=$T/sw0.json,$T/sw1.json"
$LB $S/mpi_check.lua counters $ALL >"$T/mpi_sweep.ck" 2>&1 && $LB $S/mpi_check.lua histogram $ALL >>"$T/mpi_sweep.ck" 2>&1 \
  && pass mpi_sweep_point_is_sum || fail mpi_sweep_point_is_sum "$(head -c 400 "$T/mpi_sweep.ck")"

# ---- failures ----------------------------------------------------------------
run mpi_fail "${MPI[@]}" -np 2 "$LBM" $S/mpi_job.lua --threads=2 --time=60 --fail-rank=1 --result-file="$T/fail.json" run
[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && grep -q 'lbench-mpi: rank 1 (.*): injected failure on rank 1' "$T/mpi_fail.err" \
  && pass mpi_fail_names_rank || fail mpi_fail_names_rank "exit $rc: $(head -c 400 "$T/mpi_fail.err")"
# Rank 0 was stopped by rank 1's failure, long before its --time.
json_assert mpi_fail_doc "$T/fail.json" "r.status == 'error' and r.error:match('^rank 1 %(') and r.ranks[2].status == 'error'
  and r.ranks[1].stopped_by == 1 and r.duration_s < 50"
# A rank that cannot start (thread_init fails on rank 1): no rank runs.
cat > "$T/init_fail.lua" <<'EOF'
function thread_init() if lbench.rank == 1 then error("no connection on rank 1", 0) end end
function event() end
EOF
run mpi_init_fail "${MPI[@]}" -np 2 "$LBM" "$T/init_fail.lua" --time=60 run
[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && grep -q 'lbench-mpi: rank 1 (.*): no connection on rank 1' "$T/mpi_init_fail.err" \
  && pass mpi_init_fail_names_rank || fail mpi_init_fail_names_rank "exit $rc: $(head -c 400 "$T/mpi_init_fail.err")"
# A rank that stops answering (its only thread sleeps past the deadline):
# rank 0 gives up --rank-timeout after the deadline, writes the document
# naming it, and the job is aborted.
echo 'function event() if lbench.rank == 1 then lbench.sleep(30000) end end' > "$T/hang.lua"
run mpi_hang "${MPI[@]}" -np 2 "$LBM" "$T/hang.lua" --time=1 --rank-timeout=1 --result-file="$T/hang.json" run
[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && grep -q 'lbench-mpi: rank 1 did not report within' "$T/mpi_hang.err" \
  && pass mpi_hang_names_rank || fail mpi_hang_names_rank "exit $rc: $(head -c 400 "$T/mpi_hang.err")"
json_assert mpi_hang_doc "$T/hang.json" "r.status == 'error' and r.error:match('^rank 1 did not report')"
# SIGINT to mpirun (after the first interval line): every rank stops, rank
# 0 reports what was measured and writes the document.
"${MPI[@]}" -np 2 "$LBM" $S/mpi_job.lua --threads=1 --time=60 --rate=2000 --report-interval=0.5 \
  --result-file="$T/int.json" run >"$T/mpi_sigint.out" 2>"$T/mpi_sigint.err" &
mpi_pid=$!
for _ in $(seq 300); do grep -q '^\[ ' "$T/mpi_sigint.out" && break; sleep 0.1; done
kill -INT "$mpi_pid"
wait "$mpi_pid"; rc=$?
[ "$rc" -ne 0 ] && grep -q 'run interrupted (signal)' "$T/mpi_sigint.err" && grep -q '^General statistics:' "$T/mpi_sigint.out" \
  && pass mpi_sigint_reports || fail mpi_sigint_reports "exit $rc: $(head -c 300 "$T/mpi_sigint.err")"
json_assert mpi_sigint_doc "$T/int.json" "r.status == 'interrupted' and r.stop_reason == 'signal' and #r.ranks == 2
  and r.duration_s < 55"
# Ranks with different options: refused before anything runs.
run mpi_mismatch "${MPI[@]}" -np 1 "$LBM" $E --time=1 run : -np 1 "$LBM" $E --time=2 run
[ "$rc" -ne 0 ] && grep -q 'rank 1 (.*) runs with other options than rank 0' "$T/mpi_mismatch.err" && [ ! -s "$T/mpi_mismatch.out" ] \
  && pass mpi_mismatch_refused || fail mpi_mismatch_refused "exit $rc: $(head -c 400 "$T/mpi_mismatch.err")"
run mpi_mismatch_scenario "${MPI[@]}" -np 1 "$LBM" $E --time=1 run : -np 1 "$LBM" $S/mpi_job.lua --time=1 run
[ "$rc" -ne 0 ] && grep -q 'rank 1 (.*) runs with other scenario than rank 0' "$T/mpi_mismatch_scenario.err" \
  && pass mpi_mismatch_scenario_refused || fail mpi_mismatch_scenario_refused "exit $rc: $(head -c 400 "$T/mpi_mismatch_scenario.err")"

# ---- over TCP: Open MPI's TCP transport forced, shared memory off --------------
# What ranks on separate hosts use: the ob1 messaging layer over the tcp
# BTL alone (not vader, the shared-memory one, nor UCX), on the loopback
# interface (one every host has; Open MPI leaves it out by default).  An
# eager limit of 4 KB sends every part larger than that by rendezvous, as
# a histogram-heavy part goes between hosts.  The exact merge with
# intervals, a stalled rank and a failing rank, checked as above.
TCP=(env OMPI_MCA_pml=ob1 OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_btl_tcp_eager_limit=4096
  OMPI_MCA_btl_tcp_rndv_eager_limit=4096)
run mpi_tcp_run "${TCP[@]}" OMPI_MCA_btl_base_verbose=30 "${MPI[@]}" -np 3 "$LBM" $S/mpi_job.lua --threads=2 --time=1 \
  --report-interval=0.25 --result-file="$T/tcp.json" --rank-result-file="$T/tcp%r.json" run
[ "$rc" -eq 0 ] && pass mpi_tcp_run || fail mpi_tcp_run "exit $rc: $(grep -v 'mca\|btl' "$T/mpi_tcp_run.err" | head -c 400)"
# Every rank took the tcp BTL, and no rank opened the shared-memory one.
[ "$(grep -c 'select: init of component tcp returned success' "$T/mpi_tcp_run.err")" -eq 3 ] \
  && ! grep -q 'component vader' "$T/mpi_tcp_run.err" && pass mpi_tcp_transport_is_tcp \
  || fail mpi_tcp_transport_is_tcp "$(grep -E 'component (tcp|vader)' "$T/mpi_tcp_run.err" | head -c 400)"
json_assert mpi_tcp_doc "$T/tcp.json" "r.status == 'ok' and r.nranks == 3 and r.threads == 6 and #r.ranks == 3"
CHECK mpi_tcp_counters_are_sums counters "$T/tcp.json" "$T/tcp0.json" "$T/tcp1.json" "$T/tcp2.json"
CHECK mpi_tcp_histogram_is_bucket_sum histogram "$T/tcp.json" "$T/tcp0.json" "$T/tcp1.json" "$T/tcp2.json"
CHECK mpi_tcp_percentiles_from_sum percentiles "$T/tcp.json" "$T/tcp0.json" "$T/tcp1.json" "$T/tcp2.json"
CHECK mpi_tcp_intervals_are_sums intervals "$T/tcp.json" "$T/tcp0.json" "$T/tcp1.json" "$T/tcp2.json"
rm -f "$T/stall.pid"
"${TCP[@]}" "${MPI[@]}" -np 3 "$LBM" "$T/stall.lua" --pid-file="$T/stall.pid" --threads=1 --time=2 \
  --report-interval=0.25 --result-file="$T/tst.json" --rank-result-file="$T/tst%r.json" run \
  >"$T/mpi_tcp_stall.out" 2>"$T/mpi_tcp_stall.err" &
mpi_pid=$!
for _ in $(seq 300); do [ -s "$T/stall.pid" ] && break; sleep 0.05; done
sleep 0.4; kill -STOP "$(cat "$T/stall.pid")"; sleep 0.7; kill -CONT "$(cat "$T/stall.pid")"
wait "$mpi_pid" && pass mpi_tcp_stall_run || fail mpi_tcp_stall_run "$(head -c 300 "$T/mpi_tcp_stall.err")"
CHECK mpi_tcp_stall_intervals_aligned intervals "$T/tst.json" "$T/tst0.json" "$T/tst1.json" "$T/tst2.json"
json_assert mpi_tcp_stall_rank0_slots "$T/tst0.json" "#r.intervals == 8"
json_assert mpi_tcp_stall_marked "$T/tst.json" "(function() for _, iv in ipairs(r.intervals) do
  for _, k in ipairs(iv.missing_ranks or {}) do if k == 1 then return true end end end return false end)()"
run mpi_tcp_fail "${TCP[@]}" "${MPI[@]}" -np 2 "$LBM" $S/mpi_job.lua --threads=2 --time=60 --fail-rank=1 \
  --result-file="$T/tcp_fail.json" run
[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && grep -q 'lbench-mpi: rank 1 (.*): injected failure on rank 1' "$T/mpi_tcp_fail.err" \
  && pass mpi_tcp_fail_names_rank || fail mpi_tcp_fail_names_rank "exit $rc: $(head -c 400 "$T/mpi_tcp_fail.err")"
json_assert mpi_tcp_fail_doc "$T/tcp_fail.json" "r.status == 'error' and r.error:match('^rank 1 %(')
  and r.ranks[2].status == 'error' and r.ranks[1].stopped_by == 1 and r.duration_s < 50"

# ---- against MariaDB: OLTP and TPC-C over 2 ranks ------------------------------
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR_MPI:-/tmp/lbench-test-mpi} LB_SANDBOX_PORT=${LB_SANDBOX_PORT_MPI:-3392}
sandbox_lock mpi
sandbox_start mpi
SQL() { mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest sbtest -N -B -e "$1" 2>&1; }
O="--tables=3 --table-size=2000 --threads=1"
$LB oltp_read_only $M $O cleanup >/dev/null 2>&1
expect_ok mpi_oltp_prepare 'Inserting 6000 records into 3 table\(s\) with 2 thread\(s\)' \
  "${MPI[@]}" -np 2 "$LBM" oltp_read_only $M $O prepare
[ "$(grep -c 'Creating table' "$T/mpi_oltp_prepare.out")" -eq 3 ] && pass mpi_oltp_tables_once \
  || fail mpi_oltp_tables_once "$(head -c 400 "$T/mpi_oltp_prepare.out")"
rows=$(SQL "SELECT (SELECT COUNT(*) FROM sbtest1), (SELECT COUNT(*) FROM sbtest2), (SELECT COUNT(*) FROM sbtest3), (SELECT COUNT(DISTINCT id) FROM sbtest3)")
[ "$rows" = "$(printf '2000\t2000\t2000\t2000')" ] && pass mpi_oltp_rows || fail mpi_oltp_rows "$rows"
# Both ranks (one host) measure the one server's CPU (--server-pid): the
# job counts it once.
expect_ok mpi_oltp_run 'transactions:' "${MPI[@]}" -np 2 "$LBM" oltp_read_only $M $O --time=2 --result-file="$T/oltp.json" \
  --rank-result-file="$T/oltp%r.json" --server-pid="$(cat "$LB_SANDBOX_DIR/mysqld.pid")" run
CHECK mpi_oltp_sums counters "$T/oltp.json" "$T/oltp0.json" "$T/oltp1.json"
CHECK mpi_oltp_cpu cpu "$T/oltp.json" "$T/oltp0.json" "$T/oltp1.json"
json_assert mpi_oltp_server_cpu_once "$T/oltp.json" "r.cpu.server_s > 0 and r.cpu.server_pid == r.ranks[1].cpu.server_pid
  and r.cpu.server_s == math.max(r.ranks[1].cpu.server_s, r.ranks[2].cpu.server_s)
  and r.cpu.server_s < r.ranks[1].cpu.server_s + r.ranks[2].cpu.server_s"
json_assert mpi_oltp_queries "$T/oltp.json" "r.totals.queries.total == 16 * r.totals.events and r.totals.events > 0 and r.threads == 2"
$LB oltp_read_only $M $O cleanup >/dev/null 2>&1

# A server error on one rank (rank 1 queries a missing table; rank 0 runs
# normally): the job stops at once, long before --time, rank 0 writes the
# document naming rank 1, its host and the server's error; mpirun exits 1.
run mpi_db_error "${MPI[@]}" -np 2 "$LBM" $S/mpi_db.lua $M --mode=missing --threads=1 --time=60 \
  --result-file="$T/dberr.json" --rank-result-file="$T/dberr%r.json" run
[ "$rc" -eq 1 ] && grep -Eq "^lbench-mpi: rank 1 \([^)]+\): .*1146.*lbench_mpi_no_such_table' doesn't exist" \
  "$T/mpi_db_error.err" && pass mpi_db_error_names_rank || fail mpi_db_error_names_rank "exit $rc: $(head -c 400 "$T/mpi_db_error.err")"
json_assert mpi_db_error_doc "$T/dberr.json" "r.status == 'error' and r.error:match('^rank 1 %([^)]+%): .*1146')
  and r.error:find(\"doesn't exist\", 1, true) and r.ranks[2].status == 'error' and r.ranks[1].stopped_by == 1
  and r.ranks[1].totals.events > 0 and r.duration_s < 30"
json_assert mpi_db_error_sums "$T/dberr.json" "r.totals.events == r.ranks[1].totals.events + r.ranks[2].totals.events"
# One rank's connection killed by the server (KILL CONNECTION from a second
# connection of rank 1): reconnected once, counted, the event restarted,
# the run goes on; the job's count is the ranks' (0 + 1).
expect_ok mpi_db_kill 'transactions:|events' "${MPI[@]}" -np 2 "$LBM" $S/mpi_db.lua $M --mode=kill --threads=1 --time=1 \
  --result-file="$T/dbkill.json" --rank-result-file="$T/dbkill%r.json" run
json_assert mpi_db_kill_rank1 "$T/dbkill1.json" "r.status == 'ok' and r.totals.reconnects == 1"
json_assert mpi_db_kill_rank0 "$T/dbkill0.json" "r.status == 'ok' and r.totals.reconnects == 0"
json_assert mpi_db_kill_job "$T/dbkill.json" "r.status == 'ok' and r.totals.reconnects == 1 and r.totals.errors == 1"
CHECK mpi_db_kill_sums counters "$T/dbkill.json" "$T/dbkill0.json" "$T/dbkill1.json"

W="--warehouses=2 --threads=1"
$LB tpcc $M $W cleanup >/dev/null 2>&1
expect_ok mpi_tpcc_prepare 'Loaded in' "${MPI[@]}" -np 2 "$LBM" tpcc $M $W prepare
expect_ok mpi_tpcc_run 'NOTPM|tpmC' "${MPI[@]}" -np 2 "$LBM" tpcc $M $W --time=2 --result-file="$T/tpcc.json" \
  --rank-result-file="$T/tpcc%r.json" run
CHECK mpi_tpcc_sums counters "$T/tpcc.json" "$T/tpcc0.json" "$T/tpcc1.json"
expect_ok mpi_tpcc_check 'Consistency check PASSED on all 2' "${MPI[@]}" -np 2 "$LBM" tpcc $M $W check
grep -q 'Warehouse 1: PASSED' "$T/mpi_tpcc_check.out" && grep -q 'Warehouse 2: PASSED' "$T/mpi_tpcc_check.out" \
  && pass mpi_tpcc_check_both_ranks || fail mpi_tpcc_check_both_ranks "$(head -c 400 "$T/mpi_tpcc_check.out")"
$LB tpcc $M $W cleanup >/dev/null 2>&1

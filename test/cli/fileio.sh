#!/usr/bin/env bash
# CLI tests of the fileio scenario on small file sets in /tmp (and a small
# tmpfs where the machine lets us mount one).  No timing assertions: runs
# are bounded by --events, counts are exact.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
D=$T/set
F="$LB fileio --target-dir=$D"
MNT=

cleanup_all() {
  [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
  rm -rf "$T"
}
trap cleanup_all EXIT

# ---- prepare, the manifest, sysbench's layout -----------------------------
expect_ok prepare 'bytes written in' $F --file-num=4 --file-total-size=16M --file-block-size=4K prepare
check prepare_files test -f "$D/test_file.3" -a -f "$D/lbench-fileio.manifest" -a -f "$D/lbench-fileio.genmap"
json_assert manifest "$D/lbench-fileio.manifest" 'r.tool == "lbench fileio" and r.file_num == 4 and r.file_size == 4194304 and r.state == "ready" and r.vbs == 4096'
check prepare_no_progress_off_tty bash -c "! grep -q 'ETA' '$T/prepare.out'"
if command -v script >/dev/null; then
  # On a terminal (a pty from script(1)) prepare shows MiB/s and an ETA.
  run prepare_tty script -qec "$LB fileio --target-dir=$T/tty --file-num=2 --file-total-size=4M prepare" /dev/null
  check prepare_progress_on_tty grep -Eq 'of 4 MiB \(100 %\), [0-9.]+ MiB/s, ETA 0s' "$T/prepare_tty.out"
fi

expect_ok sysbench_layout 'reads/s: +[0-9.]+' $F --file-test-mode=rndrw --file-block-size=4K --events=2000 --time=0 run
check sysbench_throughput grep -Eq 'written, MiB/s: +[0-9.]+' "$T/sysbench_layout.out"
check sysbench_fsyncs grep -Eq 'fsyncs/s: +[1-9]' "$T/sysbench_layout.out"
check per_type_read_write grep -Eq '^ +read +[0-9]+' "$T/sysbench_layout.out"

run intervals $F --file-test-mode=rndrw --file-block-size=4K --time=2 --report-interval=1 --percentiles=50,99 --result-file="$T/iv.json" run
check interval_line grep -Eq '^\[ 1s \] thds: 1 reads/s: [0-9.]+ writes/s: [0-9.]+ fsyncs/s: [0-9.]+ read: [0-9.]+ MiB/s written: [0-9.]+ MiB/s lat \(ms,50%/99%\): [0-9./]+ rd lat: [0-9.]+/[0-9.]+ wr lat: ' "$T/intervals.out"
json_assert interval_read_write_latency "$T/iv.json" 'r.intervals[1].io.reads_per_sec > 0 and r.intervals[1].types.read.latency_ms.percentiles["99"] > 0 and r.intervals[1].types.write.events > 0'

# ---- every mode on every engine: exact I/O counts -------------------------
for eng in sync libaio io_uring mmap null; do
  if [ "$eng" = io_uring ] && ! $F --file-test-mode=rndrd --ioengine=io_uring --events=10 --time=0 run >/dev/null 2>&1; then
    expect_fail io_uring_unavailable_explained 'io_uring' $F --file-test-mode=rndrd --ioengine=io_uring --events=10 --time=0 run
    continue
  fi
  for mode in seqwr seqrewr seqrd rndrd rndwr rndrw; do
    qd=1; [ "$eng" = libaio ] || [ "$eng" = io_uring ] || [ "$eng" = null ] && qd=8
    flags=; [ "$eng" = libaio ] && flags=--file-extra-flags=direct
    run "m_${eng}_$mode" $F --file-test-mode=$mode --file-block-size=4K --ioengine=$eng --iodepth=$qd $flags \
      --threads=2 --events=3000 --time=0 --file-fsync-freq=0 --result-file="$T/m_${eng}_$mode.json" run
    if [ "$rc" -ne 0 ]; then fail "mode_${eng}_$mode" "exit $rc: $(head -c 300 "$T/m_${eng}_$mode.err")"; continue; fi
    case $mode in
      seqrd|rndrd) expr='r.io.reads == 3000 and r.io.writes == 0' ;;
      rndrw) expr='r.io.reads + r.io.writes == 3000 and r.io.reads > 1200 and r.io.writes > 600' ;;
      *) expr='r.io.writes == 3000 and r.io.reads == 0' ;;
    esac
    json_assert "mode_${eng}_$mode" "$T/m_${eng}_$mode.json" "$expr and r.fileio.engine == '$eng' and r.types"
  done
done
expect_ok verify_after_runs '0 lost, 0 torn, 0 misplaced' $F verify

# ---- parallel prepare: --threads writers, each a slice of the set ---------
PP=$T/par
expect_ok prepare_threads 'bytes written in' $LB fileio --target-dir=$PP --file-num=3 --file-total-size=24M --threads=3 prepare
check prepare_threads_sizes test "$(stat -c %s "$PP/test_file.0")" -eq 8388608 -a "$(stat -c %s "$PP/test_file.2")" -eq 8388608
expect_ok prepare_threads_verify '6144 ok, 0 lost, 0 torn, 0 misplaced.*0 never written' $LB fileio --target-dir=$PP verify
# more threads than blocks: 64 KiB in 16 KiB blocks, 8 threads asked, 4 write
expect_ok prepare_threads_small 'bytes written in' $LB fileio --target-dir=$PP/s --file-num=1 --file-total-size=64K --file-block-size=16K --threads=8 prepare
expect_ok prepare_threads_small_verify '16 ok, 0 lost.*0 never written' $LB fileio --target-dir=$PP/s verify
rm -rf "$PP"

# ---- libaio: I/Os per io_submit (write-only tests batch, reads do not) ----
lq="--file-block-size=4K --ioengine=libaio --iodepth=32 --file-extra-flags=direct --time=0 --file-fsync-freq=0"
run batch_wr $F --file-test-mode=rndwr $lq --events=3001 --result-file="$T/bw.json" run
json_assert libaio_write_batches "$T/bw.json" 'r.io.writes == 3001 and r.fileio.iodepth_batch == 4 and r.fileio.iodepth_batch_complete_max == 4'
run batch_rd $F --file-test-mode=rndrd $lq --events=3001 --result-file="$T/br.json" run
json_assert libaio_reads_one_per_submit "$T/br.json" 'r.io.reads == 3001 and r.fileio.iodepth_batch == 1 and r.fileio.iodepth_batch_complete_max == 1'
run batch_set $F --file-test-mode=rndwr $lq --iodepth-batch=3 --iodepth-batch-complete-max=6 --events=3001 --result-file="$T/bs.json" run
json_assert libaio_batch_options "$T/bs.json" 'r.io.writes == 3001 and r.fileio.iodepth_batch == 3 and r.fileio.iodepth_batch_complete_max == 6'
run batch_qd4 $F --file-test-mode=rndwr $lq --iodepth=4 --events=100 --result-file="$T/b4.json" run
json_assert libaio_shallow_queue_one_per_submit "$T/b4.json" 'r.io.writes == 100 and r.fileio.iodepth_batch == 1'
expect_ok verify_after_batches '0 lost, 0 torn, 0 misplaced' $F verify

# ---- page cache: prepare leaves the set out of it, run starts from the device
# (tmpfs keeps its pages: there the set goes under build/)
IV=$T/inv
[ "$(stat -f -c %T "$T")" = tmpfs ] && IV=$PWD/build/test-invalidate.$$
cached() { fincore -n -b -o RES "$IV/test_file.0" | awk '{print $1 + 0}'; }
FI="$LB fileio --target-dir=$IV --file-num=1 --file-total-size=8M"
run inv_prepare $FI prepare
check prepare_drops_page_cache test "$rc" -eq 0 -a "$(cached)" -eq 0
run inv_off $FI --invalidate=off --file-test-mode=seqrd --events=512 --time=0 run
check invalidate_off_keeps_pages test "$rc" -eq 0 -a "$(cached)" -ge 8388608
run inv_run $FI --file-test-mode=rndrd --file-block-size=4K --events=1 --time=0 --result-file="$T/inv.json" run
check run_starts_uncached test "$rc" -eq 0 -a "$(cached)" -lt 1048576
json_assert invalidate_in_result "$T/inv.json" 'r.io.reads == 1 and r.fileio.invalidate == true'
rm -rf "$IV"

# ---- options: mixes, bssplit, distributions, compressible payload ------
run mix $F --file-test-mode=rndrw --rwmixread=75 --events=4000 --time=0 --file-fsync-freq=0 --result-file="$T/mix.json" run
json_assert rwmixread "$T/mix.json" 'r.io.reads > 2700 and r.io.reads < 3300 and r.fileio.read_pct == 75'
run bssplit $F --file-test-mode=rndwr --bssplit=4k/50:16k/50 --events=2000 --time=0 --result-file="$T/bss.json" run
json_assert bssplit "$T/bss.json" 'r.io.writes == 2000 and r.io.written_mib_per_sec > 0 and #r.fileio.block_sizes == 2'
for dist in zipf:1.2 pareto:0.2 normal:10; do
  run "dist_${dist%%:*}" $F --file-test-mode=rndrd --random-distribution=$dist --events=1000 --time=0 --result-file="$T/d.json" run
  json_assert "dist_${dist%%:*}" "$T/d.json" "r.io.reads == 1000 and r.fileio.random_distribution == '$dist'"
done
expect_fail bad_dist 'random-distribution' $F --file-test-mode=rndrd --random-distribution=gamma run
run compress $F --file-test-mode=rndwr --buffer-compress-percentage=50 --events=500 --time=0 run
check compress_runs test "$rc" -eq 0
expect_ok verify_after_options '0 lost, 0 torn' $F verify
expect_fail missing_mode 'file-test-mode' $F run --events=10 --time=0
expect_fail unknown_engine 'unknown I/O engine' $F --file-test-mode=rndrd --ioengine=nosuch run
expect_fail no_set 'no prepared file set' $LB fileio --target-dir="$T/none" --file-test-mode=rndrd run

expect_fail small_block_needs_stamp_off 'verify chunk' $F --file-test-mode=rndwr --file-block-size=1K --events=10 --time=0 run
run unstamped $F --file-test-mode=rndwr --file-block-size=1K --stamp=off --events=200 --time=0 run
expect_ok verify_unstamped_skipped '0 lost, 0 torn, 0 misplaced, 0 newer than recorded; [1-9][0-9]* unverifiable' $F verify
# One sequential pass stamps every chunk again (and --seq-passes ends the run).
run restamp $F --file-test-mode=seqwr --file-block-size=64K --seq-passes=1 --time=0 run
expect_ok verify_restamped ' 0 lost, 0 torn, 0 misplaced, 0 newer than recorded; 0 unverifiable' $F verify

# ---- verify finds a flipped byte ---------------------------------------------
flip_byte() { # flip_byte FILE OFFSET: invert one bit of the byte there
  local b
  b=$(dd if="$1" bs=1 skip="$2" count=1 status=none | od -An -tu1 | tr -d ' ')
  printf "\\x$(printf %02x $((b ^ 0x40)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
flip_byte "$D/test_file.2" $((3 * 4096 + 777))
expect_fail verify_flipped_byte 'verify: 1 mismatched block' $F verify
check verify_names_block grep -q 'test_file.2 offset 12288: torn' "$T/verify_flipped_byte.out"

# ---- data points every N I/Os (JSON and CSV) ---------------------------------
run points $F --file-test-mode=rndrd --ioengine=null --threads=2 --events=10000 --time=0 --report-every-ios=1000 --result-file="$T/points.json" run
json_assert points_count "$T/points.json" '#r.fileio.points == 10 and r.fileio.points[10].ios == 10000 and r.fileio.points[1].iops > 0'
check points_live_lines test "$(grep -c '^\[ [0-9]* ios \]' "$T/points.out")" -eq 10
run points_csv $F --file-test-mode=rndrd --ioengine=null --events=5000 --time=0 --report-every-ios=500 --output=csv run
if grep -q '^ios,time_s,secs,iops' "$T/points_csv.out" && [ "$(grep -cE '^[0-9]+,[0-9.e+-]+,' "$T/points_csv.out")" -ge 10 ]; then
  pass points_csv; else fail points_csv "$(head -c 300 "$T/points_csv.out")"; fi
# Latency percentiles per point, reads and writes apart: ordered, max exact.
run points_pct $F --file-test-mode=rndrw --ioengine=null --threads=2 --events=10000 --time=0 --report-every-ios=1000 \
  --result-file="$T/points_pct.json" run
json_assert points_percentiles_ordered "$T/points_pct.json" '#r.fileio.points == 10 and (function()
  for _, p in ipairs(r.fileio.points) do
    for _, k in ipairs({ "read", "write" }) do
      local p50, p95, p99 = p[k .. "_lat_p50_ms"], p[k .. "_lat_p95_ms"], p[k .. "_lat_p99_ms"]
      local p999, mx, avg = p[k .. "_lat_p99_9_ms"], p[k .. "_lat_max_ms"], p[k .. "_lat_avg_ms"]
      if not (p50 >= 0 and p95 >= p50 and p99 >= p95 and p999 >= p99 and mx >= p999 and mx > 0 and mx >= avg) then
        return false
      end
    end
  end
  return true end)()'
# (and, where the set's block device is known, what reached it)
check points_live_line_p99 grep -Eq '^\[ [0-9]+ ios \] .* lat avg \(ms\) r/w: [0-9.]+/[0-9.]+ p99 \(ms\) r/w: [0-9.]+/[0-9.]+( device r/w: [0-9.]+/[0-9.]+ MiB/s util: [0-9.]+ %)?$' "$T/points_pct.out"
check points_csv_percentiles grep -Eq '^ios,.*,read_lat_avg_ms,write_lat_avg_ms,read_lat_p50_ms,read_lat_p95_ms,read_lat_p99_ms,read_lat_p99_9_ms,read_lat_max_ms,write_lat_p50_ms,.*,write_lat_max_ms(,dev_[a-z_]+)*$' "$T/points_csv.out"
# Reads only: the write percentiles of every point are 0.
json_assert points_no_writes_zero "$T/points.json" '(function()
  for _, p in ipairs(r.fileio.points) do
    if p.write_lat_p50_ms ~= 0 or p.write_lat_max_ms ~= 0 or not (p.read_lat_max_ms > 0) then return false end
  end
  return true end)()'
# A known input: one point whose window is the whole run (2 threads' jobs
# merged) holds exactly the run's per-type latency distribution, which the
# workers record separately (same histogram layout, same samples).
run points_whole $F --file-test-mode=rndrw --file-fsync-freq=0 --ioengine=null --iodepth=4 --threads=2 --events=20000 \
  --time=0 --report-every-ios=20000 --percentiles=50,95,99,99.9 --result-file="$T/points_whole.json" run
json_assert points_pct_equal_run_types "$T/points_whole.json" '#r.fileio.points == 1 and (function()
  local p = r.fileio.points[1]
  for _, k in ipairs({ "read", "write" }) do
    local l = r.types[k].latency_ms
    if not (l.count > 1000 and p[k .. "_lat_p50_ms"] == l.percentiles["50"] and p[k .. "_lat_p95_ms"] == l.percentiles["95"]
            and p[k .. "_lat_p99_ms"] == l.percentiles["99"] and p[k .. "_lat_p99_9_ms"] == l.percentiles["99.9"]
            and p[k .. "_lat_max_ms"] == l.max) then return false end
  end
  return true end)()'
# lbench plot draws the read/write p99 of the points beside their throughput.
run points_plot $LB plot "$T/points_pct.json" --out="$T/points_plots" --format=svg
if [ -s "$T/points_plots/fileio-latency.dat" ] && grep -q 'read p99' "$T/points_plots/fileio-latency.gp" &&
   grep -q 'write p99' "$T/points_plots/fileio-latency.gp"; then pass points_plot_p99
else fail points_plot_p99 "no fileio-latency chart: $(head -c 300 "$T/points_plot.out")"; fi

# ---- preconditioning: seq passes, rounds until steady, verdict in the file
run precond $F precondition --file-test-mode=rndwr --ioengine=null --precondition=seq1m:1x,workload:steady \
  --precondition-round-time=0.2 --precondition-max-rounds=7 --result-file="$T/pc.json"
if [ "$rc" -eq 0 ] && grep -q 'round  1:' "$T/precond.out"; then pass precondition_rounds_reported; else
  fail precondition_rounds_reported "exit $rc: $(head -c 300 "$T/precond.err")"; fi
json_assert precondition_result "$T/pc.json" 'r.command == "precondition" and r.precondition.steps[1].kind == "seq" and #r.precondition.steps[2].rounds >= 5 and #r.precondition.steps[2].rounds <= 7 and type(r.precondition.steady_state.reached) == "boolean" and r.precondition.steady_state.window == 5'
# A signal during a round: the round and the precondition say interrupted,
# the manifest keeps no preconditioning record of it, exit 143.
( $F precondition --file-test-mode=rndwr --ioengine=null --precondition=workload:5 --precondition-round-time=3 \
    --result-file="$T/pc_int.json" >"$T/pc_int.out" 2>"$T/pc_int.err"; echo $? >"$T/pc_int.rc" ) &
bg=$!; sleep 1.5; pkill -TERM -f "precondition=workload:5 --precondition-round-time=3" 2>/dev/null
for _ in $(seq 20); do kill -0 $bg 2>/dev/null || break; sleep 0.1; done
if kill -0 $bg 2>/dev/null; then kill -9 $bg; fail precondition_sigterm "still running 2 s after SIGTERM"
elif [ "$(cat "$T/pc_int.rc")" = 143 ] && grep -q 'precondition interrupted in round 1' "$T/pc_int.err"; then pass precondition_sigterm
else fail precondition_sigterm "rc=$(cat "$T/pc_int.rc"): $(tail -2 "$T/pc_int.err")"; fi
json_assert precondition_sigterm_status "$T/pc_int.json" 'r.status == "interrupted" and r.precondition.rounds_run == 1'
run precond_fixed $F precondition --file-test-mode=rndwr --precondition=workload:2 --precondition-round-time=0.2 --result-file="$T/pc2.json"
json_assert precondition_fixed_rounds "$T/pc2.json" '#r.precondition.steps[1].rounds == 2 and r.precondition.steps[1].rounds[1].iops > 0'
json_assert precondition_in_manifest "$D/lbench-fileio.manifest" 'r.preconditioned and r.preconditioned.spec == "workload:2"'
expect_fail precondition_bad_spec 'precondition' $F precondition --file-test-mode=rndwr --precondition=foo
# The run banner once for the whole job, not once per round.
n=$(grep -c '^Running the test with following options:' "$T/precond.out")
[ "$n" -eq 1 ] && pass precondition_banner_once || fail precondition_banner_once "$n banners"
# Fewer rounds than the window: no steady-state figures (null), not zeros.
json_assert precondition_short_window_null "$T/pc2.json" 'r.precondition.steady_state.rounds == 2 and r.precondition.steady_state.window == 5 and r.precondition.steady_state.avg_iops == nil and r.precondition.steady_state.min_iops == nil and r.precondition.steady_state.range_pct == nil'
check precondition_null_in_file grep -q '"avg_iops": null' "$T/pc2.json"

# Every data point's iops is exactly its I/Os over its own span (a real
# engine, 2 threads, a step that is no multiple of the jobs' flush batch).
run points_exact $F --file-test-mode=rndrw --threads=2 --events=20000 --time=0 --report-every-ios=999 --result-file="$T/points_exact.json" run
json_assert points_iops_exact "$T/points_exact.json" '#r.fileio.points >= 15 and (function()
  local prev = { ios = 0, time_s = 0 }
  for _, p in ipairs(r.fileio.points) do
    local dios, dt = p.ios - prev.ios, p.time_s - prev.time_s
    if math.abs(p.iops - dios / dt) > 1e-9 * p.iops or math.abs(p.secs - dt) > 1e-9 then return false end
    prev = p
  end
  return true end)()'

# CSV interval rows: the I/O columns, as many values as the header.
run io_csv $F --file-test-mode=rndrd --ioengine=null --time=1 --report-interval=0.25 --output=csv run
hdr=$(grep -m1 '^time_s,' "$T/io_csv.out"); cols=$(echo "$hdr" | awk -F, '{print NF}')
widths=$(grep -E '^[0-9.]+,[01],' "$T/io_csv.out" | awk -F, '{print NF}' | sort -u | tr '\n' ' ')
if echo "$hdr" | grep -q ',io_reads_per_sec,io_writes_per_sec,io_fsyncs_per_sec,read_mib_per_sec,written_mib_per_sec' \
   && [ "$widths" = "$cols " ] && grep -q '^io_reads,' "$T/io_csv.out"; then pass fileio_csv_io_columns
else fail fileio_csv_io_columns "header=$hdr widths=$widths"; fi

# compare of two fileio results: the I/O rows.
run cmp_a $F --file-test-mode=rndrw --ioengine=null --events=4000 --time=0 --result-file="$T/cmp_a.json" run
run cmp_b $F --file-test-mode=rndrw --ioengine=null --events=8000 --time=0 --result-file="$T/cmp_b.json" run
run compare_fileio $LB compare "$T/cmp_a.json" "$T/cmp_b.json"
if grep -Eq '^IOPS +[0-9]' "$T/compare_fileio.out" && grep -Eq '^read \(MiB/s\) +[0-9]' "$T/compare_fileio.out" \
   && grep -Eq '^written \(MiB/s\) +[0-9]' "$T/compare_fileio.out"; then pass compare_fileio_rows
else fail compare_fileio_rows "$(head -20 "$T/compare_fileio.out" "$T/compare_fileio.err")"; fi

# ---- cleanup removes only our files ---------------------------------------------
touch "$D/foreign.txt"
expect_ok cleanup 'Removed 4 files' $F cleanup
check cleanup_keeps_foreign test -f "$D/foreign.txt" -a ! -f "$D/test_file.0" -a ! -f "$D/lbench-fileio.manifest"

# ---- refusals: foreign directory, foreign file, raw device ------------------------
mkdir -p "$T/foreign" && echo keep > "$T/foreign/data.txt"
expect_fail refuse_foreign_dir 'not empty' $LB fileio --target-dir="$T/foreign" --file-num=2 --file-total-size=1M prepare
expect_ok allow_destructive_dir 'bytes written' $LB fileio --target-dir="$T/foreign" --file-num=2 --file-total-size=1M --allow-destructive prepare
check foreign_untouched grep -qx keep "$T/foreign/data.txt"
$LB fileio --target-dir="$T/foreign" cleanup >/dev/null 2>&1
check cleanup_keeps_dir test -f "$T/foreign/data.txt"
mkdir -p "$T/collide" && echo mine > "$T/collide/test_file.0"
expect_fail refuse_foreign_file 'was not created by lbench' $LB fileio --target-dir="$T/collide" --file-num=2 --file-total-size=1M --allow-destructive prepare
check foreign_file_untouched grep -qx mine "$T/collide/test_file.0"
blk=$(ls /dev/loop[0-9]* 2>/dev/null | head -1)
if [ -n "$blk" ] && [ -b "$blk" ]; then
  expect_fail refuse_raw_device 'allow-destructive' $LB fileio --target="$blk" prepare
else pass refuse_raw_device; fi
# A raw device: a loop device over a small file, where the machine allows it.
truncate -s 32M "$T/loop.img"
LOOP=$(losetup -f --show "$T/loop.img" 2>/dev/null) || LOOP=
if [ -n "$LOOP" ] && [ -b "$LOOP" ]; then
  R="$LB fileio --target=$LOOP --manifest=$T/loop.manifest"
  expect_fail raw_refused_without_flag 'allow-destructive' $R --fill=50% prepare
  expect_ok raw_prepare 'Prepared 16 MiB of' $R --allow-destructive --fill=50% --file-block-size=4K prepare
  expect_ok raw_run 'writes/s: +[1-9]' $R --allow-destructive --file-test-mode=rndrw --file-io-mode=async --iodepth=8 --file-extra-flags=direct --events=2000 --time=0 run
  expect_fail raw_run_refused_without_flag 'allow-destructive' $R --file-test-mode=rndwr --events=10 --time=0 run
  expect_ok raw_read_only_allowed 'reads/s' $R --file-test-mode=rndrd --events=100 --time=0 run
  expect_ok raw_verify '4096 ok, 0 lost' $R verify
  expect_ok raw_cleanup 'device is left' $R cleanup
  losetup -d "$LOOP"
fi
expect_fail target_not_blockdev 'not a block device' $LB fileio --target="$T/collide/test_file.0" prepare

# ---- fill level: arithmetic and refusal on short space -------------------------------
MNT=$T/mnt; mkdir -p "$MNT"
if mount -t tmpfs -o size=32m lbench-test "$MNT" 2>/dev/null; then
  total=$(stat -f -c '%b*%S' "$MNT" | bc)
  expect_ok fill_tmpfs 'Created 4 files' $LB fileio --target-dir="$MNT/s" --fill=50% --file-num=4 --file-block-size=4K prepare
  json_assert fill_arithmetic "$MNT/s/lbench-fileio.manifest" "r.total_size == math.floor($total * 0.5 / 4 / 4096) * 4096 * 4 and r.fill_pct == 50"
  expect_ok fill_run 'reads/s' $LB fileio --target-dir="$MNT/s" --file-test-mode=rndrw --file-extra-flags=direct --file-io-mode=async --iodepth=4 --events=1000 --time=0 run
  expect_fail fill_refuse_short 'only .* is free' $LB fileio --target-dir="$MNT/t" --fill=75% --file-num=2 prepare
  check fill_refusal_wrote_nothing test ! -e "$MNT/t/test_file.0"
  expect_fail size_refuse_short 'only .* is free' $LB fileio --target-dir="$MNT/u" --file-total-size=64M prepare
  umount "$MNT"; MNT=
else
  # No mount here: simulate the filesystem through the test hook.
  expect_ok fill_tmpfs 'Created 4 files' env LBENCH_FILEIO_SPACE=33554432:33554432 $LB fileio --target-dir="$T/fs" --fill=50% --file-num=4 --file-block-size=4K prepare
  json_assert fill_arithmetic "$T/fs/lbench-fileio.manifest" 'r.total_size == 16777216 and r.fill_pct == 50'
  pass fill_run
  expect_fail fill_refuse_short 'only .* is free' env LBENCH_FILEIO_SPACE=33554432:8388608 $LB fileio --target-dir="$T/ft" --fill=75% --file-num=2 prepare
  check fill_refusal_wrote_nothing test ! -e "$T/ft/test_file.0"
  expect_fail size_refuse_short 'only .* is free' env LBENCH_FILEIO_SPACE=33554432:8388608 $LB fileio --target-dir="$T/fu" --file-total-size=64M prepare
fi
expect_fail fill_bad_value 'fill' $LB fileio --target-dir="$T/fv" --fill=150% prepare

# ---- a signal during prepare: stops within a second, says what is left
for mode in single:1 parallel:2; do
  name=${mode%%:*}; thr=${mode##*:}
  ( $LB fileio --target-dir="$T/stop_$name" --file-num=2 --file-total-size=4G --threads="$thr" prepare \
      >"$T/stop_$name.out" 2>"$T/stop_$name.err"; echo $? >"$T/stop_$name.rc" ) &
  bg=$!; sleep 0.7; pkill -TERM -f "target-dir=$T/stop_$name " 2>/dev/null
  for _ in $(seq 20); do kill -0 $bg 2>/dev/null || break; sleep 0.1; done
  if kill -0 $bg 2>/dev/null; then kill -9 $bg; fail "prepare_sigterm_$name" "still running 2 s after SIGTERM"
  elif [ "$(cat "$T/stop_$name.rc")" = 143 ] && grep -q 'prepare interrupted after writing .*run prepare again (or cleanup)' "$T/stop_$name.err"; then
    pass "prepare_sigterm_$name"
  else fail "prepare_sigterm_$name" "rc=$(cat "$T/stop_$name.rc"): $(tail -2 "$T/stop_$name.err")"; fi
  $LB fileio --target-dir="$T/stop_$name" cleanup >/dev/null 2>&1
  check "prepare_sigterm_cleanup_$name" test ! -e "$T/stop_$name/test_file.0"
done

# Threads fairness at depth: each thread's busy time is wall time with an
# I/O in flight (16 overlapping I/Os count once), after the warm-up; it
# was the sum of their latencies, many times the run's length.
BT=$T/busy
run busy_prepare $LB fileio --target-dir="$BT" --file-num=1 --file-total-size=8M prepare
run busy_depth $LB fileio --target-dir="$BT" --file-num=1 --file-total-size=8M --file-test-mode=rndrd \
  --file-io-mode=async --file-async-backlog=16 --time=2 --warmup-time=1 --result-file="$T/busy.json" run
[ "$rc" -eq 0 ] && grep -q 'busy time (avg/stddev)' "$T/busy_depth.out" && pass busy_depth_label \
  || fail busy_depth_label "exit $rc: $(grep -A2 'Threads fairness' "$T/busy_depth.out" | tr '\n' ' ')"
json_assert busy_depth_time "$T/busy.json" 'r.fairness.exec_time_avg_s > 1 and r.fairness.exec_time_avg_s <= r.duration_s + 0.01'

# ---- what reached the device under the set, beside what lbench issued -------
# The device is the one findmnt names for the directory; direct writes all
# reach it, so it counts at least what lbench wrote, in every data point
# (less at most an I/O in flight at a point's edge), every interval and the
# run (other processes' writes only add).
DV=$T/dev
dev=$(basename "$(findmnt -no SOURCE -T "$T" 2>/dev/null)")
run dev_prepare $LB fileio --target-dir="$DV" --file-num=1 --file-total-size=32M prepare
run dev_run $LB fileio --target-dir="$DV" --file-num=1 --file-total-size=32M --file-test-mode=rndwr --file-block-size=16K \
  --file-extra-flags=direct --events=6000 --time=0 --report-every-ios=1500 --report-interval=0.2 --result-file="$T/dev.json" run
json_assert device_named "$T/dev.json" 'r.fileio.device.name == "'"$dev"'" and r.host_stats.devices["'"$dev"'"] ~= nil'
json_assert device_written_run "$T/dev.json" 'r.fileio.device.write_amplification >= 0.99
  and r.fileio.device.write_amplification < 50'
json_assert device_written_points "$T/dev.json" '#r.fileio.points == 4 and (function()
  for _, p in ipairs(r.fileio.points) do
    if p.dev_written_mib_per_sec * p.secs * 1048576 < p.written_mib_per_sec * p.secs * 1048576 - 65536 then return false end
    if p.dev_writes_per_sec <= 0 or p.dev_util_pct < 0 or p.dev_util_pct > 100 then return false end
  end
  return true end)()'
json_assert device_written_intervals "$T/dev.json" '#r.intervals >= 1 and (function()
  local dev, own = 0, 0
  for _, iv in ipairs(r.intervals) do
    local d = iv.host and iv.host.devices and iv.host.devices["'"$dev"'"]
    if not d then return false end
    dev = dev + d.written_mib_per_sec * iv.host.window_s
  end
  own = r.io.written_mib_per_sec * r.duration_s
  return dev >= own * 0.99 - 0.1 end)()'
check device_text_line grep -Eq "^    device $dev: .* MiB/s written, await [0-9.]+ ms, util [0-9.]+ %" "$T/dev_run.out"
check device_text_against grep -Eq '^    device against issued: written [0-9.]+x, read -, writes merged [0-9.]+x, reads merged -$' "$T/dev_run.out"
run dev_csv $LB fileio --target-dir="$DV" --file-num=1 --file-total-size=32M --file-test-mode=rndrd --events=2000 --time=0 \
  --report-every-ios=1000 --output=csv run
check device_points_csv grep -Eq '^ios,.*,write_lat_max_ms,dev_reads_per_sec,dev_writes_per_sec,dev_read_mib_per_sec,dev_written_mib_per_sec,dev_await_ms,dev_util_pct$' "$T/dev_csv.out"
run dev_off $LB fileio --target-dir="$DV" --file-num=1 --file-total-size=32M --file-test-mode=rndrd --events=2000 --time=0 \
  --report-every-ios=1000 --server-stats=off --result-file="$T/dev_off.json" run
json_assert device_off "$T/dev_off.json" 'r.fileio.device == nil and r.host_stats == nil and r.fileio.points[1].dev_reads_per_sec == nil'
$LB fileio --target-dir="$DV" cleanup >/dev/null 2>&1

#!/usr/bin/env bash
# sysbench's built-in tests by name (cpu, memory, threads, mutex): lbench
# started as `sysbench` prints what sysbench 1.0.20 prints for them (their
# help, their refusal of prepare/cleanup, their run's header and report,
# numbers aside), counts their events as sysbench does, refuses bad values
# with sysbench's words; under lbench's own name they run with lbench's
# report and a line of their own.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin"
ln -s "$(realpath "$LB")" "$T/bin/sysbench"
SB="$T/bin/sysbench"
REF=$(command -v sysbench)
# numbers aside: every number is N, the padding that aligns them one space
norm() { sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g' "$1"; }

# side_by_side NAME ARGS...: the same command line with the real sysbench
# and with lbench as `sysbench`: same exit status, same text numbers aside
side_by_side() {
  local name=$1; shift
  if [ -z "$REF" ]; then pass "$name"; return; fi
  run "$name.ref" "$REF" "$@"; local ref_rc=$rc
  run "$name" "$SB" "$@"
  if [ "$rc" = "$ref_rc" ] && diff <(norm "$T/$name.ref.out") <(norm "$T/$name.out") >"$T/$name.diff" &&
     diff "$T/$name.ref.err" "$T/$name.err" >>"$T/$name.diff"; then pass "$name"
  else fail "$name" "exit $rc (sysbench $ref_rc): $(head -c 600 "$T/$name.diff")"; fi
}

# ---- help, prepare, cleanup, run: as sysbench -------------------------------
for t in cpu memory threads mutex; do
  side_by_side "sb_${t}_help" $t help
  side_by_side "sb_${t}_prepare" $t prepare
  side_by_side "sb_${t}_cleanup" $t cleanup
done
side_by_side sb_cpu_run cpu --cpu-max-prime=1000 --events=100 --threads=2 run
side_by_side sb_cpu_seeded cpu --cpu-max-prime=500 --events=10 --rand-seed=7 run
for oper in read write none; do
  for scope in global local; do
    side_by_side "sb_memory_${oper}_${scope}" memory --memory-block-size=4K --memory-total-size=64M --events=1 --time=0 \
      --threads=2 --memory-oper=$oper --memory-scope=$scope run
  done
done
side_by_side sb_memory_rnd memory --memory-block-size=1K --memory-total-size=8M --memory-access-mode=rnd --threads=2 run
side_by_side sb_threads_run threads --events=20 --threads=2 --thread-yields=100 run
side_by_side sb_mutex_run mutex --events=10 --threads=2 --mutex-locks=1000 --mutex-loops=100 run

# ---- the events as sysbench counts them ---------------------------------------
events() { awk '/total number of events:/ { print $NF }' "$T/$1.out"; }
run sb_mem_events $SB memory --memory-block-size=8K --memory-total-size=24M --events=1 --time=0 --threads=3 run
[ "$rc" = 0 ] && [ "$(events sb_mem_events)" = 3072 ] && grep -q '^Total operations: 3072 ' "$T/sb_mem_events.out" &&
  grep -q '^24.00 MiB transferred ' "$T/sb_mem_events.out" && pass memory_total_size_ends_run_ignoring_events ||
  fail memory_total_size_ends_run_ignoring_events "exit $rc: $(head -c 400 "$T/sb_mem_events.out")"
run sb_mutex_events $SB mutex --events=100 --threads=3 --mutex-locks=100 --mutex-loops=10 run
[ "$rc" = 0 ] && [ "$(events sb_mutex_events)" = 3 ] && pass mutex_one_event_per_thread ||
  fail mutex_one_event_per_thread "exit $rc: events $(events sb_mutex_events)"
run sb_cpu_events $SB cpu --events=37 --threads=2 --cpu-max-prime=200 run
[ "$rc" = 0 ] && [ "$(events sb_cpu_events)" = 37 ] && grep -Eq '^    events per second: +[0-9]+\.[0-9]{2}$' "$T/sb_cpu_events.out" &&
  pass cpu_events_and_speed || fail cpu_events_and_speed "exit $rc: $(head -c 400 "$T/sb_cpu_events.out")"

# ---- bad values, in sysbench's words ------------------------------------------
for bs in -1 0 3 9 1000; do
  run "sb_mem_bs$bs" $SB memory --memory-block-size=$bs run
  [ "$rc" = 1 ] && [ "$(sed 1,2d "$T/sb_mem_bs$bs.out")" = "FATAL: Invalid value for memory-block-size: $bs" ] &&
    pass "memory_block_size_refused_$bs" || fail "memory_block_size_refused_$bs" "exit $rc: $(head -c 300 "$T/sb_mem_bs$bs.out")"
done
run sb_mem_scope $SB memory --memory-scope=nowhere run
[ "$rc" = 1 ] && grep -qx "FATAL: Invalid value for memory-scope: nowhere" "$T/sb_mem_scope.out" &&
  pass memory_scope_refused || fail memory_scope_refused "exit $rc: $(head -c 300 "$T/sb_mem_scope.out")"
run sb_cpu_zero $SB cpu --cpu-max-prime=0 run
[ "$rc" = 1 ] && grep -qx "FATAL: Invalid value of cpu-max-prime: 0." "$T/sb_cpu_zero.out" &&
  pass cpu_max_prime_refused || fail cpu_max_prime_refused "exit $rc: $(head -c 300 "$T/sb_cpu_zero.out")"

# ---- under lbench's own name: lbench's report and the test's own line --------
expect_ok lb_cpu '^CPU: 167 primes below 1000 per event$' $LB cpu --cpu-max-prime=1000 --events=10 run
expect_ok lb_memory '^Memory: 16\.00 MiB transferred \(' $LB memory --memory-block-size=4K --memory-total-size=16M run
expect_ok lb_threads '^Thread yields per test: 10 Locks used: 8$' $LB threads --thread-yields=10 --events=5 run
expect_ok lb_mutex '^    total number of events: +2$' $LB mutex --threads=2 --mutex-locks=10 --mutex-loops=10 run
expect_ok lb_cpu_json '"events": *5[,}]' $LB cpu --cpu-max-prime=100 --events=5 --output=json run

# ---- fileio as sysbench: test_file.N here, sysbench's lines and counts --------
# in_dir DIR NAME CMD...: run CMD in DIR
in_dir() { local d=$1; shift; mkdir -p "$d"; ( cd "$d" && run "$@" ); }
FA="fileio --file-num=4 --file-total-size=8M"
if [ -n "$REF" ]; then
  for step in "prepare" "--events=150 --file-test-mode=rndrw run" "--events=150 --file-test-mode=rndrd run" \
              "--events=90 --file-test-mode=seqrd run" "--events=150 --file-test-mode=rndwr --file-fsync-freq=40 run" \
              "--file-test-mode=foo run" "cleanup" "--file-test-mode=rndrw run"; do
    tag=$(echo "$step" | tr -c 'a-z0-9\n' _)
    (cd "$T" && mkdir -p fref flb && cd fref && timeout 60 "$REF" $FA $step >"$T/fio_$tag.ref" 2>&1; echo "rc $?" >>"$T/fio_$tag.ref")
    (cd "$T/flb" && timeout 60 "$SB" $FA $step >"$T/fio_$tag.out" 2>&1; echo "rc $?" >>"$T/fio_$tag.out")
    if diff <(norm "$T/fio_$tag.ref") <(norm "$T/fio_$tag.out") >"$T/fio_$tag.diff"; then pass "sb_fileio_$tag"
    else fail "sb_fileio_$tag" "$(head -c 600 "$T/fio_$tag.diff")"; fi
  done
  [ -z "$(ls "$T/flb")" ] && pass sb_fileio_cleanup_leaves_nothing || fail sb_fileio_cleanup_leaves_nothing "$(ls "$T/flb")"
fi
mkdir -p "$T/f2" && cd "$T/f2" || exit 1
run fio_prep "$SB" $FA prepare
[ "$rc" = 0 ] && [ "$(ls)" = "$(printf 'test_file.0\ntest_file.1\ntest_file.2\ntest_file.3')" ] &&
  [ "$(wc -c < test_file.3)" = 2097152 ] && pass sb_fileio_files_here || fail sb_fileio_files_here "exit $rc: $(ls)"
run fio_events "$SB" $FA --events=150 --file-test-mode=rndrw run
[ "$(events fio_events)" = 150 ] && ! grep -q '^    fsyncs/s: *0.00$' "$T/fio_events.out" &&
  pass sb_fileio_events_exact_with_fsyncs || fail sb_fileio_events_exact_with_fsyncs "$(events fio_events): $(grep -A3 'File op' "$T/fio_events.out")"
run fio_short "$SB" $FA --file-total-size=16M --file-test-mode=rndrd --verbosity=2 run
[ "$rc" = 1 ] && [ "$(cat "$T/fio_short.out")" = "FATAL: Size of file 'test_file.0' is 2MiB, but at least 4MiB is expected.
WARNING: Did you run 'prepare' with different --file-total-size or --file-num values?" ] &&
  pass sb_fileio_short_files_refused || fail sb_fileio_short_files_refused "exit $rc: $(head -c 300 "$T/fio_short.out")"
run fio_nomode "$SB" $FA run
[ "$rc" = 1 ] && grep -qx 'FATAL: Missing required argument: --file-test-mode' "$T/fio_nomode.out" &&
  pass sb_fileio_missing_mode || fail sb_fileio_missing_mode "exit $rc: $(head -c 300 "$T/fio_nomode.out")"
run fio_validate "$SB" $FA --events=10 --file-test-mode=rndrd --validate run
grep -qx 'Validation checks: on.' "$T/fio_validate.out" && pass sb_validate_line || fail sb_validate_line "$(head -c 300 "$T/fio_validate.out")"
run fio_clean "$SB" $FA cleanup
[ "$rc" = 0 ] && [ -z "$(ls)" ] && pass sb_fileio_cleanup || fail sb_fileio_cleanup "exit $rc: $(ls)"
run fio_gone "$SB" $FA --file-test-mode=rndrd --verbosity=2 run
[ "$rc" = 1 ] && [ "$(cat "$T/fio_gone.out")" = "FATAL: Cannot open file 'test_file.0' errno = 2 (No such file or directory)
WARNING: Did you forget to run the prepare step?" ] && pass sb_fileio_no_prepare || fail sb_fileio_no_prepare "exit $rc: $(cat "$T/fio_gone.out")"
cd - >/dev/null || exit 1

# ---- --report-checkpoints: a full report of each period, then the run's -------
run sb_cp $SB cpu --cpu-max-prime=100 --report-checkpoints=1 --time=2 --threads=2 run
cp_ev=$(awk '/Checkpoint report/ { on = 1 } on && /total number of events:/ { print $NF; exit }' "$T/sb_cp.out")
all_ev=$(awk '/total number of events:/ { n = $NF } END { print n }' "$T/sb_cp.out")
if [ "$rc" = 0 ] && grep -qx 'Report checkpoint(s) at 1 seconds' "$T/sb_cp.out" &&
   [ "$(grep -c '^\[ 1s \] Checkpoint report:$' "$T/sb_cp.out")" = 1 ] && [ "$(grep -c '^General statistics:$' "$T/sb_cp.out")" = 2 ] &&
   [ "$(grep -c '^CPU speed:$' "$T/sb_cp.out")" = 2 ] && [ -n "$cp_ev" ] && [ "$all_ev" -gt "$cp_ev" ]; then
  pass report_checkpoints_sysbench_name
else fail report_checkpoints_sysbench_name "exit $rc, checkpoint $cp_ev, run $all_ev: $(head -c 500 "$T/sb_cp.out")"; fi
run lb_cp $LB --db-driver=null test/cli/scripts/sbname/noopts.lua --report-checkpoints=1,2 --time=3 run
[ "$rc" = 0 ] && [ "$(grep -c 'Checkpoint report:$' "$T/lb_cp.out")" = 2 ] && pass report_checkpoints_lbench_name ||
  fail report_checkpoints_lbench_name "exit $rc: $(head -c 300 "$T/lb_cp.out") $(head -c 300 "$T/lb_cp.err")"
expect_fail report_checkpoints_bad 'report-checkpoints' $LB cpu --report-checkpoints=x run

# make bench, section builtin (sourced by contrib/bench.sh): sysbench's
# built-in tests by name (issue 29: each at least 1.0x sysbench's events/s
# at 1 and 2 threads).  lbench runs as `sysbench` (a symlink), so both
# tools print the same report and one parser reads both: events/s is
# "total number of events" over "total time" (the mutex test has one event
# per thread, so there it is the inverse of the time a thread's loop takes).
bench_builtin() {
  local secs sb=$W/bin/sysbench
  secs=$(printenv SECS || echo 5)
  mkdir -p "$W/bin"; ln -sf "$(realpath "$LB")" "$sb"
  sb_eps() { awk '/total time:/ {t = $3 + 0} /total number of events:/ {n = $5} END {if (t > 0) print n / t}'; }
  echo "== sysbench's built-in tests: lbench as \`sysbench\` against sysbench 1.0.20, median of $ROUNDS alternating rounds"
  printf '%-44s %8s %14s %14s %8s\n' test threads "lbench ev/s" "sysbench ev/s" ratio
  local line t round
  for line in "cpu --time=$secs" "memory --memory-total-size=0 --time=$secs" \
              "memory --memory-oper=read --memory-total-size=0 --time=$secs" \
              "threads --time=$secs" "mutex --mutex-locks=200000"; do
    # The mutex test is one 0.6 s event per thread, whose length varies by
    # ±6 % from run to run for either tool: three times the rounds (they
    # are short) for a median that does not move with that noise.
    local rounds=$ROUNDS
    case $line in mutex*) rounds=$((ROUNDS * 3)) ;; esac
    for t in 1 2; do
      : > "$W/lb"; : > "$W/sb"
      for round in $(seq "$rounds"); do
        # Which goes first alternates (a run after another is not the same run).
        if [ $((round % 2)) = 1 ]; then
          "$sb" $line --threads=$t run | sb_eps >> "$W/lb"; sysbench $line --threads=$t run | sb_eps >> "$W/sb"
        else
          sysbench $line --threads=$t run | sb_eps >> "$W/sb"; "$sb" $line --threads=$t run | sb_eps >> "$W/lb"
        fi
      done
      local a b r
      a=$(median < "$W/lb"); b=$(median < "$W/sb")
      r=$(paste -d' ' "$W/lb" "$W/sb" | awk '$2 > 0 {print $1 / $2}' | median)
      printf '%-44s %8s %14.1f %14.1f %8.2f\n' "$line" "$t" "$a" "$b" "$r"
    done
  done
  echo "   ratio: the median over rounds of lbench/sysbench within a round (higher is better); mutex: $((ROUNDS * 3)) rounds"
  echo "   commands: sysbench TEST OPTIONS --threads=T run, once with sysbench 1.0.20 and once with sysbench -> lbench"
}

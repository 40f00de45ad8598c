# make bench, section observe (sourced by contrib/bench.sh): what recording
# the server's counters and the host's devices costs (issue 31: at most 1 %
# of throughput).  The same run with --server-stats=on and =off,
# alternating, with a report every second (a sample per tick); point select
# (the most queries per second, so the largest relative cost) and TPC-C.
bench_observe() {
  local M D="--tables=4 --table-size=100000" secs
  secs=$(printenv SECS || echo 10)
  sandbox_up /tmp/lbench-bench-observe 3387 1G
  $LB oltp_point_select $M $D cleanup >/dev/null 2>&1 || true
  $LB oltp_point_select $M $D --threads=2 prepare >/dev/null
  $LB tpcc $M cleanup >/dev/null 2>&1 || true
  $LB tpcc $M --warehouses=2 --threads=2 prepare >/dev/null
  echo "== the cost of --server-stats: ${secs}s runs, a report every second, median of $ROUNDS alternating rounds"
  printf '%-26s %14s %14s %9s %11s %11s\n' run "on (ev/s)" "off (ev/s)" "on/off" "sample ms" "reporter %"
  local name args
  for name in "oltp_point_select 2" "oltp_point_select 8" "tpcc 4"; do
    set -- $name
    if [ "$1" = tpcc ]; then args="tpcc $M --warehouses=2 --threads=$2"; else args="$1 $M $D --threads=$2"; fi
    : > "$W/on"; : > "$W/off"; : > "$W/cost"
    local round order
    for round in $(seq "$ROUNDS"); do
      # Which goes first alternates: a run after another is not the same run.
      order="on off"; [ $((round % 2)) = 0 ] && order="off on"
      for s in $order; do
        $LB $args --time="$secs" --report-interval=1 --server-stats=$s --result-file="$W/o.json" run >/dev/null
        jget "$W/o.json" 'r.totals.events_per_sec' >> "$W/$s"
        # What one sample took (the reporter's wall time, the server's answer
        # included), and all of them as a share of the run's time.
        [ $s = on ] && jget "$W/o.json" 'r.host_stats.sample_ms_avg .. " " ..
          r.host_stats.samples * r.host_stats.sample_ms_avg / (r.duration_s * 10)' >> "$W/cost"
      done
    done
    local a b r
    a=$(median < "$W/on"); b=$(median < "$W/off")
    # The ratio within each round, then the median (the machine drifts between rounds).
    r=$(paste -d' ' "$W/on" "$W/off" | awk '$2 > 0 {print $1 / $2}' | median)
    printf '%-26s %14.0f %14.0f %9.3f %11.2f %11.3f\n' "$1 --threads=$2" "$a" "$b" "$r" \
      "$(awk '{print $1}' "$W/cost" | median)" "$(awk '{print $2}' "$W/cost" | median)"
  done
  echo "   commands: lbench <test> ... --time=$secs --report-interval=1 --server-stats=on|off run"
  echo "   sample ms: one sample of the server and the host (host_stats.sample_ms_avg); reporter %: all samples"
  echo "   as a share of the run's time, on the reporter thread (not a worker's)"
  $LB tpcc $M cleanup >/dev/null
  $LB oltp_point_select $M $D cleanup >/dev/null
  sandbox_down
}

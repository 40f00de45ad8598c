#!/usr/bin/env bash
# The metrics endpoint against Prometheus' own checker: `promtool check
# metrics` (Debian's prometheus package; contrib/install-deps.sh test)
# finds nothing on live scrapes and on the last one, of one process and of
# a job under lbench-mpi (2 and 3 ranks, when lbench-mpi was built), whose
# rank 0 serves the job's figures: in every scrape the latency histogram's
# _count equals the events counter, and the events are the job's after a
# whole number of merged intervals, the sum of the ranks' own
# (scripts/metrics_job.lua check).  No server; no timing assertions.
#
# Ports: MPORT (default 29451) and the next three: below the kernel's
# ephemeral range (32768-60999), where mpirun's own listening sockets land;
# at 44951 a scrape once reached Open MPI's port instead of the job's
# endpoint (CI: "tcp_peer_recv_connect_ack: invalid header type: 32").
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
LBM=${LBM:-./lbench-mpi}
MPORT=${MPORT:-29451}
S=test/cli/scripts
J=$S/metrics_job.lua
if ! command -v promtool >/dev/null 2>&1; then
  fail metrics_promtool "promtool missing (Debian package prometheus: contrib/install-deps.sh test)"
  exit 1
fi

lint() { # lint NAME FILE: promtool prints nothing and exits 0
  local out
  if [ ! -s "$2" ]; then fail "$1" "no scrape in $2"; return; fi
  if out=$(promtool check metrics < "$2" 2>&1) && [ -z "$out" ]; then pass "$1"
  else fail "$1" "promtool: $(echo "$out" | head -3 | tr '\n' ' ')"; fi
}

# poll NAME PORT PID: scrape every 0.3 s while PID lives, into $T/NAME.N.txt
# (only scrapes that answered); prints the files, comma-separated.
poll() {
  local name=$1 port=$2 pid=$3 i=0 files=""
  while kill -0 "$pid" 2>/dev/null; do
    if curl -sf "http://127.0.0.1:$port/metrics" >"$T/$name.$i.txt" 2>/dev/null; then
      files="$files${files:+,}$T/$name.$i.txt"; i=$((i + 1))
    fi
    sleep 0.3
  done
  echo "$files"
}

verify() { # verify NAME ARGS...: metrics_job.lua check
  if $LB $J check "${@:2}" >"$T/$1.ck" 2>&1; then pass "$1"; else fail "$1" "$(head -c 500 "$T/$1.ck")"; fi
}

lint_all() { # lint_all NAME FILES(comma-separated): every scrape passes promtool
  local f bad=""
  for f in ${2//,/ }; do
    out=$(promtool check metrics < "$f" 2>&1)
    if [ $? -ne 0 ] || [ -n "$out" ]; then bad="$f: $out"; break; fi
  done
  if [ -n "$2" ] && [ -z "$bad" ]; then pass "$1"; else fail "$1" "${bad:-no live scrape} " ; fi
}

# ---- one process -----------------------------------------------------------
# With the SQL layer (null driver: query counters) and with interval reports.
p=$MPORT
$LB $J --threads=2 --time=3 --report-interval=0.5 --metrics-addr=127.0.0.1:$p --port=$p \
  --scrape-file="$T/one.final.txt" --result-file="$T/one.json" run >"$T/one.out" 2>"$T/one.err" &
pid=$!
live=$(poll one $p $pid)
wait $pid; rc=$?
[ "$rc" -eq 0 ] && pass metrics_one_run || fail metrics_one_run "exit $rc: $(head -3 "$T/one.err")"
lint_all metrics_one_promtool_live "$live"
lint metrics_one_promtool_final "$T/one.final.txt"
verify metrics_one_consistent --scrapes="$live" --final="$T/one.final.txt" --merged="$T/one.json"
check metrics_one_histogram_type grep -q '^# TYPE lbench_latency_seconds histogram$' "$T/one.final.txt"
check metrics_one_summary_type grep -q '^# TYPE lbench_interval_latency_seconds summary$' "$T/one.final.txt"
check metrics_one_quantile_served grep -Eq '^lbench_interval_latency_seconds\{quantile="0.99"\} [0-9]' "$T/one.final.txt"

p=$((MPORT + 1))
$LB oltp_read_only --mysql-dry-run --tables=1 --table-size=1000 --threads=2 --connections=10 --time=2 \
  --metrics-addr=127.0.0.1:$p run >"$T/sql.out" 2>"$T/sql.err" &
pid=$!
live=$(poll sql $p $pid)
wait $pid
lint_all metrics_sql_promtool_live "$live"
last=${live##*,}
if [ -n "$last" ] && grep -Eq '^lbench_queries_total\{type="select"\} [1-9]' "$last" \
   && [ "$(awk '$1 == "lbench_events_total" {print $2}' "$last")" = "$(awk '$1 == "lbench_latency_seconds_count" {print $2}' "$last")" ]; then
  pass metrics_sql_counters; else fail metrics_sql_counters "$(grep -v '^#' "$last" 2>/dev/null | head -c 400)"; fi

# ---- a job: rank 0 serves the job ------------------------------------------
if [ ! -x "$LBM" ] || ! command -v mpirun >/dev/null 2>&1; then
  echo "metrics: the lbench-mpi cases skipped: lbench-mpi or mpirun missing" >&2
  rm -rf "$T"; exit 0
fi
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
MPI=(mpirun --allow-run-as-root --oversubscribe --bind-to none)

for k in 2 3; do
  p=$((MPORT + k))
  timeout -k 5 120 "${MPI[@]}" -np $k "$LBM" $J --threads=1 --time=4 --report-interval=1 --metrics-addr=127.0.0.1:$p \
    --port=$p --scrape-file="$T/job$k.final.txt" --result-file="$T/job$k.json" --rank-result-file="$T/job$k.r%r.json" \
    run >"$T/job$k.out" 2>"$T/job$k.err" &
  pid=$!
  live=$(poll job$k $p $pid)
  wait $pid; rc=$?
  [ "$rc" -eq 0 ] && pass metrics_job${k}_run || fail metrics_job${k}_run "exit $rc: $(head -3 "$T/job$k.err")"
  lint_all metrics_job${k}_promtool_live "$live"
  lint metrics_job${k}_promtool_final "$T/job$k.final.txt"
  ranks=$(seq -s, -f "$T/job$k.r%g.json" 0 $((k - 1)))
  verify metrics_job${k}_is_the_job --scrapes="$live" --final="$T/job$k.final.txt" --merged="$T/job$k.json" --ranks="$ranks"
  check metrics_job${k}_ranks_gauge grep -q "^lbench_ranks $k\$" "$T/job$k.final.txt"
  check metrics_job${k}_threads_gauge grep -q "^lbench_threads $k\$" "$T/job$k.final.txt"
  check metrics_job${k}_connections_rank0 grep -q '^lbench_connections_open{rank="0"} 0$' "$T/job$k.final.txt"
done

# Without interval reports the ranks' figures are still merged every
# second for rank 0's endpoint, and nothing more is printed or written.
p=$((MPORT + 1))
timeout -k 5 120 "${MPI[@]}" -np 2 "$LBM" $J --threads=1 --time=3 --metrics-addr=127.0.0.1:$p \
  --port=$p --scrape-file="$T/quiet.final.txt" --result-file="$T/quiet.json" run >"$T/quiet.out" 2>"$T/quiet.err" &
pid=$!
live=$(poll quiet $p $pid)
wait $pid; rc=$?
[ "$rc" -eq 0 ] && pass metrics_job_quiet_run || fail metrics_job_quiet_run "exit $rc: $(head -3 "$T/quiet.err")"
lint_all metrics_job_quiet_promtool_live "$live"
verify metrics_job_quiet_is_the_job --scrapes="$live" --final="$T/quiet.final.txt" --merged="$T/quiet.json"
check metrics_job_quiet_no_interval_lines bash -c "! grep -q '^\[ ' '$T/quiet.out'"
json_assert metrics_job_quiet_no_intervals "$T/quiet.json" 'r.intervals == nil or #r.intervals == 0'

[ -n "$KEEP" ] || rm -rf "$T"

#!/usr/bin/env bash
# --node-exporter against Debian's real prometheus-node-exporter, started
# here on loopback (port 29491, LB_NODE_EXPORTER_PORT to change) and
# stopped by its PID: CPU shares per interval, a fileio run's written bytes
# on the exporter's device against what lbench wrote and against lbench's
# own /proc/diskstats figures for the same device, and what bad input gets
# (a refused connection, a page without node_cpu_seconds_total, an exporter
# that stops during the run, an option that is not an http:// URL).  No
# timing assertions.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
# (below the ephemeral port range, where other programs' sockets can land)
PORT=${LB_NODE_EXPORTER_PORT:-29491}
URL=http://127.0.0.1:$PORT/metrics
KEY=127.0.0.1:$PORT
EXP=prometheus-node-exporter
# The fileio set on a disk (under the work tree's build/, not a tmpfs /tmp).
DIR=$PWD/build/nodeexp-fio.$$
exp_pid=
stop_exporter() { [ -n "$exp_pid" ] && kill "$exp_pid" 2>/dev/null && wait "$exp_pid" 2>/dev/null; exp_pid=; }
trap 'stop_exporter; rm -rf "$T" "$DIR"' EXIT
suite_lock nodeexp_lock "/tmp/lbench-nodeexp-$PORT.lock" 600 "node exporter suite"

# ---- option errors: before anything runs, one line naming the option ------
one_line nodeexp_not_url '^lbench: --node-exporter=localhost:9100.*not an http:// URL' \
  $LB oltp_point_select run --db-driver=null --time=1 --node-exporter=localhost:9100
one_line nodeexp_https '^lbench: --node-exporter=https://.*https is not supported' \
  $LB oltp_point_select run --db-driver=null --time=1 --node-exporter=https://127.0.0.1:$PORT/metrics

# ---- a refused connection: a notice, the run goes on, exit 0 -------------
# (nothing listens on PORT-1: a port of this suite's own range)
BAD=http://127.0.0.1:$((PORT - 1))/metrics
expect_ok nodeexp_refused_text "node exporter $BAD: connection refused" \
  $LB oltp_point_select run --db-driver=null --time=1 --node-exporter=$BAD --result-file="$T/refused.json"
json_assert nodeexp_refused_doc "$T/refused.json" \
  "r.status == 'ok' and r.host_stats.remote['127.0.0.1:$((PORT - 1))'].notice == 'node exporter $BAD: connection refused'
   and r.host_stats.remote['127.0.0.1:$((PORT - 1))'].cpu == nil and r.totals.events > 0"

# ---- a page that is not a node exporter's: lbench's own metrics endpoint --
MPORT=$((PORT + 1))
$LB oltp_point_select run --db-driver=null --time=6 --rate=100 --metrics-addr=127.0.0.1:$MPORT >"$T/mserver.out" 2>&1 &
mpid=$!
for _ in $(seq 1 50); do (exec 3<>/dev/tcp/127.0.0.1/$MPORT) 2>/dev/null && break; sleep 0.1; done
expect_ok nodeexp_malformed "node exporter http://127.0.0.1:$MPORT/metrics: no node_cpu_seconds_total on the page" \
  $LB oltp_point_select run --db-driver=null --time=1 --node-exporter=http://127.0.0.1:$MPORT/metrics
wait "$mpid"

# ---- the real exporter ---------------------------------------------------
if ! command -v $EXP >/dev/null; then
  fail nodeexp_installed "$EXP is not installed (contrib/install-deps.sh test installs it)"
  exit 0
fi
start_exporter() {
  $EXP --web.listen-address=127.0.0.1:$PORT >"$T/exporter.log" 2>&1 &
  exp_pid=$!
  for _ in $(seq 1 100); do (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && return 0; sleep 0.1; done
  fail nodeexp_started "$EXP did not listen on $PORT: $(head -c 300 "$T/exporter.log")"
  exit 0
}
start_exporter

# CPU shares of every interval and of the run add up to 100 %.
SUM="(function(c) return c and math.abs(c.user_pct + c.system_pct + c.iowait_pct + c.steal_pct + c.idle_pct - 100) <= 1.5 end)"
expect_ok nodeexp_null_text "$KEY CPU: user [0-9.]+ %, system" \
  $LB oltp_point_select run --db-driver=null --time=3 --report-interval=1 --node-exporter=$URL --result-file="$T/null.json"
json_assert nodeexp_null_cpu_sums "$T/null.json" "#r.intervals >= 3 and $SUM(r.host_stats.remote['$KEY'].cpu) and
  (function() for _, iv in ipairs(r.intervals) do
     if not $SUM(iv.host.remote['$KEY'].cpu) then return false end end return true end)()"
json_assert nodeexp_null_url "$T/null.json" "r.host_stats.remote['$KEY'].url == '$URL' and
  r.host_stats.remote['$KEY'].notice == nil and r.options.node_exporter[1] == '$URL'"

# fileio: a known amount written with fsync every 100 writes; the
# exporter's device (the one under the test directory, as /proc/self/mountinfo
# names it) shows at least that, and the same as lbench's own figures of it.
mkdir -p "$DIR"
echo 'local d = require("lbench.devices").of_path(os.getenv("NE_DIR")) print(d and d.disk or "")' >"$T/dev.lua"
DEVNAME=$(NE_DIR=$(cd "$DIR" && pwd -P) $LB "$T/dev.lua" 2>/dev/null)
F="--target-dir=$DIR --file-num=1 --file-total-size=64M"
run nodeexp_fio_prepare $LB fileio $F prepare
expect_ok nodeexp_fio_run "$KEY ${DEVNAME:-none}: .* w/s" $LB fileio $F --file-test-mode=seqwr --time=2 \
  --report-interval=1 --node-exporter=$URL --result-file="$T/fio.json" run
if [ -z "$DEVNAME" ]; then
  fail nodeexp_fio_device "the test directory $DIR is on no block device: cannot compare"
else
  R="r.host_stats.remote['$KEY'].devices['$DEVNAME']"
  L="r.host_stats.devices and r.host_stats.devices['$DEVNAME']"
  # At least what lbench wrote, less a slack of 20 % (the last writes not yet flushed at the sample).
  json_assert nodeexp_fio_written "$T/fio.json" "r.io.writes > 0 and $R.written_mib_per_sec >= 0.8 * r.io.written_mib_per_sec"
  # The same kernel counters read through the exporter and from /proc/diskstats, at the same instants.
  NEAR="(function(a, b) return a and b and math.abs(a - b) <= 0.2 * math.max(a, b) + 1 end)"
  json_assert nodeexp_fio_vs_local "$T/fio.json" "$L and $NEAR($R.written_mib_per_sec, $L.written_mib_per_sec) and
    $NEAR($R.writes_per_sec, $L.writes_per_sec) and (function() for _, iv in ipairs(r.intervals) do
      local a, b = iv.host.remote['$KEY'].devices['$DEVNAME'], iv.host.devices['$DEVNAME']
      if not $NEAR(a.written_mib_per_sec, b.written_mib_per_sec) then return false end end return true end)()"
  json_assert nodeexp_fio_cpu_sums "$T/fio.json" "$SUM(r.host_stats.remote['$KEY'].cpu)"
fi
run nodeexp_fio_cleanup $LB fileio $F cleanup

# The exporter stops during the run: its figures stop, a notice says so,
# the run ends normally.
$LB oltp_point_select run --db-driver=null --time=4 --report-interval=1 --node-exporter=$URL \
  --result-file="$T/stop.json" >"$T/stop.out" 2>"$T/stop.err" &
rpid=$!
sleep 2
stop_exporter
wait "$rpid"
rc=$?
if [ "$rc" -eq 0 ] && grep -Eq "node exporter $URL: connection refused \(after [0-9]+ samples; its figures stop there\)" \
     "$T/stop.out"; then pass nodeexp_stopped_text
else fail nodeexp_stopped_text "exit $rc: $(grep -i 'exporter' "$T/stop.out" | head -3) $(head -c 200 "$T/stop.err")"; fi
json_assert nodeexp_stopped_doc "$T/stop.json" "r.status == 'ok' and r.host_stats.remote['$KEY'].notice ~= nil and
  r.host_stats.remote['$KEY'].cpu == nil and r.intervals[1].host.remote['$KEY'].cpu ~= nil and
  r.intervals[#r.intervals].host.remote == nil"

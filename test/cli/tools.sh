#!/usr/bin/env bash
# CLI tests of the result tools: lbench sweep, compare and plot (no server
# needed; the server-variable paths run on the null driver).
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
S=test/cli/scripts
trap 'rm -rf "$T"' EXIT

# ---- make bench's confidence intervals ------------------------------------------
# ci90 (contrib/bench.sh) against Python computing the same interval with
# its own t quantile (the t distribution's density integrated numerically,
# then inverted by bisection), for 2, 5, 7 and 20 ratios: both ends to 0.005.
ci90_fn=$(sed -n '/^ci90() {/,/^}/p' contrib/bench.sh)
ci90_ref() {
  python3 -c '
import math, sys
x = [math.log(float(v)) for v in sys.argv[1:]]
n = len(x); m = sum(x) / n; sd = math.sqrt(sum((v - m) ** 2 for v in x) / (n - 1))
df = n - 1
def pdf(t): return math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2)) * (1 + t * t / df) ** (-(df + 1) / 2)
def cdf(t, k=4000): return 0.5 + sum(pdf(t * (i + 0.5) / k) for i in range(k)) * t / k
lo, hi = 0.0, 20.0
for _ in range(60):
  mid = (lo + hi) / 2
  lo, hi = (mid, hi) if cdf(mid) < 0.95 else (lo, mid)
h = lo * sd / math.sqrt(n)
print("%.4f %.4f" % (math.exp(m - h), math.exp(m + h)))' "$@"
}
for ratios in "0.97 1.04" "1.01 0.95 0.98 1.03 0.99" "0.93 1.08 0.99 1.02 0.87 1.11 0.96" \
  "1.02 0.98 1.05 0.91 1.00 0.97 1.03 0.99 1.06 0.94 1.01 0.96 1.04 0.92 1.00 0.98 1.07 0.95 1.02 0.99"; do
  got=$(printf '%s\n' $ratios | bash -c "$ci90_fn; ci90")
  want=$(ci90_ref $ratios)
  n=$(echo $ratios | wc -w)
  if echo "${got/-/ } $want" | awk '{ exit !(NF == 4 && ($1 - $3) ^ 2 < 0.005 ^ 2 && ($2 - $4) ^ 2 < 0.005 ^ 2) }'; then
    pass bench_ci90_$n
  else
    fail bench_ci90_$n "ci90 gave '$got', the reference '$want'"
  fi
done
check bench_ci90_one_round test "$(echo 1.02 | bash -c "$ci90_fn; ci90")" = -

# ilv_rates (contrib/bench-pgscript.sh), the interleaved runs' counter, on
# made-up turns and logged transactions at epoch-sized times: lbench's turns
# at +0 and +1 s, pgbench's at +0.5 and +1.5, the end at +2; 0.1 s skipped
# at each turn's start; a sample of 1/4.  Counted: lbench 3 + 2, pgbench
# 4 + 2, over 0.8 s each: 25 and 30 tps, ratio 0.833; the pairs 0.75 and 1.
# Not counted: one in a turn's first 0.1 s, one in the other tool's turn,
# one before the first turn and one after the end.
ilv_fn=$(sed -n '/^ilv_rates() {/,/^}/p' contrib/bench-pgscript.sh)
printf '%s\n' "lb 1796672694.000000" "pg 1796672694.500000" "lb 1796672695.000000" "pg 1796672695.500000" \
  "end 1796672696.000000" > "$T/turns"
ilv_got=$(printf '%s\n' lb\ 1796672694.05 lb\ 1796672694.2 lb\ 1796672694.3 lb\ 1796672694.4 lb\ 1796672694.7 \
  lb\ 1796672695.15 lb\ 1796672695.2 pg\ 1796672693.9 pg\ 1796672694.55 pg\ 1796672694.7 pg\ 1796672694.8 \
  pg\ 1796672694.9 pg\ 1796672694.95 pg\ 1796672695.7 pg\ 1796672695.8 pg\ 1796672696.1 |
  bash -c "$ilv_fn; ilv_rates 0.1 0.25 '$T/turns' '$T/pairs'")
check bench_ilv_rates test "$(echo $ilv_got)" = "25 30 0.833 2"
check bench_ilv_pairs test "$(tr '\n' ' ' < "$T/pairs")" = "0.75 1 "

# ---- sweep -------------------------------------------------------------------
# threads 1,2,4: one point each, scale factors = recorded totals / first point
expect_ok sweep_threads '^ +4 +[0-9.]+ .* [0-9.]+ +[0-9.]+$' \
  $LB sweep --threads=1,2,4 --time=0.3 $S/empty.lua --result-file="$T/sweep.json"
check sweep_threads_header grep -Eq '^ +threads +events/s +p95 ms +p99 ms +errors +scale +efficiency +client us/ev$' "$T/sweep_threads.out"
json_assert sweep_file "$T/sweep.json" '#r.points == 3 and r.tool == "sweep" and r.scenario == "empty"
  and r.sweep.dimensions[1].name == "threads" and r.sweep.dimensions[1].kind == "threads"
  and r.points[1].threads == 1 and r.points[2].threads == 2 and r.points[3].threads == 4
  and r.points[3].sweep_point.threads == 4 and r.points[1].totals.events > 0 and #r.summary == 3'
json_assert sweep_scale_factors "$T/sweep.json" '(function()
  for i = 1, 3 do
    local s, p = r.summary[i], r.points[i]
    local sf = p.totals.events_per_sec / r.points[1].totals.events_per_sec
    if math.abs(s.scale_factor - sf) > 1e-9 * sf then return false end
    if math.abs(s.efficiency - sf / (p.threads / 1)) > 1e-9 * sf then return false end
    if s.throughput ~= p.totals.events_per_sec or s.baseline ~= 1 then return false end
  end
  return r.summary[1].scale_factor == 1 end)()'

# a core option swept: exact event counts per point
expect_ok sweep_option '^ +200 ' $LB sweep --option events=100,200 --time=0 $S/empty.lua --result-file="$T/sweep_events.json"
json_assert sweep_option_counts "$T/sweep_events.json" 'r.points[1].totals.events == 100 and r.points[2].totals.events == 200
  and r.points[1].options.events == 100 and r.points[2].sweep_point.events == 200'

# a scenario option x threads grid (space-separated form); baseline per mode
expect_ok sweep_grid 'mode +threads' $LB sweep --option mode=a,b --threads=1,2 $S/tools_mode.lua --events=400 --time=0 \
  --point-warmup=0 --result-file="$T/sweep_grid.json"
json_assert sweep_grid_points "$T/sweep_grid.json" '#r.points == 4 and r.points[1].types.a.events == 400
  and r.points[3].types.b.events == 400 and r.points[3].types.a == nil and r.points[4].threads == 2
  and r.summary[2].baseline == 1 and r.summary[4].baseline == 3 and r.summary[3].scale_factor == 1'
# values holding commas, separated by '|' (CPU placement: the same threads on different CPUs)
expect_ok sweep_pipe_values '"label":"cpu-affinity=0,0"' $LB sweep --option 'cpu-affinity=0|0,0' --threads=2 --events=100 --time=0 \
  $S/empty.lua --output=json --result-file="$T/sweep_pipe.json"
json_assert sweep_pipe_values_file "$T/sweep_pipe.json" 'r.points[2].options.cpu_affinity == "0,0" and r.points[1].options.cpu_affinity == "0"'
# a failing point stops the sweep (exit 1) and the file keeps what ran
expect_fail sweep_point_fails 'point 2 \(mode=b\): .*failing on purpose in mode b' $LB sweep --option mode=a,b,c \
  --events=100 --time=0 $S/tools_mode.lua --fail=b --result-file="$T/sweep_fail.json"
check sweep_point_fails_said grep -q '^point 2 failed: sweep stopped after 2 of 3 point' "$T/sweep_point_fails.out"
json_assert sweep_point_fails_file "$T/sweep_fail.json" 'r.status == "error" and #r.points == 2 and r.points[1].status == "ok"
  and r.points[2].status == "error" and r.error:find("mode=b", 1, true)'
expect_ok sweep_json '"tool":"sweep"' $LB sweep --threads=1,2 --events=100 --time=0 --output=json $S/empty.lua
expect_ok sweep_csv '^threads,events/s,p95 ms' $LB sweep --threads=1,2 --events=100 --time=0 --output=csv $S/empty.lua

# sweep on the SQL API (null driver): TPS and QPS columns
expect_ok sweep_sql '^ +threads +TPS +QPS ' $LB sweep --threads=1,2 --events=200 --time=0 $S/tools_sql.lua --db-driver=null

# server variables on the null driver: SET GLOBAL before each point, in order
run sweep_server_var $LB sweep --server-var=foo=1,2M --server-var bar=on --events=3 --time=0 $S/tools_sql.lua \
  --db-driver=null --db-debug --result-file="$T/sweep_sv.json"
if [ "$rc" -eq 0 ] && grep -q '^debug: query: SELECT @@GLOBAL.foo$' "$T/sweep_server_var.out" \
   && [ "$(grep -E '^debug: query: SET GLOBAL (foo|bar) = ' "$T/sweep_server_var.out" | tr '\n' '|')" = \
        'debug: query: SET GLOBAL foo = 1|debug: query: SET GLOBAL bar = on|debug: query: SET GLOBAL foo = 2097152|' ] \
   && grep -q 'not restored' "$T/sweep_server_var.out"; then
  pass sweep_server_var; else fail sweep_server_var "rc=$rc: $(grep -v 'SELECT 1' "$T/sweep_server_var.out" | head -20) $(head -3 "$T/sweep_server_var.err")"; fi
json_assert sweep_server_var_file "$T/sweep_sv.json" '#r.points == 2 and r.sweep.dimensions[1].kind == "server_var"
  and r.points[2].sweep_point.foo == "2M" and r.points[1].sweep_point.foo == 1'
expect_fail sweep_server_var_refused 'cannot connect' $LB sweep --server-var foo=1,2 --time=0.1 $S/tools_sql.lua \
  --mysql-host=127.0.0.1 --mysql-port=1 --mysql-connect-timeout=2

# fileio over three modes: IOPS and MiB/s columns
run fileio_prepare $LB fileio --target-dir="$T/fio" --file-total-size=8M --file-num=2 prepare
expect_ok sweep_fileio '^  rndrw +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ ' $LB sweep --option file-test-mode=rndrd,rndwr,rndrw \
  --time=0.3 fileio --target-dir="$T/fio" --file-total-size=8M --file-num=2 --result-file="$T/sweep_fio.json"
check sweep_fileio_header grep -Eq '^  file-test-mode +events/s +IOPS +read MiB/s +write MiB/s +p95 ms' "$T/sweep_fileio.out"
json_assert sweep_fileio_iops "$T/sweep_fio.json" 'r.points[1].io.reads > 0 and r.points[2].io.writes > 0
  and r.summary[1].iops == r.points[1].io.reads_per_sec + r.points[1].io.writes_per_sec
  and math.abs(r.summary[2].scale_factor - r.summary[2].iops / r.summary[1].iops) < 1e-9 * r.summary[2].scale_factor'

# bad input
expect_fail sweep_nothing 'nothing to sweep' $LB sweep --time=1 $S/empty.lua
expect_fail sweep_no_scenario 'missing scenario' $LB sweep --threads=1,2
expect_fail sweep_unknown_option "unknown option '--evnts' \(did you mean '--events'\?\)" $LB sweep --option evnts=1,2 $S/empty.lua
expect_fail sweep_bad_value '--events=x: expected an integer' $LB sweep --option events=1,x $S/empty.lua
expect_fail sweep_prepare "runs the 'run' command only" $LB sweep --threads=1,2 $S/empty.lua prepare
expect_fail sweep_bad_dim 'expected name=v1,v2' $LB sweep --option events $S/empty.lua
expect_fail sweep_bad_sv_name 'is not a server variable name' $LB sweep --server-var 'a;b=1' $S/empty.lua

# ---- compare -----------------------------------------------------------------
mkres() { # mkres FILE SCENARIO EPS P95 [extra json]
  cat > "$1" <<J
{"scenario": "$2", "threads": 4, "duration_s": 10, "host": {"hostname": "h"},
 "totals": {"events": $(($3 * 10)), "events_per_sec": $3, "queries": {"read": 1, "write": 1, "other": 0, "total": 2},
            "queries_per_sec": $(($3 * 20)), "errors": 0, "ignored_errors": 0, "reconnects": 0},
 "latency_ms": {"min": 1, "avg": 10, "max": 80, "percentiles": {"95": $4, "99": 40}} $5}
J
}
mkres "$T/fio.json" oltp 1000 20
mkres "$T/i910.json" oltp 1250 15
mkres "$T/other.json" tpcc 1000 20
expect_ok compare_two '^TPS +1000 +1250 +1\.250 +\+25\.0%$' $LB compare "$T/fio.json" "$T/i910.json"
check compare_qps grep -Eq '^QPS +20000 +25000 +1\.250 +\+25\.0%$' "$T/compare_two.out"
check compare_p95 grep -Eq '^latency p95 \(ms\) +20 +15 +0\.750 +-25\.0%$' "$T/compare_two.out"
check compare_same grep -Eq '^latency p99 \(ms\) +40 +40 +1\.000 +\+0\.0%$' "$T/compare_two.out"
check compare_errors grep -Eq '^errors +0 +0 +- +-$' "$T/compare_two.out"
expect_ok compare_three '^TPS +1000 +1250 +1000 +1\.250 +\+25\.0% +1\.000 +\+0\.0%$' \
  $LB compare "$T/fio.json" "$T/i910.json" "$T/fio.json" --names=a,b,c
check compare_names grep -Eq '^metric +a +b +c +b/a +diff b +c/a +diff c$' "$T/compare_three.out"
expect_fail compare_refuses "cannot compare: .* ran scenario 'oltp' but .* ran 'tpcc' \(add --force" \
  $LB compare "$T/fio.json" "$T/other.json"
expect_ok compare_force '^TPS +1000 +1000 +1\.000' $LB compare "$T/fio.json" "$T/other.json" --force
# the seeds' DRBD overhead: 998 s against 212 s
echo '{"scenario": "slap", "duration_s": 212, "totals": {"events": 1000, "events_per_sec": 4.717}}' > "$T/local.json"
echo '{"scenario": "slap", "duration_s": 998, "totals": {"events": 1000, "events_per_sec": 1.002}}' > "$T/drbd.json"
expect_ok compare_overhead '^duration \(s\) +212 +998 +4\.708 +\+370\.8%$' $LB compare "$T/local.json" "$T/drbd.json"
expect_ok compare_csv '^TPS,1000,1250,1\.250,\+25\.0%$' $LB compare "$T/fio.json" "$T/i910.json" --output=csv
# sweeps point by point (points matched by their coordinates)
mksweep() { # mksweep FILE EPS1 EPS2
  cat > "$1" <<J
{"scenario": "oltp", "tool": "sweep", "sweep": {"dimensions": [{"name": "threads", "kind": "threads", "values": [1, 2]}]},
 "points": [
  {"threads": 1, "sweep_point": {"threads": 1}, "totals": {"events": 1, "events_per_sec": $2}, "latency_ms": {"avg": 1, "max": 2, "percentiles": {"95": 1}}},
  {"threads": 2, "sweep_point": {"threads": 2}, "totals": {"events": 1, "events_per_sec": $3}, "latency_ms": {"avg": 1, "max": 2, "percentiles": {"95": 1}}}]}
J
}
mksweep "$T/swa.json" 100 180
mksweep "$T/swb.json" 50 270
expect_ok compare_sweeps '^  threads=2 +180 +270 +1\.500 +\+50\.0%$' $LB compare "$T/swa.json" "$T/swb.json"
check compare_sweeps_first grep -Eq '^  threads=1 +100 +50 +0\.500 +-50\.0%$' "$T/compare_sweeps.out"
expect_fail compare_mixed 'cannot compare sweep files with single-run files' $LB compare "$T/swa.json" "$T/fio.json" --force
expect_fail compare_one_file 'usage: lbench compare' $LB compare "$T/fio.json"
expect_fail compare_missing "cannot read '$T/nope.json'" $LB compare "$T/fio.json" "$T/nope.json"
echo 'not json {' > "$T/bad.json"
expect_fail compare_not_json "'$T/bad.json' is not a JSON document" $LB compare "$T/fio.json" "$T/bad.json"
echo '{"a": 1}' > "$T/notres.json"
expect_fail compare_not_result 'is not an lbench result file' $LB compare "$T/fio.json" "$T/notres.json"
expect_fail compare_bad_flag "unknown option '--forse' \(did you mean '--force'\?\)" $LB compare "$T/fio.json" "$T/i910.json" --forse

# ---- report: each run's warm-up and phases, ratios between comparable runs only, latency units ----
# A row of the summary table (the run's <tr>), and a series of a chart, by name.
summary_row() { sed -n '/id="summary-table"/,/<\/table>/p' "$1" | grep "<span id=\"run-[0-9]*\">$2</span>"; }
series_of() { sed -n "/<g class=\"lb-series\" data-name=\"$2\"/,/<\/g>/p" "$1"; }
export -f summary_row series_of
# Two runs on one chart: the warm-up is drawn on its own run's line only,
# the phase boundary in the colour of its own run, nothing chart-wide.
mkres "$T/warm.json" oltp 1000 20 ', "warmup_s": 0.5, "intervals": [
  {"time_s": 0.5, "warmup": true, "events_per_sec": 900}, {"time_s": 1, "events_per_sec": 1000},
  {"time_s": 1.5, "events_per_sec": 1100}, {"time_s": 2, "events_per_sec": 1000}]'
mkres "$T/ph.json" oltp 1000 20 ', "warmup_s": 0, "phases": [{"name": "low", "start_s": 0}, {"name": "ramp", "start_s": 1}],
  "intervals": [{"time_s": 0.5, "events_per_sec": 500}, {"time_s": 1, "events_per_sec": 500},
  {"time_s": 1.5, "events_per_sec": 1500}, {"time_s": 2, "events_per_sec": 1500}]'
expect_ok report_runs_charts 'written to' $LB report "$T/warm.json" "$T/ph.json" --names=warm,phased --out="$T/charts.html"
sed -n '/<svg class="lb-chart lb-line" id="chart-throughput"/,/<\/svg>/p' "$T/charts.html" >"$T/thr.svg"
check report_warmup_own_run bash -c "series_of '$T/thr.svg' warm | grep -q '<polyline class=\"lb-warmup\"' \
  && ! series_of '$T/thr.svg' phased | grep -q 'lb-warmup' && ! grep -q 'class=\"lb-shade\"' '$T/thr.svg' \
  && test \$(series_of '$T/thr.svg' warm | grep -c '<circle class=\"lb-pt\" [^>]*fill=\"#fff\" stroke=\"#1f77b4\"') = 1 \
  && ! series_of '$T/thr.svg' phased | grep -q 'fill=\"#fff\"'"
check report_phases_own_run bash -c "grep -q '<g class=\"lb-mark\"><title>ramp (phased): from 1</title><line [^>]*stroke=\"#ff7f0e\"' '$T/thr.svg' \
  && test \$(grep -c 'class=\"lb-mark\"' '$T/thr.svg') = 1"
mkres "$T/tpcc.json" tpcc 2900 20
expect_ok report_mixed 'written to' $LB report "$T/fio.json" "$T/tpcc.json" --names=oltp,tpcc --out="$T/mixed.html"
# The issue's case: a TPC-C run shown as 2.9x an OLTP run, in green.
check report_no_ratio_across_scenarios bash -c "! grep -Eq 'class=\"(good|bad)' '$T/mixed.html' && ! grep -q '2\.900' '$T/mixed.html' \
  && ! grep -q '<th>tpcc / oltp</th>' '$T/mixed.html'"
check report_mixed_note grep -q 'These runs ran different scenarios: their values side by side, no ratio' "$T/mixed.html"
expect_ok report_grouped 'written to' $LB report "$T/fio.json" "$T/tpcc.json" "$T/i910.json" --names=oltp,tpcc,i910 \
  --out="$T/grouped.html"
check report_ratio_same_scenario bash -c "summary_row '$T/grouped.html' i910 | grep -q '<td class=\"good num\" title=\"i910 / oltp\">1\.250</td>'"
check report_no_ratio_other_scenario bash -c "summary_row '$T/grouped.html' tpcc | grep -q '<td class=\"num\" title=\"no comparable run[^\"]*\">-</td>'"
check report_comparison_pairs bash -c "grep -q '<th>i910 / oltp</th>' '$T/grouped.html' && ! grep -q '<th>tpcc / ' '$T/grouped.html'"
# A sweep's points against each other, never against a single run.
expect_ok report_sweep_and_run 'written to' $LB report "$T/fio.json" "$T/swa.json" --names=oltp,swa --out="$T/swrun.html"
check report_sweep_not_against_run bash -c "summary_row '$T/swrun.html' 'swa threads=1' | grep -q '<td class=\"muted num\" title=\"baseline: swa threads=1\">1\.000</td>' \
  && summary_row '$T/swrun.html' 'swa threads=2' | grep -q 'title=\"swa threads=2 / swa threads=1\">1\.800</td>' \
  && summary_row '$T/swrun.html' oltp | grep -q '>-</td>'"
# Latencies in a unit that reads, three significant digits.
mkres "$T/lat.json" oltp 1000 0.0000405
sed -i -e 's/"avg": 10,/"avg": 0.0405,/' -e 's/"max": 80,/"max": 2500,/' -e 's/"99": 40}/"99": 40.5}/' "$T/lat.json"
expect_ok report_latency 'written to' $LB report "$T/lat.json" --out="$T/lat.html"
check report_latency_units bash -c "summary_row '$T/lat.html' lat | grep -q '>40\.5 µs</td><td class=\"num\" title=\"0\.0000405 ms\">40\.5 ns</td><td class=\"num\" title=\"40\.5 ms\">40\.5 ms</td><td class=\"num\" title=\"2500 ms\">2\.50 s</td>'"
check report_latency_no_exponent bash -c "! sed -n '/id=\"summary-table\"/,/<\/table>/p' '$T/lat.html' | grep -Eq '[0-9]e[-+][0-9]'"

# ---- plot --------------------------------------------------------------------
run plot_run1 $LB $S/sleep.lua run --ms=1 --time=1.5 --warmup-time=0.5 --report-interval=0.25 \
  --percentiles=50,95,99 --result-file="$T/run1.json"
run plot_run2 $LB $S/sleep.lua run --ms=2 --threads=2 --time=1.5 --report-interval=0.25 --result-file="$T/run2.json"
# a fileio result with its per-N-I/O series (the write cliff)
cat > "$T/fileio.json" <<'J'
{"scenario": "fileio", "threads": 1, "duration_s": 60, "totals": {"events": 8000000, "events_per_sec": 3500},
 "io": {"reads_per_sec": 3000, "writes_per_sec": 500, "read_mib_per_sec": 46.9, "written_mib_per_sec": 7.8},
 "fileio": {"report_every_ios": 2000000, "points": [
   {"ios": 2000000, "time_s": 500, "iops": 4000, "read_mib_per_sec": 53, "written_mib_per_sec": 9},
   {"ios": 4000000, "time_s": 1000, "iops": 3900, "read_mib_per_sec": 52, "written_mib_per_sec": 9},
   {"ios": 6000000, "time_s": 1600, "iops": 3300, "read_mib_per_sec": 44, "written_mib_per_sec": 7},
   {"ios": 8000000, "time_s": 2300, "iops": 2950, "read_mib_per_sec": 39, "written_mib_per_sec": 6}]}}
J
expect_ok plot_all 'throughput +throughput\.png throughput\.svg' $LB plot "$T/run1.json" "$T/run2.json" "$T/sweep.json" \
  "$T/sweep_grid.json" "$T/fileio.json" --out="$T/plots"
for k in throughput jitter latency scaling sweep-mode fileio; do
  f="$T/plots/$k"
  if [ "$(head -c 4 "$f.png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] && [ "$(wc -c < "$f.png")" -gt 5000 ] \
     && grep -q '<svg' "$f.svg" 2>/dev/null && [ "$(wc -c < "$f.svg")" -gt 5000 ] && [ -s "$f.dat" ] && [ -s "$f.gp" ]; then
    pass "plot_$k"; else fail "plot_$k" "missing or invalid $f.png/.svg/.dat/.gp"; fi
done
check plot_labels grep -q 'set xlabel "threads"' "$T/plots/scaling.gp"
check plot_fileio_title grep -q 'each point = 2 million I/Os' "$T/plots/fileio.gp"
check plot_fileio_axis grep -q 'set xlabel "I/Os completed (millions)"' "$T/plots/fileio.gp"
check plot_warmup_shaded grep -q 'set object 1 rect from first 0, graph 0 to first 0.5' "$T/plots/throughput.gp"
check plot_legend_names grep -q 'title "run2"' "$T/plots/throughput.gp"
# the scripts redraw by themselves (reproducible)
rm -f "$T/plots/jitter.svg"
check plot_redraw bash -c "cd '$T/plots' && gnuplot -e \"fmt='svg'\" jitter.gp && grep -q '<svg' jitter.svg"
expect_ok plot_png_only 'latency +latency\.png$' $LB plot "$T/run1.json" --out="$T/plots2" --format=png --names=mine
check plot_png_only_no_svg test ! -e "$T/plots2/latency.svg"
check plot_names grep -q 'title "mine p99"' "$T/plots2/latency.gp"
check plot_skips grep -q 'skipped scaling: no sweep over --threads' "$T/plot_png_only.out"

# bad input
mkdir -p "$T/nognuplot"
expect_fail plot_no_gnuplot 'gnuplot not found in PATH \(Debian: apt-get install gnuplot-nox\)' \
  env PATH="$T/nognuplot" $LB plot "$T/run1.json" --out="$T/plots3"
check plot_no_gnuplot_keeps_scripts test -s "$T/plots3/throughput.gp"
expect_fail plot_missing "cannot read '$T/nope.json'" $LB plot "$T/nope.json" --out="$T/plots4"
expect_fail plot_not_json 'is not a JSON document' $LB plot "$T/bad.json" --out="$T/plots4"
expect_fail plot_no_out 'usage: lbench plot' $LB plot "$T/run1.json"
expect_fail plot_bad_format '--format=gif: expected png, svg' $LB plot "$T/run1.json" --out="$T/plots4" --format=gif
expect_fail plot_nothing 'nothing to plot: throughput: no per-interval data' $LB plot "$T/fio.json" --out="$T/plots4"

# ---- against a private MariaDB (skipped when mariadbd is not installed) ------
if command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ]; then
  port=${LB_TOOLS_SANDBOX_PORT:-}
  if [ -z "$port" ]; then # the first free loopback port from 3340
    for port in $(seq 3340 3399); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || break; done
  fi
  export LB_SANDBOX_DIR="$T/sandbox" LB_SANDBOX_PORT=$port
  if contrib/mariadb-sandbox.sh start >"$T/sandbox.log" 2>&1; then
    pass tools_sandbox_start
    trap 'contrib/mariadb-sandbox.sh stop >/dev/null 2>&1; rm -rf "$T"' EXIT
    M="--mysql-host=127.0.0.1 --mysql-port=$LB_SANDBOX_PORT --mysql-user=sbtest --mysql-password=sbtest"
    SQL() { mariadb -h127.0.0.1 -P"$LB_SANDBOX_PORT" -usbtest -psbtest -N -e "$1" 2>&1; }
    orig_bp=$(SQL 'SELECT @@GLOBAL.innodb_buffer_pool_size')
    # threads 1,2,4 on the server, scale factors from the recorded totals
    run db_sweep_threads $LB sweep --threads=1,2,4 --time=0.3 $S/tools_sql.lua $M --result-file="$T/db_sweep.json"
    json_assert db_sweep_threads "$T/db_sweep.json" '(function()
      for i = 1, 3 do
        local s, p = r.summary[i], r.points[i]
        local sf = p.totals.events_per_sec / r.points[1].totals.events_per_sec
        if p.status ~= "ok" or p.totals.queries.total < p.totals.events or math.abs(s.scale_factor - sf) > 1e-9 * sf
           or math.abs(s.efficiency - sf / p.threads) > 1e-9 * sf then return false end
      end
      return r.points[3].threads == 4 end)()'
    # a small buffer-pool range: set before each point, read back, restored at the end
    run db_sweep_bp $LB sweep --server-var innodb_buffer_pool_size=128M,192M --time=0.3 $S/tools_sql.lua $M \
      --result-file="$T/db_bp.json"
    json_assert db_sweep_bp "$T/db_bp.json" '#r.points == 2 and r.points[1].server_vars.innodb_buffer_pool_size == "134217728"
      and r.points[2].server_vars.innodb_buffer_pool_size == "201326592"
      and r.sweep.dimensions[1].original == "'"$orig_bp"'" and r.restore_problems == nil'
    check db_sweep_bp_restored test "$(SQL 'SELECT @@GLOBAL.innodb_buffer_pool_size')" = "$orig_bp"
    check db_sweep_bp_said grep -q '^  SET GLOBAL innodb_buffer_pool_size = 201326592$' "$T/db_sweep_bp.out"
    # refusals: read-only variable, missing privilege, bad credentials
    expect_fail db_sweep_readonly 'innodb_page_size: the variable is read-only on this server \(not dynamic, error 1238\)' \
      $LB sweep --server-var innodb_page_size=4K,8K --time=0.3 $S/tools_sql.lua $M
    expect_fail db_sweep_noprivilege "user 'lbnopriv' may not change global variables \(error 1227\)" \
      $LB sweep --server-var innodb_io_capacity=300,400 --time=0.3 $S/tools_sql.lua \
      --mysql-host=127.0.0.1 --mysql-port=$LB_SANDBOX_PORT --mysql-user=lbnopriv --mysql-password=lbnopriv
    expect_fail db_sweep_denied "access denied for user 'lbnopriv' \(error 1045" \
      $LB sweep --server-var innodb_io_capacity=300 --time=0.3 $S/tools_sql.lua \
      --mysql-host=127.0.0.1 --mysql-port=$LB_SANDBOX_PORT --mysql-user=lbnopriv --mysql-password=wrong
    expect_fail db_sweep_unknown_var 'no_such_var: unknown system variable on this server \(error 1193\)' \
      $LB sweep --server-var no_such_var=1 --time=0.3 $S/tools_sql.lua $M
    check db_no_point_ran_after_refusal test "$(SQL 'SELECT @@GLOBAL.innodb_io_capacity')" = 200
  else
    fail tools_sandbox_start "$(tail -5 "$T/sandbox.log")"
  fi
else
  echo "# skipped the server tests: mariadbd is not installed"
fi

#!/usr/bin/env bash
# lbench report end to end: result documents of every kind made here (null
# driver runs, a sweep, fileio on real files with data points, TPC-C and
# slap against a private MariaDB on port 3394), one page per kind and one of
# them all, each opened in headless Chromium: no console errors, the charts
# and tables in the DOM, the figures equal to the files', a screenshot that
# is not blank; the page references nothing outside itself and needs no
# JavaScript.  Then the user's mistakes, one line each.  No timing assertions.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_PORT=${LB_SANDBOX_PORT_REPORT:-3394} LB_SANDBOX_DIR=$T/sandbox
S=test/cli/scripts
E=test/e2e/scripts
O=$T/out
mkdir -p "$O"

CHROMIUM=$(command -v chromium || command -v chromium-browser)
if [ -z "$CHROMIUM" ]; then fail report_chromium "chromium not installed (contrib/install-deps.sh test)"; exit 1; fi
# browser NAME ARGS... : headless Chromium with its own profile (parallel
# suites never share one), console messages on stderr in $T/NAME.log.
browser() {
  local name=$1; shift
  timeout -k 5 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
    --user-data-dir="$T/chrome-$name" --enable-logging=stderr --v=0 "$@" 2>"$T/$name.log"
}
# expect FILES EXPR : the value of EXPR over the JSON FILES (r[1], r[2] ...), formatted as the page does
expect() { $LB $E/report_expect.lua eval --files="$1" --expr="$2" 2>&1; }
# svg_of FILE ID : the lines of one chart of a page
svg_of() { sed -n "/<svg class=\"lb-chart [^\"]*\" id=\"$2\"/,/<\/svg>/p" "$1"; }
# rows_of FILE TABLE_CLASS : the number of body rows of one table
rows_of() { sed -n "/<table class=\"lb-table $2\">/,/<\/table>/p" "$1" | grep -c '^<tr>'; }

# page NAME HTML IDS... : the checks every page passes, and its elements by id
page() {
  local name=$1 f=$2; shift 2
  if [ ! -s "$f" ]; then fail "${name}_written" "no page at $f"; return; fi
  pass "${name}_written"
  if grep -Eq 'https?://' "$f"; then fail "${name}_offline" "$(grep -Eo '.{30}https?://.{30}' "$f" | head -3)"
  else pass "${name}_offline"; fi
  if grep -Eqi '<(script|link|img|iframe|object)[ >]|@import|url\(' "$f"; then fail "${name}_self_contained" "$(grep -Eoi '<(script|link|img)[^>]*>|@import|url\(' "$f" | head -3)"
  else pass "${name}_self_contained"; fi
  # The page's policy forbids scripts and loads: the charts are in the
  # document as delivered, and anything it tried to fetch or run would be
  # a console error.
  browser "$name-dom" --dump-dom "file://$f" >"$T/$name.dom"
  local id missing=""
  for id in "$@"; do grep -q "id=\"$id\"" "$T/$name.dom" || missing="$missing $id"; done
  if [ -z "$missing" ] && [ -s "$T/$name.dom" ]; then pass "${name}_dom"; else fail "${name}_dom" "missing:$missing"; fi
  local in_file in_dom
  in_file=$(grep -c '<svg class="lb-chart' "$f"); in_dom=$(grep -o '<svg class="lb-chart' "$T/$name.dom" | wc -l)
  if [ "$in_file" -gt 0 ] && [ "$in_file" -eq "$in_dom" ]; then pass "${name}_charts_without_js"
  else fail "${name}_charts_without_js" "$in_file charts in the file, $in_dom in the DOM"; fi
  browser "$name-shot" --window-size=1200,${SHOT_HEIGHT:-2400} --screenshot="$T/$name.png" "file://$f" >/dev/null
  if grep -q ':CONSOLE' "$T/$name-dom.log" "$T/$name-shot.log"; then
    fail "${name}_console" "$(grep -h ':CONSOLE' "$T/$name-dom.log" "$T/$name-shot.log" | head -3)"
  else pass "${name}_console"; fi
  # Not blank: many colours, ink on the page, and the first series' colour.
  if $LB $E/png_check.lua check --file="$T/$name.png" --min-colours=100 --min-ink=0.02 --colour=1f77b4 \
       --min-colour-pixels=50 >"$T/$name.png.out" 2>&1; then pass "${name}_screenshot"
  else fail "${name}_screenshot" "$(head -c 300 "$T/$name.png.out")"; fi
}

# ---- the checks themselves can fail ------------------------------------------
# A script error is a console line.
printf '<!DOCTYPE html><title>x</title><p>x</p><script>console.error("seen"); notDefined();</script>\n' >"$T/bad.html"
browser control-console --dump-dom "file://$T/bad.html" >/dev/null
if grep -q ':CONSOLE.*notDefined' "$T/control-console.log"; then pass report_console_check_sees_errors
else fail report_console_check_sees_errors "no console line for a script error: $(grep -v dbus "$T/control-console.log" | head -3)"; fi
printf '<!DOCTYPE html><title>x</title>\n' >"$T/blank.html"
browser control-blank --window-size=400,300 --screenshot="$T/blank.png" "file://$T/blank.html" >/dev/null
if [ -s "$T/blank.png" ] && ! $LB $E/png_check.lua check --file="$T/blank.png" --min-colours=100 --min-ink=0.02 >/dev/null 2>&1
then pass report_blank_check_sees_blank; else fail report_blank_check_sees_blank "a blank page passed the screenshot check"; fi

# ---- result documents -----------------------------------------------------------
N="--db-driver=null --report-interval=0.25"
run doc_ro $LB oltp_read_only $N --time=1 --warmup-time=0.3 --result-file="$T/ro.json" run
run doc_rw $LB oltp_read_write $N --threads=2 --time=1 --result-file="$T/rw.json" run
run doc_ro2 $LB oltp_read_only $N --threads=2 --time=1 --result-file="$T/ro2.json" run
run doc_phases $LB oltp_point_select $N --rate=500@0.6,ramp:500-1500@0.6 --phases=low,ramp --result-file="$T/phases.json" run
run doc_sweep $LB sweep --option mode=a,b --threads=1,2 --time=0.3 --report-interval=0.1 $S/tools_mode.lua \
  --result-file="$T/sweep.json"
run doc_fileio_prepare $LB fileio --target-dir="$T/fio" --file-num=2 --file-total-size=16M prepare
run doc_fileio $LB fileio --target-dir="$T/fio" --file-num=2 --file-total-size=16M --file-test-mode=rndrw \
  --events=20000 --time=0 --report-every-ios=2000 --report-interval=0.1 --result-file="$T/fileio.json" run
for d in ro rw ro2 phases sweep fileio; do json_assert "doc_$d" "$T/$d.json" 'r.status == "ok"'; done

sandbox_start report
run doc_tpcc_prepare $LB tpcc $M --warehouses=1 --threads=2 prepare
run doc_tpcc $LB tpcc $M --warehouses=1 --threads=2 --time=4 --warmup-time=1 --report-interval=1 \
  --result-file="$T/tpcc.json" run
run doc_slap $LB slap $M --auto-generate-sql --concurrency=1,2 --iterations=2 --number-of-queries=40 \
  --result-file="$T/slap.json" run
run doc_error $LB $E/bad_query.lua $M --time=1 --result-file="$T/error.json" run
json_assert doc_tpcc "$T/tpcc.json" 'r.tpcc.tpmC > 0 and #r.intervals >= 4'
json_assert doc_slap "$T/slap.json" '#r.slap.summary == 2'

# ---- runs: summary, comparison, charts, options side by side ----------------------
# (the null driver's runs record the host's CPU: its chart is the fourth; no server: no settings table)
expect_ok report_runs "^Report of 2 file\(s\) \(2 run\(s\), 4 chart\(s\)\) written to $O/runs.html$" \
  $LB report "$T/ro.json" "$T/rw.json" --names=ro,rw --title="read-only against read-write" --out="$O/runs.html"
page runs "$O/runs.html" summary comparison charts options files summary-table comparison-table run-1 run-2 \
  chart-throughput chart-jitter chart-latency server-host chart-host-cpu run-table host-table options-table files-table
check runs_no_server_charts bash -c "! grep -q 'id=\"chart-server-\|id=\"server-table\"' '$O/runs.html'"
# The page's policy, on a page that tries a script and an image: both refused, each a console line.
{ echo '<!DOCTYPE html><html><head>'; grep -o '<meta http-equiv="Content-Security-Policy"[^>]*>' "$O/runs.html"
  echo '</head><body><p id="p">before</p><script>document.getElementById("p").textContent = "ran";</script>'
  echo "<img src=\"file://$T/blank.png\"></body></html>"; } >"$T/csp.html"
browser control-csp --dump-dom "file://$T/csp.html" >"$T/csp.dom"
if grep -q '<p id="p">before</p>' "$T/csp.dom" && [ "$(grep -c ':CONSOLE.*Content Security Policy' "$T/control-csp.log")" = 2 ]
then pass runs_policy_blocks_scripts_and_loads
else fail runs_policy_blocks_scripts_and_loads "$(grep -o '<p id="p">[^<]*' "$T/csp.dom") $(grep -c ':CONSOLE' "$T/control-csp.log") console lines"; fi
check runs_title grep -q '<h1>read-only against read-write</h1>' "$O/runs.html"
# Two scenarios: side by side, no ratio between them (as lbench compare).
check runs_no_ratio_across_scenarios bash -c "! grep -q '<th>ratio</th>' '$O/runs.html' && ! grep -q '<th>rw / ro</th>' '$O/runs.html'"
tps=$(expect "$T/ro.json,$T/rw.json" 'fmt(r[1].totals.events_per_sec) .. "</td><td class=\"num\">" .. fmt(r[2].totals.events_per_sec)')
check runs_comparison_tps grep -Eq "^<tr><td>TPS</td><td class=\"num\">$tps</td></tr>$" "$O/runs.html"
n=$(expect "$T/ro.json,$T/rw.json" '#r[1].intervals + #r[2].intervals')
got=$(svg_of "$O/runs.html" chart-throughput | grep -c '<circle class="lb-pt"')
[ "$got" = "$n" ] && pass runs_point_per_interval || fail runs_point_per_interval "$got dots, $n intervals"
check runs_hover_value grep -Eq '<circle class="lb-pt" [^>]*><title>rw' "$O/runs.html"
if svg_of "$O/runs.html" chart-throughput | sed -n '/data-name="ro"/,/<\/g>/p' | grep -q 'class="lb-warmup"' \
   && ! svg_of "$O/runs.html" chart-throughput | sed -n '/data-name="rw"/,/<\/g>/p' | grep -q 'class="lb-warmup"'
then pass runs_warmup_on_its_run; else fail runs_warmup_on_its_run "ro's warm-up not on ro's line only"; fi
check runs_threads_differ grep -q '<td class="diff">--threads</td>' "$O/runs.html"
check runs_driver_same grep -q '<td>--db-driver</td><td>null</td><td>null</td>' "$O/runs.html"
check runs_generated_by grep -q '<footer>lbench [0-9.]*: lbench report ' "$O/runs.html"
# One scenario twice: ratios, coloured by direction.
expect_ok report_same 'written to' $LB report "$T/ro.json" "$T/ro2.json" --names=ro,ro2 --out="$O/same.html"
page same "$O/same.html" summary comparison charts summary-table comparison-table chart-throughput
ratio=$(expect "$T/ro.json,$T/ro2.json" 'fmt_ratio(r[2].totals.events_per_sec / r[1].totals.events_per_sec)')
check same_summary_ratio grep -Eq "<span id=\"run-2\">ro2</span>.*<td class=\"[a-z ]*num\" title=\"ro2 / ro\">$ratio</td>" "$O/same.html"
tps=$(expect "$T/ro.json,$T/ro2.json" 'fmt(r[1].totals.events_per_sec) .. "</td><td class=\"num\">" .. fmt(r[2].totals.events_per_sec)')
check same_comparison_tps grep -Eq "^<tr><td>TPS</td><td class=\"num\">$tps</td><td class=\"[a-z ]*num\">$ratio</td>" "$O/same.html"

# ---- a sweep: scale factors, scaling with the ideal line, bars per value -----------
expect_ok report_sweep 'written to' $LB report "$T/sweep.json" --out="$O/sweep.html"
page sweep "$O/sweep.html" summary sweeps charts chart-scaling chart-sweep-mode chart-throughput
n=$(expect "$T/sweep.json" '#r[1].points')
got=$(rows_of "$O/sweep.html" sweep-table)
[ "$got" = "$n" ] && pass sweep_table_rows || fail sweep_table_rows "$got rows, $n points"
sf=$(expect "$T/sweep.json" 'fmt_ratio(r[1].summary[2].scale_factor)')
check sweep_scale_factor grep -Eq "^<tr><td>[^<]*threads=2[^<]*</td><td>ok</td><td class=\"num\">2</td><td class=\"num\">[0-9.]+</td><td class=\"muted\">events/s</td><td class=\"[a-z ]*num\">$sf</td>" "$O/sweep.html"
got=$(svg_of "$O/sweep.html" chart-scaling | grep -c 'stroke-dasharray="6 4"><title>[^<]*ideal linear')
[ "$got" -ge 2 ] && pass sweep_ideal_lines || fail sweep_ideal_lines "$got dashed ideal lines"
got=$(svg_of "$O/sweep.html" chart-sweep-mode | grep -c '<rect class="lb-bar"')
[ "$got" = 4 ] && pass sweep_bars || fail sweep_bars "$got bars, want 2 modes x 2 thread counts"

# ---- phases of a --rate schedule: their table, their boundary on the time charts ------
expect_ok report_phases 'written to' $LB report "$T/phases.json" --out="$O/phases.html"
page phases "$O/phases.html" summary charts phases chart-throughput
got=$(rows_of "$O/phases.html" phases-table)
[ "$got" = 2 ] && pass phases_table_rows || fail phases_table_rows "$got rows, want 2 phases"
got=$(svg_of "$O/phases.html" chart-throughput | grep -c '<g class="lb-mark"><title>ramp')
[ "$got" = 1 ] && pass phases_boundary_marked || fail phases_boundary_marked "$got marks named ramp"

# ---- fileio: the write cliff and its latency, the data points ----------------------
expect_ok report_fileio 'written to' $LB report "$T/fileio.json" --out="$O/fileio.html"
page fileio "$O/fileio.html" summary charts fileio chart-fileio chart-fileio-latency
n=$(expect "$T/fileio.json" '#r[1].fileio.points')
got=$(rows_of "$O/fileio.html" fileio-points)
[ "$got" = "$n" ] && [ "$n" -ge 5 ] && pass fileio_points_table || fail fileio_points_table "$got rows, $n points"
check fileio_chart_points grep -q "id=\"chart-fileio\" [^>]*data-points=\"$n\"" "$O/fileio.html"

# ---- TPC-C: summary, constraints, per-transaction throughput -------------------------
expect_ok report_tpcc 'written to' $LB report "$T/tpcc.json" --out="$O/tpcc.html"
page tpcc "$O/tpcc.html" summary charts tpcc types tpcc-summary chart-tpcc chart-throughput
tpmc=$(expect "$T/tpcc.json" 'fmt(r[1].tpcc.tpmC)')
check tpcc_tpmc grep -q "^<tr><td>tpmC (new orders per minute)</td><td class=\"num\">$tpmc</td></tr>$" "$O/tpcc.html"
got=$(rows_of "$O/tpcc.html" tpcc-transactions)
[ "$got" = 5 ] && pass tpcc_transactions || fail tpcc_transactions "$got rows"
no=$(expect "$T/tpcc.json" 'fmt(r[1].types.new_order.events) .. "</td><td class=\"num\">" .. fmt(r[1].types.new_order.share_pct)')
check tpcc_types grep -q "^<tr><td>new_order</td><td class=\"num\">$no</td>" "$O/tpcc.html"
check tpcc_constraints grep -Eq '<tr><td>response times \(90th percentile within the limits\)</td><td class="(good|warn)">(OK|FAILED)</td>' "$O/tpcc.html"
got=$(svg_of "$O/tpcc.html" chart-tpcc | grep -c '<g class="lb-series"')
[ "$got" = 5 ] && pass tpcc_chart_per_type || fail tpcc_chart_per_type "$got series"

# ---- slap ---------------------------------------------------------------------------
expect_ok report_slap 'written to' $LB report "$T/slap.json" --out="$O/slap.html"
page slap "$O/slap.html" summary charts slap chart-slap
got=$(rows_of "$O/slap.html" slap-levels)
[ "$got" = 2 ] && pass slap_levels || fail slap_levels "$got rows"

# ---- a run that failed: its status, its error ------------------------------------------
json_assert doc_error "$T/error.json" 'r.status == "error" and r.error:find("1146", 1, true)'
expect_ok report_error 'written to' $LB report "$T/error.json" "$T/ro.json" --out="$O/error.html"
check error_status grep -q '<span id="run-1">error</span></td><td>bad_query</td><td class="warn" title="[^"]*1146' "$O/error.html"
check error_table grep -Eq '^<tr><td><a href="#run-1">error</a></td><td class="warn">error</td><td>[^<]*errno = 1146' "$O/error.html"
check error_ok_run_not_listed bash -c "! grep -q '<a href=\"#run-2\">ro</a>' '$O/error.html'"

# ---- everything on one page; plot draws the new charts too ---------------------------
expect_ok report_all 'Report of 6 file\(s\)' $LB report "$T/ro.json" "$T/rw.json" "$T/sweep.json" "$T/fileio.json" \
  "$T/tpcc.json" "$T/slap.json" --out="$O/all.html"
# (a long page: its comparison has the server's and host's rows of the MariaDB runs above the charts)
SHOT_HEIGHT=3600 page all "$O/all.html" summary sweeps charts tpcc slap fileio options files chart-scaling chart-tpcc chart-slap chart-fileio
expect_ok plot_tpcc_slap 'tpcc +tpcc\.svg' $LB plot "$T/tpcc.json" "$T/slap.json" --out="$T/plots" --format=svg
check plot_slap grep -q '<svg' "$T/plots/slap.svg"

# ---- mistakes: one line, status 1, the page left as it was ---------------------------
cp "$O/runs.html" "$T/runs.before"
one_line report_missing_file "cannot read '$T/nope.json'" $LB report "$T/nope.json" --out="$O/runs.html"
echo '{"a": 1}' >"$T/other.json"
one_line report_not_result "'$T/other.json' is not an lbench result file" $LB report "$T/other.json" --out="$O/runs.html"
echo '{"totals": {' >"$T/cut.json"
one_line report_not_json "'$T/cut.json' is not a JSON document" $LB report "$T/cut.json" --out="$O/runs.html"
echo '{"scenario": "x", "totals": {"events": 1, "events_per_sec": 1}, "fileio": {"points": [1, 2]}}' >"$T/odd.json"
one_line report_malformed "'$T/odd.json' holds malformed values, cannot report it" $LB report "$T/ro.json" "$T/odd.json" \
  --out="$O/runs.html"
one_line report_no_out '--out=FILE.html is required' $LB report "$T/ro.json"
one_line report_no_files 'no result file given' $LB report --out="$O/x.html"
one_line report_out_dir "--out=$O: is a directory" $LB report "$T/ro.json" --out="$O"
one_line report_out_unwritable "--out=$T/no/such/dir/r.html: cannot write there" $LB report "$T/ro.json" --out="$T/no/such/dir/r.html"
one_line report_unknown_option "unknown option '--ouput' \(did you mean '--out'\?\)" $LB report "$T/ro.json" --ouput=x.html
one_line report_names_count '--names: 1 name\(s\) given for 2 file\(s\)' $LB report "$T/ro.json" "$T/rw.json" --names=a \
  --out="$O/x.html"
check report_failed_left_page cmp -s "$T/runs.before" "$O/runs.html"
check report_no_temp_files bash -c "! ls -a '$O' | grep -q tmp"
expect_ok report_help '^usage: lbench report FILE.json' $LB report help
expect_ok report_dash_help '^usage: lbench report FILE.json' $LB report --help
expect_ok report_in_usage 'lbench report r.json \.\.\. --out=FILE.html' $LB --help

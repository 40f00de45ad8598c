#!/usr/bin/env bash
# CLI tests of the run history: --history on runs and other commands,
# lbench history import/list/show/delete/check/report, two writers at
# once, a locked and a damaged history (no server needed: the null driver,
# fileio on files, result documents edited by test/cli/scripts/json_edit.lua).
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
S=test/cli/scripts
trap 'exec 7>&- 2>/dev/null; [ -n "${LOCKER:-}" ] && kill "$LOCKER" 2>/dev/null; rm -rf "$T"' EXIT
unset LBENCH_HISTORY
H=$T/h.db
NULLRUN=(oltp_point_select --db-driver=null --report-interval=1)

rows() { sqlite3 "$1" 'SELECT count(*) FROM runs'; }
edit() { $LB $S/json_edit.lua edit --file="$1" --out="$2" --expr="$3"; }

# SQLite is linked into the binary (found through ffi.C, not loaded by name).
expect_ok sqlite_linked_in_binary '^sqlite linked 3\.' $LB $S/sqlite_origin.lua

# ---- a run stores its document ---------------------------------------------------
expect_ok run_with_history 'transactions:' $LB "${NULLRUN[@]}" --time=0.5 --result-file="$T/first.json" --history="$H" run
check history_created test "$(rows "$H")" = 1
check history_wal test "$(sqlite3 "$H" 'PRAGMA journal_mode')" = wal
check history_schema_version test "$(sqlite3 "$H" 'SELECT version FROM schema_version')" = 2
check history_indexed_columns test "$(sqlite3 "$H" "SELECT scenario || '|' || command || '|' || status || '|' || threads FROM runs")" = 'oltp_point_select|run|ok|1'
$LB history show 1 --history="$H" >"$T/show1.json" 2>"$T/show1.err"
check show_equals_run_result_file cmp "$T/show1.json" "$T/first.json"
# LBENCH_HISTORY is the default of --history; --history wins.
LBENCH_HISTORY="$H" $LB "${NULLRUN[@]}" --time=0.3 --rate=1000 run >/dev/null 2>&1
check env_history_default test "$(rows "$H")" = 2
LBENCH_HISTORY="$T/not-this.db" $LB "${NULLRUN[@]}" --time=0.3 --history="$H" run >/dev/null 2>&1
check option_beats_env bash -c "test $(rows "$H") = 3 && test ! -e '$T/not-this.db'"
# other commands that write a result document: a sweep (one document), fileio verify
$LB sweep --threads=1,2 --time=0.3 oltp_point_select --db-driver=null --history="$T/other.db" --result-file="$T/sweep.json" >/dev/null 2>&1
check sweep_stored_once test "$(sqlite3 "$T/other.db" "SELECT count(*) || ' ' || min(tool) FROM runs")" = '1 sweep'
$LB history show 1 --history="$T/other.db" >"$T/sweep_show.json" 2>/dev/null
check sweep_show_equals_file cmp "$T/sweep_show.json" "$T/sweep.json"
$LB fileio --target-dir="$T/fio" --file-num=1 --file-total-size=1M prepare >/dev/null 2>&1
expect_ok fileio_verify_history '0 lost' $LB fileio --target-dir="$T/fio" --file-num=1 --file-total-size=1M --history="$T/other.db" verify
check fileio_verify_stored test "$(sqlite3 "$T/other.db" "SELECT count(*) FROM runs WHERE scenario = 'fileio' AND command = 'verify'")" = 1

# ---- import, list with filters, show, delete ----------------------------------------
for r in 2000 2000 500; do
  $LB "${NULLRUN[@]}" --time=1 --rate=$r --rate-mode=constant --result-file="$T/r$r-$((++n)).json" run >/dev/null 2>&1
done
$LB $S/empty.lua --time=0.2 --result-file="$T/empty.json" run >/dev/null 2>&1
I=$T/imp.db
expect_ok import_files '^4 added, 0 already stored' $LB history import "$T"/r*.json "$T/empty.json" --history="$I"
expect_ok import_again_skips '^0 added, 4 already stored' $LB history import "$T"/r*.json "$T/empty.json" --history="$I"
check import_count test "$(rows "$I")" = 4
expect_ok import_run_document_skipped '^0 added, 1 already stored' $LB history import "$T/first.json" --history="$H"
one_line import_refuses_non_result "history import: '.*not-result.json' is not an lbench result document" \
  bash -c "echo '{\"a\": 1}' > '$T/not-result.json'; $LB history import '$T/r500-3.json' '$T/not-result.json' --history='$I'"
check import_bad_file_imports_nothing test "$(rows "$I")" = 4
expect_ok list_all '^id +time +host +scenario +command +key options +tps +p95 ms +p99 ms +status$' $LB history list --history="$I"
check list_all_rows test "$(grep -c ' ok$' "$T/list_all.out")" = 4
check list_key_options grep -q 'threads=1 rate=500 time=1 db_driver=null' "$T/list_all.out"
expect_ok list_scenario 'empty' $LB history list --history="$I" --scenario=empty
check list_scenario_only test "$(grep -c ' ok$' "$T/list_scenario.out")" = 1
expect_ok list_where_rate 'rate=500' $LB history list --history="$I" --where=rate=500
check list_where_rate_only test "$(grep -c ' ok$' "$T/list_where_rate.out")" = 1
expect_ok list_where_two 'rate=2000' $LB history list --history="$I" --where=rate=2000 --where=db-driver=null
check list_where_two_rows test "$(grep -c ' ok$' "$T/list_where_two.out")" = 2
expect_ok list_since_duration 'rate=500' $LB history list --history="$I" --since=1d --scenario=oltp_point_select
check list_since_rows test "$(grep -c ' ok$' "$T/list_since_duration.out")" = 3
expect_ok list_since_future '^no runs match$' $LB history list --history="$I" --since=2999-01-01
expect_ok list_host "$(hostname)" $LB history list --history="$I" --host="$(hostname)" --limit=2
check list_limit test "$(grep -c ' ok$' "$T/list_host.out")" = 2
expect_ok list_other_host '^no runs match$' $LB history list --history="$I" --host=no-such-host
expect_ok list_csv '^id,time,host,scenario,command,key options,tps,p95 ms,p99 ms,status$' $LB history list --history="$I" --output=csv
for i in 1 2 3 4; do
  $LB history show $i --history="$I" >"$T/show_$i.json" 2>/dev/null
  for f in "$T"/r*.json "$T/empty.json"; do cmp -s "$T/show_$i.json" "$f" && echo "$f"; done
done >"$T/shown_files"
check show_equals_original test "$(sort -u "$T/shown_files" | wc -l)" = 4
one_line delete_missing_deletes_nothing 'no run 99 in .*nothing deleted' $LB history delete 4 99 --history="$I"
check delete_missing_count test "$(rows "$I")" = 4
expect_ok delete_one '^deleted 1 run' $LB history delete 4 --history="$I"
one_line show_deleted 'no run 4 in' $LB history show 4 --history="$I"
one_line list_bad_since '--since=3x: expected a duration' $LB history list --since=3x --history="$I"
one_line list_bad_where '--where=rate: expected option=value' $LB history list --where=rate --history="$I"
one_line list_unknown_option "unknown option '--scenari' \(did you mean '--scenario'\?\)" $LB history list --scenari=x --history="$I"
one_line history_unknown_command "unknown command 'lst' \(did you mean 'list'\?\)" $LB history lst
one_line history_no_file 'no history given: use --history=PATH or set LBENCH_HISTORY' $LB history list
one_line history_missing_file "--history=$T/none.db: no such file" $LB history list --history="$T/none.db"
expect_ok history_help 'check +NEW.json' $LB history help

# ---- two writers at once ---------------------------------------------------------------
mkdir -p "$T/par"
for i in $(seq 1 16); do
  sed "s/\"started_at\": \"[^\"]*\"/\"started_at\": \"2026-01-0$(( i % 9 + 1 ))T00:00:$(printf %02d $i)Z\"/" "$T/r500-3.json" >"$T/par/p$i.json"
done
P=$T/par.db
$LB history import "$T"/par/p[1-8].json --history="$P" >"$T/par1.out" 2>&1 & pid1=$!
$LB history import "$T"/par/p9.json "$T"/par/p1[0-6].json --history="$P" >"$T/par2.out" 2>&1 & pid2=$!
wait $pid1; rc1=$?; wait $pid2; rc2=$?
[ "$rc1$rc2" = 00 ] && pass parallel_imports_succeed ||
  fail parallel_imports_succeed "exits $rc1$rc2: $(grep -v '^added' "$T/par1.out" "$T/par2.out" | head -4 | tr '\n' '|')"
check parallel_imports_all_rows test "$(rows "$P")" = 16
$LB "${NULLRUN[@]}" --time=0.5 --history="$P" run >/dev/null 2>&1 & pid1=$!
$LB "${NULLRUN[@]}" --time=0.5 --threads=2 --history="$P" run >/dev/null 2>&1 & pid2=$!
wait $pid1; rc1=$?; wait $pid2; rc2=$?
check parallel_runs_succeed test "$rc1$rc2" = 00
check parallel_runs_both_stored test "$(rows "$P")" = 18

# ---- the regression check ----------------------------------------------------------------
C=$T/check.db
base=$T/r2000-1.json
$LB history import "$base" --history="$C" >/dev/null 2>&1
# by construction: the same rate (constant arrivals) passes a 20 % limit, a
# quarter of the rate fails it against the named baseline
expect_ok check_same_rate_passes '^no regression$' $LB history check "$T/r2000-2.json" --baseline=1 --max-regression=20% --history="$C"
run check_quarter_rate $LB history check "$T/r500-3.json" --baseline=1 --max-regression=20% --history="$C"
check check_quarter_rate_exit_1 test "$rc" = 1
# (a figure may have decimals: a run whose last event ends past its second)
if grep -Eq '^tps +[0-9.]+ +[0-9.]+ +-[6-8][0-9]\.[0-9]% +-20% +REGRESSION$' "$T/check_quarter_rate.out"; then
  pass check_quarter_rate_table
else
  fail check_quarter_rate_table "$(tr '\n' '|' < "$T/check_quarter_rate.out" | head -c 400)"
fi
check check_quarter_rate_verdict grep -q '^REGRESSION: tps$' "$T/check_quarter_rate.out"
# exact figures: copies of the baseline with tps and p99 scaled
tps_expr='r.started_at = "2030-01-01T00:00:00Z"; r.totals.events_per_sec = r.totals.events_per_sec *'
edit "$base" "$T/tps97.json" "$tps_expr 0.97"
edit "$base" "$T/tps90.json" "$tps_expr 0.90"
edit "$base" "$T/p99up.json" 'r.started_at = "2030-01-01T00:00:00Z"; r.latency_ms.percentiles["99"] = r.latency_ms.percentiles["99"] * 1.2'
edit "$base" "$T/p99down.json" 'r.started_at = "2030-01-01T00:00:00Z"; r.latency_ms.percentiles["99"] = r.latency_ms.percentiles["99"] * 0.5'
expect_ok check_3pct_within_5 '^tps .* -3\.0% +-5% +ok$' $LB history check "$T/tps97.json" --history="$C"
run check_10pct_over_5 $LB history check "$T/tps90.json" --history="$C" --metric=tps
check check_10pct_over_5_exit_1 bash -c "test $rc = 1 && grep -Eq '^tps .* -10\.0% +-5% +REGRESSION$' '$T/check_10pct_over_5.out'"
expect_ok check_10pct_within_15 'no regression' $LB history check "$T/tps90.json" --history="$C" --max-regression=15
run check_p99_up $LB history check "$T/p99up.json" --history="$C" --max-regression=tps:5%,p99:10%
check check_p99_up_is_regression bash -c "test $rc = 1 && grep -Eq '^p99 ms .* \+20\.0% +\+10% +REGRESSION$' '$T/check_p99_up.out' && grep -Eq '^tps .* ok$' '$T/check_p99_up.out'"
expect_ok check_p99_down_is_better '^p99 ms .* -50\.0% +\+10% +better$' $LB history check "$T/p99down.json" --history="$C" --metric=tps,p99 --max-regression=5%,p99:10%
# median of the last N: three stored runs at 100, 200 and 1000 events/s
i=0
for v in 100 200 1000; do
  i=$((i + 1))
  edit "$base" "$T/m$v.json" "r.started_at = '2029-01-0${i}T00:00:00Z'; r.totals.events_per_sec = $v"
done
M_DB=$T/median.db
$LB history import "$T"/m*.json --history="$M_DB" >/dev/null 2>&1
edit "$base" "$T/n190.json" "$tps_expr 0 + 190"
edit "$base" "$T/n170.json" "$tps_expr 0 + 170"
expect_ok check_median_passes '^tps +200 +190 +-5\.0% +-10% +ok$' $LB history check "$T/n190.json" --baseline=median:3 --max-regression=10% --history="$M_DB"
check check_median_names_runs grep -q 'median of the last 3 of 3 asked' "$T/check_median_passes.out"
run check_median_regression $LB history check "$T/n170.json" --baseline=median:5 --max-regression=10% --history="$M_DB"
check check_median_regression_exit_1 bash -c "test $rc = 1 && grep -Eq '^tps +200 +170 +-15\.0% +-10% +REGRESSION$' '$T/check_median_regression.out'"
expect_ok check_last_is_newest '^tps +1000 +190 ' $LB history check "$T/n190.json" --max-regression=99% --history="$M_DB"
edit "$base" "$T/interrupted.json" "$tps_expr 1; r.status = 'interrupted'; r.stop_reason = 'signal'"
expect_ok check_notes_status "note: the new result's status is interrupted" $LB history check "$T/interrupted.json" --history="$C"
# no baseline yet (other key options): not a regression; --add stores it
expect_ok check_no_baseline 'not checked: no baseline' $LB history check "$T/r500-3.json" --history="$M_DB" --add
check check_add_stored test "$(rows "$M_DB")" = 4
# errors exit 2, with one line
for c in "bad_metric|--metric=bogus|unknown metric 'bogus'" "bad_limit|--max-regression=lots|--max-regression=lots: expected a percentage" \
         "bad_baseline|--baseline=median:0|expected median:N" "missing_baseline|--baseline=77|no run 77"; do
  IFS='|' read -r name arg re <<<"$c"
  one_line "check_${name}" "$re" $LB history check "$T/n190.json" "$arg" --history="$M_DB"
  check "check_${name}_exit_2" test "$rc" = 2
done
one_line check_missing_file "cannot read '$T/none.json'" $LB history check "$T/none.json" --history="$M_DB"
check check_missing_file_exit_2 test "$rc" = 2
one_line check_sweep_refused 'is a sweep; check compares single runs' $LB history check "$T/sweep.json" --history="$M_DB"
one_line check_metric_absent "has no tpmC" $LB history check "$T/n190.json" --metric=tpmC --history="$M_DB"

# ---- a history that cannot be written -------------------------------------------------------
echo 'this is not a database' >"$T/corrupt.db"
ALLOW_STDOUT=1 one_line corrupt_history_one_line "--history=$T/corrupt.db: the result was not stored: file is not a database" \
  $LB "${NULLRUN[@]}" --time=0.3 --result-file="$T/kept1.json" --history="$T/corrupt.db" run
json_assert corrupt_history_result_kept "$T/kept1.json" 'r.status == "ok" and r.totals.events > 0'
one_line history_dir_missing "--history=$T/nodir/h.db: directory '$T/nodir' does not exist" \
  $LB "${NULLRUN[@]}" --time=0.3 --result-file="$T/never.json" --history="$T/nodir/h.db" run
check history_dir_missing_refused_before_run test ! -e "$T/never.json"
one_line history_is_directory "--history=$T: is a directory" $LB "${NULLRUN[@]}" --time=0.3 --history="$T" run
# locked: another process holds an exclusive transaction.  The count is
# read before the lock is taken: a reader may be refused while it is held.
before=$(rows "$H")
mkfifo "$T/lock.fifo"
sqlite3 "$H" <"$T/lock.fifo" >/dev/null 2>&1 & LOCKER=$!
exec 7>"$T/lock.fifo"
echo 'BEGIN EXCLUSIVE; INSERT INTO schema_version (version) VALUES (1);' >&7
for _ in $(seq 1 50); do
  sqlite3 "$H" 'BEGIN IMMEDIATE; ROLLBACK;' >/dev/null 2>&1 || break
  sleep 0.1
done
ALLOW_STDOUT=1 one_line locked_history_one_line \
  "--history=$H: the result was not stored: database is locked \(another process held it for 0.5 s" \
  env LBENCH_HISTORY_TIMEOUT=0.5 $LB "${NULLRUN[@]}" --time=0.3 --result-file="$T/kept2.json" --history="$H" run
json_assert locked_history_result_kept "$T/kept2.json" 'r.status == "ok" and r.totals.events > 0'
expect_ok locked_history_readable 'oltp_point_select' $LB history list --history="$H"
exec 7>&-
wait "$LOCKER" 2>/dev/null; LOCKER=
check locked_history_unchanged test "$(rows "$H")" = "$before"
expect_ok unlocked_history_writable 'transactions:' $LB "${NULLRUN[@]}" --time=0.3 --history="$H" run
check unlocked_history_stored test "$(rows "$H")" = $((before + 1))

# ---- the trend report -----------------------------------------------------------------------
R=$T/report.db
edit "$T/r500-3.json" "$T/v2.json" "r.started_at = '2031-01-01T00:00:00Z'; r.lbench_version = '9.9.9'"
$LB history import "$T"/r*.json "$T"/par/p*.json "$T/empty.json" "$T/v2.json" --history="$R" >/dev/null 2>&1
nruns=$(rows "$R")
expect_ok report_written "trend.html: $nruns run\\(s\\), tps, p99" $LB history report --history="$R" --metric=tps,p99 --out="$T/trend.html"
check report_two_charts test "$(grep -c '<svg class="lb-chart lb-line"' "$T/trend.html")" = 2
# every run is a point of the tps chart, linked to its details
sed -n '/<svg class="lb-chart lb-line" id="chart-tps"/,/<\/svg>/p' "$T/trend.html" >"$T/tps.svg"
check report_point_per_run test "$(grep -o 'href="#run-[0-9]*"' "$T/tps.svg" | sort -u | wc -l)" = "$nruns"
check report_details_per_run test "$(grep -o 'id="run-[0-9]*"' "$T/trend.html" | sort -u | wc -l)" = "$nruns"
check report_version_mark grep -q '>lbench 9\.9\.9<' "$T/tps.svg"
# one line per series: rate=2000, rate=500 and the empty script
check report_series grep -q 'data-series="3"' "$T/trend.html"
one_line report_no_match 'no runs match' $LB history report --history="$R" --scenario=nothing --out="$T/none.html"
one_line report_needs_out '--out=FILE.html is required' $LB history report --history="$R"
if command -v chromium >/dev/null 2>&1; then
  run chromium_dom timeout 120 chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --dump-dom "file://$T/trend.html"
  check chromium_no_console_errors bash -c "! grep -q ':CONSOLE' '$T/chromium_dom.err'"
  check chromium_dom_chart grep -q '<svg class="lb-chart lb-line"' "$T/chromium_dom.out"
  check chromium_dom_run_details bash -c "grep -q 'id=\"run-1\"' '$T/chromium_dom.out' && grep -q 'id=\"run-$nruns\"' '$T/chromium_dom.out'"
  # not blank: many colours, ink, and the first series' line colour painted
  # (test/e2e/scripts/png_check.lua); a blank page fails the same check
  timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1200,900 --screenshot="$T/trend.png" "file://$T/trend.html" >/dev/null 2>&1
  check chromium_screenshot_not_blank $LB test/e2e/scripts/png_check.lua check --file="$T/trend.png" --min-colours=50 \
    --min-ink=0.02 --colour=1f77b4 --min-colour-pixels=100
  echo '<html><body></body></html>' >"$T/blank.html"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1200,900 --screenshot="$T/blank.png" "file://$T/blank.html" >/dev/null 2>&1
  check chromium_blank_page_fails_check bash -c "test -s '$T/blank.png' && ! $LB test/e2e/scripts/png_check.lua check --file='$T/blank.png' --min-colours=50 --min-ink=0.02"
  # The axes of a history whose p99 is far from zero (2.1 to 2.4 ms) and
  # whose last run changes the lbench version on a date the time axis has
  # a tick at (2030-04-04: a multiple of its two-week step): both y axes
  # start at zero, and no label of either chart (the last date, the
  # version mark's) is cut by the chart's edge, as Chromium lays them out.  The page forbids
  # scripts, so a copy without its policy measures every text of every
  # chart against its SVG and writes what sticks out into the DOM.
  A=$T/axes.db
  for i in 1 2 3 4; do
    edit "$T/r500-3.json" "$T/ax$i.json" "r.started_at = '2030-0${i}-0$((i < 4 ? 1 : 4))T00:00:00Z'; r.latency_ms.percentiles['99'] = 2 + $i / 10
      if $i == 4 then r.lbench_version = '9.9.9' end"
  done
  $LB history import "$T"/ax?.json --history="$A" >/dev/null 2>&1
  expect_ok axes_report_written 'axes.html: 4 run\(s\), tps, p99' $LB history report --history="$A" --metric=tps,p99 --out="$T/axes.html"
  for m in tps p99; do
    low=$(sed -n "/<svg class=\"lb-chart lb-line\" id=\"chart-$m\"/,/<\/svg>/p" "$T/axes.html" \
      | grep -o 'font-size="11" text-anchor="end">[^<]*<' | head -1 | sed 's/.*>\(.*\)</\1/')
    if echo "$low" | grep -Eq '^0(\.0+)?$'; then pass "axes_${m}_from_zero"; else fail "axes_${m}_from_zero" "lowest y tick '$low'"; fi
  done
  { sed 's/<meta http-equiv="Content-Security-Policy"[^>]*>//' "$T/axes.html" | sed '/<\/body>/d'
    cat <<'JS'
<script>
var cut = [];
document.querySelectorAll('svg.lb-chart').forEach(function (svg) {
  var b = svg.getBoundingClientRect();
  svg.querySelectorAll('text').forEach(function (t) {
    var r = t.getBoundingClientRect();
    if (r.width > 0 && (r.left < b.left - 0.5 || r.right > b.right + 0.5)) cut.push(svg.id + ': ' + t.textContent);
  });
});
document.body.setAttribute('data-cut', cut.length ? cut.join(' | ') : 'none');
</script></body>
JS
  } >"$T/axes_measure.html"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1200,900 --dump-dom "file://$T/axes_measure.html" \
    >"$T/axes_measure.dom" 2>/dev/null
  cut=$(grep -o 'data-cut="[^"]*"' "$T/axes_measure.dom")
  [ "$cut" = 'data-cut="none"' ] && pass axes_labels_inside_charts || fail axes_labels_inside_charts "${cut:-not measured}"
  timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1200,1400 --screenshot="$T/axes.png" "file://$T/axes.html" >/dev/null 2>&1
  check axes_screenshot_not_blank $LB test/e2e/scripts/png_check.lua check --file="$T/axes.png" --min-colours=50 \
    --min-ink=0.02 --colour=1f77b4 --min-colour-pixels=100
else
  fail chromium "chromium is not installed (apt-get install -y chromium)"
fi

#!/usr/bin/env bash
# What the server and the host did (issue 31), shown where a user looks:
# against a private MariaDB (its own sandbox, port 3386 unless
# LB_SANDBOX_PORT says otherwise), the interval CSV's server and host
# columns equal the JSON intervals of the same run (and are absent with
# --server-stats=off); lbench report draws the server and host charts and
# the settings table, checked in headless Chromium; a buffer-pool sweep's
# table has the hit ratio and disk reads of each point and each point
# recorded the size the sweep set; lbench compare's rows equal the two
# documents' figures; the history stores them as columns (and brings a
# schema 1 history to them).  No timing assertions.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR:-/tmp/lbench-test-observe-report} LB_SANDBOX_PORT=${LB_SANDBOX_PORT:-3386}
sandbox_lock observe_report
sandbox_start observe_report
E=test/e2e/scripts
SQL() { mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest -N -B sbtest -e "$1" 2>&1; }
ok_run() { [ "$rc" -eq 0 ] && pass "$1" || fail "$1" "exit $rc: $(head -c 400 "$T/$1.err")"; }
W="oltp_read_only $M --tables=1 --table-size=5000"
run prepare $LB $W prepare
ok_run prepare

# ---- CSV intervals ----------------------------------------------------------------
run csv $LB $W --time=2 --report-interval=0.5 --output=csv --result-file="$T/a.json" run
ok_run csv
check csv_header_columns grep -q '^time_s,.*,server_hit_pct,server_disk_reads_per_sec,server_written_mib_per_sec,server_log_mib_per_sec,host_user_pct,host_system_pct,host_iowait_pct,device_util_pct,device_await_ms' "$T/csv.out"
run csv_equals_json $LB $E/observed_check.lua csv --csv="$T/csv.out" --file="$T/a.json"
ok_run csv_equals_json
run csv_off $LB $W --time=0.6 --report-interval=0.3 --output=csv --server-stats=off run
if [ "$rc" -eq 0 ] && grep -q '^time_s,' "$T/csv_off.out" && ! grep -q 'server_hit_pct\|host_user_pct' "$T/csv_off.out"
then pass csv_off_no_columns; else fail csv_off_no_columns "rc=$rc: $(head -1 "$T/csv_off.out")"; fi
# every row has the header's number of cells
if awk -F, '/^time_s,/ { n = NF; next } n && /^[0-9]/ { if (NF != n) bad = 1 } END { exit bad || !n }' "$T/csv.out"
then pass csv_rows_as_wide_as_header; else fail csv_rows_as_wide_as_header "$(head -3 "$T/csv.out")"; fi

# ---- lbench report: charts and the settings table, in Chromium ----------------------
run report $LB report "$T/a.json" --out="$T/a.html"
ok_run report
run report_off_run $LB $W --time=0.5 --report-interval=0.25 --server-stats=off --result-file="$T/off.json" run
run report_off $LB report "$T/off.json" --out="$T/off.html"
if grep -q 'id="server-host"\|chart-server-hit\|chart-host-cpu' "$T/off.html"; then fail report_off_no_section "section drawn"
else pass report_off_no_section; fi
CHROMIUM=$(command -v chromium || command -v chromium-browser)
if [ -z "$CHROMIUM" ]; then fail report_chromium "chromium not installed (contrib/install-deps.sh test)"
else
  timeout -k 5 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/chrome" \
    --enable-logging=stderr --v=0 --dump-dom "file://$T/a.html" >"$T/a.dom" 2>"$T/chrome.log"
  check report_no_console_errors bash -c "! grep -q ':CONSOLE' '$T/chrome.log'"
  for id in server-hit server-reads server-written host-cpu; do
    svg=$(sed -n "/<svg class=\"lb-chart lb-line\" id=\"chart-$id\"/,/<\/svg>/p" "$T/a.dom")
    if [ -n "$svg" ] && echo "$svg" | grep -q '<circle class="lb-pt"'; then pass "report_chart_$id"
    else fail "report_chart_$id" "no chart with points in the DOM"; fi
  done
  check report_chart_titles bash -c "grep -q '<title>Server buffer hit ratio</title>' '$T/a.dom' &&
    grep -q '<title>Host CPU</title>' '$T/a.dom' && grep -q '<title>Server data and log written</title>' '$T/a.dom'"
  # the hit chart has one point per interval with a hit ratio
  want=$($LB test/e2e/scripts/report_expect.lua eval --files="$T/a.json" \
    --expr='(function() local n = 0 for _, iv in ipairs(r[1].intervals) do if iv.server and iv.server.buffer_pool_hit_pct then n = n + 1 end end return n end)()')
  got=$(sed -n '/id="chart-server-hit"/,/<\/svg>/p' "$T/a.dom" | grep -c '<circle class="lb-pt"')
  [ "$got" = "$want" ] && [ "$want" -gt 0 ] && pass report_hit_points || fail report_hit_points "$got points, $want intervals"
  # device charts exactly when the run recorded a device
  if $LB test/cli/scripts/json_assert.lua check --file="$T/a.json" --expr='r.host_stats.devices ~= nil' >/dev/null 2>&1; then
    check report_device_charts bash -c "grep -q 'id=\"chart-device-util\"' '$T/a.dom' && grep -q 'id=\"chart-device-await\"' '$T/a.dom' && grep -q 'id=\"chart-device-iops\"' '$T/a.dom'"
  else
    check report_no_device_charts bash -c "! grep -q 'id=\"chart-device-' '$T/a.dom'"
  fi
  bp=$(SQL "SELECT @@GLOBAL.innodb_buffer_pool_size")
  tbl=$(sed -n '/<table class="lb-table" id="server-table">/,/<\/table>/p' "$T/a.dom")
  if echo "$tbl" | grep -q "<td>innodb_buffer_pool_size</td><td class=\"num\">$bp</td>" && echo "$tbl" | grep -q '<td>MariaDB</td>'
  then pass report_settings_table; else fail report_settings_table "$(echo "$tbl" | head -c 400)"; fi
fi

# ---- a buffer-pool sweep: "memory or SSD?" in one command ----------------------------
bp0=$(SQL "SELECT @@GLOBAL.innodb_buffer_pool_size")
run sweep $LB sweep --server-var innodb_buffer_pool_size=128M,192M --output=csv --result-file="$T/sw.json" \
  $W --time=1
ok_run sweep
json_assert sweep_settings_recorded "$T/sw.json" '#r.points == 2
  and r.points[1].server.settings.innodb_buffer_pool_size == "134217728"
  and r.points[2].server.settings.innodb_buffer_pool_size == "201326592"'
check sweep_table_columns grep -q '^innodb_buffer_pool_size,.*,hit %,disk reads/s' "$T/sweep.out"
run sweep_values $LB $E/observed_check.lua sweep --csv="$T/sweep.out" --file="$T/sw.json"
ok_run sweep_values
bp1=$(SQL "SELECT @@GLOBAL.innodb_buffer_pool_size")
[ "$bp0" = "$bp1" ] && pass sweep_bp_restored || fail sweep_bp_restored "was $bp0, now $bp1"
run sweep_text $LB sweep --server-var innodb_buffer_pool_size=128M --result-file="$T/sw1.json" $W --time=0.5
if grep -Eq '^ *innodb_buffer_pool_size .*hit % +disk reads/s' "$T/sweep_text.out"; then pass sweep_text_columns
else fail sweep_text_columns "rc=$rc: $(grep -A2 innodb_buffer_pool_size "$T/sweep_text.out" | tail -3; head -c 300 "$T/sweep_text.err")"; fi
run sweep_report $LB report "$T/sw.json" --out="$T/sw.html"
check sweep_report_columns bash -c "sed -n '/sweep-table/,/<\/table>/p' '$T/sw.html' | grep -q '<th>server hit %</th><th>server disk reads/s</th>'"

# ---- lbench compare -------------------------------------------------------------------
run second $LB $W --time=1 --result-file="$T/b.json" run
run compare $LB compare "$T/a.json" "$T/b.json" --output=csv
ok_run compare
run compare_values $LB $E/observed_check.lua compare --csv="$T/compare.out" --files="$T/a.json,$T/b.json"
ok_run compare_values
expect_ok compare_text '^server buffer hit \(%\) ' $LB compare "$T/a.json" "$T/b.json"

# ---- the history ------------------------------------------------------------------------
H=$T/h.db
run history_import $LB history import "$T/a.json" "$T/b.json" --history="$H"
ok_run history_import
want=$($LB test/e2e/scripts/report_expect.lua eval --files="$T/a.json" --expr='string.format("%.6f %.6f", r[1].server.stats.buffer_pool_hit_pct, r[1].server.stats.buffer_pool_reads_per_sec)')
got=$(sqlite3 "$H" "SELECT printf('%.6f %.6f', hit, diskreads) FROM runs WHERE id = 1")
[ "$got" = "$want" ] && pass history_columns || fail history_columns "stored '$got', document '$want'"
check history_schema_2 test "$(sqlite3 "$H" 'SELECT version FROM schema_version')" = 2
expect_ok history_check_hit 'hit' $LB history check "$T/b.json" --metric=hit,disk-reads --max-regression=1000% --history="$H"
run history_trend $LB history report --metric=hit --out="$T/trend.html" --history="$H"
check history_trend_hit bash -c "grep -q '<svg class=\"lb-chart lb-line\"' '$T/trend.html' && grep -q 'hit (%)' '$T/trend.html'"
# a schema 1 history (before these columns) is brought to schema 2, its runs' figures filled in
cp "$H" "$T/h1.db"
sqlite3 "$T/h1.db" "ALTER TABLE runs DROP COLUMN hit; ALTER TABLE runs DROP COLUMN diskreads; ALTER TABLE runs DROP COLUMN written;
  ALTER TABLE runs DROP COLUMN logwritten; ALTER TABLE runs DROP COLUMN iowait; ALTER TABLE runs DROP COLUMN util;
  ALTER TABLE runs DROP COLUMN await; UPDATE schema_version SET version = 1"
expect_ok history_migrates 'oltp_read_only' $LB history list --history="$T/h1.db"
got=$(sqlite3 "$T/h1.db" "SELECT printf('%.6f %.6f', hit, diskreads) FROM runs WHERE id = 1")
[ "$got" = "$want" ] && pass history_migrated_values || fail history_migrated_values "'$got', document '$want'"

run cleanup $LB $W cleanup

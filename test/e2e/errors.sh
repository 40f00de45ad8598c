#!/usr/bin/env bash
# User mistakes against a real server (issue 14): a missing table, a table
# that exists already, a wrong password, a wrong port.  Each gives one line
# on stderr, a non-zero exit and no traceback.  Its own private sandbox
# (directory and port), started here and stopped by its PID at the end.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=/tmp/lbench-test-sandbox-err LB_SANDBOX_PORT=3318
sandbox_start errors

ALLOW_STDOUT=1   # stdout is the runner's business here

run cleanup_first $LB oltp_read_only $M --tables=9 cleanup
expect_ok prepare_two 'Creating table' $LB oltp_read_only $M --tables=2 --table-size=100 prepare

# a run on more tables than were prepared: the first missing one is named
one_line missing_table "^lbench: table sbtest3 does not exist \(sbtest1\.\.sbtest2 do\): use --tables=2, or run cleanup, then prepare with --tables=9$" \
  $LB oltp_read_only $M --tables=9 --table-size=100 --time=1 run
one_line missing_table_threads "^lbench: table sbtest3 does not exist" $LB oltp_point_select $M --tables=3 --threads=2 --time=1 run
one_line missing_table_async "^lbench: table sbtest3 does not exist" $LB oltp_point_select $M --tables=3 --connections=4 --time=1 run
# prepare over tables that exist
one_line table_exists "^lbench: table sbtest1 already exists in database 'sbtest': run cleanup first" \
  $LB oltp_read_only $M --tables=2 --table-size=100 prepare
run cleanup_two $LB oltp_read_only $M --tables=2 cleanup
one_line no_tables_at_all "^lbench: table sbtest1 does not exist in database 'sbtest': run prepare first" \
  $LB oltp_read_write $M --time=1 run
one_line no_table_random_points "^lbench: table sbtest1 does not exist in database 'sbtest': run prepare first" \
  $LB select_random_points $M --time=1 run
one_line no_table_bulk_insert "^lbench: table sbtest1 does not exist: run prepare with --threads=1" \
  $LB bulk_insert $M --time=1 run

# connects that fail: one line naming host, port and user
one_line bad_password "^lbench: cannot connect to 127\.0\.0\.1:$LB_MYSQL_PORT as 'sbtest' \(mysql\): error 1045: Access denied" \
  $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-password=wrong --time=1 run
one_line bad_password_prepare "^lbench: cannot connect to 127\.0\.0\.1:$LB_MYSQL_PORT as 'sbtest' \(mysql\): error 1045" \
  $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-password=wrong prepare
one_line bad_user_async "^lbench: cannot connect to 127\.0\.0\.1:$LB_MYSQL_PORT as 'nobody' \(mysql\): error (1045|1698): Access denied" \
  $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-user=nobody --connections=4 --time=1 run
one_line bad_port "^lbench: cannot connect to 127\.0\.0\.1:1 as 'sbtest' \(mysql\): error 200[23]" \
  $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=1 --mysql-password=sbtest --time=1 run
printf 'wrong\n' > "$T/pw"
one_line bad_password_file "^lbench: cannot connect to .* error 1045" \
  $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-password-file="$T/pw" --time=1 run

# ---- a server that does not come back (issue 27) ----------------------------
# Its own second sandbox (directory and port), killed with SIGKILL once the
# run has printed its first interval, and not restarted: the run must end
# with status error, exit 1, the server's error in one line, the figures of
# the time until the loss, and every error count in the text report.  With
# --mysql-ignore-errors=all the run goes on to its end (status ok) and the
# outage shows in the intervals.  No timing is asserted: the kill waits for
# the run's first interval line.
KILL_DIR=/tmp/lbench-test-sandbox-kill KILL_PORT=3328
kill_sandbox() { LB_SANDBOX_DIR=$KILL_DIR LB_SANDBOX_PORT=$KILL_PORT contrib/mariadb-sandbox.sh "$@"; }
trap 'contrib/mariadb-sandbox.sh stop >/dev/null 2>&1; kill_sandbox stop >/dev/null 2>&1; rm -rf "$T"' EXIT
K="--mysql-host=127.0.0.1 --mysql-port=$KILL_PORT --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest"

# killed_run NAME ARGS...: start the kill sandbox, run oltp_point_select in
# the background, SIGKILL the server (by its PID) after the first interval
# line; the run's status in $rc, its output in $T/NAME.out/.err/.json.
killed_run() {
  local name=$1; shift
  if ! kill_sandbox start >"$T/$name.sandbox" 2>&1; then fail "${name}_sandbox" "$(tail -3 "$T/$name.sandbox")"; return 1; fi
  local spid
  spid=$(sed -n 's/^LB_SANDBOX_PID=//p' "$KILL_DIR/env")
  run "${name}_prepare" $LB oltp_point_select $K --tables=1 --table-size=1000 prepare
  timeout -k 5 120 $LB oltp_point_select $K --tables=1 --table-size=1000 --threads=2 --time=6 --report-interval=1 \
    --result-file="$T/$name.json" "$@" run >"$T/$name.out" 2>"$T/$name.err" &
  local lpid=$! i
  for ((i = 0; i < 600; i++)); do grep -q '^\[ 1s \]' "$T/$name.out" 2>/dev/null && break; sleep 0.1; done
  kill -9 "$spid"
  wait "$lpid"; rc=$?
  kill_sandbox stop >/dev/null 2>&1
}

kill_sandbox stop >/dev/null 2>&1
killed_run killed
if [ "$rc" -eq 1 ]; then pass killed_exit_1; else fail killed_exit_1 "exit $rc: $(head -c 300 "$T/killed.err")"; fi
n=$(wc -l < "$T/killed.err")
if [ "$n" -eq 1 ] && grep -Eq "^lbench: .*SQL error, errno = (2013|2006|5014|2055), .*; not reconnected before the end of the run \([0-9]+ attempts?, the last: error 200[23]: " "$T/killed.err"; then
  pass killed_error_line; else fail killed_error_line "$n line(s): $(head -c 400 "$T/killed.err")"; fi
json_assert killed_status "$T/killed.json" 'r.status == "error" and r.error:find("not reconnected before the end of the run", 1, true) ~= nil'
json_assert killed_counts "$T/killed.json" '(function() local t = r.totals local n = 0
  for _, v in require("lbench.json").pairs(t.errors_by_code) do n = n + v end
  return t.connections_lost == 2 and t.not_reconnected == 2 and t.reconnects == 0 and t.reconnect_attempts >= 2
    and t.reconnects_failed == t.reconnect_attempts and t.errors >= 2 and n == t.errors and t.outage_s > 0 and t.events > 0 end)()'
# The figures cover the time until the loss: nothing completed after it.
json_assert killed_period "$T/killed.json" 'r.duration_s < 6 and math.abs(r.totals.events_per_sec * r.duration_s - r.totals.events) < 1'
# The text report shows every error count of the document.
json_assert killed_text_counts "$T/killed.json" '(function() local f = io.open("'"$T/killed.out"'") local s = f:read("*a") f:close()
  local t = r.totals
  if not s:find("\n    errors: +" .. t.errors .. " ") then return false end
  for code, v in require("lbench.json").pairs(t.errors_by_code) do
    if not s:find("errors by code: +[^\n]*" .. code .. ": " .. v) then return false end end
  return s:find("reconnect attempts: +" .. t.reconnect_attempts .. " +%(" .. t.reconnects_failed .. " failed%)") ~= nil
    and s:find("connections lost: +2 +%(outage [0-9.]+s over all connections, 2 not reconnected%)") ~= nil
    and s:find("Run stopped on error: ", 1, true) ~= nil end)()'

# The same with every error ignored: the run goes on to its end, ok, and
# the intervals after the loss count the failed reconnects as errors.
killed_run killed_ignored --mysql-ignore-errors=all
if [ "$rc" -eq 0 ]; then pass killed_ignored_exit_0; else fail killed_ignored_exit_0 "exit $rc: $(head -c 300 "$T/killed_ignored.err")"; fi
json_assert killed_ignored_status "$T/killed_ignored.json" 'r.status == "ok" and r.totals.connections_lost == 2
  and r.totals.not_reconnected == 2 and r.totals.reconnects == 0 and r.totals.ignored_errors == r.totals.reconnects_failed'
json_assert killed_ignored_intervals "$T/killed_ignored.json" '(function() local n = 0
  for _, iv in ipairs(r.intervals) do if iv.errors_per_sec > 0 and iv.events == 0 then n = n + 1 end end return n >= 1 end)()'
if grep -Eq '^\[ [0-9.]+s \] thds: [0-9]+ tps: 0\.00 .* err/s: [1-9][0-9.]* reconn/s: 0\.00$' "$T/killed_ignored.out"; then
  pass killed_ignored_err_per_s; else fail killed_ignored_err_per_s "$(grep '^\[' "$T/killed_ignored.out" | tail -3)"; fi

#!/usr/bin/env bash
# Sweeps that make fresh data for every point (lbench sweep --prepare-each,
# --precondition-each): fileio on real files in /tmp over total sizes and
# over fill levels of a simulated filesystem (LBENCH_FILEIO_SPACE), each
# point's recorded size checked against the files on disk when its run
# started; OLTP over table sizes and TPC-C over warehouse counts against a
# private MariaDB (its own sandbox on port 3395), then OLTP against a
# private PostgreSQL on the same port, the recorded rows, warehouses and
# bytes checked against the server; cleanup with the options that made the
# data; the last point's data left in place; a prepare that fails or is
# interrupted by SIGINT stops the sweep and keeps the points before it; the
# flags refused where the scenario has no such command, in one line each.
# No timing assertions.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR_SWEEP_DATA:-/tmp/lbench-test-sweep-data} \
  LB_SANDBOX_PORT=${LB_SANDBOX_PORT_SWEEP_DATA:-3395}
sandbox_lock sweep_data
sandbox_start sweep_data
SQL() { mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest -N -B sbtest -e "$1" 2>&1; }
eq() { [ "$2" = "$3" ] && pass "$1" || fail "$1" "got '$2', want '$3'"; }
ok_run() { [ "$rc" -eq 0 ] && pass "$1" || fail "$1" "exit $rc: $(head -c 400 "$T/$1.err")"; }
MIB=1048576
# The sum of the sizes of the test files in directory $1.
on_disk() { stat -c %s "$1"/test_file.* 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'; }

# ---- fileio over total sizes: each point's size is what was on disk -------
rm -f "$T/seen"
run fileio_sizes $LB sweep --prepare-each --option file-total-size=8M,16M,32M --events=200 --time=0 \
  test/e2e/scripts/fileio_seen.lua --target-dir="$T/set" --seen="$T/seen" --file-num=4 --file-test-mode=rndrd \
  --result-file="$T/sizes.json"
ok_run fileio_sizes
eq fileio_sizes_seen_on_disk "$(paste -sd, "$T/seen")" "$((8 * MIB)),$((16 * MIB)),$((32 * MIB))"
seen=$(paste -sd, "$T/seen")
json_assert fileio_sizes_recorded "$T/sizes.json" "(function() local seen = { $seen }
  for i = 1, 3 do
    local d = r.points[i].sweep_data
    if d.loaded.bytes ~= seen[i] or r.summary[i].loaded.bytes ~= seen[i] or d.loaded.files ~= 4 then return false end
    if r.points[i].fileio.total_size ~= seen[i] or not (d.cleanup_s >= 0 and d.prepare_s >= 0) then return false end
  end
  return r.sweep.prepare_each == true and r.sweep.precondition_each == false and #r.points == 3 end)()"
check fileio_sizes_loaded_column grep -Eq '^ +32M +32 MiB \(' "$T/fileio_sizes.out"
check fileio_sizes_steps_shown grep -Eq 'cleanup, prepare before each point' "$T/fileio_sizes.out"
# The last point's data is left in place, and the sweep says so.
eq fileio_sizes_last_left "$(on_disk "$T/set")" "$((32 * MIB))"
check fileio_sizes_last_left_said grep -Eq '^The data of the last point prepared \(file-total-size=32M\) is left in place' \
  "$T/fileio_sizes.out"

# ---- fileio over fill levels, preconditioned, as a JSON document ---------
# A 64 MiB filesystem as prepare sees it; the files are real.
export LBENCH_FILEIO_SPACE=$((64 * MIB)):$((60 * MIB))
rm -f "$T/seen"
run fileio_fill $LB sweep --prepare-each --precondition-each --option fill=25%,50%,75% --events=200 --time=0 \
  test/e2e/scripts/fileio_seen.lua --target-dir="$T/fill" --seen="$T/seen" --file-num=4 --file-test-mode=rndwr \
  --precondition=seq128k:1x --output=json --result-file="$T/fill.json"
ok_run fileio_fill
eq fileio_fill_seen_on_disk "$(paste -sd, "$T/seen")" "$((16 * MIB)),$((32 * MIB)),$((48 * MIB))"
# stdout is the document alone: the steps' own lines went to stderr.
json_assert fileio_fill_stdout_is_the_document "$T/fileio_fill.out" '#r.points == 3 and r.tool == "sweep"'
check fileio_fill_steps_on_stderr grep -q 'Workload-independent preconditioning' "$T/fileio_fill.err"
json_assert fileio_fill_recorded "$T/fill.json" '(function()
  for i, pct in ipairs({ 25, 50, 75 }) do
    local l = r.points[i].sweep_data.loaded
    if l.fill_pct ~= pct or l.bytes ~= pct * 64 * 1048576 / 100 or l.filesystem_bytes ~= 64 * 1048576 then return false end
    if not (r.points[i].sweep_data.precondition_s >= 0) or r.points[i].sweep_point.fill ~= pct .. "%" then return false end
  end
  return r.sweep.precondition_each == true end)()'
# The sweep-fill chart: throughput against the fill level as numbers.
json_assert fileio_fill_chart "$T/fill.json" '(function()
  for _, ch in ipairs(require("lbench.report.plotdata").charts({ r }, { "fill" })) do
    if ch.name == "sweep-fill" then
      local p = ch.series[1].points
      return ch.xlabel == "fill (%)" and not ch.categories and #p == 3 and p[1][1] == 25 and p[2][1] == 50
        and p[3][1] == 75 and p[3][2] > 0
    end
  end
  return false end)()'
# --precondition-each alone: the same set preconditioned again before each
# point; only the sweep goes into the history, not its steps.
run fileio_pc_prepare $LB fileio --target-dir="$T/pc" --file-num=2 --file-total-size=8M prepare
run fileio_precondition_only $LB sweep --precondition-each --option file-test-mode=rndwr,rndrw --events=100 --time=0 \
  fileio --target-dir="$T/pc" --file-num=2 --precondition=seq128k:1x --history="$T/h.db" --result-file="$T/pc.json"
ok_run fileio_precondition_only
json_assert fileio_precondition_only_steps "$T/pc.json" 'r.points[1].sweep_data.precondition_s >= 0
  and r.points[2].sweep_data.precondition_s >= 0 and r.points[2].sweep_data.prepare_s == nil
  and r.points[2].sweep_data.loaded.bytes == 8 * 1048576 and r.sweep.prepare_each == false'
json_assert fileio_precondition_only_manifest "$T/pc/lbench-fileio.manifest" 'r.preconditioned.spec == "seq128k:1x"'
run fileio_precondition_only_history $LB history list --history="$T/h.db"
eq fileio_precondition_only_history_one "$(grep -c ' fileio ' "$T/fileio_precondition_only_history.out")" 1

# The HTML report: what each point ran on in its sweep table, the chart.
run fileio_fill_report $LB report "$T/fill.json" --out="$T/fill.html"
ok_run fileio_fill_report
check fileio_fill_report_loaded grep -q '<td>48 MiB (75 %)</td>' "$T/fill.html"
check fileio_fill_report_chart grep -q 'id="chart-sweep-fill"' "$T/fill.html"

# A fill level that cannot be is refused before any point; one that does
# not fit stops the sweep at its prepare, the points before it kept.
one_line fileio_fill_bad_value '^lbench: --fill=150%: expected a percentage' \
  $LB sweep --prepare-each --option fill=50%,150% --events=10 --time=0 fileio --target-dir="$T/bad" --file-num=2
export LBENCH_FILEIO_SPACE=$((64 * MIB)):$((40 * MIB))
ALLOW_STDOUT=1 one_line fileio_fill_prepare_fails \
  '^lbench: point 2 \(fill=90%\): the prepare failed: .*only 40 MiB is free.*refusing to fill it' \
  $LB sweep --prepare-each --option fill=50%,90% --events=10 --time=0 fileio --target-dir="$T/short" --file-num=2 \
  --file-test-mode=rndrd --result-file="$T/short.json"
json_assert fileio_fill_prepare_fails_kept "$T/short.json" \
  '#r.points == 1 and r.status == "error" and r.points[1].sweep_data.loaded.fill_pct == 50 and r.error:find("point 2")'
unset LBENCH_FILEIO_SPACE

# ---- the steps' order and options, a failure, SIGINT in a prepare --------
S=test/e2e/scripts/data_steps.lua
rm -f "$T/log"
run steps_order $LB sweep --prepare-each --prepare-threads=3 --option size=1,2 --threads=1,2 --events=10 --time=0 \
  $S --log="$T/log"
ok_run steps_order
# Cleanup with the options that made the data there (the previous point's),
# prepare with the point's, both with --prepare-threads.
eq steps_order_log "$(paste -sd, "$T/log")" "cleanup 1 threads=3,prepare 1 threads=3,cleanup 1 threads=3,prepare 1 threads=3,cleanup 1 threads=3,prepare 2 threads=3,cleanup 2 threads=3,prepare 2 threads=3"
check steps_order_loaded_column grep -Eq '^ +2 +2 +2 rows ' "$T/steps_order.out"

rm -f "$T/log"
ALLOW_STDOUT=1 one_line steps_prepare_fails '^lbench: point 2 \(size=2\): the prepare failed: failing on purpose at size 2$' \
  $LB sweep --prepare-each --option size=1,2,3 --events=10 --time=0 $S --fail-at=2 --log="$T/log" \
  --result-file="$T/fails.json"
json_assert steps_prepare_fails_kept "$T/fails.json" '#r.points == 1 and r.status == "error" and r.points[1].sweep_data.loaded.rows == 1'
eq steps_prepare_fails_stopped "$(tail -1 "$T/log")" "prepare 2 threads=1"

rm -f "$T/log"
$LB sweep --prepare-each --option size=1,2,3 --events=10 --time=0 $S --wait-at=2 --log="$T/log" \
  --result-file="$T/sigint.json" >"$T/sigint.out" 2>"$T/sigint.err" &
pid=$!
for _ in $(seq 1 300); do grep -q 'prepare: waiting for a signal' "$T/sigint.out" && break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
rc=$?
eq sigint_prepare_exit "$rc" 130
check sigint_prepare_line grep -Eq '^lbench: sweep interrupted by a signal after 1 of 3 point\(s\) \(in point 2 \(size=2\): the prepare was interrupted\)' "$T/sigint.err"
json_assert sigint_prepare_kept "$T/sigint.json" '#r.points == 1 and r.status == "interrupted" and r.stop_reason == "signal"
  and r.points[1].sweep_data.loaded.rows == 1 and r.error:find("point 2")'
eq sigint_prepare_no_more_points "$(tail -1 "$T/log")" "prepare 2 threads=1"
check sigint_prepare_incomplete_said grep -q 'prepared (size=2, incomplete) is left in place' "$T/sigint.out"

# ---- refused in one line ----------------------------------------------------
one_line no_prepare_refused '^lbench: --prepare-each: empty has no prepare command' \
  $LB sweep --prepare-each --threads=1,2 --time=0.1 test/cli/scripts/empty.lua
one_line no_precondition_refused '^lbench: --precondition-each: data_steps has no precondition command' \
  $LB sweep --prepare-each --precondition-each --option size=1,2 --time=0.1 $S --log="$T/log"
one_line oltp_no_precondition_refused '^lbench: --precondition-each: oltp_read_only has no precondition command' \
  $LB sweep --precondition-each --option table-size=10,20 --time=0.1 oltp_read_only $M
one_line prepare_threads_alone_refused '^lbench: --prepare-threads needs --prepare-each' \
  $LB sweep --prepare-threads=2 --option size=1,2 --time=0.1 $S --log="$T/log"
one_line prepare_each_bad_value '^lbench: --prepare-each=maybe: expected on or off' \
  $LB sweep --prepare-each=maybe --option size=1,2 --time=0.1 $S --log="$T/log"

# ---- OLTP over table sizes --------------------------------------------------
run pre_cleanup $LB oltp_read_only $M --tables=3 cleanup
run oltp_sizes $LB sweep --prepare-each --option table-size=1000,5000 --events=100 --time=0 oltp_read_only $M \
  --tables=2 --result-file="$T/oltp.json"
ok_run oltp_sizes
json_assert oltp_sizes_rows "$T/oltp.json" 'r.points[1].sweep_data.loaded.rows == 2000 and r.points[2].sweep_data.loaded.rows == 10000
  and r.summary[2].loaded.rows == 10000 and r.points[2].sweep_data.loaded.tables == 2
  and r.points[1].sweep_data.loaded.bytes > 0 and r.points[2].sweep_data.loaded.bytes > r.points[1].sweep_data.loaded.bytes'
# The last point's tables are left: their rows and bytes are the recorded ones.
rows=$(SQL "SELECT (SELECT COUNT(*) FROM sbtest1) + (SELECT COUNT(*) FROM sbtest2)")
json_assert oltp_sizes_rows_on_server "$T/oltp.json" "r.points[2].sweep_data.loaded.rows == ${rows:-0}"
bytes=$(SQL "SELECT SUM(data_length + index_length) FROM information_schema.tables WHERE table_schema = 'sbtest' AND table_name IN ('sbtest1', 'sbtest2')")
json_assert oltp_sizes_bytes_on_server "$T/oltp.json" "r.points[2].sweep_data.loaded.bytes == ${bytes:-0}"
check oltp_sizes_loaded_column grep -Eq '^ +5000 +10000 rows, [0-9.]+ [KM]iB ' "$T/oltp_sizes.out"
# From 3 tables to 1: the second point's cleanup drops the 3 the first made.
# As a JSON document on stdout: the steps' lines, the workers' included
# (two threads load and index), go to stderr.
run oltp_tables $LB sweep --prepare-each --option tables=3,1 --events=50 --time=0 oltp_read_only $M --table-size=100 \
  --threads=2 --output=json
ok_run oltp_tables
json_assert oltp_tables_stdout_is_the_document "$T/oltp_tables.out" '#r.points == 2 and r.points[2].sweep_data.loaded.rows == 100'
check oltp_tables_worker_lines_on_stderr grep -q "Creating a secondary index on 'sbtest3'" "$T/oltp_tables.err"
eq oltp_tables_cleanup_with_made_options "$(SQL "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'sbtest' AND table_name LIKE 'sbtest%'")/$(SQL "SELECT COUNT(*) FROM sbtest1")" "1/100"
run oltp_cleanup $LB oltp_read_only $M --tables=1 cleanup

# ---- TPC-C over warehouse counts -------------------------------------------
run pre_cleanup_tpcc $LB tpcc $M cleanup
run tpcc_warehouses $LB sweep --prepare-each --option warehouses=1,2 --time=1 tpcc $M --threads=2 \
  --result-file="$T/tpcc.json"
ok_run tpcc_warehouses
json_assert tpcc_warehouses_recorded "$T/tpcc.json" '(function()
  for w = 1, 2 do
    local p = r.points[w]
    if p.sweep_data.loaded.warehouses ~= w or r.summary[w].loaded.warehouses ~= w then return false end
    if not (p.tpcc.tpmC > 0) or not (p.sweep_data.loaded.bytes > 0) or p.options.warehouses ~= w then return false end
  end
  return r.points[2].sweep_data.loaded.bytes > r.points[1].sweep_data.loaded.bytes end)()'
eq tpcc_warehouses_on_server "$(SQL "SELECT COUNT(*) FROM warehouse")" 2
check tpcc_warehouses_loaded_column grep -Eq '^ +2 +2 wh, [0-9.]+ MiB ' "$T/tpcc_warehouses.out"
run tpcc_cleanup $LB tpcc $M cleanup

# ---- PostgreSQL: the bytes are pg_total_relation_size ------------------------
# The same port, once MariaDB is stopped (pg_sandbox_start's exit trap then
# stops PostgreSQL and removes $T).
contrib/mariadb-sandbox.sh stop >/dev/null 2>&1
export LB_PG_SANDBOX_PORT=$LB_SANDBOX_PORT
pg_sandbox_start sweep_data
run pg_sizes $LB sweep --prepare-each --option table-size=1000,5000 --events=50 --time=0 oltp_read_only $P --tables=2 \
  --result-file="$T/pg.json"
ok_run pg_sizes
bytes=$("${PSQL[@]}" -c "SELECT pg_total_relation_size('sbtest1') + pg_total_relation_size('sbtest2')")
rows=$("${PSQL[@]}" -c "SELECT (SELECT COUNT(*) FROM sbtest1) + (SELECT COUNT(*) FROM sbtest2)")
json_assert pg_sizes_on_server "$T/pg.json" "r.points[2].sweep_data.loaded.bytes == ${bytes:-0} and r.points[2].sweep_data.loaded.rows == ${rows:-0}
  and r.points[1].sweep_data.loaded.rows == 2000 and r.points[1].sweep_data.loaded.bytes < r.points[2].sweep_data.loaded.bytes"

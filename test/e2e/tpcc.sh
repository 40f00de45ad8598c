#!/usr/bin/env bash
# TPC-C end to end against a private MariaDB (its own sandbox on port 3347):
# exact row counts after loading 2 warehouses, a resumed load, runs with the
# summary in text/JSON/CSV, the mix, the consistency check before and after
# runs and on a deliberately broken row, option errors, foreign keys.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR_TPCC:-/tmp/lbench-test-tpcc} LB_SANDBOX_PORT=${LB_SANDBOX_PORT_TPCC:-3347}
export LB_SANDBOX_BUFFER_POOL=512M
# One run of this suite at a time on the machine (they share the sandbox).
suite_lock tpcc_lock /tmp/lbench-test-tpcc.lock 500 "run of the TPC-C suite"
sandbox_start tpcc
SQL() { mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest sbtest -N -e "$1" 2>&1; }
W2="--warehouses=2"

$LB tpcc $M cleanup >/dev/null 2>&1

# ---- load ------------------------------------------------------------------
expect_ok tpcc_prepare 'Loaded in' $LB tpcc $M $W2 --threads=2 prepare
counts() {
  SQL "SELECT CONCAT_WS(' ', (SELECT COUNT(*) FROM warehouse), (SELECT COUNT(*) FROM district),
    (SELECT COUNT(*) FROM customer), (SELECT COUNT(*) FROM history), (SELECT COUNT(*) FROM orders),
    (SELECT COUNT(*) FROM new_orders), (SELECT COUNT(*) FROM item), (SELECT COUNT(*) FROM stock),
    (SELECT COUNT(*) FROM order_line) = (SELECT SUM(o_ol_cnt) FROM orders),
    (SELECT COUNT(*) FROM order_line) BETWEEN 5 * 60000 AND 15 * 60000)"
}
want="2 20 60000 60000 60000 18000 100000 200000 1 1"
got=$(counts)
[ "$got" = "$want" ] && pass tpcc_row_counts || fail tpcc_row_counts "got '$got', want '$want'"
got=$(SQL "SELECT CONCAT_WS(' ', (SELECT COUNT(DISTINCT c_last) FROM customer WHERE c_w_id = 1 AND c_d_id = 1 AND c_id <= 1000),
  (SELECT COUNT(*) FROM customer WHERE c_credit = 'BC') BETWEEN 5000 AND 7000,
  (SELECT COUNT(*) FROM item WHERE i_data LIKE '%ORIGINAL%') BETWEEN 9000 AND 11000,
  (SELECT COUNT(*) FROM stock WHERE s_data LIKE '%ORIGINAL%') BETWEEN 18000 AND 22000,
  (SELECT MIN(LENGTH(c_data)) >= 300 AND MAX(LENGTH(c_data)) <= 500 FROM customer),
  (SELECT COUNT(*) FROM orders WHERE o_carrier_id IS NULL), (SELECT MIN(d_next_o_id) FROM district),
  (SELECT COUNT(DISTINCT o_c_id) FROM orders WHERE o_w_id = 2 AND o_d_id = 7))")
[ "$got" = "1000 1 1 1 1 18000 3001 3000" ] && pass tpcc_data_rules || fail tpcc_data_rules "got '$got'"
json_ok=$(SQL "SELECT COUNT(*) FROM tpcc_loaded")
[ "$json_ok" = 34 ] && pass tpcc_load_markers || fail tpcc_load_markers "markers: $json_ok"

expect_ok tpcc_check_after_load 'Warehouse 2: PASSED \(conditions 1,2,3,4,5,6,7,8,9,10,11,12\)' \
  $LB tpcc $M $W2 --threads=2 check

# a rerun skips what is loaded; a half-loaded unit is deleted and reloaded
expect_ok tpcc_prepare_again 'already loaded' $LB tpcc $M $W2 --threads=2 prepare
SQL "DELETE FROM tpcc_loaded WHERE unit IN ('district:2:5', 'stock:1:3'); DELETE FROM order_line WHERE ol_w_id = 2 AND ol_d_id = 5 AND ol_o_id > 1500; DELETE FROM new_orders WHERE no_w_id = 2 AND no_d_id = 5; DELETE FROM stock WHERE s_w_id = 1 AND s_i_id BETWEEN 60000 AND 70000" >/dev/null
expect_ok tpcc_prepare_resume 'Resuming: 32 of 34' $LB tpcc $M $W2 --threads=2 prepare
grep -q 'district:2:5 was partly loaded' "$T/tpcc_prepare_resume.out" && pass tpcc_resume_cleans || fail tpcc_resume_cleans "$(head -5 "$T/tpcc_prepare_resume.out")"
got=$(counts)
[ "$got" = "$want" ] && pass tpcc_row_counts_after_resume || fail tpcc_row_counts_after_resume "got '$got'"
expect_ok tpcc_check_after_resume 'PASSED on all 2' $LB tpcc $M $W2 --threads=2 check

# ---- runs --------------------------------------------------------------------
expect_ok tpcc_run 'new-order transactions per minute \(NOTPM\)' \
  $LB tpcc $M $W2 --threads=4 --time=8 --warmup-time=1 --report-interval=1 --result-file="$T/run.json" run
grep -Eq '^\[ [0-9.]+s \].* tpmC: [0-9]+ \| NO [0-9]+ P [0-9]+ OS [0-9]+ D [0-9]+ SL [0-9]+ \| NO ms \(95%/99%/max\): ' "$T/tpcc_run.out" \
  && pass tpcc_interval_lines || fail tpcc_interval_lines "$(grep '^\[' "$T/tpcc_run.out" | head -2)"
for s in 'Response Time \(s\)' ' New Order ' 'minute duration' 'total unknown errors' 'second\(s\) ramping up' \
         '^tpmTotal:' '^efficiency:' 'Response time constraints .*: OK' 'Mix constraints .*: (OK|FAILED)'; do
  grep -Eq "$s" "$T/tpcc_run.out" || { fail tpcc_summary_text "missing /$s/"; s=; break; }
done
[ -n "$s" ] && pass tpcc_summary_text
json_assert tpcc_json "$T/run.json" 'r.status == "ok" and r.tpcc.tpmC > 0 and r.tpcc.tpm_total > r.tpcc.tpmC and r.tpcc.rampup_s > 0 and r.tpcc.efficiency_pct > 0 and r.tpcc.response_time_ok == true and type(r.tpcc.mix_ok) == "boolean" and r.tpcc.unknown_errors == 0 and r.tpcc.delivery_skipped_districts == 0'
json_assert tpcc_json_types "$T/run.json" 'r.types.new_order.events == r.tpcc.transactions.new_order.count and r.types.delivery.events > 0 and r.types.stock_level.events > 0 and r.tpcc.transactions.payment.p90_s > 0'
json_assert tpcc_json_tpmc "$T/run.json" 'math.abs(r.tpcc.tpmC - r.types.new_order.events * 60 / r.duration_s) < 1e-6'
json_assert tpcc_json_intervals "$T/run.json" '#r.intervals >= 6 and r.intervals[#r.intervals].types.new_order.events > 0 and r.intervals[#r.intervals].types.new_order.latency_ms.percentiles["99"] ~= nil'
# the mix: the deck gives 45/43/4/4/4 up to the partial decks at the window's ends (the default
# weights sit exactly on the spec's minimums, so a run this short may round to 42.9 % and report FAILED)
json_assert tpcc_mix "$T/run.json" '(function() local t = r.tpcc.transactions; return math.abs(t.new_order.share_pct - 45) < 1 and math.abs(t.payment.share_pct - 43) < 1 and math.abs(t.order_status.share_pct - 4) < 0.5 and math.abs(t.delivery.share_pct - 4) < 0.5 and math.abs(t.stock_level.share_pct - 4) < 0.5 end)()'
# New-Order rolls back about 1 % (on an unused item), counted as rollbacks, not errors
json_assert tpcc_rollbacks "$T/run.json" 'r.types.new_order.rollbacks > 0 and r.types.new_order.rollbacks < 0.03 * r.types.new_order.events and r.totals.errors == r.totals.ignored_errors'

expect_ok tpcc_run_random 'NOTPM' $LB tpcc $M $W2 --threads=3 --time=3 --terminal-mode=random run
expect_ok tpcc_run_csv '^tpcc_tpmC,[0-9.e+]+$' $LB tpcc $M $W2 --threads=2 --time=2 --report-interval=1 --output=csv run
grep -q '^time_s,.*,new_order_per_sec,payment_per_sec,order_status_per_sec,delivery_per_sec,stock_level_per_sec$' "$T/tpcc_run_csv.out" \
  && pass tpcc_csv_interval_types || fail tpcc_csv_interval_types "$(head -2 "$T/tpcc_run_csv.out")"
expect_ok tpcc_run_weights 'Payment +100.00 ' $LB tpcc $M $W2 --threads=2 --time=2 --weights=0,1,0,0,0 run
expect_ok tpcc_think_time 'NOTPM' $LB tpcc $M --warehouses=1 --threads=10 --time=2 --think-time=spec run
# async mode: the terminals are virtual users (one connection each) on 2 threads
expect_ok tpcc_async 'Connections fairness \(8 connections\)' $LB tpcc $M $W2 --threads=2 --connections=8 --time=3 --result-file="$T/async.json" run
json_assert tpcc_async_json "$T/async.json" 'r.tpcc.tpmC > 0 and r.tpcc.connections == 8 and r.tpcc.threads == 2 and r.types.new_order.events > 0'
expect_ok tpcc_async_think_time 'NOTPM' $LB tpcc $M $W2 --threads=2 --connections=20 --time=4 --think-time=spec \
  --result-file="$T/async_think.json" run
# The measured period is --time even when every terminal is thinking at
# the end (it was the last completed transaction's time: tpmC 26 % high).
json_assert tpcc_async_think_duration "$T/async_think.json" 'r.duration_s >= 3.999 and r.duration_s < 4.05 and math.abs(r.tpcc.tpmC - (r.types and r.types.new_order and r.types.new_order.events or 0) / (r.duration_s / 60)) < 1e-6 * (r.tpcc.tpmC + 1)'

expect_ok tpcc_check_after_run 'Warehouse 1: PASSED \(conditions 1,2,3,4,5,6,7,8,9,10,12\)' \
  $LB tpcc $M $W2 --threads=2 check

# a broken row: a district's YTD no longer matches (conditions 1 and 9)
SQL "UPDATE district SET d_ytd = d_ytd + 1 WHERE d_w_id = 2 AND d_id = 4" >/dev/null
expect_fail tpcc_check_broken 'consistency check FAILED' $LB tpcc $M $W2 --threads=2 check
grep -q '3.3.2.1 W_YTD = sum(D_YTD): FAILED' "$T/tpcc_check_broken.out" && grep -q '3.3.2.9 .*district 4' "$T/tpcc_check_broken.out" \
  && grep -q 'Warehouse 1: PASSED' "$T/tpcc_check_broken.out" && pass tpcc_check_broken_details \
  || fail tpcc_check_broken_details "$(head -c 600 "$T/tpcc_check_broken.out")"
SQL "UPDATE district SET d_ytd = d_ytd - 1 WHERE d_w_id = 2 AND d_id = 4" >/dev/null
SQL "UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 10" >/dev/null
expect_fail tpcc_check_broken_order '' $LB tpcc $M $W2 --threads=1 check
grep -q '3.3.2.4 ' "$T/tpcc_check_broken_order.out" && grep -q '3.3.2.6 ' "$T/tpcc_check_broken_order.out" \
  && pass tpcc_check_broken_order_details || fail tpcc_check_broken_order_details "$(head -c 600 "$T/tpcc_check_broken_order.out")"
SQL "UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 10" >/dev/null
expect_ok tpcc_check_repaired 'PASSED on all 2' $LB tpcc $M $W2 --threads=2 check

# ---- bad options ---------------------------------------------------------------
expect_fail tpcc_bad_weights '--weights=1,2: expected 5' $LB tpcc $M $W2 --weights=1,2 --time=1 run
expect_fail tpcc_bad_mode '--terminal-mode=foo' $LB tpcc $M $W2 --terminal-mode=foo --time=1 run
expect_fail tpcc_think_needs_threads 'it needs 20 connections for 2 warehouse' $LB tpcc $M $W2 --threads=4 --think-time=spec --time=1 run
expect_fail tpcc_too_many_warehouses 'holds 2 warehouse' $LB tpcc $M --warehouses=3 --time=1 run

# ---- foreign keys, cleanup, table options --------------------------------------
expect_ok tpcc_use_fk 'Adding foreign key fk_stock_item' $LB tpcc $M $W2 --use-fk prepare
n=$(SQL "SELECT COUNT(*) FROM information_schema.TABLE_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'sbtest' AND CONSTRAINT_TYPE = 'FOREIGN KEY'")
[ "$n" = 10 ] && pass tpcc_fk_count || fail tpcc_fk_count "foreign keys: $n"
expect_ok tpcc_run_fk 'NOTPM' $LB tpcc $M $W2 --threads=2 --time=2 run
expect_ok tpcc_cleanup "Dropping table 'stock'" $LB tpcc $M cleanup
[ "$(SQL "SHOW TABLES")" = "" ] && pass tpcc_cleanup_tables || fail tpcc_cleanup_tables "left: $(SQL 'SHOW TABLES')"
expect_fail tpcc_run_unloaded 'no TPC-C database found' $LB tpcc $M --time=1 run
# an interrupted load says so (exit 1) and the next prepare completes it
$LB tpcc $M --warehouses=1 --threads=2 --create-table-options="ROW_FORMAT=COMPACT" prepare >"$T/int.out" 2>"$T/int.err" &
pid=$!; sleep 1; kill -INT $pid 2>/dev/null; wait $pid; rc=$?
if [ $rc -eq 0 ] || grep -q 'prepare stopped with [0-9]* of 19 load units done: run it again' "$T/int.err"; then
  pass tpcc_prepare_interrupted; else fail tpcc_prepare_interrupted "rc=$rc: $(head -c 300 "$T/int.err")"; fi
expect_ok tpcc_prepare_options 'Loaded in|already loaded' $LB tpcc $M --warehouses=1 --threads=2 --create-table-options="ROW_FORMAT=COMPACT" prepare
got=$(SQL "SELECT CONCAT_WS(' ', (SELECT COUNT(*) FROM warehouse), (SELECT COUNT(*) FROM district), (SELECT COUNT(*) FROM customer),
  (SELECT COUNT(*) FROM history), (SELECT COUNT(*) FROM orders), (SELECT COUNT(*) FROM new_orders), (SELECT COUNT(*) FROM item),
  (SELECT COUNT(*) FROM stock), (SELECT COUNT(*) FROM order_line) = (SELECT SUM(o_ol_cnt) FROM orders), (SELECT COUNT(*) FROM tpcc_loaded))")
[ "$got" = "1 10 30000 30000 30000 9000 100000 100000 1 19" ] && pass tpcc_row_counts_1w || fail tpcc_row_counts_1w "got '$got'"
expect_ok tpcc_check_1w 'PASSED on all 1' $LB tpcc $M --warehouses=1 --threads=2 check
[ "$(SQL "SELECT ROW_FORMAT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sbtest' AND TABLE_NAME = 'stock'")" = Compact ] \
  && pass tpcc_table_options || fail tpcc_table_options "$(SQL "SHOW TABLE STATUS LIKE 'stock'")"
$LB tpcc $M cleanup >/dev/null 2>&1

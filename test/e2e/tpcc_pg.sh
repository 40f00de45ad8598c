#!/usr/bin/env bash
# TPC-C end to end on PostgreSQL (--db-driver=pgsql) against a private
# server (contrib/postgres-sandbox.sh, port 5445): row counts of one loaded
# warehouse against the spec's cardinalities, runs at the default isolation
# (RC) and under SERIALIZABLE with its serialization failures retried, money
# with its cents (no integer division), the consistency check after each,
# a damaged and an interrupted load resumed, foreign keys, cleanup.
# shellcheck disable=SC2015  # `cond && pass || fail`: pass and fail always succeed
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
pg_env_clean
export LB_PG_SANDBOX_PORT=${LB_PG_SANDBOX_PORT_TPCC:-5445}
# One run of this suite at a time on the machine (they share the port).
suite_lock tpcc_pg_lock /tmp/lbench-test-tpcc-pg.lock 500 "run of the suite"
pg_sandbox_start tpcc
SQL() { "${PSQL[@]}" -c "$1" 2>&1; }
W1="--warehouses=1"

$LB tpcc $P cleanup >/dev/null 2>&1

# ---- load ------------------------------------------------------------------
# The spec's cardinalities for one warehouse (4.3.3.1): 10 districts, 30,000
# customers, history rows and orders, 9,000 new orders, 100,000 items and
# stock rows, 5-15 lines per order; one marker per load unit (19).
counts() {
  SQL "SELECT concat_ws(' ', (SELECT COUNT(*) FROM warehouse), (SELECT COUNT(*) FROM district),
    (SELECT COUNT(*) FROM customer), (SELECT COUNT(*) FROM history), (SELECT COUNT(*) FROM orders),
    (SELECT COUNT(*) FROM new_orders), (SELECT COUNT(*) FROM item), (SELECT COUNT(*) FROM stock),
    (SELECT COUNT(*) FROM order_line) = (SELECT SUM(o_ol_cnt) FROM orders),
    (SELECT COUNT(*) FROM order_line) BETWEEN 5 * 30000 AND 15 * 30000, (SELECT COUNT(*) FROM tpcc_loaded))"
}
want="1 10 30000 30000 30000 9000 100000 100000 t t 19"
expect_ok tpcc_pg_prepare 'Analyzing the tables' $LB tpcc $P $W1 --threads=2 prepare
got=$(counts)
[ "$got" = "$want" ] && pass tpcc_pg_row_counts || fail tpcc_pg_row_counts "got '$got', want '$want'"
got=$(SQL "SELECT concat_ws(' ', (SELECT COUNT(DISTINCT c_last) FROM customer WHERE c_d_id = 1 AND c_id <= 1000),
  (SELECT COUNT(*) FROM customer WHERE c_credit = 'BC') BETWEEN 2500 AND 3500,
  (SELECT COUNT(*) FROM item WHERE i_data LIKE '%ORIGINAL%') BETWEEN 9000 AND 11000,
  (SELECT COUNT(*) FROM orders WHERE o_carrier_id IS NULL), (SELECT MIN(d_next_o_id) FROM district),
  (SELECT COUNT(*) FROM pg_indexes WHERE indexname IN ('idx_customer_name', 'idx_orders_customer')),
  (SELECT COUNT(*) FROM pg_stat_user_tables WHERE relname = 'stock' AND last_analyze IS NOT NULL))")
[ "$got" = "1000 t t 9000 3001 2 1" ] && pass tpcc_pg_data_rules || fail tpcc_pg_data_rules "got '$got'"
expect_ok tpcc_pg_check_after_load 'Warehouse 1: PASSED \(conditions 1,2,3,4,5,6,7,8,9,10,11,12\)' \
  $LB tpcc $P $W1 --threads=2 check

# a rerun skips what is loaded; units whose markers are gone are cleaned and reloaded
expect_ok tpcc_pg_prepare_again 'already loaded' $LB tpcc $P $W1 --threads=2 prepare
SQL "DELETE FROM tpcc_loaded WHERE unit IN ('district:1:5', 'stock:1:3'); DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 5 AND ol_o_id > 1500; DELETE FROM new_orders WHERE no_d_id = 5; DELETE FROM stock WHERE s_i_id BETWEEN 60000 AND 70000" >/dev/null
expect_ok tpcc_pg_prepare_resume 'Resuming: 17 of 19' $LB tpcc $P $W1 --threads=2 prepare
grep -q 'district:1:5 was partly loaded' "$T/tpcc_pg_prepare_resume.out" && pass tpcc_pg_resume_cleans \
  || fail tpcc_pg_resume_cleans "$(head -5 "$T/tpcc_pg_prepare_resume.out")"
got=$(counts)
[ "$got" = "$want" ] && pass tpcc_pg_row_counts_after_resume || fail tpcc_pg_row_counts_after_resume "got '$got'"

# ---- runs --------------------------------------------------------------------
expect_ok tpcc_pg_run 'isolation RC' $LB tpcc $P $W1 --threads=2 --time=5 --report-interval=1 --result-file="$T/run.json" run
json_assert tpcc_pg_run_json "$T/run.json" 'r.status == "ok" and r.options.db_driver == "pgsql" and r.tpcc.tpmC > 0 and r.tpcc.trx_level == "RC" and r.tpcc.unknown_errors == 0 and r.totals.errors == r.totals.ignored_errors'
# TPC-C retries deadlocks and serialization failures only (no 23505).
json_assert tpcc_pg_default_retry_list "$T/run.json" 'table.concat(r.options.db_ignore_errors, ",") == "40P01,40001"'
json_assert tpcc_pg_run_types "$T/run.json" 'r.types.new_order.events > 0 and r.types.payment.events > 0 and r.types.order_status.events > 0 and r.types.delivery.events > 0 and r.types.stock_level.events > 0 and r.types.new_order.rollbacks > 0'
grep -Eq '^\[ [0-9.]+s \].* tpmC: [0-9]+ \| NO [0-9]+ P [0-9]+ OS [0-9]+ D [0-9]+ SL [0-9]+ \| NO ms' "$T/tpcc_pg_run.out" \
  && pass tpcc_pg_interval_lines || fail tpcc_pg_interval_lines "$(grep '^\[' "$T/tpcc_pg_run.out" | head -2)"
# money keeps its cents (PostgreSQL's integer / integer truncates; the check
# cannot see a truncation applied everywhere alike)
got=$(SQL "SELECT concat_ws(' ', (SELECT COUNT(*) FROM history WHERE h_amount <> 10.00 AND h_amount <> TRUNC(h_amount)) > 0,
  (SELECT COUNT(*) FROM order_line WHERE ol_o_id > 3000 AND ol_amount <> TRUNC(ol_amount)) > 0,
  (SELECT w_ytd FROM warehouse) = (SELECT SUM(h_amount) FROM history))")
[ "$got" = "t t t" ] && pass tpcc_pg_money_cents || fail tpcc_pg_money_cents "got '$got'"
expect_ok tpcc_pg_check_after_run 'Warehouse 1: PASSED \(conditions 1,2,3,4,5,6,7,8,9,10,12\)' \
  $LB tpcc $P $W1 --threads=2 check

# SERIALIZABLE: serialization failures (40001) and deadlocks are retried after a
# ROLLBACK and counted by SQLSTATE; none is required to occur
expect_ok tpcc_pg_run_ser 'isolation SER' $LB tpcc $P $W1 --threads=4 --trx-level=SER --time=5 --result-file="$T/ser.json" run
json_assert tpcc_pg_ser_json "$T/ser.json" 'r.status == "ok" and r.tpcc.trx_level == "SER" and r.options.trx_level == "SER" and r.tpcc.tpmC > 0 and r.tpcc.unknown_errors == 0 and r.totals.errors == r.totals.ignored_errors'
json_assert tpcc_pg_ser_retries "$T/ser.json" '(function() local c, t = r.totals.errors_by_code or {}, r.tpcc.transactions; local s = 0; for _, k in ipairs({ "new_order", "payment", "order_status", "delivery", "stock_level" }) do s = s + t[k].restarts end; return (c["40001"] or 0) + (c["40P01"] or 0) == r.totals.ignored_errors and s == r.tpcc.retried and r.tpcc.retried == r.totals.ignored_errors end)()'
expect_ok tpcc_pg_check_after_ser 'PASSED on all 1' $LB tpcc $P $W1 --threads=2 check
# the level is the session's, set on every connection
run tpcc_pg_ser_session $LB tpcc $P $W1 --threads=1 --trx-level=ser --time=0.5 --db-debug run
grep -q 'SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE' "$T/tpcc_pg_ser_session.out" "$T/tpcc_pg_ser_session.err" \
  && [ "$rc" -eq 0 ] && pass tpcc_pg_ser_session || fail tpcc_pg_ser_session "exit $rc: $(head -c 300 "$T/tpcc_pg_ser_session.err")"
one_line tpcc_pg_bad_trx_level '--trx-level=foo: expected RC, RR or SER' $LB tpcc $P $W1 --trx-level=foo --time=1 run

# ---- foreign keys: added after the load, dropped and added back around a later load
fks() { SQL "SELECT COUNT(*) FROM information_schema.table_constraints WHERE constraint_schema = 'public' AND constraint_type = 'FOREIGN KEY'"; }
expect_ok tpcc_pg_use_fk 'Adding foreign key fk_stock_item' $LB tpcc $P $W1 --use-fk prepare
[ "$(fks)" = 10 ] && pass tpcc_pg_fk_count || fail tpcc_pg_fk_count "foreign keys: $(fks)"
expect_ok tpcc_pg_run_fk 'NOTPM' $LB tpcc $P $W1 --threads=2 --time=2 run
expect_ok tpcc_pg_prepare_fk_w2 'Dropped the foreign keys' $LB tpcc $P --warehouses=2 --threads=2 prepare
[ "$(fks)" = 10 ] && [ "$(SQL "SELECT COUNT(*) FROM stock")" = 200000 ] && pass tpcc_pg_fk_restored \
  || fail tpcc_pg_fk_restored "foreign keys: $(fks), stock rows $(SQL "SELECT COUNT(*) FROM stock")"

# ---- cleanup, an interrupted load completed by the next prepare ----------------
tables() { SQL "SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = 'public'"; }
expect_ok tpcc_pg_cleanup "Dropping table 'stock'" $LB tpcc $P cleanup
[ -z "$(tables)" ] && pass tpcc_pg_cleanup_tables || fail tpcc_pg_cleanup_tables "left: $(tables)"
expect_fail tpcc_pg_run_unloaded 'no TPC-C database found' $LB tpcc $P --time=1 run
$LB tpcc $P $W1 --threads=2 prepare >"$T/int.out" 2>"$T/int.err" &
pid=$!; sleep 1; kill -INT $pid 2>/dev/null; wait $pid; irc=$?
if [ $irc -eq 0 ] || grep -q 'prepare stopped with [0-9]* of 19 load units done: run it again' "$T/int.err"; then
  pass tpcc_pg_prepare_interrupted; else fail tpcc_pg_prepare_interrupted "rc=$irc: $(head -c 300 "$T/int.err")"; fi
expect_ok tpcc_pg_prepare_completes 'Loaded in|already loaded' $LB tpcc $P $W1 --threads=2 prepare
if [ $irc -ne 0 ]; then
  grep -Eq 'Resuming: [0-9]+ of 19' "$T/tpcc_pg_prepare_completes.out" && pass tpcc_pg_prepare_resumed \
    || fail tpcc_pg_prepare_resumed "$(head -3 "$T/tpcc_pg_prepare_completes.out")"
fi
got=$(counts)
[ "$got" = "$want" ] && pass tpcc_pg_row_counts_after_interrupt || fail tpcc_pg_row_counts_after_interrupt "got '$got'"
expect_ok tpcc_pg_check_after_interrupt 'PASSED on all 1' $LB tpcc $P $W1 --threads=2 check
expect_ok tpcc_pg_cleanup_again "Dropping table 'stock'" $LB tpcc $P cleanup
[ -z "$(tables)" ] && pass tpcc_pg_cleanup_tables_again || fail tpcc_pg_cleanup_tables_again "left: $(tables)"

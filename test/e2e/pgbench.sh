#!/usr/bin/env bash
# The pgbench scenario end to end: on a private PostgreSQL (port 5444),
# prepare --scale=2 with the row counts, keys and fillers pgbench -i makes,
# a refused second prepare, each built-in script (per-script counts that
# add up to the events, pgbench_history growing by exactly the writing
# transactions), weights and prefixes, pgbench's report in text, JSON and
# CSV, async mode, check after the runs and on a broken balance, cleanup,
# and one-line errors; on a private MariaDB (port 3321), prepare --scale=1,
# a tpcb-like run, check and cleanup.
# shellcheck disable=SC2015  # `cond && pass || fail`: pass and fail always succeed
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
pg_env_clean
# One run of this suite at a time on the machine (fixed ports).
suite_lock pgbench_lock /tmp/lbench-test-pgbench.lock 500 "run of this suite"

# Ports: 5444 and 3321; set LB_PG_SANDBOX_PORT / LB_SANDBOX_PORT / LB_SANDBOX_DIR for other ones.
export LB_PG_SANDBOX_PORT=${LB_PG_SANDBOX_PORT:-5444}
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR:-/tmp/lbench-test-pgbench-mysql} LB_SANDBOX_PORT=${LB_SANDBOX_PORT:-3321}
pg_sandbox_start pgbench
sandbox_start pgbench_mysql
# Both servers are stopped at exit (each start replaced the other's trap).
trap 'contrib/mariadb-sandbox.sh stop >/dev/null 2>&1; contrib/postgres-sandbox.sh stop >/dev/null 2>&1 && rm -rf "$PGBASE"; rm -rf "$T"' EXIT

B="$LB pgbench $P"
q() { "${PSQL[@]}" -c "$1" 2>&1; }
count() { q "SELECT count(*) FROM $1"; }
pg_tables() { q "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'pgbench%'"; }

$B cleanup >/dev/null 2>&1

# ---- prepare: pgbench -i -s 2 ------------------------------------------------
expect_ok pg_prepare '^done in .*primary keys' $B --scale=2 --threads=2 prepare
got="$(count pgbench_branches) $(count pgbench_tellers) $(count pgbench_accounts) $(count pgbench_history)"
[ "$got" = "2 20 200000 0" ] && pass pg_prepare_rows || fail pg_prepare_rows "branches/tellers/accounts/history: $got"
got=$(q "SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE tablename LIKE 'pgbench%'")
[ "$got" = "pgbench_accounts_pkey,pgbench_branches_pkey,pgbench_tellers_pkey" ] && pass pg_prepare_keys || fail pg_prepare_keys "$got"
# pgbench 15's rows: the branch of each account and teller, zero balances,
# fillers NULL in branches and tellers, blank in accounts.
got=$(q "SELECT (SELECT count(*) FROM pgbench_accounts WHERE bid = (aid - 1) / 100000 + 1 AND abalance = 0 AND filler = '')
  || ' ' || (SELECT count(*) FROM pgbench_tellers WHERE bid = (tid - 1) / 10 + 1 AND tbalance = 0 AND filler IS NULL)
  || ' ' || (SELECT count(*) FROM pgbench_branches WHERE bbalance = 0 AND filler IS NULL)")
[ "$got" = "200000 20 2" ] && pass pg_prepare_data || fail pg_prepare_data "accounts/tellers/branches as pgbench makes them: $got"
got=$(q "SELECT string_agg(relname || '=' || array_to_string(reloptions, ','), ' ' ORDER BY relname) FROM pg_class WHERE relname LIKE 'pgbench%' AND relkind = 'r' AND reloptions IS NOT NULL")
[ "$got" = "pgbench_accounts=fillfactor=100 pgbench_branches=fillfactor=100 pgbench_tellers=fillfactor=100" ] && pass pg_prepare_fillfactor || fail pg_prepare_fillfactor "$got"
one_line pg_prepare_again "tables pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers already exist in database 'sbtest': run cleanup first" \
  $B --scale=2 prepare

# ---- each built-in script ------------------------------------------------------
for s in tpcb-like simple-update select-only; do
  h0=$(count pgbench_history)
  run "pg_run_$s" $B --builtin=$s --threads=2 --time=2 --result-file="$T/pg_$s.json" run
  [ "$rc" -eq 0 ] && pass "pg_run_$s" || fail "pg_run_$s" "exit $rc: $(head -3 "$T/pg_run_$s.err")"
  json_assert "pg_run_${s}_types" "$T/pg_$s.json" "r.status == 'ok' and r.totals.events > 0 and r.types['$s'].events == r.totals.events and r.pgbench.transactions == r.totals.events and r.pgbench.scripts[1].name == '$s' and r.pgbench.scripts[1].transactions == r.totals.events"
  grown=$(( $(count pgbench_history) - h0 ))
  [ "$s" = select-only ] && expr='r.totals.events > 0 and 0' || expr='r.totals.events'
  json_assert "pg_run_${s}_history" "$T/pg_$s.json" "$expr == $grown"
done
json_assert pg_tpcb_queries "$T/pg_tpcb-like.json" 'r.totals.queries.write == 4 * r.totals.events and r.totals.queries.other == 2 * r.totals.events and r.totals.ignored_errors == 0'
json_assert pg_report_fields "$T/pg_tpcb-like.json" 'r.pgbench.transaction_type == "<builtin: TPC-B (sort of)>" and r.pgbench.scaling_factor == 2 and r.pgbench.query_mode == "prepared" and r.pgbench.clients == 2 and r.pgbench.threads == 2 and r.pgbench.failed_transactions == 0 and r.pgbench.retries == 0 and r.pgbench.latency_avg_ms > 0 and r.pgbench.latency_stddev_ms >= 0 and r.pgbench.initial_connection_time_ms > 0 and math.abs(r.pgbench.tps - r.totals.events_per_sec) < 1e-6'
# pgbench's lines in the text report
grep -q '^transaction type: <builtin: TPC-B (sort of)>$' "$T/pg_run_tpcb-like.out" && grep -Eq '^tps = [0-9.]+ \(without initial connection time\)$' "$T/pg_run_tpcb-like.out" \
  && grep -Eq '^initial connection time = [0-9.]+ ms$' "$T/pg_run_tpcb-like.out" && grep -q '^starting vacuum...end.$' "$T/pg_run_tpcb-like.out" \
  && pass pg_report_text || fail pg_report_text "$(grep -A14 'pgbench summary' "$T/pg_run_tpcb-like.out" | head -c 400)"

# ---- weights, prefixes ----------------------------------------------------------
h0=$(count pgbench_history)
run pg_weights $B --builtin=select-only@9,simple-update@1 --threads=2 --time=2 --report-interval=1 --result-file="$T/pg_w.json" run
[ "$rc" -eq 0 ] && pass pg_weights || fail pg_weights "exit $rc: $(head -3 "$T/pg_weights.err")"
json_assert pg_weights_share "$T/pg_w.json" 'r.totals.events > 2000 and r.types["select-only"].events + r.types["simple-update"].events == r.totals.events and r.types["simple-update"].share_pct >= 3 and r.types["simple-update"].share_pct <= 25 and r.pgbench.transaction_type == "multiple scripts" and r.pgbench.scripts[2].target_pct == 10'
json_assert pg_weights_history "$T/pg_w.json" "r.types['simple-update'].events == $(( $(count pgbench_history) - h0 ))"
json_assert pg_weights_intervals "$T/pg_w.json" '#r.intervals >= 2 and r.intervals[1].types["select-only"].events > 0'
grep -q '^SQL script 2: <builtin: simple update>$' "$T/pg_weights.out" && grep -q '^ - weight: 9 (targets 90.0% of total)$' "$T/pg_weights.out" \
  && grep -Eq '\| select-only [0-9]+ simple-update [0-9]+$' "$T/pg_weights.out" && pass pg_weights_text || fail pg_weights_text "$(grep -A5 'SQL script' "$T/pg_weights.out" | head -c 400)"
run pg_prefix $B --builtin=tpcb@2,se,simple@0 --events=300 --result-file="$T/pg_prefix.json" run
json_assert pg_prefix "$T/pg_prefix.json" 'r.status == "ok" and r.pgbench.scripts[1].name == "tpcb-like" and r.pgbench.scripts[1].weight == 2 and r.pgbench.scripts[2].name == "select-only" and r.pgbench.scripts[3].name == "simple-update" and r.pgbench.scripts[3].transactions == 0 and r.types["simple-update"] == nil and r.totals.events == 300'

# ---- modes and formats -------------------------------------------------------------
run pg_async $B --threads=2 --connections=16 --time=1 --result-file="$T/pg_async.json" run
json_assert pg_async "$T/pg_async.json" 'r.status == "ok" and r.totals.events > 16 and r.pgbench.clients == 16 and r.pgbench.threads == 2'
run pg_simple $B --builtin=select --db-ps-mode=disable --time=1 --result-file="$T/pg_simple.json" run
json_assert pg_simple_mode "$T/pg_simple.json" 'r.status == "ok" and r.pgbench.query_mode == "simple" and r.totals.events > 0'
expect_ok pg_csv '^pgbench_tps,[0-9.e+]+$' $B --time=1 --output=csv run
run pg_scale_notice $B --scale=7 --events=10 run
[ "$rc" -eq 0 ] && grep -q '^note: scale option ignored, using count from pgbench_branches table (2)$' "$T/pg_scale_notice.err" \
  && pass pg_scale_notice || fail pg_scale_notice "exit $rc: $(head -3 "$T/pg_scale_notice.err")"
run pg_scale_same $B --scale=2 --events=10 run
[ "$rc" -eq 0 ] && [ ! -s "$T/pg_scale_same.err" ] && pass pg_scale_same || fail pg_scale_same "exit $rc: $(head -3 "$T/pg_scale_same.err")"

# ---- check ---------------------------------------------------------------------------
expect_ok pg_check '^pgbench check PASSED\.$' $B check
grep -q '^  OK     sum(abalance) of pgbench_accounts = sum(delta) of pgbench_history' "$T/pg_check.out" && pass pg_check_lines || fail pg_check_lines "$(head -c 400 "$T/pg_check.out")"
q "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 7" >/dev/null
ALLOW_STDOUT=1 one_line pg_check_broken 'pgbench check FAILED' $B check
grep -q '^  FAILED sum(abalance) of pgbench_accounts = sum(delta)' "$T/pg_check_broken.out" && pass pg_check_broken_names || fail pg_check_broken_names "$(head -c 400 "$T/pg_check_broken.out")"
q "UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid = 7" >/dev/null
expect_ok pg_check_repaired '^pgbench check PASSED\.$' $B check

# ---- mistakes: one line each -----------------------------------------------------------
one_line pg_bad_builtin '^lbench: --builtin=foo: no builtin script found for name "foo" \(available: tpcb-like, simple-update, select-only\)$' $B --builtin=foo run
one_line pg_ambiguous_builtin 'ambiguous builtin name: 2 builtin scripts found for prefix "s"' $B --builtin=s run
one_line pg_bad_weight 'invalid weight specification: @x$' $B --builtin=tpcb-like@x run
one_line pg_weight_range 'weight specification out of range \(0 \.\. 2147483647\): -1$' $B --builtin=tpcb-like@-1 run
one_line pg_zero_weight 'total script weight must not be zero' $B --builtin=tpcb-like@0 run

# ---- cleanup -----------------------------------------------------------------------------
run pg_cleanup $B cleanup
[ "$rc" -eq 0 ] && [ "$(pg_tables)" = 0 ] && pass pg_cleanup || fail pg_cleanup "exit $rc, tables left: $(pg_tables)"
one_line pg_run_no_tables "table pgbench_branches does not exist in database 'sbtest': run prepare first" $B --time=1 run
# One loader: each table one TRUNCATE + COPY FREEZE, as pgbench -i loads;
# the accounts' pages are then all-frozen (a VACUUM scans about none).
expect_ok pg_prepare_one_thread '^done in .*primary keys' $B --scale=2 --threads=1 prepare
got="$(count pgbench_accounts) $(q "VACUUM (VERBOSE) pgbench_accounts" | sed -n 's/.*pages: [0-9]* removed, \([0-9]*\) remain, \([0-9]*\) scanned.*/\1 \2/p')"
read -r n_acc pages scanned <<< "$got"
[ "$n_acc" = 200000 ] && [ "${pages:-0}" -gt 100 ] && [ "${scanned:-99}" -le 1 ] && pass pg_prepare_one_thread_frozen \
  || fail pg_prepare_one_thread_frozen "accounts, pages, scanned by VACUUM: $got"
$B cleanup >/dev/null 2>&1
one_line pg_check_no_tables "table pgbench_branches does not exist in database 'sbtest': run prepare first" $B check

# ---- MariaDB -------------------------------------------------------------------------------
BM="$LB pgbench $M"
SQL() { mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest sbtest -N -e "$1" 2>&1; }
$BM cleanup >/dev/null 2>&1
expect_ok my_prepare '^done in' $BM --scale=1 --threads=2 prepare
got=$(SQL "SELECT CONCAT_WS(' ', (SELECT count(*) FROM pgbench_branches), (SELECT count(*) FROM pgbench_tellers), (SELECT count(*) FROM pgbench_accounts), (SELECT count(*) FROM pgbench_history))")
[ "$got" = "1 10 100000 0" ] && pass my_prepare_rows || fail my_prepare_rows "branches/tellers/accounts/history: $got"
one_line my_prepare_again "already exist in database 'sbtest': run cleanup first, or use another --mysql-db" $BM prepare
run my_run $BM --threads=2 --time=2 --result-file="$T/my.json" run
[ "$rc" -eq 0 ] && pass my_run || fail my_run "exit $rc: $(head -3 "$T/my_run.err")"
json_assert my_run_types "$T/my.json" 'r.status == "ok" and r.totals.events > 0 and r.types["tpcb-like"].events == r.totals.events and r.pgbench.scaling_factor == 1'
json_assert my_run_history "$T/my.json" "r.totals.events == $(SQL 'SELECT count(*) FROM pgbench_history')"
expect_ok my_check '^pgbench check PASSED\.$' $BM check
run my_cleanup $BM cleanup
got=$(SQL "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'sbtest' AND table_name LIKE 'pgbench%'")
[ "$rc" -eq 0 ] && [ "$got" = 0 ] && pass my_cleanup || fail my_cleanup "exit $rc, tables left: $got"

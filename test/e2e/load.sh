#!/usr/bin/env bash
# Bulk loads against a private MariaDB (its own sandbox on port 3396):
# OLTP and TPC-C prepare through LOAD DATA LOCAL INFILE served from memory
# (--load-method=bulk, the default) and through prepared INSERTs
# (--load-method=insert), the same row counts and content rules for both;
# the server's Com_load counter shows which path ran; a server with
# local_infile=OFF falls back to INSERT with a one-line note; a script's
# own LOAD DATA LOCAL INFILE of a real file is refused.  Then thousands of
# connections from one process: the sandbox runs the thread pool with a
# small listen backlog (back_log=50) and max_connections=2200; 2,000 paced
# connections open with bounded concurrency, every one is used, no errors;
# all at once they still open (transient failures retried); past
# max_connections, and past the open-files limit, one clear line.  No
# timing assertions.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR_LOAD:-/tmp/lbench-test-load} LB_SANDBOX_PORT=${LB_SANDBOX_PORT_LOAD:-3396}
sandbox_lock load
export LB_SANDBOX_THREAD_POOL=1 LB_SANDBOX_BACK_LOG=50 LB_SANDBOX_MAX_CONNECTIONS=2200
sandbox_start load
SQL() { mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest -N -B sbtest -e "$1" 2>&1; }
com() { SQL "SHOW GLOBAL STATUS LIKE 'Com_$1'" | awk '{print $2}'; }
eq() { [ "$2" = "$3" ] && pass "$1" || fail "$1" "got '$2', want '$3'"; }

# content NAME TABLE ROWS: every row as prepare makes it — ids 1..ROWS once
# each, k in [1, ROWS], c and pad of sysbench's templates — and the k index.
content() {
  local name=$1 t=$2 n=$3 got
  got=$(SQL "SELECT COUNT(*), COUNT(DISTINCT id), MIN(id), MAX(id), SUM(k BETWEEN 1 AND $n),
    SUM(c REGEXP '^[0-9]{11}(-[0-9]{11}){9}\$'), SUM(pad REGEXP '^[0-9]{11}(-[0-9]{11}){4}\$') FROM $t" | tr '\t' ' ')
  eq "${name}_rows" "$got" "$n $n 1 $n $n $n $n"
  got=$(SQL "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = 'sbtest' AND table_name = '$t' AND index_name = 'k_${t#sbtest}'")
  eq "${name}_k_index" "$got" 1
}

# ---- OLTP --------------------------------------------------------------
# (A sandbox left by an interrupted earlier run may hold tables.)
run pre_cleanup $LB oltp_read_write $M --tables=4 cleanup
run pre_cleanup_tpcc $LB tpcc $M cleanup
for method in bulk insert; do
  l0=$(com load); i0=$(com insert)
  expect_ok "oltp_prepare_$method" 'Inserting 40000 records into 2 table' \
    $LB oltp_read_write $M --tables=2 --table-size=20000 --threads=2 --load-method=$method prepare
  l1=$(com load); i1=$(com insert)
  content "oltp_${method}_sbtest1" sbtest1 20000
  content "oltp_${method}_sbtest2" sbtest2 20000
  if [ $method = bulk ]; then
    eq oltp_bulk_used_load_data "$((l1 - l0))" 2
    [ $((i1 - i0)) -lt 10 ] && pass oltp_bulk_no_inserts || fail oltp_bulk_no_inserts "$((i1 - i0)) INSERTs"
  else
    eq oltp_insert_no_load_data "$((l1 - l0))" 0
    [ $((i1 - i0)) -ge 400 ] && pass oltp_insert_used_inserts || fail oltp_insert_used_inserts "$((i1 - i0)) INSERTs"
  fi
  expect_ok "oltp_run_$method" 'transactions:' $LB oltp_read_write $M --tables=2 --table-size=20000 --events=50 run
  run "oltp_cleanup_$method" $LB oltp_read_write $M --tables=2 cleanup
done

# One table split into id ranges over three loaders (--load-chunk).
expect_ok oltp_bulk_chunks 'Inserting 20000 records' \
  $LB oltp_read_only $M --tables=1 --table-size=20000 --threads=3 --load-chunk=3000 prepare
content oltp_bulk_chunks sbtest1 20000
run oltp_bulk_chunks_cleanup $LB oltp_read_only $M --tables=1 cleanup

# The server refuses local infile: a one-line note, then INSERTs.
SQL "SET GLOBAL local_infile = 0" >/dev/null
l0=$(com load)
run oltp_fallback $LB oltp_read_write $M --tables=1 --table-size=5000 prepare
[ "$rc" -eq 0 ] && pass oltp_fallback_ok || fail oltp_fallback_ok "exit $rc: $(head -c 300 "$T/oltp_fallback.err")"
eq oltp_fallback_note "$(grep -c 'note: the server refuses LOAD DATA LOCAL INFILE (local_infile=OFF): loading with INSERT' "$T/oltp_fallback.err")/$(wc -l < "$T/oltp_fallback.err")" "1/1"
eq oltp_fallback_no_load_data "$(( $(com load) - l0 ))" 0
content oltp_fallback sbtest1 5000
run oltp_fallback_cleanup $LB oltp_read_write $M --tables=1 cleanup
SQL "SET GLOBAL local_infile = 1" >/dev/null

# A script's own LOAD DATA LOCAL INFILE of a real file is refused.
expect_ok own_infile_refused "loaded=false rows=0 .*errno = 2068.*only served for lbench's own bulk loads" \
  $LB test/e2e/scripts/own_infile.lua $M probe

# ---- TPC-C -------------------------------------------------------------
# The tables whose sizes clause 4.3.3.1 fixes, for one warehouse, and the
# orders whose ORDER-LINE count is their O_OL_CNT.
tpcc_counts() {
  SQL "SELECT (SELECT COUNT(*) FROM item), (SELECT COUNT(*) FROM warehouse), (SELECT COUNT(*) FROM district),
    (SELECT COUNT(*) FROM stock), (SELECT COUNT(*) FROM customer), (SELECT COUNT(*) FROM history),
    (SELECT COUNT(*) FROM orders), (SELECT COUNT(*) FROM new_orders),
    (SELECT COUNT(*) FROM orders JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS n FROM order_line
      GROUP BY 1, 2, 3) l ON l.ol_w_id = o_w_id AND l.ol_d_id = o_d_id AND l.ol_o_id = o_id AND l.n = o_ol_cnt)" | tr '\t' ' '
}
for method in bulk insert; do
  l0=$(com load)
  expect_ok "tpcc_prepare_$method" 'Loaded in' $LB tpcc $M --warehouses=1 --threads=2 --load-method=$method prepare
  loads=$(( $(com load) - l0 ))
  if [ $method = bulk ]; then
    [ "$loads" -ge 8 ] && pass tpcc_bulk_used_load_data || fail tpcc_bulk_used_load_data "$loads LOAD DATA statements"
  else
    eq tpcc_insert_no_load_data "$loads" 0
  fi
  eq "tpcc_${method}_counts" "$(tpcc_counts)" "100000 1 10 100000 30000 30000 30000 9000 30000"
  expect_ok "tpcc_check_$method" 'Consistency check PASSED' $LB tpcc $M --warehouses=1 check
  run "tpcc_cleanup_$method" $LB tpcc $M --warehouses=1 cleanup
done

# ---- thousands of connections -------------------------------------------
run conn_prepare $LB oltp_point_select $M --tables=1 --table-size=10000 prepare
t0=$(date +%s.%N)
expect_ok conn_2000 'Connections: 2000 opened in [0-9.]+ s' $LB oltp_point_select $M --tables=1 --table-size=10000 \
  --threads=2 --connections=2000 --rate=2000 --time=4 --result-file="$T/conn.json" run
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
# The time to open them is part of the command's wall time, outside the 4 s measured.
json_assert conn_2000_open_time_within_wall "$T/conn.json" "r.connect.opened_s + r.duration_s <= $wall"
json_assert conn_2000_every_one_used "$T/conn.json" \
  'r.connections == 2000 and r.totals.errors == 0 and r.fairness.connections.count == 2000
   and r.fairness.connections.unused == 0 and r.connect.opened_s > 0 and r.connect.retried >= 0'
# All at once past a backlog of 50: refused connects are retried.
expect_ok conn_all_at_once 'Connections: 2000 opened' $LB oltp_point_select $M --tables=1 --table-size=10000 \
  --threads=2 --connections=2000 --connect-concurrency=2000 --rate=1000 --time=1 run
grep -q 'ignored errors: *0 ' "$T/conn_all_at_once.out" && pass conn_all_at_once_no_errors \
  || fail conn_all_at_once_no_errors "$(grep -E 'errors' "$T/conn_all_at_once.out")"
# The server's limit, named.
one_line conn_past_max_connections "Too many connections.*raise max_connections, or use fewer --connections" \
  $LB oltp_point_select $M --tables=1 --table-size=10000 --threads=2 --connections=2300 --rate=100 --time=1 run
# The process's open-files limit: raised up to the hard limit, named beyond it.
expect_ok conn_nofile_raised 'Connections: 1500 opened' bash -c "ulimit -Sn 1024 && exec $LB oltp_point_select $M \
  --tables=1 --table-size=10000 --threads=2 --connections=1500 --rate=500 --time=1 run"
one_line conn_nofile_hard_limit 'connections=1500 needs about [0-9]+ open files, but this process may open only 1024 \(hard limit 1024' \
  bash -c "ulimit -n 1024 && exec $LB oltp_point_select $M --tables=1 --table-size=10000 --threads=2 \
  --connections=1500 --rate=500 --time=1 run"
run conn_cleanup $LB oltp_point_select $M --tables=1 cleanup

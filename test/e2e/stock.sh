#!/usr/bin/env bash
# Stock scenarios' details against a real MariaDB (a private sandbox on
# port 3319, started here and stopped by its PID at the end):
# oltp_insert's client-generated ids in an INT column, slap without
# --engine, the TPC-C load's progress bar.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR_STOCK:-/tmp/lbench-test-sandbox-stock} LB_SANDBOX_PORT=${LB_SANDBOX_PORT_STOCK:-3319}
sandbox_start stock
C="--mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-user=sbtest --mysql-password=sbtest"
M="$C --mysql-db=sbtest"
SQL() { mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest sbtest -N -B -e "$1" 2>&1; }

# ---- oltp_insert --auto-inc=off: ids fit the INT column -----------------
# (error 1264 "out of range" at the first insert before the fix)
run insert_prepare $LB oltp_insert $M --tables=2 --table-size=1000 --auto-inc=off --threads=2 prepare
run insert_noai $LB oltp_insert $M --tables=2 --table-size=1000 --auto-inc=off --threads=2 --time=2 \
  --result-file="$T/insert.json" run
[ "$rc" -eq 0 ] && pass insert_auto_inc_off_runs || fail insert_auto_inc_off_runs "exit $rc: $(head -3 "$T/insert_noai.err")"
json_assert insert_auto_inc_off_no_errors "$T/insert.json" 'r.status == "ok" and r.totals.events > 100 and r.totals.errors == 0 and r.totals.ignored_errors == 0'
# Every event inserted one row with an id of its own, none over the prepared ones.
new=$(SQL "SELECT (SELECT COUNT(*) FROM sbtest1 WHERE id < 0) + (SELECT COUNT(*) FROM sbtest2 WHERE id < 0)")
old=$(SQL "SELECT (SELECT COUNT(*) FROM sbtest1 WHERE id > 0) + (SELECT COUNT(*) FROM sbtest2 WHERE id > 0)")
json_assert insert_rows_match_events "$T/insert.json" "r.totals.events == ${new:-0} and ${old:-0} == 2000"
run insert_cleanup $LB oltp_insert $M --tables=2 cleanup

# ---- slap without --engine: no engine named (as mysqlslap) ---------------
run slap_no_engine $LB slap $C --auto-generate-sql --number-of-queries=20 --concurrency=2 --csv="$T/slap.csv" run
run slap_no_engine_text $LB slap $C --auto-generate-sql --number-of-queries=20 --concurrency=2 run
if [ "$rc" -eq 0 ] && grep -q '^Benchmark' "$T/slap_no_engine_text.out" && ! grep -q 'Running for engine' "$T/slap_no_engine_text.out"; then
  pass slap_no_engine_line; else fail slap_no_engine_line "$(head -5 "$T/slap_no_engine_text.out" "$T/slap_no_engine_text.err")"; fi
if grep -Eq '^,mixed,[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{3},[0-9]+\.[0-9]{3},2,10$' "$T/slap.csv"; then pass slap_no_engine_csv
else fail slap_no_engine_csv "$(cat "$T/slap.csv")"; fi
expect_ok slap_engine_named 'Running for engine innodb' $LB slap $C --auto-generate-sql --engine=innodb \
  --number-of-queries=20 --concurrency=2 run

# ---- TPC-C prepare: the progress bar ends at its total --------------------
# (on a terminal only: a pty from script(1))
if command -v script >/dev/null; then
  run tpcc_progress script -qec "$LB tpcc $M --warehouses=1 --threads=2 prepare" /dev/null
  last=$(tr '\r' '\n' < "$T/tpcc_progress.out" | grep -Eo '[0-9.]+% [0-9]+/[0-9]+ rows' | tail -1)
  done_=$(echo "$last" | sed -E 's/.* ([0-9]+)\/([0-9]+) rows/\1/'); total=$(echo "$last" | sed -E 's/.* ([0-9]+)\/([0-9]+) rows/\2/')
  if grep -q 'Loaded in' "$T/tpcc_progress.out" && [ -n "$total" ] && [ "$done_" = "$total" ] && echo "$last" | grep -q '^100.0%'; then
    pass tpcc_progress_ends_at_total; else fail tpcc_progress_ends_at_total "last bar: '$last': $(tail -c 300 "$T/tpcc_progress.out")"; fi
  run tpcc_cleanup $LB tpcc $M cleanup
fi

rm -rf "$T"

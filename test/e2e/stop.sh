#!/usr/bin/env bash
# Long commands against a real MariaDB stop within a second of the first
# SIGINT/SIGTERM, say what they left behind, and exit with the signal's
# status: OLTP prepare (whole tables and chunks, with the index step),
# TPC-C prepare (then resumed to a consistent database), prewarm, and a run
# whose workers sit in a server-side SLEEP.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR:-/tmp/lbench-test-sandbox-stop} LB_SANDBOX_PORT=${LB_SANDBOX_PORT:-3320}
sandbox_start stop
SQL() { mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest sbtest -N -e "$1" 2>&1; }

# stop_after NAME SIG DELAY CMD...: start CMD, send SIG after DELAY s, and
# record in $T/NAME.{rc,stop} the exit status and how long it took to stop
# (the bound checked is 2 s: a second, plus slack for a loaded machine).
stop_after() {
  local name=$1 sig=$2 delay=$3; shift 3
  "$@" >"$T/$name.out" 2>"$T/$name.err" &
  local bg=$! t0 t1
  sleep "$delay"
  t0=$(date +%s.%N)
  kill -"$sig" $bg
  for _ in $(seq 40); do kill -0 $bg 2>/dev/null || break; sleep 0.05; done
  t1=$(date +%s.%N)
  if kill -0 $bg 2>/dev/null; then kill -9 $bg; fi
  wait $bg; echo $? >"$T/$name.rc"
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }' >"$T/$name.stop"
}

# expect_stopped NAME RC REGEX: stopped in time with status RC, stdout+stderr matching REGEX
expect_stopped() {
  local name=$1 want=$2 re=$3
  local rc s; rc=$(cat "$T/$name.rc"); s=$(cat "$T/$name.stop")
  if awk -v s="$s" 'BEGIN { exit !(s > 2) }'; then fail "$name" "took ${s} s to stop"; return; fi
  if [ "$rc" != "$want" ]; then fail "$name" "exit $rc, expected $want: $(tail -3 "$T/$name.err")"; return; fi
  if ! cat "$T/$name.out" "$T/$name.err" | grep -Eq -- "$re"; then
    fail "$name" "output does not match /$re/: $(tail -3 "$T/$name.out") $(tail -3 "$T/$name.err")"; return
  fi
  if grep -q 'stack traceback' "$T/$name.err"; then fail "$name" "traceback: $(head -5 "$T/$name.err")"; return; fi
  pass "$name"
}

# OLTP prepare of a table far too large to finish: SIGTERM mid-load.
stop_after oltp_prepare_term TERM 2 $LB oltp_read_write $M --tables=1 --table-size=50000000 prepare
expect_stopped oltp_prepare_term 143 'prepare interrupted: 1 of 1 table\(s\) created, [0-9]+ of 50000000 row\(s\) inserted.*run cleanup'
said=$(grep -Eo '[0-9]+ of 50000000 row' "$T/oltp_prepare_term.out" | cut -d' ' -f1)
have=$(SQL "SELECT COUNT(*) FROM sbtest1")
[ -n "$said" ] && [ "$said" = "$have" ] && pass oltp_prepare_rows_said || fail oltp_prepare_rows_said "said $said, table has $have"
$LB oltp_read_write $M --tables=1 cleanup >/dev/null 2>&1

# Chunked load on two threads, SIGINT.
stop_after oltp_prepare_int INT 2 $LB oltp_read_write $M --tables=1 --threads=2 --table-size=50000000 prepare
expect_stopped oltp_prepare_int 130 'prepare interrupted.*run cleanup'
$LB oltp_read_write $M --tables=1 cleanup >/dev/null 2>&1

# A run whose events are 30 s server-side sleeps: cut off, keeps its report.
stop_after run_sleep_query INT 1.5 $LB test/e2e/scripts/sleep_query.lua $M --ms=30000 --threads=2 --time=60 \
  --result-file="$T/sq.json" run
expect_stopped run_sleep_query 130 'Run interrupted \(signal\)'
json_assert run_sleep_query_status "$T/sq.json" 'r.status == "interrupted" and r.duration_s > 1 and r.duration_s < 3'

# Prewarm: a parallel command in long queries (a big table, one thread).
$LB oltp_read_only $M --tables=1 --table-size=400000 prepare >/dev/null 2>&1
stop_after prewarm_term TERM 0.3 $LB oltp_read_only $M --tables=1 --table-size=400000 prewarm
expect_stopped prewarm_term 143 'prewarm interrupted'
$LB oltp_read_only $M --tables=1 cleanup >/dev/null 2>&1

# TPC-C prepare: stopped mid-load, it says how to resume; resumed, the
# database passes the consistency check.
# 4 warehouses load in about 9 s here: the signal at 3 s lands mid-load on a fast machine too.
T1="--warehouses=4 --threads=2"
stop_after tpcc_prepare_term TERM 3 $LB tpcc $M $T1 prepare
expect_stopped tpcc_prepare_term 143 'prepare stopped with [0-9]+ of [0-9]+ load units done: run it again'
run tpcc_resume $LB tpcc $M $T1 prepare
[ "$rc" -eq 0 ] && grep -q 'Resuming' "$T/tpcc_resume.out" && pass tpcc_resume || fail tpcc_resume "exit $rc: $(tail -3 "$T/tpcc_resume.out" "$T/tpcc_resume.err")"
expect_ok tpcc_resumed_consistent 'Consistency check PASSED' $LB tpcc $M $T1 check
$LB tpcc $M $T1 cleanup >/dev/null 2>&1

# Workers stuck in a query 2 s past the deadline are cut off: interrupted.
run deadline_abort $LB test/e2e/scripts/sleep_query.lua $M --ms=20000 --threads=2 --time=1 --result-file="$T/da.json" run
[ "$rc" -eq 1 ] && grep -q 'stuck past the deadline' "$T/deadline_abort.err" && pass deadline_abort_exit \
  || fail deadline_abort_exit "exit $rc: $(tail -2 "$T/deadline_abort.err")"
json_assert deadline_abort_status "$T/da.json" 'r.status == "interrupted" and r.stop_reason == "deadline_abort" and (r.stuck_thread == 0 or r.stuck_thread == 1)'
# ... and says what it was doing: the query it waits for.
grep -q 'waiting for the server: query: SELECT SLEEP' "$T/deadline_abort.err" && pass deadline_abort_names_query \
  || fail deadline_abort_names_query "$(tail -2 "$T/deadline_abort.err")"
json_assert deadline_abort_waiting "$T/da.json" 'r.stuck_waiting:find("^query: SELECT SLEEP") ~= nil'

# A sweep over the buffer pool size stopped by a signal puts the server
# back without a false "could not restore" warning.
bp0=$(SQL "SELECT @@GLOBAL.innodb_buffer_pool_size")
stop_after sweep_bp_int INT 1.5 $LB sweep --server-var innodb_buffer_pool_size=128M,192M --time=5 \
  test/e2e/scripts/sleep_query.lua $M --ms=5 --result-file="$T/sweep_bp.json"
expect_stopped sweep_bp_int 130 'sweep interrupted by a signal'
if grep -q 'could not restore' "$T/sweep_bp_int.out" "$T/sweep_bp_int.err"; then fail sweep_bp_no_false_warning "$(grep 'could not restore' "$T/sweep_bp_int.out" "$T/sweep_bp_int.err")"
else pass sweep_bp_no_false_warning; fi
bp1=$(SQL "SELECT @@GLOBAL.innodb_buffer_pool_size")
[ "$bp0" = "$bp1" ] && pass sweep_bp_restored || fail sweep_bp_restored "was $bp0, now $bp1"

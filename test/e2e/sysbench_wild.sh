#!/usr/bin/env bash
# sysbench scripts "from the wild" (test/e2e/scripts/wild/, written the way
# published scripts are: counters through the FFI, a thread_run of their
# own, a parallel prepare with its own options, CSV report hooks, a sibling
# module of common code) run unmodified under sysbench 1.0.20 and lbench
# against a private MariaDB (port 3393), with the same options; the event
# and per-type query counts must be equal (--events).  lbench's side is
# read from its result file, sysbench's from its text report.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR_WILD:-/tmp/lbench-test-sandbox-wild} LB_SANDBOX_PORT=${LB_SANDBOX_PORT_WILD:-3393}
if ! command -v sysbench >/dev/null; then fail wild_sysbench "sysbench is not installed (contrib/install-deps.sh test)"; exit 1; fi
sandbox_start wild
W=test/e2e/scripts/wild
# Both tools run from the scripts' directory, as a user runs a directory of
# scripts (sysbench finds a sibling module only through ./?.lua).
LBA=$(cd "$(dirname "$LB")" && pwd)/$(basename "$LB")
IN_W=(bash -c 'cd "$1" || exit 1; shift; exec "$@"' in_w "$W")
SQL() { mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest sbtest -N -B -e "$1" 2>&1; }

# sb_counts FILE: "events read write other total ignored_errors" from a
# sysbench text report.
sb_counts() {
  awk '/^ +read:/{r=$2} /^ +write:/{w=$2} /^ +other:/{o=$2} /^ +total:/{t=$2}
       /total number of events:/{e=$5} /ignored errors:/{x=$3} END{print e, r, w, o, t, x}' "$1"
}

# same_counts NAME SCRIPT OPTIONS...: run SCRIPT under both tools; the
# counts in sysbench's report must equal those of lbench's result file.
same_counts() {
  local name=$1 script=$2; shift 2
  run "${name}_sysbench" "${IN_W[@]}" sysbench "$script" $M "$@" run
  if [ "$rc" -ne 0 ]; then fail "${name}_sysbench" "exit $rc: $(tail -c 300 "$T/${name}_sysbench.err")"; return; fi
  run "${name}_lbench" "${IN_W[@]}" "$LBA" "$script" $M "$@" --result-file="$T/$name.json" run
  if [ "$rc" -ne 0 ]; then fail "${name}_lbench" "exit $rc: $(tail -c 300 "$T/${name}_lbench.err")"; return; fi
  # A script whose report_cumulative hook replaces the report: no counts to read.
  [ "${NO_REPORT:-0}" = 1 ] && return
  read -r e r w o t x <<<"$(sb_counts "$T/${name}_sysbench.out")"
  if [ -z "$x" ]; then fail "${name}_counts" "no counts in sysbench's report: $(head -c 300 "$T/${name}_sysbench.out")"; return; fi
  json_assert "${name}_counts" "$T/$name.json" "r.status == 'ok' and r.totals.events == $e and r.totals.queries.read == $r
    and r.totals.queries.write == $w and r.totals.queries.other == $o and r.totals.queries.total == $t
    and r.totals.ignored_errors == $x"
  echo "$e $r $w $o $t $x" >"$T/$name.counts"
}
# expect_counts NAME "events read write other total errors": what the
# script's events must have counted (the same in both tools).
expect_counts() {
  local got; got=$(cat "$T/$1.counts" 2>/dev/null)
  [ "$got" = "$2" ] && pass "$1_expected" || fail "$1_expected" "got '$got', want '$2'"
}

# ---- counters through the FFI (sb_counter_inc), a lazily created global ----
same_counts counters counters.lua --threads=2 --events=400 --time=0
expect_counts counters "400 800 400 400 1600 400"
# The same counters from virtual users (async mode: one worker, many lanes).
run counters_async $LB "$W/counters.lua" $M --threads=2 --connections=6 --events=300 --time=0 \
  --result-file="$T/counters_async.json" run
json_assert counters_async "$T/counters_async.json" 'r.totals.events == 300 and r.totals.queries.read == 600
  and r.totals.queries.write == 300 and r.totals.queries.other == 300 and r.totals.ignored_errors == 300'
# Reported as sysbench reports them: the counted reads in the text report.
grep -Eq '^ +read: +800$' "$T/counters_lbench.out" && pass counters_in_text_report \
  || fail counters_in_text_report "$(head -c 400 "$T/counters_lbench.out")"
# Strict globals are an opt-in: the lazy cache is then a misspelt global.
expect_fail counters_strict "counters.lua:[0-9]+: undefined global 'cache'" $LB "$W/counters.lua" $M \
  --strict-globals=on --events=10 run

# ---- an error the script's hook ignores, in the default loop -----------------
same_counts ignorable ignorable.lua --threads=2 --events=200 --time=0
expect_counts ignorable "200 200 0 0 200 200"
# ... and in async mode: each virtual user's own hooks.
run ignorable_async "${IN_W[@]}" "$LBA" ignorable.lua $M --threads=2 --connections=6 --events=150 --time=0 \
  --result-file="$T/ignorable_async.json" run
json_assert ignorable_async "$T/ignorable_async.json" 'r.status == "ok" and r.totals.events == 150
  and r.totals.queries.read == 150 and r.totals.ignored_errors == 150'

# ---- a thread_run of the script's own, an error its hook ignores ------------
run own_loop_prepare_sb sysbench "$W/own_loop.lua" $M --rows=50 prepare
same_counts own_loop own_loop.lua --threads=2 --events=300 --time=0 --rows=50
expect_counts own_loop "300 300 300 1200 1800 300"
# --time ends the script's loop through sb_more_events.
run own_loop_time $LB "$W/own_loop.lua" $M --threads=2 --time=1 --rows=50 --result-file="$T/own_loop_time.json" run
json_assert own_loop_time "$T/own_loop_time.json" 'r.status == "ok" and r.totals.events > 0
  and r.totals.ignored_errors == r.totals.events and r.duration_s >= 1 and r.duration_s < 5'
one_line own_loop_async "own_loop defines its own thread_run.*without --connections" $LB "$W/own_loop.lua" $M \
  --threads=2 --connections=4 --events=10 run
run own_loop_cleanup $LB "$W/own_loop.lua" $M cleanup

# ---- a parallel prepare with its own options --------------------------------
rows() { SQL "SELECT (SELECT COUNT(*) FROM wild_par1) + (SELECT COUNT(*) FROM wild_par2) + (SELECT COUNT(*) FROM wild_par3),
  (SELECT COUNT(*) FROM wild_par2 WHERE pad REGEXP '^[0-9]{3}-[a-z]{3}-[0-9]{3}\$')"; }
P="--tables=3 --rows=120 --threads=2"
run par_prepare_sb sysbench "$W/parallel_prepare.lua" $M $P prepare
sb_rows=$(rows)
run par_cleanup_sb sysbench "$W/parallel_prepare.lua" $M --tables=3 cleanup
run par_prepare_lb $LB "$W/parallel_prepare.lua" $M $P prepare
lb_rows=$(rows)
[ "$rc" -eq 0 ] && [ "$lb_rows" = "$sb_rows" ] && [ "$lb_rows" = "$(printf '360\t120')" ] && pass parallel_prepare_rows \
  || fail parallel_prepare_rows "lbench '$lb_rows' (exit $rc: $(head -c 200 "$T/par_prepare_lb.err")), sysbench '$sb_rows'"
same_counts parallel parallel_prepare.lua --threads=2 --events=300 --time=0 --rows=120
expect_counts parallel "300 300 300 0 600 0"
run par_cleanup_lb $LB "$W/parallel_prepare.lua" $M --tables=3 cleanup
[ "$(SQL "SHOW TABLES LIKE 'wild_par%'")" = "" ] && pass parallel_cleanup || fail parallel_cleanup "$(SQL "SHOW TABLES LIKE 'wild_par%'")"

# ---- CSV report hooks and sysbench's C histogram ---------------------------
run csv_prepare $LB "$W/csv_hooks.lua" $M prepare
NO_REPORT=1 same_counts csv csv_hooks.lua --threads=2 --events=200 --time=0
json_assert csv_counts "$T/csv.json" 'r.totals.events == 200 and r.totals.queries.read == 200 and r.totals.queries.write == 200 and r.totals.queries.other == 400'
sb_final=$(grep '^final,' "$T/csv_sysbench.out"); lb_final=$(grep '^final,' "$T/csv_lbench.out")
[ -n "$lb_final" ] && [ "$lb_final" = "$sb_final" ] && [ "$lb_final" = "final,200,200,200,400,0" ] && pass csv_final_line \
  || fail csv_final_line "lbench '$lb_final', sysbench '$sb_final'"
n=$(grep -c -- '------------- distribution -------------' "$T/csv_lbench.out")
[ "$n" = 2 ] && pass csv_histogram_per_thread || fail csv_histogram_per_thread "$n histograms: $(head -c 300 "$T/csv_lbench.out")"
run csv_intervals $LB "$W/csv_hooks.lua" $M --threads=2 --time=2 --report-interval=1 run
n=$(grep -Ec '^[0-9]+,2(,[0-9]+\.[0-9]{2}){8}$' "$T/csv_intervals.out")
[ "$rc" -eq 0 ] && [ "$n" -ge 2 ] && pass csv_interval_lines || fail csv_interval_lines "$n lines: $(head -c 400 "$T/csv_intervals.out")"
run csv_cleanup $LB "$W/csv_hooks.lua" $M cleanup

# ---- common code in a sibling module (options declared there) ---------------
run common_prepare "${IN_W[@]}" sysbench with_common.lua $M --table-rows=40 prepare
same_counts common with_common.lua --threads=2 --events=200 --time=0 --table-rows=40 --ranges=1,4,8
expect_counts common "200 600 200 400 1200 0"
same_counts common_notrx with_common.lua --threads=2 --events=200 --time=0 --table-rows=40 --use-trx=off
expect_counts common_notrx "200 400 200 0 600 0"
# sysbench.opt typed as sysbench types it; cmdline.command and argv.
O="--table-rows=7 --use-trx=off --label=x --ranges=2,3,4 --threads=3"
run opts_sb "${IN_W[@]}" sysbench with_common.lua $M $O show_options
run opts_lb "${IN_W[@]}" "$LBA" with_common.lua $M $O show_options
if [ "$rc" -eq 0 ] && diff <(grep -v '^sysbench \|^$' "$T/opts_sb.out") "$T/opts_lb.out" >"$T/opts.diff"; then
  pass sysbench_opt_types; else fail sysbench_opt_types "$(head -c 500 "$T/opts.diff") $(head -c 200 "$T/opts_lb.err")"; fi
run common_cleanup $LB "$W/with_common.lua" $M cleanup

# ---- sysbench's C SQL API called directly (db_query, db_execute, ...) -------
I="--mysql-ignore-errors=1146"
run raw_prepare "${IN_W[@]}" sysbench raw_sql.lua $M prepare
same_counts raw raw_sql.lua --threads=2 --events=100 --time=0 $I
expect_counts raw "100 100 200 0 300 100"
# Result binds: filled by each fetched row (lbench only: sysbench 1.0.20's
# MySQL driver never fetches into them).
run raw_binds "${IN_W[@]}" "$LBA" raw_sql.lua $M --threads=2 --events=50 --time=0 $I --check-binds \
  --result-file="$T/raw_binds.json" run
json_assert raw_result_binds "$T/raw_binds.json" 'r.status == "ok" and r.totals.events == 50 and r.totals.queries.read == 100'
run raw_cleanup "${IN_W[@]}" "$LBA" raw_sql.lua $M cleanup
# ---- sysbench 0.5's SQL API (db_query, db_bulk_insert_*, db_prepare, ...) --
for tool in sysbench lbench; do
  exe=sysbench; [ "$tool" = lbench ] && exe=$LBA
  run "legacy_prepare_$tool" "${IN_W[@]}" "$exe" legacy_api.lua $M prepare
  got=$(SQL "SELECT COUNT(*), SUM(a) FROM wild_legacy" | tr '\t' ' ')
  # 100 rows of a = id (5050), +100 on the 99 but x1, +1000 on the 99 but x2
  if [ "$rc" = 0 ] && grep -qx 'codes 0 1 2' "$T/legacy_prepare_$tool.out" && [ "$got" = "100 113950" ]; then
    pass "legacy_api_prepare_$tool"
  else fail "legacy_api_prepare_$tool" "exit $rc, table '$got': $(head -c 300 "$T/legacy_prepare_$tool.out" "$T/legacy_prepare_$tool.err")"; fi
done
same_counts legacy legacy_api.lua --threads=2 --events=100 --time=0
expect_counts legacy "100 100 100 0 200 0"
run legacy_cleanup "${IN_W[@]}" "$LBA" legacy_api.lua $M cleanup

# ---- the seeds' own sysbench 0.4 command lines, as they were written ------
# (--test=oltp with its --oltp-* options, --num-threads 1 to 32,
# --max-requests=0 --max-time; --test=fileio), lbench started as sysbench.
mkdir -p "$T/sb" "$T/fio"
ln -sf "$LBA" "$T/sb/sysbench"
SB=$T/sb/sysbench
O04="--test=oltp --oltp-table-size=2000 --mysql-table-engine=innodb $M"
run seed04_prepare "$SB" $O04 prepare
[ "$rc" = 0 ] && [ "$(SQL "SELECT COUNT(*) FROM sbtest1")" = 2000 ] && grep -q 'the --test option is deprecated' \
  "$T/seed04_prepare.err" && pass seed04_prepare || fail seed04_prepare "exit $rc: $(head -c 300 "$T/seed04_prepare.err")"
for ro in on off; do
  for th in 1 32; do
    n=seed04_ro_${ro}_$th
    run "$n" "$SB" $O04 --oltp-read-only=$ro --num-threads=$th --max-requests=0 --max-time=1 run
    w=$(awk '/^ +write:/{print $2}' "$T/$n.out")
    if [ "$rc" = 0 ] && grep -q "^Number of threads: $th$" "$T/$n.out" && grep -Eq '^ +transactions: +[1-9]' "$T/$n.out" &&
       grep -q '^SQL statistics:' "$T/$n.out" && { { [ $ro = on ] && [ "$w" = 0 ]; } || { [ $ro = off ] && [ "${w:-0}" -gt 0 ]; }; }; then
      pass "$n"
    else fail "$n" "exit $rc, writes '$w': $(head -c 300 "$T/$n.err")"; fi
  done
done
run seed04_cleanup "$SB" $O04 cleanup
[ "$rc" = 0 ] && [ "$(SQL "SHOW TABLES LIKE 'sbtest%'")" = "" ] && pass seed04_cleanup || fail seed04_cleanup "exit $rc"
F04=(--test=fileio --file-total-size=16M --file-num=4)
run seed04_fileio_prepare bash -c 'cd "$1" && shift && exec "$@"' x "$T/fio" "$SB" "${F04[@]}" prepare
run seed04_fileio_run bash -c 'cd "$1" && shift && exec "$@"' x "$T/fio" "$SB" "${F04[@]}" --file-test-mode=rndrw \
  --num-threads=2 --max-requests=0 --max-time=1 run
[ "$rc" = 0 ] && grep -Eq '^ +reads/s: +[0-9.]+' "$T/seed04_fileio_run.out" && grep -q '^File operations:' "$T/seed04_fileio_run.out" &&
  pass seed04_fileio || fail seed04_fileio "exit $rc: $(head -c 300 "$T/seed04_fileio_run.err")"
run seed04_fileio_cleanup bash -c 'cd "$1" && shift && exec "$@"' x "$T/fio" "$SB" "${F04[@]}" cleanup
[ "$rc" = 0 ] && [ ! -e "$T/fio/test_file.0" ] && pass seed04_fileio_cleanup || fail seed04_fileio_cleanup "exit $rc"

[ "$(SQL "SHOW TABLES LIKE 'wild_%'")" = "" ] && pass wild_tables_dropped || fail wild_tables_dropped "$(SQL "SHOW TABLES LIKE 'wild_%'")"

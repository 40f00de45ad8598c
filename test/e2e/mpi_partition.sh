#!/usr/bin/env bash
# lbench-mpi: partitioned workloads and bad input across ranks, against a
# private MariaDB (LB_SANDBOX_DIR_PART, LB_SANDBOX_PORT_PART; port 3397 by
# default).  TPC-C over 2 and 3 ranks: each rank loads and drives its own
# block of warehouses, shown from the server (each warehouse's new orders
# are exactly those its rank's document counts as committed), one tpmC for the job,
# check passing after; OLTP --rank-tables=split over 2 and 3 ranks (the
# server's per-table rows read, with --events split exactly: each rank's
# point selects only on its tables).  Bad input: more ranks than
# warehouses or tables, a host list naming an unknown host (mpirun fails
# before lbench starts), a rank killed during prepare (the launcher names
# it; the units it did not finish are not marked loaded, and prepare
# resumes), ranks with different scenario files of one name or different
# builds (one line, from rank 0).  No timing assertions.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
mpi_setup mpi_partition

# ---- bad input that needs no server ---------------------------------------------
# A host list naming a host that does not resolve: mpirun cannot start its
# daemon there and fails before any lbench process runs (so lbench cannot
# say it); the test asks for a non-zero exit, the launcher's line naming
# the host (ssh's "Could not resolve hostname ..."), no report and no
# result document.
run mpi_unknown_host "${MPI[@]}" --host lbench-no-such-host:1,localhost:1 -np 2 "$LBM" test/cli/scripts/empty.lua \
  --time=1 --result-file="$T/unknown.json" run
[ "$rc" -ne 0 ] && [ "$(grep -c 'lbench-no-such-host' "$T/mpi_unknown_host.err")" -eq 1 ] && [ ! -s "$T/mpi_unknown_host.out" ] \
  && [ ! -e "$T/unknown.json" ] && pass mpi_unknown_host_fails || fail mpi_unknown_host_fails "exit $rc: $(head -c 400 "$T/mpi_unknown_host.err")"
# Two scenario files of the same name with different contents (as two
# hosts with different copies at one path): refused before anything runs,
# naming the rank that differs and its host.
mkdir -p "$T/a" "$T/b"
echo 'function event() end' > "$T/a/s.lua"
printf 'function event() end\n-- another copy\n' > "$T/b/s.lua"
run mpi_other_copy "${MPI[@]}" -np 1 "$LBM" "$T/a/s.lua" --time=1 run : -np 1 "$LBM" "$T/b/s.lua" --time=1 run
[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && grep -Eq '^lbench-mpi: rank 1 \([^)]+\) runs with other scenario than rank 0' \
  "$T/mpi_other_copy.err" && [ "$(grep -c '^lbench-mpi: ' "$T/mpi_other_copy.err")" -eq 1 ] && [ ! -s "$T/mpi_other_copy.out" ] \
  && pass mpi_other_scenario_copy_refused || fail mpi_other_scenario_copy_refused "exit $rc: $(head -c 400 "$T/mpi_other_copy.err")"
# Another build of the same version on rank 1 (this executable with one
# byte appended: another file, which runs alike): refused in one line.
mkdir -p "$T/other"
cp "$LBM" "$T/other/lbench-mpi" && printf 'x' >> "$T/other/lbench-mpi"
run mpi_other_build "${MPI[@]}" -np 1 "$LBM" "$T/a/s.lua" --time=1 run : -np 1 "$T/other/lbench-mpi" "$T/a/s.lua" --time=1 run
[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && grep -Eq '^lbench-mpi: rank 1 \([^)]+\) runs with other lbench build than rank 0' \
  "$T/mpi_other_build.err" && [ "$(grep -c '^lbench-mpi: ' "$T/mpi_other_build.err")" -eq 1 ] && [ ! -s "$T/mpi_other_build.out" ] \
  && pass mpi_other_build_refused || fail mpi_other_build_refused "exit $rc: $(head -c 400 "$T/mpi_other_build.err")"

# ---- against MariaDB ---------------------------------------------------------------
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR_PART:-/tmp/lbench-test-mpi-part} LB_SANDBOX_PORT=${LB_SANDBOX_PORT_PART:-3397}
sandbox_lock mpi_partition
sandbox_start mpi_partition
SQL() { mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest sbtest -N -B -e "$1" 2>&1; }
# New orders per warehouse (orders beyond the load's 3000 per district),
# as "w n" lines.
new_orders() { SQL "SELECT o_w_id, COUNT(*) - 30000 FROM orders GROUP BY o_w_id ORDER BY o_w_id"; }
# sum_new BEFORE AFTER LO HI: new orders of warehouses LO..HI between two
# new_orders listings.
sum_new() {
  join "$1" "$2" | awk -v lo="$3" -v hi="$4" '$1 >= lo && $1 <= hi { s += $3 - $2 } END { print s + 0 }'
}
# tpcc_partition NAME NRANKS WAREHOUSES LO:HI...: a 2 s run over NRANKS
# ranks; one tpmC for the job; the New-Orders each rank's document counts
# as committed (events less rollbacks) are exactly the server's new
# orders of that rank's block LO:HI of warehouses.
tpcc_partition() {
  local name=$1 k=$2 w=$3 r=0 b n; shift 3
  new_orders > "$T/$name.before"
  expect_ok "${name}_run" 'tpmC' "${MPI[@]}" -np "$k" "$LBM" tpcc $M --warehouses="$w" --threads=2 --time=2 \
    --result-file="$T/$name.json" --rank-result-file="$T/$name%r.json" run || return
  new_orders > "$T/$name.after"
  [ "$(grep -c '^tpmC:' "$T/${name}_run.out")" -eq 1 ] && pass "${name}_one_tpmc" || fail "${name}_one_tpmc" \
    "$(grep -c '^tpmC:' "$T/${name}_run.out") tpmC lines"
  json_assert "${name}_doc" "$T/$name.json" "r.nranks == $k and r.tpcc.tpmC > 0 and r.status == 'ok' and r.ranks[$k].tpcc == nil"
  for b in "$@"; do
    n=$(sum_new "$T/$name.before" "$T/$name.after" "${b%:*}" "${b#*:}")
    json_assert "${name}_rank${r}_own_warehouses" "$T/$name$r.json" \
      "$n > 0 and r.types.new_order.events - r.types.new_order.rollbacks == $n"
    r=$((r + 1))
  done
}

# TPC-C, 2 ranks x 2 threads, 4 warehouses: rank 0 loads and drives 1-2,
# rank 1 3-4.  Before the run the orders are the load's, after it each
# warehouse's new ones are its own rank's.
$LB tpcc $M cleanup >/dev/null 2>&1
expect_ok mpi_part_tpcc_prepare2 'over 2 ranks, each loading its warehouses' "${MPI[@]}" -np 2 "$LBM" tpcc $M \
  --warehouses=4 --threads=2 prepare
units=$(SQL "SELECT COUNT(*), COUNT(DISTINCT unit) FROM tpcc_loaded")
[ "$units" = "$(printf '64\t64')" ] && pass mpi_part_tpcc_units_once || fail mpi_part_tpcc_units_once "$units"
tpcc_partition mpi_part_tpcc2 2 4 1:2 3:4
expect_ok mpi_part_tpcc_check2 'Consistency check PASSED on all 4' "${MPI[@]}" -np 2 "$LBM" tpcc $M --warehouses=4 \
  --threads=2 check
# 3 ranks on the same data: blocks 1-2, 3, 4 (the first 4 % 3 ranks one more).
tpcc_partition mpi_part_tpcc3 3 4 1:2 3:3 4:4
expect_ok mpi_part_tpcc_check3 'Consistency check PASSED on all 4' "${MPI[@]}" -np 3 "$LBM" tpcc $M --warehouses=4 \
  --threads=1 check
# More ranks than warehouses: refused in one line before anything runs.
run mpi_part_tpcc_too_few "${MPI[@]}" -np 3 "$LBM" tpcc $M --warehouses=2 --threads=1 --time=1 run
[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && [ "$(grep -c '^lbench-mpi: ' "$T/mpi_part_tpcc_too_few.err")" -eq 1 ] \
  && grep -q 'warehouses=2 over 3 ranks: each rank drives warehouses of its own' "$T/mpi_part_tpcc_too_few.err" \
  && ! grep -q 'stack traceback' "$T/mpi_part_tpcc_too_few.err" && pass mpi_part_tpcc_too_few_refused \
  || fail mpi_part_tpcc_too_few_refused "exit $rc: $(head -c 400 "$T/mpi_part_tpcc_too_few.err")"
$LB tpcc $M cleanup >/dev/null 2>&1

# TPC-C loaded over 3 ranks, then a run and check over 3.
expect_ok mpi_part_tpcc_prepare3 'over 3 ranks, each loading its warehouses' "${MPI[@]}" -np 3 "$LBM" tpcc $M \
  --warehouses=3 --threads=1 prepare
units=$(SQL "SELECT COUNT(*), COUNT(DISTINCT unit) FROM tpcc_loaded")
[ "$units" = "$(printf '49\t49')" ] && pass mpi_part_tpcc_units_once3 || fail mpi_part_tpcc_units_once3 "$units"
tpcc_partition mpi_part_tpcc3b 3 3 1:1 2:2 3:3
expect_ok mpi_part_tpcc_check3b 'Consistency check PASSED on all 3' "${MPI[@]}" -np 3 "$LBM" tpcc $M --warehouses=3 \
  --threads=1 check
$LB tpcc $M cleanup >/dev/null 2>&1

# A rank killed (SIGKILL) during prepare: it cannot speak, so the launcher
# names it (Open MPI: "mpirun noticed that process rank 1 ... on node
# HOST exited on signal 9") and stops the job, which exits non-zero and
# does not report the load done; every unit marked loaded is whole
# (each district unit has its 3000 customers), and prepare resumes the rest.
"${MPI[@]}" -np 2 "$LBM" tpcc $M --warehouses=2 --threads=1 prepare >"$T/mpi_part_kill.out" 2>"$T/mpi_part_kill.err" &
mpi_pid=$!
for _ in $(seq 300); do [ "$(SQL 'SELECT COUNT(*) FROM tpcc_loaded' 2>/dev/null)" -gt 0 ] 2>/dev/null && break; sleep 0.1; done
for p in $(pgrep -P "$mpi_pid"); do
  tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1 && kill -9 "$p"
done
wait "$mpi_pid"; rc=$?
[ "$rc" -ne 0 ] && [ "$(grep -c 'process rank 1 with PID .* on node .* exited on signal 9' "$T/mpi_part_kill.err")" -eq 1 ] \
  && ! grep -q 'Loaded in' "$T/mpi_part_kill.out" && pass mpi_part_kill_named \
  || fail mpi_part_kill_named "exit $rc: $(head -c 400 "$T/mpi_part_kill.err")"
half=$(SQL "SELECT COUNT(*) FROM tpcc_loaded l WHERE l.unit LIKE 'district:%' AND (SELECT COUNT(*) FROM customer c
  WHERE c.c_w_id = l.w_id AND c.c_d_id = SUBSTRING_INDEX(l.unit, ':', -1)) <> 3000")
done_units=$(SQL "SELECT COUNT(*) FROM tpcc_loaded")
[ "$half" = 0 ] && [ "$done_units" -lt 34 ] && pass mpi_part_kill_nothing_half_done \
  || fail mpi_part_kill_nothing_half_done "$half half-loaded units marked, $done_units of 34 marked"
expect_ok mpi_part_kill_resume 'Resuming: [0-9]+ of 34 load units' "${MPI[@]}" -np 2 "$LBM" tpcc $M --warehouses=2 \
  --threads=1 prepare
grep -q 'Loaded in' "$T/mpi_part_kill_resume.out" && pass mpi_part_kill_resumed || fail mpi_part_kill_resumed \
  "$(tail -c 300 "$T/mpi_part_kill_resume.out")"
expect_ok mpi_part_kill_check 'Consistency check PASSED on all 2 warehouse\(s\)\.' "${MPI[@]}" -np 2 "$LBM" tpcc $M \
  --warehouses=2 --threads=1 check
$LB tpcc $M cleanup >/dev/null 2>&1

# ---- OLTP --rank-tables=split ----------------------------------------------------
# The server's rows read per table (MariaDB's user statistics) after
# --events split exactly over the ranks (1000 each) of oltp_point_select
# (one row per event): each rank's come from its own tables only.
oltp_split() { # NAME NRANKS TABLES EXPECTED ("sbtestN rows" lines, tables of several ranks summed by awk)
  local name=$1 k=$2 n=$3 want=$4 got
  $LB oltp_point_select $M --tables="$n" cleanup >/dev/null 2>&1
  expect_ok "${name}_prepare" "Inserting $((n * 1000)) records" "${MPI[@]}" -np "$k" "$LBM" oltp_point_select $M \
    --tables="$n" --table-size=1000 --rank-tables=split --threads=1 prepare || return
  rows=$(SQL "SELECT COUNT(*) FROM sbtest$n")
  [ "$rows" = 1000 ] && pass "${name}_rows" || fail "${name}_rows" "$rows"
  SQL "SET GLOBAL userstat = 1; FLUSH TABLE_STATISTICS" >/dev/null
  expect_ok "${name}_run" 'total number of events: +'"$((k * 1000))" "${MPI[@]}" -np "$k" "$LBM" oltp_point_select $M \
    --tables="$n" --table-size=1000 --rank-tables=split --threads=1 --events=$((k * 1000)) --time=0 run || return
  got=$(SQL "SELECT TABLE_NAME, ROWS_READ FROM information_schema.TABLE_STATISTICS WHERE TABLE_SCHEMA = 'sbtest'
    AND TABLE_NAME LIKE 'sbtest%' ORDER BY TABLE_NAME" | tr '\t\n' ' ')
  SQL "SET GLOBAL userstat = 0" >/dev/null
  [ "$(echo "$got" | awk "$want")" = ok ] && pass "${name}_tables_split" || fail "${name}_tables_split" "rows read: $got"
  $LB oltp_point_select $M --tables="$n" cleanup >/dev/null 2>&1
}
# 2 ranks, 3 tables: rank 0 sbtest1-2, rank 1 sbtest3.
oltp_split mpi_part_oltp2 2 3 '{ if ($1 == "sbtest1" && $3 == "sbtest2" && $2 + $4 == 1000 && $5 == "sbtest3" && $6 == 1000) print "ok" }'
# 3 ranks, 4 tables: rank 0 sbtest1-2, rank 1 sbtest3, rank 2 sbtest4.
oltp_split mpi_part_oltp3 3 4 '{ if ($2 + $4 == 1000 && $5 == "sbtest3" && $6 == 1000 && $7 == "sbtest4" && $8 == 1000) print "ok" }'
# More ranks than tables: the rank left without one is named (the others,
# their tables there, would run).
$LB oltp_point_select $M --tables=2 --table-size=10 prepare >/dev/null 2>&1
run mpi_part_oltp_too_few "${MPI[@]}" -np 3 "$LBM" oltp_point_select $M --tables=2 --rank-tables=split --threads=1 \
  --time=1 run
[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] && grep -Eq '^lbench-mpi: rank 2 \([^)]+\): --rank-tables=split: --tables=2 over 3 ranks' \
  "$T/mpi_part_oltp_too_few.err" && [ "$(grep -c '^lbench-mpi: ' "$T/mpi_part_oltp_too_few.err")" -eq 1 ] \
  && ! grep -q 'stack traceback' "$T/mpi_part_oltp_too_few.err" \
  && pass mpi_part_oltp_too_few_refused || fail mpi_part_oltp_too_few_refused "exit $rc: $(head -c 400 "$T/mpi_part_oltp_too_few.err")"
$LB oltp_point_select $M --tables=2 cleanup >/dev/null 2>&1

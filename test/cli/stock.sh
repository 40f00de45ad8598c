#!/usr/bin/env bash
# CLI tests of the stock scenarios' details and the shared reports, without a
# server (the null SQL driver answers every query at once): client-generated
# ids, --db-debug, --histogram, CSV columns, the cumulative report hook and
# compare's domain rows.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
S=test/cli/scripts
N="--db-driver=null"

# ---- oltp_insert --auto-inc=off: ids fit the id column -----------------
# The emulated statements show the ids sent (--db-ps-mode=disable).  INT
# tables (--table-size <= 2^31 - 1): every id in the negative half, which
# the prepared rows 1..table_size never use, and no id twice across threads.
run insert_ids $LB oltp_insert $N --auto-inc=off --db-ps-mode=disable --db-debug --threads=3 --events=3000 --time=0 run
ids() { grep -o '^debug: query: INSERT INTO sbtest[0-9]* (id, k, c, pad) VALUES ([-0-9]*' "$T/$1.out" | sed 's/.*(//'; }
ids insert_ids > "$T/ids"
n=$(wc -l < "$T/ids"); bad=$(awk '$1 < -2147483648 || $1 >= 0' "$T/ids" | wc -l); dup=$(sort "$T/ids" | uniq -d | wc -l)
if [ "$rc" -eq 0 ] && [ "$n" -eq 3000 ] && [ "$bad" -eq 0 ] && [ "$dup" -eq 0 ]; then pass insert_ids_fit_int
else fail insert_ids_fit_int "rc=$rc ids=$n out of range=$bad duplicates=$dup: $(head -3 "$T/ids")"; fi
# BIGINT tables keep ids above 2^32, per thread apart.
run insert_ids_big $LB oltp_insert $N --auto-inc=off --db-ps-mode=disable --db-debug --table-size=3000000000 \
  --threads=2 --events=2000 --time=0 run
ids insert_ids_big > "$T/ids_big"
n=$(wc -l < "$T/ids_big"); bad=$(awk '$1 < 4294967296' "$T/ids_big" | wc -l); dup=$(sort "$T/ids_big" | uniq -d | wc -l)
if [ "$n" -eq 2000 ] && [ "$bad" -eq 0 ] && [ "$dup" -eq 0 ]; then pass insert_ids_bigint
else fail insert_ids_bigint "ids=$n below 2^32=$bad duplicates=$dup"; fi
# Async mode: one slice per virtual user (each has its own id state).
run insert_ids_async $LB oltp_insert $N --auto-inc=off --db-ps-mode=disable --db-debug --threads=2 --connections=6 \
  --events=3000 --time=0 run
ids insert_ids_async > "$T/ids_async"
n=$(wc -l < "$T/ids_async"); bad=$(awk '$1 < -2147483648 || $1 >= 0' "$T/ids_async" | wc -l)
dup=$(sort "$T/ids_async" | uniq -d | wc -l)
if [ "$n" -eq 3000 ] && [ "$bad" -eq 0 ] && [ "$dup" -eq 0 ]; then pass insert_ids_async_vus
else fail insert_ids_async_vus "ids=$n out of range=$bad duplicates=$dup"; fi

# ---- --db-debug names what happens to a statement ----------------------
run debug_ps_off $LB oltp_point_select $N --db-ps-mode=disable --db-debug --events=2 --time=0 run
if grep -q '^debug: no server-side prepare (--db-ps-mode=disable), statement emulated client-side: SELECT c FROM sbtest1 WHERE id=?$' "$T/debug_ps_off.out" \
   && ! grep -q '^debug: prepare:' "$T/debug_ps_off.out" && grep -Eq '^debug: query: SELECT c FROM sbtest1 WHERE id=[0-9]+$' "$T/debug_ps_off.out"; then
  pass db_debug_ps_disabled; else fail db_debug_ps_disabled "$(grep '^debug' "$T/debug_ps_off.out" | head -4)"; fi
expect_ok db_debug_ps_on '^debug: prepare: SELECT c FROM sbtest1 WHERE id=\?$' \
  $LB oltp_point_select $N --db-debug --events=2 --time=0 run

# ---- --histogram: about 100 rows, every label distinct -----------------
# Latencies over ~3 decades (spin loops of pareto-distributed length).
cat > "$T/wide.lua" <<'L'
function event() local x = 0 for i = 1, lbench.rand.pareto(1, 200000) do x = x + i end end
L
run histogram $LB "$T/wide.lua" run --time=1 --histogram
sed -n '/^Latency histogram/,$p' "$T/histogram.out" | tail -n +3 > "$T/hrows"
rows=$(wc -l < "$T/hrows"); dups=$(awk '{print $1}' "$T/hrows" | sort | uniq -d | wc -l)
sum=$(awk -F'[|]' '{n = split($2, a, " "); s += a[n]} END {print s}' "$T/hrows")
events=$(grep -o 'total number of events: *[0-9]*' "$T/histogram.out" | grep -o '[0-9]*$')
if [ "$rows" -ge 5 ] && [ "$rows" -le 110 ] && [ "$dups" -eq 0 ] && [ "$sum" = "$events" ]; then pass histogram_readable
else fail histogram_readable "rows=$rows repeated labels=$dups counts=$sum events=$events: $(head -3 "$T/hrows")"; fi
if grep -Eq '^ +value  -+ distribution -+ count$' "$T/histogram.out" && grep -Eq '^ +[0-9.]+ \|\*+ +[0-9]+$' "$T/hrows"; then
  pass histogram_layout; else fail histogram_layout "$(sed -n '/^Latency histogram/,+3p' "$T/histogram.out")"; fi
# A known input: 1423 buckets 0.1 % apart over 10 .. 41 ms (the HDR layout
# with 3 digits) -> one decade and a bit, merged into at most ~100 rows.
cat > "$T/hist_rows.lua" <<'L'
local hist = require("lbench.api.hist")
local b, v = {}, 10
for i = 1, 1423 do b[i] = { v, v * 1.001, i % 7 + 1 }; v = v * 1.001 end
local rows, total, seen, prev = hist.histogram_rows(b, 1), 0, {}, -1
for _, r in ipairs(rows) do
  assert(not seen[r[1]], "label " .. r[1] .. " twice"); seen[r[1]] = true
  assert(tonumber(r[1]) > prev, "labels not increasing at " .. r[1]); prev = tonumber(r[1])
  total = total + r[2]
end
local want = 0
for _, x in ipairs(b) do want = want + x[3] end
assert(total == want, "counts " .. total .. " ~= " .. want)
print(string.format("rows=%d", #rows))
L
run hist_rows $LB "$T/hist_rows.lua"
r=$(grep -o 'rows=[0-9]*' "$T/hist_rows.out" | cut -d= -f2)
if [ "$rc" -eq 0 ] && [ -n "$r" ] && [ "$r" -ge 50 ] && [ "$r" -le 101 ]; then pass histogram_rows_merged
else fail histogram_rows_merged "rc=$rc rows=$r: $(head -c 300 "$T/hist_rows.err")"; fi

# ---- CSV: no I/O columns for a run without I/O -------------------------
run csv_sql $LB oltp_point_select $N --threads=2 --time=2 --report-interval=1 --output=csv run
hdr=$(grep -m1 '^time_s,' "$T/csv_sql.out")
cols=$(echo "$hdr" | awk -F, '{print NF}')
rowcols=$(grep -E '^[0-9.]+,[01],' "$T/csv_sql.out" | awk -F, '{print NF}' | sort -u | tr '\n' ' ')
# (the server and host columns of --server-stats are not lbench's I/O columns)
if [ -n "$hdr" ] && ! echo "$hdr" | grep -Eq '(^|,)io_|(^|,)(read|written)_mib_per_sec' && [ "$rowcols" = "$cols " ] \
   && ! grep -q '^io_' "$T/csv_sql.out"; then pass csv_sql_no_io_columns
else fail csv_sql_no_io_columns "header=$hdr row widths=$rowcols"; fi

# ---- sysbench's report_default as the cumulative report: "[ 1s ]", with
# no thread running any more (sysbench 1.0.20 prints thds: 0 there) ------
cat > "$T/cum.lua" <<'L'
function event() lbench.sleep(3) end
sysbench.hooks.report_cumulative = sysbench.report_default
L
expect_ok cumulative_time_label '^\[ 1s \] thds: 0 tps: [0-9.]+ ' $LB "$T/cum.lua" run --time=1
cat > "$T/cum_csv.lua" <<'L'
function event() lbench.sleep(3) end
sysbench.hooks.report_cumulative = sysbench.report_csv
L
expect_ok cumulative_csv_time '^1,0,[0-9.]+,' $LB "$T/cum_csv.lua" run --time=1

# ---- compare: TPC-C's tpmC (and the other domain rows) -----------------
doc() { # doc FILE EVENTS TPMC|-
  local tp=""
  [ "$3" != - ] && tp=", \"tpcc\": {\"tpmC\": $3, \"notpm\": $(($3 - 1)), \"tpm_total\": $(($3 * 2)), \"efficiency_pct\": 50}"
  printf '{"scenario": "tpcc", "duration_s": 60, "totals": {"events": %d, "events_per_sec": %d, "queries": {"total": 10}, "queries_per_sec": 1}%s}\n' \
    "$2" "$(($2 / 60))" "$tp" > "$1"
}
doc "$T/tpcc_a.json" 600 1000; doc "$T/tpcc_b.json" 1200 1500; doc "$T/tpcc_c.json" 900 -
run compare_tpcc $LB compare "$T/tpcc_a.json" "$T/tpcc_b.json"
if grep -Eq '^tpmC +1000 +1500 +1\.500 +\+50\.0%$' "$T/compare_tpcc.out" && grep -Eq '^NOTPM +999 +1499 ' "$T/compare_tpcc.out" \
   && grep -Eq '^tpmTotal +2000 +3000 ' "$T/compare_tpcc.out"; then pass compare_tpcc_tpmc
else fail compare_tpcc_tpmc "$(cat "$T/compare_tpcc.out" "$T/compare_tpcc.err" | head -20)"; fi
run compare_tpcc_partial $LB compare "$T/tpcc_a.json" "$T/tpcc_c.json"
if [ "$rc" -eq 0 ] && ! grep -q '^tpmC' "$T/compare_tpcc_partial.out" && grep -q '^TPS' "$T/compare_tpcc_partial.out"; then
  pass compare_tpmc_only_when_both; else fail compare_tpmc_only_when_both "$(head -20 "$T/compare_tpcc_partial.out")"; fi

rm -rf "$T"

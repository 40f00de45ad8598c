#!/usr/bin/env bash
# make bench: lbench side by side with sysbench (and later fio) on the same
# machine, alternating runs, medians printed with ratios.  Not a test: the
# figures go into README.md.  Sections can be chosen: contrib/bench.sh core oltp
set -euo pipefail
cd "$(dirname "$0")/.."
LB=./lbench
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-5}
sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(core oltp)
W=$(mktemp -d /tmp/lbench-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print 0; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

bench_core() {
  echo "== engine overhead: empty event (function event() end), ${SECS}s runs, median of $ROUNDS alternating rounds"
  printf 'function event() end\n' > "$W/empty.lua"
  printf '%-8s %16s %16s %8s\n' threads "lbench ev/s" "sysbench ev/s" ratio
  for t in 1 2; do
    : > "$W/lb" ; : > "$W/sb"
    for _ in $(seq "$ROUNDS"); do
      $LB "$W/empty.lua" run --threads=$t --time="$SECS" --verbosity=0 --output=json --result-file="$W/r.json" >/dev/null
      $LB test/cli/scripts/json_assert.lua check --file="$W/r.json" --expr='(function() print(r.totals.events_per_sec) return true end)()' >> "$W/lb"
      sysbench "$W/empty.lua" --threads=$t --time="$SECS" run |
        awk '/total time:/ {t=$3+0} /total number of events:/ {n=$5} END {if (t > 0) print n / t}' >> "$W/sb"
    done
    local a b
    a=$(median < "$W/lb"); b=$(median < "$W/sb")
    printf '%-8s %16.0f %16.0f %8s\n' "$t" "$a" "$b" "$(ratio "$a" "$b")"
  done
  echo "   commands: lbench empty.lua run --threads=T --time=$SECS   vs   sysbench empty.lua --threads=T --time=$SECS run"
}

# cpu_run OUTFILE CMD...: runs CMD; appends "<queries> <cpu seconds>" to OUTFILE
# (client CPU = user + sys of the process and its threads, from bash's time).
cpu_run() {
  local out=$1; shift
  local t
  t=$( { TIMEFORMAT='%U %S'; time "$@" > "$W/cmd.out" 2>&1; } 2>&1 ) || { echo "   failed: $*" >&2; tail -3 "$W/cmd.out" >&2; return 1; }
  local q
  q=$(awk '/^ *queries: / {print $2; exit} /^queries: / {print $2; exit}' "$W/cmd.out")
  echo "$q $t" | awk '{print $1, $2 + $3}' >> "$out"
}

bench_oltp() {
  export LB_SANDBOX_DIR=/tmp/lbench-bench-sandbox LB_SANDBOX_PORT=3327 LB_SANDBOX_BUFFER_POOL=1G
  contrib/mariadb-sandbox.sh start
  trap 'contrib/mariadb-sandbox.sh stop; rm -rf "$W"' EXIT
  set -a; . "$LB_SANDBOX_DIR/env"; set +a
  local M="--mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest"
  local D="--tables=4 --table-size=100000"
  make --no-print-directory build/bare_point_select >/dev/null
  echo "== prepare of 4 x 100k rows (1 thread for sysbench as in its docs; lbench with 2 threads), median of $ROUNDS"
  : > "$W/plb"; : > "$W/psb"
  for _ in $(seq "$ROUNDS"); do
    sysbench oltp_read_only $M $D cleanup >/dev/null 2>&1 || true
    { TIMEFORMAT=%R; time sysbench oltp_read_only $M $D prepare >/dev/null; } 2>> "$W/psb"
    sysbench oltp_read_only $M $D cleanup >/dev/null
    { TIMEFORMAT=%R; time $LB oltp_read_only $M $D --threads=2 prepare >/dev/null; } 2>> "$W/plb"
  done
  local a b
  a=$(median < "$W/plb"); b=$(median < "$W/psb")
  printf '   lbench %.2f s (%.0f rows/s)   sysbench %.2f s (%.0f rows/s)   speed ratio %s\n' "$a" \
    "$(awk -v t="$a" 'BEGIN{print 400000/t}')" "$b" "$(awk -v t="$b" 'BEGIN{print 400000/t}')" "$(ratio "$b" "$a")"
  echo "== OLTP against the same server, ${SECS}s runs, median of $ROUNDS alternating rounds"
  printf '%-18s %4s %12s %12s %7s %11s %11s %11s %9s %9s\n' test thr "lbench qps" "sysb qps" ratio \
    "lb us/q" "sb us/q" "bare us/q" "lb/sb" "lb/bare"
  for test in oltp_point_select oltp_read_only; do
    for t in 1 2 8; do
      : > "$W/l"; : > "$W/s"; : > "$W/b"
      for _ in $(seq "$ROUNDS"); do
        cpu_run "$W/l" $LB $test $M $D --threads=$t --time="$SECS" run
        cpu_run "$W/s" sysbench $test $M $D --threads=$t --time="$SECS" run
        if [ $test = oltp_point_select ]; then
          cpu_run "$W/b" build/bare_point_select -h 127.0.0.1 -P "$LB_MYSQL_PORT" -u sbtest -p sbtest -d sbtest \
            -t $t -T "$SECS" -n 100000
        fi
      done
      local lq sq lc sc bc
      lq=$(awk -v s="$SECS" '{print $1/s}' "$W/l" | median); sq=$(awk -v s="$SECS" '{print $1/s}' "$W/s" | median)
      lc=$(awk '$1>0 {print $2/$1*1e6}' "$W/l" | median); sc=$(awk '$1>0 {print $2/$1*1e6}' "$W/s" | median)
      bc=$(awk '$1>0 {print $2/$1*1e6}' "$W/b" | median)
      printf '%-18s %4s %12.0f %12.0f %7s %11.2f %11.2f %11s %9s %9s\n' $test $t "$lq" "$sq" "$(ratio "$lq" "$sq")" \
        "$lc" "$sc" "$( [ $test = oltp_point_select ] && printf %.2f "$bc" || echo -)" "$(ratio "$lc" "$sc")" \
        "$( [ $test = oltp_point_select ] && ratio "$lc" "$bc" || echo -)"
    done
  done
  echo "   qps ratio = lbench/sysbench (higher is better); us/q = client CPU (user+sys) per query; lb/sb, lb/bare: CPU ratios (lower is better)"
  echo "   commands: lbench|sysbench <test> $M $D --threads=T --time=$SECS run; bare: build/bare_point_select -t T -T $SECS"
  contrib/mariadb-sandbox.sh stop
  trap 'rm -rf "$W"' EXIT
}

for s in "${sections[@]}"; do
  if declare -F "bench_$s" >/dev/null; then "bench_$s"; else echo "(section $s: not available yet)"; fi
done

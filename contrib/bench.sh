#!/usr/bin/env bash
# make bench: lbench side by side with sysbench (and later fio) on the same
# machine, alternating runs, medians printed with ratios.  Not a test: the
# figures go into docs/benchmarks.md.  Sections can be chosen: contrib/bench.sh core oltp
set -euo pipefail
cd "$(dirname "$0")/.."
LB=./lbench
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-5}
sections=("$@")
[ ${#sections[@]} -gt 0 ] || sections=(core builtin oltp load fileio tpcc async pgsql pgscript pgscript_turns pgscript_ir mpi merge observe)
W=$(mktemp -d "${TMPDIR:-/tmp}/lbench-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print 0; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
# ci90: ratios on stdin, one per line (one per round) -> "LO-HI", the 90 %
# confidence interval of their geometric mean (Student's t over the
# logarithms: a ratio is as likely to be off by x as by 1/x); "-" with
# fewer than two.  A row whose interval lies on one side of 1.0 differs
# beyond the rounds' spread; one that holds 1.0 does not.
ci90() {
  awk '$1 > 0 { x[++n] = log($1); s += x[n] } END {
    if (n < 2) { print "-"; exit }
    split("6.314 2.920 2.353 2.132 2.015 1.943 1.895 1.860 1.833 1.812 1.796 1.782 1.771 1.761", t, " ")
    m = s / n; for (i = 1; i <= n; i++) v += (x[i] - m) ^ 2
    # beyond 14 degrees of freedom: the normal quantile and its first
    # correction, z + (z^3 + z) / 4df (within 0.01 of the exact quantile)
    q = n - 1 <= 14 ? t[n - 1] : 1.645 + (1.645 ^ 3 + 1.645) / (4 * (n - 1))
    h = q * sqrt(v / (n - 1) / n)
    printf "%.2f-%.2f\n", exp(m - h), exp(m + h) }'
}
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

# sandbox_up DIR PORT POOL: a private MariaDB for one section (the caller
# may export more LB_SANDBOX_* first), stopped when the script ends, its
# env sourced; sets M, the connection options (the caller declares M
# local).  sandbox_down stops it at the section's end.
sandbox_up() {
  export LB_SANDBOX_DIR=$1 LB_SANDBOX_PORT=$2 LB_SANDBOX_BUFFER_POOL=$3
  contrib/mariadb-sandbox.sh start
  trap 'contrib/mariadb-sandbox.sh stop; rm -rf "$W"' EXIT
  set -a; . "$LB_SANDBOX_DIR/env"; set +a
  M="--mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest"
}
sandbox_down() {
  contrib/mariadb-sandbox.sh stop
  trap 'rm -rf "$W"' EXIT
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
  # The kernel's share (sys seconds) beside it, line for line.
  echo "$t" | awk '{print $2}' >> "$out.sys"
}

# oltp_prepare M D: the 4 x 100k-row load at 1 and 2 threads, sysbench
# against lbench's bulk path (LOAD DATA LOCAL INFILE from memory) and its
# INSERT path, alternating; wall time, client CPU and server CPU (user +
# sys of mariadbd over the load) per tool, medians of ROUNDS.
oltp_prepare() {
  local M=$1 D=$2 spid=$LB_SANDBOX_PID
  srv_cpu() { awk '{print ($14 + $15) / 100}' "/proc/$spid/stat"; }
  # timed_load FILE CMD...: appends "<wall s> <client cpu s> <server cpu s>"
  timed_load() {
    local out=$1 s0 s1 t; shift
    s0=$(srv_cpu)
    t=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null; } 2>&1 )
    s1=$(srv_cpu)
    echo "$t $s0 $s1" | awk '{print $1, $2 + $3, $5 - $4}' >> "$out"
  }
  echo "== prepare of 4 x 100k rows, same thread count for both tools, median of $ROUNDS alternating rounds; no pinning"
  printf '%-8s %-26s %8s %10s %10s %10s %12s
' threads tool "wall s" "client s" "server s" "rows/s" "vs sysbench"
  for t in 1 2; do
    : > "$W/psb"; : > "$W/plb"; : > "$W/pli"
    for _ in $(seq "$ROUNDS"); do
      sysbench oltp_read_only $M $D cleanup >/dev/null 2>&1 || true
      timed_load "$W/psb" sysbench oltp_read_only $M $D --threads=$t prepare
      sysbench oltp_read_only $M $D cleanup >/dev/null
      timed_load "$W/plb" $LB oltp_read_only $M $D --threads=$t prepare
      $LB oltp_read_only $M $D cleanup >/dev/null
      timed_load "$W/pli" $LB oltp_read_only $M $D --threads=$t --load-method=insert prepare
      $LB oltp_read_only $M $D cleanup >/dev/null
    done
    local sb
    sb=$(awk '{print $1}' "$W/psb" | median)
    for row in "psb:sysbench" "plb:lbench (bulk: LOAD DATA)" "pli:lbench --load-method=insert"; do
      local f=${row%%:*} name=${row#*:} w c sv
      w=$(awk '{print $1}' "$W/$f" | median); c=$(awk '{print $2}' "$W/$f" | median); sv=$(awk '{print $3}' "$W/$f" | median)
      printf '%-8s %-26s %8.2f %10.2f %10.2f %10.0f %12s
' "$t" "$name" "$w" "$c" "$sv" \
        "$(awk -v t="$w" 'BEGIN{print 400000/t}')" "$(ratio "$sb" "$w")"
    done
  done
  echo "   commands: sysbench|lbench oltp_read_only $M $D --threads=T prepare [--load-method=insert]"
  echo "   client/server s = user + sys CPU of the tool / of mariadbd during the load; vs sysbench = its wall time / this one's"
}

# The OLTP load (section "load"): its own sandbox, 1 GiB buffer pool.
bench_load() {
  local M
  sandbox_up /tmp/lbench-bench-load 3328 1G
  oltp_prepare "$M" "--tables=4 --table-size=100000"
  $LB oltp_read_only $M --tables=4 cleanup >/dev/null
  sandbox_down
}

bench_oltp() {
  local M
  sandbox_up /tmp/lbench-bench-sandbox 3327 1G
  local D="--tables=4 --table-size=100000"
  make --no-print-directory build/bare_point_select >/dev/null
  $LB oltp_read_only $M $D cleanup >/dev/null 2>&1 || true
  $LB oltp_read_only $M $D --threads=2 prepare >/dev/null
  # Fixed placement, as the seeds do with taskset: the server on CPU 1, every
  # client on CPU 0.  Unpinned, where the scheduler happens to wake the two
  # sides decides most of the client's kernel time, and runs of the same
  # tool differ by 3x.  BENCH_PIN=0 leaves placement to the scheduler.
  local PIN=()
  if [ "${BENCH_PIN:-1}" = 1 ] && [ "$(nproc)" -ge 2 ]; then
    taskset -a -p -c 1 "$LB_SANDBOX_PID" >/dev/null
    PIN=(taskset -c 0)
    echo "   placement: server on CPU 1, clients on CPU 0 (BENCH_PIN=0 to disable)"
  fi
  echo "== OLTP against the same server, ${SECS}s runs, median of $ROUNDS alternating rounds"
  printf '%-18s %4s %12s %12s %7s %11s %11s %11s %9s %9s\n' test thr "lbench qps" "sysb qps" ratio \
    "lb us/q" "sb us/q" "bare us/q" "lb/sb" "lb/bare"
  for test in oltp_point_select oltp_read_only; do
    for t in 1 2 8; do
      : > "$W/l"; : > "$W/s"; : > "$W/b"
      for _ in $(seq "$ROUNDS"); do
        cpu_run "$W/l" "${PIN[@]}" $LB $test $M $D --threads=$t --time="$SECS" run
        cpu_run "$W/s" "${PIN[@]}" sysbench $test $M $D --threads=$t --time="$SECS" run
        if [ $test = oltp_point_select ]; then
          cpu_run "$W/b" "${PIN[@]}" build/bare_point_select -h 127.0.0.1 -P "$LB_MYSQL_PORT" -u sbtest -p sbtest -d sbtest \
            -t $t -T "$SECS" -n 100000
        fi
      done
      local lq sq lc sc bc rq rs rb
      lq=$(awk -v s="$SECS" '{print $1/s}' "$W/l" | median); sq=$(awk -v s="$SECS" '{print $1/s}' "$W/s" | median)
      lc=$(awk '$1>0 {print $2/$1*1e6}' "$W/l" | median); sc=$(awk '$1>0 {print $2/$1*1e6}' "$W/s" | median)
      bc=$(awk '$1>0 {print $2/$1*1e6}' "$W/b" | median)
      # Ratios within each round (line i of each file is round i), then the
      # median: the machine drifts between rounds, less within one.
      rq=$(paste -d' ' "$W/l" "$W/s" | awk '$3 > 0 {print $1 / $3}' | median)
      rs=$(paste -d' ' "$W/l" "$W/s" | awk '$1 > 0 && $3 > 0 {print ($2 / $1) / ($4 / $3)}' | median)
      rb=-
      if [ $test = oltp_point_select ]; then
        rb=$(paste -d' ' "$W/l" "$W/b" | awk '$1 > 0 && $3 > 0 {print ($2 / $1) / ($4 / $3)}' | median)
        rb=$(printf %.2f "$rb")
      fi
      printf '%-18s %4s %12.0f %12.0f %7.2f %11.2f %11.2f %11s %9.2f %9s\n' $test $t "$lq" "$sq" "$rq" \
        "$lc" "$sc" "$( [ $test = oltp_point_select ] && printf %.2f "$bc" || echo -)" "$rs" "$rb"
    done
  done
  echo "   qps ratio = lbench/sysbench (higher is better); us/q = client CPU (user+sys) per query; lb/sb, lb/bare: CPU ratios (lower is better)"
  echo "   ratios are medians over rounds of the ratio within each round; the absolute columns are medians per tool"
  echo "   commands: lbench|sysbench <test> $M $D --threads=T --time=$SECS run; bare: build/bare_point_select -t T -T $SECS"
  sandbox_down
}

# ---- fileio: lbench vs fio and sysbench fileio on one file set ----------------
# jget FILE EXPR: print a Lua expression over a JSON file (lbench's decoder).
jget() { $LB test/cli/scripts/json_assert.lua check --file="$1" --expr="(function() print($2) return true end)()"; }

# io_run TOOL OUT CMD...: run CMD (client CPU from bash's time = user + sys
# of the process and its threads); append "<iops> <ios> <cpu s>" to OUT.
io_run() {
  local tool=$1 out=$2; shift 2
  local t iops ios
  t=$( { TIMEFORMAT='%U %S'; time "$@" > "$W/io.out" 2>&1; } 2>&1 ) || { echo "   failed: $*" >&2; tail -3 "$W/io.out" >&2; return 1; }
  case $tool in
    lbench) ios=$(jget "$W/lb.json" 'r.io.reads + r.io.writes'); iops=$(jget "$W/lb.json" '(r.io.reads + r.io.writes) / r.duration_s') ;;
    fio) ios=$(jget "$W/fio.json" 'r.jobs[1].read.total_ios + r.jobs[1].write.total_ios')
         iops=$(jget "$W/fio.json" 'r.jobs[1].read.iops + r.jobs[1].write.iops') ;;
    sysbench) iops=$(awk '/reads\/s:/ {r=$2} /writes\/s:/ {w=$2} END {print r + w}' "$W/io.out")
              ios=$(awk -v i="$iops" '/total time:/ {print i * ($3 + 0)}' "$W/io.out") ;;
  esac
  echo "$iops $ios $t" | awk '{print $1, $2, $3 + $4}' >> "$out"
}

# io_irq_cpu PATH: the CPU that has served most interrupts of the PCI device
# behind PATH's filesystem (empty when that cannot be told, e.g. tmpfs).
io_irq_cpu() {
  local dev p
  dev=$(basename "$(df --output=source "$1" | tail -1)")
  p=$(readlink -f "/sys/class/block/$dev" 2>/dev/null) || return 0
  [ -e "$p/partition" ] && p=$(dirname "$p")
  p=$(readlink -f "$p/device" 2>/dev/null) || return 0
  while [ "$p" != / ] && [ ! -d "$p/msi_irqs" ]; do p=$(dirname "$p"); done
  [ -d "$p/msi_irqs" ] || return 0
  awk -v irqs="$(ls "$p/msi_irqs" | tr '\n' ' ')" '
    BEGIN { n = split(irqs, a, " "); for (i = 1; i <= n; i++) want[a[i] ":"] = 1 }
    NR == 1 { ncpu = NF; next }
    want[$1] { for (c = 2; c <= ncpu + 1; c++) sum[c - 2] += $c }
    END { best = -1; for (c in sum) if (best < 0 || sum[c] > sum[best]) best = c; if (best >= 0) print best }' /proc/interrupts
}

bench_fileio() {
  local D=${FILEIO_DIR:-/tmp/lbench-bench-fileio} size=${FILEIO_SIZE:-2G}
  # The shared disk drifts by tens of % within minutes and single runs fall
  # into a fast or a slow phase (QD1: ~15 k or ~11 k IOPS), so a ratio of two
  # runs spreads ±15 %: many short rounds, each alternating the three tools,
  # and ratios taken within each round.  21 rounds of 3 s bring the median
  # ratio's spread to a few per cent; fewer rounds do not settle a 3 % target.
  local ROUNDS=${FILEIO_ROUNDS:-21} SECS=${FILEIO_SECS:-3}
  local NULL_ROUNDS=${FILEIO_NULL_ROUNDS:-5}   # no disk, hardly any noise
  command -v fio >/dev/null || { echo "(fileio: fio not installed; run contrib/install-deps.sh bench)"; return; }
  echo "== fileio: 4 KiB random I/O, O_DIRECT, libaio, one $size file in $D (the same file for all three tools);"
  echo "   ${SECS}s runs, medians of $ROUNDS rounds ($NULL_ROUNDS for the null engine), each round runs lbench, fio and sysbench (order rotating)"
  $LB fileio --target-dir="$D" cleanup >/dev/null 2>&1 || true
  # Every tool on the same CPU, the one that takes the disk's completion
  # interrupts: at QD1 a process woken on the other CPU waits for an IPI and
  # loses ~40 % of its IOPS, so unpinned runs measure the scheduler's
  # placement more than the tool.  BENCH_PIN=0 leaves placement alone.
  local PIN=() cpu
  cpu=$(mkdir -p "$D" && io_irq_cpu "$D")
  if [ "${BENCH_PIN:-1}" = 1 ] && [ -n "$cpu" ]; then
    PIN=(taskset -c "$cpu")
    echo "   placement: every tool on CPU $cpu, which serves the disk's interrupts (BENCH_PIN=0 to disable)"
  fi
  $LB fileio --target-dir="$D" --file-num=1 --file-total-size="$size" --file-block-size=4K --verbosity=1 prepare | tail -1
  local LBF="$LB fileio --target-dir=$D --file-block-size=4K --file-extra-flags=direct --file-io-mode=async --file-fsync-freq=0 --file-fsync-end=off --time=$SECS --verbosity=0 --result-file=$W/lb.json"
  # --randrepeat=0: fio's default replays the same offsets every run, which
  # the host's cache under a virtual disk then serves faster (measured: +5..20 %
  # at QD1 reads); lbench and sysbench seed from the clock, so fio does too.
  local FIO="fio --name=bench --filename=$D/test_file.0 --size=$size --bs=4k --direct=1 --ioengine=libaio --randrepeat=0 --runtime=$SECS --time_based --output-format=json --output=$W/fio.json"
  local SB="sysbench fileio --file-num=1 --file-total-size=$size --file-block-size=4096 --file-io-mode=async --file-extra-flags=direct --file-fsync-freq=0 --file-fsync-end=off --time=$SECS"
  printf '%-15s %11s %11s %11s %6s %6s %9s %9s %9s %6s %6s\n' test "lbench IOPS" "fio IOPS" "sysb IOPS" "l/fio" "l/sb" \
    "lb us/IO" "fio us/IO" "sb us/IO" "l/fio" "l/sb"
  local mode qd
  for mode in randread randwrite; do
    local sbm=rndrd; [ $mode = randwrite ] && sbm=rndwr
    for qd in 1 32; do
      : > "$W/l"; : > "$W/f"; : > "$W/s"
      for r in $(seq "$ROUNDS"); do
        local order=(l f s); [ $((r % 3)) = 2 ] && order=(f s l); [ $((r % 3)) = 0 ] && order=(s l f)
        for x in "${order[@]}"; do
          case $x in
            l) io_run lbench "$W/l" "${PIN[@]}" $LBF --file-test-mode=$sbm --iodepth=$qd run ;;
            f) io_run fio "$W/f" "${PIN[@]}" $FIO --rw=$mode --iodepth=$qd ;;
            s) ( cd "$D" && io_run sysbench "$W/s" "${PIN[@]}" $SB --file-test-mode=$sbm --file-async-backlog=$qd run ) ;;
          esac
        done
      done
      fileio_row "$mode QD$qd" s
    done
  done
  echo "== fileio null engine (no I/O: the tool's own cost per I/O), randread 4 KiB"
  for qd in 1 32; do
    : > "$W/l"; : > "$W/f"; : > "$W/s"
    for r in $(seq "$NULL_ROUNDS"); do
      io_run lbench "$W/l" "${PIN[@]}" $LB fileio --target-dir="$D" --file-block-size=4K --ioengine=null --iodepth=$qd \
        --file-test-mode=rndrd --time="$SECS" --verbosity=0 --result-file="$W/lb.json" run
      io_run fio "$W/f" "${PIN[@]}" fio --name=bench --size="$size" --bs=4k --ioengine=null --rw=randread --iodepth=$qd \
        --runtime="$SECS" --time_based --output-format=json --output="$W/fio.json"
    done
    fileio_row "null QD$qd" -
  done
  echo "   l/fio, l/sb: median over rounds of lbench's figure divided by that tool's in the same round;"
  echo "   the indented line under each row: rounds in which lbench made more IOPS, and the middle half"
  echo "   (25th..75th percentile) of the per-round IOPS ratios, i.e. how far one round can be trusted"
  echo "   targets: IOPS >= 0.97 against both, us/IO <= 1 against both (i.e. against the better of the two)"
  echo "   us/IO = client CPU (user + sys of the tool's process, bash time) per completed I/O"
  echo "   lbench: lbench fileio --target-dir=$D --file-test-mode=rndrd|rndwr --file-block-size=4K --file-io-mode=async --iodepth=Q --file-extra-flags=direct --file-fsync-freq=0 --file-fsync-end=off --time=$SECS run"
  echo "           (its defaults: one io_submit per I/O, except random writes at QD32: up to 4 completions replaced per io_submit)"
  echo "   fio:    fio --name=bench --filename=$D/test_file.0 --size=$size --rw=randread|randwrite --bs=4k --direct=1 --ioengine=libaio --randrepeat=0 --iodepth=Q --runtime=$SECS --time_based"
  echo "   sysbench (in $D): sysbench fileio --file-num=1 --file-total-size=$size --file-block-size=4096 --file-test-mode=rndrd|rndwr --file-io-mode=async --file-async-backlog=Q --file-extra-flags=direct --file-fsync-freq=0 --time=$SECS run"
  $LB fileio --target-dir="$D" cleanup >/dev/null 2>&1 || true
}

# fileio_row LABEL s|-: medians of $W/l, $W/f (and $W/s) as one table row.
fileio_row() {
  local li fo si lc fc sc
  li=$(awk '{print $1}' "$W/l" | median); fo=$(awk '{print $1}' "$W/f" | median)
  lc=$(awk '$2>0 {print $3/$2*1e6}' "$W/l" | median); fc=$(awk '$2>0 {print $3/$2*1e6}' "$W/f" | median)
  if [ "$2" = s ]; then
    si=$(awk '{print $1}' "$W/s" | median); sc=$(awk '$2>0 {print $3/$2*1e6}' "$W/s" | median)
  else si=0; sc=0; fi
  # Per-round ratios (line i of each file is round i), one tool at a time:
  # the machine drifts between rounds more than within one, and comparing
  # with the per-round maximum of two noisy tools would favour them by
  # about half a standard deviation of that noise.
  local rf rs cf cs
  rf=$(paste -d' ' "$W/l" "$W/f" | awk '$4 > 0 {print $1 / $4}' | median)
  cf=$(paste -d' ' "$W/l" "$W/f" | awk '$2 > 0 && $5 > 0 && $6 > 0 {print ($3 / $2) / ($6 / $5)}' | median)
  if [ "$2" = s ]; then
    rs=$(paste -d' ' "$W/l" "$W/s" | awk '$4 > 0 {print $1 / $4}' | median)
    cs=$(paste -d' ' "$W/l" "$W/s" | awk '$2 > 0 && $5 > 0 && $6 > 0 {print ($3 / $2) / ($6 / $5)}' | median)
  fi
  printf '%-15s %11.0f %11.0f %11s %6.3f %6s %9.2f %9.2f %9s %6.3f %6s\n' "$1" "$li" "$fo" \
    "$( [ "$2" = s ] && printf %.0f "$si" || echo -)" "$rf" "$( [ "$2" = s ] && printf %.3f "$rs" || echo -)" \
    "$lc" "$fc" "$( [ "$2" = s ] && printf %.2f "$sc" || echo -)" \
    "$cf" "$( [ "$2" = s ] && printf %.3f "$cs" || echo -)"
  [ "$2" = s ] || return 0
  printf '%-15s ahead of fio in %s, middle half %s; ahead of sysbench in %s, middle half %s\n' "" \
    "$(ratio_spread "$W/f")" "$(ratio_spread "$W/f" q)" "$(ratio_spread "$W/s")" "$(ratio_spread "$W/s" q)"
}

# ratio_spread FILE [q]: over the rounds, lbench's IOPS ($W/l) against FILE's:
# "W/N rounds", or with q the 25th..75th percentile of the ratios.
ratio_spread() {
  if [ "${2:-}" = q ]; then
    paste -d' ' "$W/l" "$1" | awk '$4 > 0 {print $1 / $4}' | sort -g |
      awk '{r[NR] = $1} END { if (NR == 0) { print "n/a"; exit }
        printf "%.2f..%.2f", r[int((NR - 1) * 0.25) + 1], r[NR - int((NR - 1) * 0.25)] }'
  else
    paste -d' ' "$W/l" "$1" | awk '$4 > 0 {n++; if ($1 > $4) w++} END {printf "%d/%d rounds", w, n}'
  fi
}

# TPC-C: load time of 2 warehouses (2 loader threads), then tpmC with the
# client's and the server's CPU per transaction at 4 connections (60 s runs
# unless SECS is given).  Anchors (ANCHORS.md, same machine): tpcc-mysql
# loads 2 warehouses in 67 s and reaches 12 579 tpmC at 4 connections.
bench_tpcc() {
  local secs W2="--warehouses=2"
  secs=$(printenv SECS || echo 60)
  local M
  sandbox_up /tmp/lbench-bench-tpcc 3377 1G
  local spid=$LB_SANDBOX_PID
  srv_cpu() { awk '{print ($14 + $15) / 100}' "/proc/$spid/stat"; }
  echo "== TPC-C load of 2 warehouses (--threads=2), bulk (LOAD DATA) and --load-method=insert alternating, median of $ROUNDS"
  : > "$W/tl"; : > "$W/ti"
  for _ in $(seq "$ROUNDS"); do
    for m in insert bulk; do
      $LB tpcc $M cleanup >/dev/null
      local s0 s1 t
      s0=$(srv_cpu)
      t=$( { TIMEFORMAT='%R %U %S'; time $LB tpcc $M $W2 --threads=2 --load-method=$m prepare >/dev/null; } 2>&1 )
      s1=$(srv_cpu)
      echo "$t $s0 $s1" | awk '{print $1, $2 + $3, $5 - $4}' >> "$W/$( [ $m = bulk ] && echo tl || echo ti)"
    done
  done
  local it ic is
  it=$(awk '{print $1}' "$W/ti" | median); ic=$(awk '{print $2}' "$W/ti" | median); is=$(awk '{print $3}' "$W/ti" | median)
  printf '   --load-method=insert %.2f s; CPU: client %.2f s, server %.2f s\n' "$it" "$ic" "$is"
  local rows lt lc ls
  rows=$(mariadb -h127.0.0.1 -P"$LB_MYSQL_PORT" -usbtest -psbtest sbtest -N -e "SELECT (SELECT COUNT(*) FROM item) +
    (SELECT COUNT(*) FROM warehouse) + (SELECT COUNT(*) FROM district) + (SELECT COUNT(*) FROM customer) +
    (SELECT COUNT(*) FROM history) + (SELECT COUNT(*) FROM orders) + (SELECT COUNT(*) FROM new_orders) +
    (SELECT COUNT(*) FROM order_line) + (SELECT COUNT(*) FROM stock)")
  lt=$(awk '{print $1}' "$W/tl" | median); lc=$(awk '{print $2}' "$W/tl" | median); ls=$(awk '{print $3}' "$W/tl" | median)
  printf '   bulk %.2f s for %d rows (%.0f rows/s); CPU: client %.2f s, server %.2f s; %.2fx the insert path; tpcc-mysql: 67 s (%.1fx faster)\n' \
    "$lt" "$rows" "$(awk -v r="$rows" -v t="$lt" 'BEGIN{print r/t}')" "$lc" "$ls" "$(awk -v a="$it" -v t="$lt" 'BEGIN{print a/t}')" \
    "$(awk -v t="$lt" 'BEGIN{print 67/t}')"
  echo "== TPC-C run: 2 warehouses, 4 connections, ${secs}s, median of $ROUNDS"
  : > "$W/tr"
  for _ in $(seq "$ROUNDS"); do
    local s0 s1 t
    s0=$(srv_cpu)
    t=$( { TIMEFORMAT='%U %S'; time $LB tpcc $M $W2 --threads=4 --time="$secs" --result-file="$W/tpcc.json" run >/dev/null; } 2>&1 )
    s1=$(srv_cpu)
    local tpmc ntx p90
    tpmc=$(jget "$W/tpcc.json" 'r.tpcc.tpmC'); ntx=$(jget "$W/tpcc.json" 'r.totals.events')
    p90=$(jget "$W/tpcc.json" 'r.types.new_order.latency_ms.percentiles["90"]')
    echo "$tpmc $ntx $t $s0 $s1 $p90" | awk '{c = $3 + $4; s = $6 - $5; print $1, c / $2 * 1e6, s / $2 * 1e6, 100 * c / (c + s), $7}' >> "$W/tr"
  done
  local tp cc sc share np
  tp=$(awk '{print $1}' "$W/tr" | median); cc=$(awk '{print $2}' "$W/tr" | median); sc=$(awk '{print $3}' "$W/tr" | median)
  share=$(awk '{print $4}' "$W/tr" | median); np=$(awk '{print $5}' "$W/tr" | median)
  printf '%12s %12s %14s %14s %14s %12s\n' tpmC "vs 12579" "client us/tx" "server us/tx" "client % CPU" "NO p90 ms"
  printf '%12.0f %12s %14.1f %14.1f %14.1f %12.2f\n' "$tp" "$(ratio "$tp" 12579)" "$cc" "$sc" "$share" "$np"
  echo "   commands: lbench tpcc $M $W2 --threads=2 prepare; lbench tpcc ... $W2 --threads=4 --time=$secs run"
  echo "   tx = any of the five transactions; client/server CPU = user + sys of lbench / of mariadbd during the run"
  $LB tpcc $M cleanup >/dev/null
  sandbox_down
}

# Many connections: 1,000 point-select connections at a fixed rate, as
# lbench async (2 threads), lbench thread mode and sysbench (1,000 threads
# each).  Client peak RSS (VmHWM) and CPU per query (user + sys / queries),
# median of ROUNDS; then the largest connection count tried (MAX_CONNS).
bench_async() {
  local conns=${CONNS:-1000} rate=${RATE:-5000} maxc=${MAX_CONNS:-10000}
  # The thread pool lets one small server hold 10,000 connections.
  export LB_SANDBOX_MAX_CONNECTIONS=$((maxc + 200)) LB_SANDBOX_THREAD_POOL=1
  local M
  sandbox_up /tmp/lbench-bench-async 3387 512M
  local D="--tables=4 --table-size=100000"
  $LB oltp_point_select $M $D cleanup >/dev/null 2>&1 || true
  $LB oltp_point_select $M $D --threads=2 prepare >/dev/null
  # mem_run OUTFILE CMD...: appends "<queries> <cpu s> <peak RSS KiB>"; CPU
  # from bash's time, the peak from /proc/PID/status polled meanwhile.
  mem_run() {
    local out=$1; shift
    rm -f "$W/pid" "$W/hwm"
    ( while [ ! -s "$W/pid" ]; do sleep 0.05; done; local p h; p=$(cat "$W/pid")
      while kill -0 "$p" 2>/dev/null; do
        h=$(awk '/^VmHWM:/ {print $2}' "/proc/$p/status" 2>/dev/null); [ -n "$h" ] && echo "$h" > "$W/hwm"; sleep 0.2
      done ) &
    local poller=$! t q
    t=$( { TIMEFORMAT='%U %S'; time sh -c 'echo $$ > "$0"; exec "$@"' "$W/pid" "$@" > "$W/cmd.out" 2>&1; } 2>&1 ) ||
      { echo "   failed: $*" >&2; tail -3 "$W/cmd.out" >&2; wait $poller; return 1; }
    wait $poller || true
    q=$(awk '/^ *queries: / {print $2; exit}' "$W/cmd.out")
    echo "$q $t $(cat "$W/hwm" 2>/dev/null || echo 0)" | awk '{print $1, $2 + $3, $4}' >> "$out"
  }
  echo "== $conns connections doing point selects at $rate/s for ${SECS}s, median of $ROUNDS alternating rounds"
  : > "$W/aa"; : > "$W/at"; : > "$W/as"
  for _ in $(seq "$ROUNDS"); do
    mem_run "$W/aa" $LB oltp_point_select $M $D --threads=2 --connections="$conns" --rate="$rate" --time="$SECS" run
    mem_run "$W/at" $LB oltp_point_select $M $D --threads="$conns" --rate="$rate" --time="$SECS" run
    mem_run "$W/as" sysbench oltp_point_select $M $D --threads="$conns" --rate="$rate" --time="$SECS" run
  done
  printf '%-34s %10s %12s %12s %10s %10s\n' client qps "RSS MiB" "CPU us/q" "RSS vs sb" "CPU vs sb"
  local sr sc
  sr=$(awk '{print $3 / 1024}' "$W/as" | median); sc=$(awk '$1 > 0 {print $2 / $1 * 1e6}' "$W/as" | median)
  for row in "aa:lbench async, 2 threads" "at:lbench thread mode, $conns threads" "as:sysbench, $conns threads"; do
    local f=${row%%:*} name=${row#*:} q r c
    q=$(awk -v s="$SECS" '{print $1 / s}' "$W/$f" | median)
    r=$(awk '{print $3 / 1024}' "$W/$f" | median); c=$(awk '$1 > 0 {print $2 / $1 * 1e6}' "$W/$f" | median)
    printf '%-34s %10.0f %12.1f %12.2f %10s %10s\n' "$name" "$q" "$r" "$c" "$(ratio "$r" "$sr")" "$(ratio "$c" "$sc")"
  done
  echo "   commands: lbench oltp_point_select $M $D --threads=2 --connections=$conns --rate=$rate --time=$SECS run"
  echo "             lbench|sysbench oltp_point_select ... --threads=$conns --rate=$rate --time=$SECS run"
  echo "   RSS = peak resident set (VmHWM) of the client; CPU us/q = client user+sys per query; ratios: lower is better"
  echo "== the same connections, unpaced: CPU per query of async vs thread mode (2 and 8 connections on 2 threads)"
  printf '%-12s %14s %14s %14s %14s %8s\n' connections "thread qps" "async qps" "thread us/q" "async us/q" ratio
  for c in 2 8; do
    : > "$W/ut"; : > "$W/ua"
    for _ in $(seq "$ROUNDS"); do
      cpu_run "$W/ut" $LB oltp_point_select $M $D --threads="$c" --time="$SECS" run
      cpu_run "$W/ua" $LB oltp_point_select $M $D --threads=2 --connections="$c" --time="$SECS" run
    done
    local tq aq tc ac
    tq=$(awk -v s="$SECS" '{print $1 / s}' "$W/ut" | median); aq=$(awk -v s="$SECS" '{print $1 / s}' "$W/ua" | median)
    tc=$(awk '$1 > 0 {print $2 / $1 * 1e6}' "$W/ut" | median); ac=$(awk '$1 > 0 {print $2 / $1 * 1e6}' "$W/ua" | median)
    printf '%-12s %14.0f %14.0f %14.2f %14.2f %8s\n' "$c" "$tq" "$aq" "$tc" "$ac" "$(ratio "$ac" "$tc")"
  done
  echo "   thread: --threads=C; async: --threads=2 --connections=C; ratio = async/thread CPU per query (lower is better)"
  echo "== $maxc connections on 2 threads at $rate/s (server: thread pool, max_connections=$LB_SANDBOX_MAX_CONNECTIONS)"
  : > "$W/am"
  local msecs=$(( SECS > 10 ? SECS : 10 ))
  if mem_run "$W/am" $LB oltp_point_select $M $D --threads=2 --connections="$maxc" --rate="$rate" --time="$msecs" \
       --result-file="$W/max.json" run; then
    printf '   %d connections: %.0f qps, peak RSS %.1f MiB (%.1f KB per connection), %s errors, %s connections without events,\n' \
      "$maxc" "$(awk -v s="$msecs" '{print $1 / s}' "$W/am")" "$(awk '{print $3 / 1024}' "$W/am")" \
      "$(awk -v n="$maxc" '{print $3 / n}' "$W/am")" "$(jget "$W/max.json" 'r.totals.errors')" \
      "$(jget "$W/max.json" 'r.fairness.connections.unused')"
    printf '   opened in %s s (%s transient failures retried)\n' "$(jget "$W/max.json" 'r.connect.opened_s')" \
      "$(jget "$W/max.json" 'r.connect.retried')"
    echo "   command: lbench oltp_point_select $M $D --threads=2 --connections=$maxc --rate=$rate --time=$msecs run"
  fi
  $LB oltp_point_select $M $D cleanup >/dev/null
  sandbox_down
}

# ---- pgsql: lbench vs sysbench's pgsql driver, the bare libpq loop, pgbench --
# One private PostgreSQL (port 5446 or BENCH_PG_PORT, shared_buffers=1GB, synchronous_commit
# off) for the whole section.  The helpers below read bench_pgsql's locals
# (P: lbench/sysbench options, D: tables, G: pgbench/psql connection, PIN).

# pg_psql ARGS...: psql as sbtest, unaligned, one value per line.
pg_psql() { PGPASSWORD=sbtest psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$LB_PG_PORT" -U sbtest -d sbtest "$@"; }

# pg_start: start the sandbox in a fresh directory whose parent the server's
# OS user (postgres, when we are root) can enter; the EXIT trap stops it.
pg_start() {
  PG_TMP=$(mktemp -d "${TMPDIR:-/tmp}/lbench-bench-pg.XXXXXX")
  chmod 755 "$PG_TMP"
  export LB_PG_SANDBOX_DIR=$PG_TMP/pg LB_PG_SANDBOX_PORT=${BENCH_PG_PORT:-5446} LB_PG_SANDBOX_SHARED_BUFFERS=1GB
  trap 'contrib/postgres-sandbox.sh stop; rm -rf "$PG_TMP" "$W"' EXIT
  contrib/postgres-sandbox.sh start
  set -a; . "$LB_PG_SANDBOX_DIR/env"; set +a
  # The sandbox passes no extra server settings (and keeps the durability
  # defaults), so synchronous_commit goes through ALTER SYSTEM.  A reload is
  # asynchronous: wait until new sessions see it.
  pg_psql -c "ALTER SYSTEM SET synchronous_commit = off" -c "SELECT pg_reload_conf()" >/dev/null
  for _ in $(seq 50); do
    [ "$(pg_psql -c 'SHOW synchronous_commit')" = off ] && break
    sleep 0.1
  done
  echo "   server: PostgreSQL $(pg_psql -c 'SHOW server_version'), port $LB_PG_PORT, shared_buffers=$(pg_psql -c 'SHOW shared_buffers')," \
    "synchronous_commit=$(pg_psql -c 'SHOW synchronous_commit')"
}

# pg_settle: write out the load and vacuum it now, so that neither the
# checkpointer nor autovacuum (due after a bulk load) runs during a round.
pg_settle() { pg_psql -c "VACUUM ANALYZE" -c "CHECKPOINT"; }

# pg_pin: the postmaster and the processes it has forked on CPU 1 (backends
# forked later inherit its mask), the clients on CPU 0 (sets PIN), as in the
# oltp section.  BENCH_PIN=0 leaves placement to the scheduler.
pg_pin() {
  PIN=()
  [ "${BENCH_PIN:-1}" = 1 ] && [ "$(nproc)" -ge 2 ] || return 0
  local p
  for p in "$LB_PG_SANDBOX_PID" $(pgrep -P "$LB_PG_SANDBOX_PID"); do
    taskset -a -p -c 1 "$p" >/dev/null 2>&1 || true   # an autovacuum worker may have ended
  done
  PIN=(taskset -c 0)
  echo "   placement: server (postmaster and every backend) on CPU 1, clients on CPU 0 (BENCH_PIN=0 to disable)"
}

# pg_timed FILE CMD...: append CMD's wall time in seconds to FILE; CMD's own
# output goes to $W/cmd.out (its tail is shown if it fails).
pg_timed() {
  local f=$1; shift
  { TIMEFORMAT=%R; time "$@" > "$W/cmd.out" 2>&1; } 2>> "$f" || { echo "   failed: $*" >&2; tail -3 "$W/cmd.out" >&2; return 1; }
}

# pg_prepare_oltp: the 4 x 100k-row load by sysbench and by lbench at 1
# and 2 threads each (the same thread count for both tools), alternating,
# median of ROUNDS; lbench's last load is the one kept.
pg_prepare_oltp() {
  echo "== prepare of 4 x 100k rows, same thread count for both tools, median of $ROUNDS alternating rounds; no pinning"
  printf '%-8s %-10s %8s %10s %12s\n' threads tool "wall s" "rows/s" "vs sysbench"
  local t r
  for t in 1 2; do
    : > "$W/plb$t"; : > "$W/psb$t"
    for r in $(seq "$ROUNDS"); do
      sysbench oltp_read_only $P $D cleanup >/dev/null 2>&1 || true
      pg_timed "$W/psb$t" sysbench oltp_read_only $P $D --threads=$t prepare
      sysbench oltp_read_only $P $D cleanup >/dev/null
      pg_timed "$W/plb$t" $LB oltp_read_only $P $D --threads=$t prepare
      [ $t = 2 ] && [ "$r" = "$ROUNDS" ] || $LB oltp_read_only $P $D cleanup >/dev/null
    done
    local a b
    a=$(median < "$W/plb$t"); b=$(median < "$W/psb$t")
    printf '%-8s %-10s %8.2f %10.0f %12s\n' $t sysbench "$b" "$(awk -v t="$b" 'BEGIN{print 400000/t}')" 1.00
    printf '%-8s %-10s %8.2f %10.0f %12s\n' $t lbench "$a" "$(awk -v t="$a" 'BEGIN{print 400000/t}')" "$(ratio "$b" "$a")"
  done
  echo "   commands: sysbench|lbench oltp_read_only $P $D --threads=T prepare; vs sysbench = its wall time / this one's"
}

# pg_oltp: point select and read-only at 1, 2, 8 threads: lbench, sysbench
# and (point select) the bare libpq loop, alternating within each round.
pg_oltp() {
  echo "== OLTP on PostgreSQL, ${SECS}s runs, median of $ROUNDS alternating rounds"
  printf '%-18s %4s %12s %12s %7s %11s %11s %11s %9s %9s %21s\n' test thr "lbench qps" "sysb qps" ratio \
    "lb us/q" "sb us/q" "bare us/q" "lb/sb" "lb/bare" "user us/q lb/sb/bare"
  local test t
  for test in oltp_point_select oltp_read_only; do
    for t in 1 2 8; do
      : > "$W/l"; : > "$W/s"; : > "$W/b"; : > "$W/l.sys"; : > "$W/s.sys"; : > "$W/b.sys"
      for _ in $(seq "$ROUNDS"); do
        cpu_run "$W/l" "${PIN[@]}" $LB $test $P $D --threads=$t --time="$SECS" run
        cpu_run "$W/s" "${PIN[@]}" sysbench $test $P $D --threads=$t --time="$SECS" run
        if [ $test = oltp_point_select ]; then
          cpu_run "$W/b" "${PIN[@]}" build/bare_pg_point_select -h 127.0.0.1 -P "$LB_PG_PORT" -u sbtest -p sbtest -d sbtest \
            -t $t -T "$SECS" -n 100000
        fi
      done
      pg_oltp_row $test $t
    done
  done
  echo "   qps ratio = lbench/sysbench (higher is better); us/q = client CPU (user+sys) per query; lb/sb, lb/bare: CPU ratios (lower is better)"
  echo "   user us/q: the client's CPU outside the kernel per query (the rest, the kernel's share of send/poll/recv, is the floor)"
  echo "   ratios are medians over rounds of the ratio within each round; the absolute columns are medians per tool"
  echo "   commands: lbench|sysbench <test> $P $D --threads=T --time=$SECS run"
  echo "             bare: build/bare_pg_point_select -h 127.0.0.1 -P $LB_PG_PORT -u sbtest -p sbtest -d sbtest -t T -T $SECS -n 100000"
}

# pg_oltp_row TEST T: one table row from $W/l, $W/s, $W/b ("<queries> <cpu s>" per round).
pg_oltp_row() {
  local test=$1 t=$2 lq sq lc sc bc rq rs rb=- bcol=-
  lq=$(awk -v s="$SECS" '{print $1/s}' "$W/l" | median); sq=$(awk -v s="$SECS" '{print $1/s}' "$W/s" | median)
  lc=$(awk '$1>0 {print $2/$1*1e6}' "$W/l" | median); sc=$(awk '$1>0 {print $2/$1*1e6}' "$W/s" | median)
  rq=$(paste -d' ' "$W/l" "$W/s" | awk '$3 > 0 {print $1 / $3}' | median)
  rs=$(paste -d' ' "$W/l" "$W/s" | awk '$1 > 0 && $3 > 0 {print ($2 / $1) / ($4 / $3)}' | median)
  if [ "$test" = oltp_point_select ]; then
    bc=$(awk '$1>0 {print $2/$1*1e6}' "$W/b" | median)
    bcol=$(printf %.2f "$bc")
    rb=$(paste -d' ' "$W/l" "$W/b" | awk '$1 > 0 && $3 > 0 {print ($2 / $1) / ($4 / $3)}' | median)
    rb=$(printf %.2f "$rb")
  fi
  # User-space CPU per query of each tool: total minus the kernel's share.
  user_us() { paste -d' ' "$1" "$1.sys" | awk '$1 > 0 {print ($2 - $3) / $1 * 1e6}' | median; }
  local users
  users=$(printf '%.2f/%.2f/%s' "$(user_us "$W/l")" "$(user_us "$W/s")" \
    "$( [ "$test" = oltp_point_select ] && printf %.2f "$(user_us "$W/b")" || echo -)")
  printf '%-18s %4s %12.0f %12.0f %7.2f %11.2f %11.2f %11s %9.2f %9s %21s\n' "$test" "$t" "$lq" "$sq" "$rq" \
    "$lc" "$sc" "$bcol" "$rs" "$rb" "$users"
}

# pgb_run lbench|pgbench OUT CMD...: run CMD (client CPU from bash's time);
# append "<transactions> <cpu s> <tps>" to OUT ("0 0 0" if it failed, so that
# line i of each file stays round i).
pgb_run() {
  local tool=$1 out=$2; shift 2
  local t n tps
  rm -f "$W/pgb.json"
  t=$( { TIMEFORMAT='%U %S'; time "$@" > "$W/cmd.out" 2>&1; } 2>&1 ) ||
    { echo "   failed: $*" >&2; tail -3 "$W/cmd.out" >&2; echo "0 0 0" >> "$out"; return 0; }
  case $tool in
    lbench) n=$(jget "$W/pgb.json" 'r.totals.events'); tps=$(jget "$W/pgb.json" 'r.totals.events_per_sec') ;;
    pgbench) n=$(awk -F': *' '/^number of transactions actually processed:/ {split($2, a, "/"); print a[1]}' "$W/cmd.out")
             tps=$(awk '/^tps = / {print $3; exit}' "$W/cmd.out") ;;
  esac
  echo "${n:-0} $t ${tps:-0}" | awk '{print $1, $2 + $3, $4}' >> "$out"
}

# pg_pgbench_load HAVE_LB: scale 10 loaded by lbench (if HAVE_LB=1) and by
# pgbench -i, median of ROUNDS; pgbench's load (run last) is the one kept.
pg_pgbench_load() {
  echo "== pgbench tables, scale 10 (1M accounts): lbench pgbench --scale=10 prepare (1 thread, as pgbench -i, and 2)" \
    "vs pgbench -i -s 10, median of $ROUNDS alternating rounds; no pinning"
  : > "$W/gl1"; : > "$W/gl2"; : > "$W/gp"
  local t
  for _ in $(seq "$ROUNDS"); do
    if [ "$1" = 1 ]; then
      for t in 1 2; do
        $LB pgbench $P cleanup >/dev/null 2>&1 || true
        pg_timed "$W/gl$t" $LB pgbench $P --scale=10 --threads=$t prepare || { echo "   (lbench pgbench prepare failed)"; : > "$W/gl$t"; }
      done
      $LB pgbench $P cleanup >/dev/null 2>&1 || true
    fi
    pg_timed "$W/gp" env PGPASSWORD=sbtest "$PGB" $G -i -s 10 sbtest
  done
  local b
  b=$(median < "$W/gp")
  printf '   pgbench -i %.2f s\n' "$b"
  for t in 1 2; do
    [ -s "$W/gl$t" ] || { echo "   lbench $t thread(s): no figure"; continue; }
    printf '   lbench %s thread(s) %.2f s   speed ratio lbench/pgbench %s\n' $t "$(median < "$W/gl$t")" "$(ratio "$b" "$(median < "$W/gl$t")")"
  done
  echo "   commands: lbench pgbench $P --scale=10 --threads=T prepare; $PGB $G -i -s 10 sbtest"
}

# pg_pgbench HAVE_LB: select-only and tpcb-like at 1, 2, 8 clients (one
# connection per thread), lbench pgbench vs pgbench -M prepared.
pg_pgbench() {
  echo "== pgbench workloads, ${SECS}s runs, median of $ROUNDS alternating rounds"
  printf '%-18s %4s %12s %12s %7s %12s %12s %9s\n' builtin clients "lbench tps" "pgbench tps" ratio "lb us/tx" "pgb us/tx" "lb/pgb"
  local b t
  for b in select-only tpcb-like; do
    for t in 1 2 8; do
      : > "$W/l"; : > "$W/g"
      for _ in $(seq "$ROUNDS"); do
        if [ "$1" = 1 ]; then
          pgb_run lbench "$W/l" "${PIN[@]}" $LB pgbench $P --builtin=$b --threads=$t --time="$SECS" \
            --result-file="$W/pgb.json" run
        fi
        pgb_run pgbench "$W/g" "${PIN[@]}" env PGPASSWORD=sbtest "$PGB" $G -M prepared -c $t -j $t -T "$SECS" -b $b sbtest
      done
      pg_pgbench_row $b $t
    done
  done
  echo "   ratio = lbench/pgbench tps (higher is better); us/tx = client CPU (user+sys) per transaction; lb/pgb: CPU ratio (lower is better)"
  echo "   ratios are medians over rounds of the ratio within each round; tps: pgbench's 'without initial connection time', lbench's events_per_sec"
  echo "   commands: lbench pgbench $P --builtin=B --threads=T --time=$SECS run"
  echo "             $PGB $G -M prepared -c T -j T -T $SECS -b B sbtest   (with PGPASSWORD=sbtest)"
}

# pg_pgbench_row B T: one table row from $W/g (and $W/l when it has rounds);
# failed rounds ("0 0 0") are left out.
pg_pgbench_row() {
  local gt gc lt=- lc=- rt=- rc=-
  gt=$(awk '$1>0 {print $3}' "$W/g" | median); gc=$(awk '$1>0 {print $2/$1*1e6}' "$W/g" | median)
  if [ -n "$(awk '$1 > 0' "$W/l")" ]; then   # some lbench round succeeded
    lt=$(awk '$1>0 {print $3}' "$W/l" | median); lc=$(awk '$1>0 {print $2/$1*1e6}' "$W/l" | median)
    lt=$(printf %.0f "$lt"); lc=$(printf %.2f "$lc")
    rt=$(paste -d' ' "$W/l" "$W/g" | awk '$3 > 0 && $6 > 0 {print $3 / $6}' | median)
    rc=$(paste -d' ' "$W/l" "$W/g" | awk '$1 > 0 && $4 > 0 && $5 > 0 {print ($2 / $1) / ($5 / $4)}' | median)
    rt=$(printf %.2f "$rt"); rc=$(printf %.2f "$rc")
  fi
  printf '%-18s %4s %12s %12.0f %7s %12s %12.2f %9s\n' "$1" "$2" "$lt" "$gt" "$rt" "$lc" "$gc" "$rc"
}

bench_pgsql() {
  local c
  for c in psql pgbench sysbench; do
    command -v $c >/dev/null || { echo "(pgsql: $c not installed; run contrib/install-deps.sh bench)"; return; }
  done
  # (not `sysbench --help | grep -q`: under pipefail grep's early exit fails the pipe)
  [[ "$(sysbench --help 2>&1)" == *"pgsql - "* ]] || { echo "(pgsql: this sysbench has no pgsql driver)"; return; }
  echo "== PostgreSQL: lbench vs sysbench --db-driver=pgsql, the bare libpq loop and pgbench"
  pg_start
  local P="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$LB_PG_PORT --pgsql-user=sbtest --pgsql-password=sbtest --pgsql-db=sbtest"
  local D="--tables=4 --table-size=100000"
  local G="-h 127.0.0.1 -p $LB_PG_PORT -U sbtest"
  local PIN=() PGB
  # pgbench next to the server's own binary: /usr/bin/pgbench is Debian's
  # pg_wrapper, a Perl script that costs ~35 ms of client CPU per run.
  PGB=$(dirname "$(readlink "/proc/$LB_PG_SANDBOX_PID/exe")")/pgbench
  [ -x "$PGB" ] || PGB=$(command -v pgbench)
  make --no-print-directory build/bare_pg_point_select >/dev/null
  # lbench's pgbench scenario is being written separately: without it, only
  # pgbench's own figures are printed.  (`lbench X --help` prints the general
  # help even for an unknown X; the `help` command fails for one.)
  local have_lb=1
  if ! $LB pgbench help > "$W/cmd.out" 2>&1; then
    have_lb=0
    echo "   (lbench pgbench is not available: '$(head -1 "$W/cmd.out")'; pgbench's own figures only)"
  fi
  # Both loads unpinned (as in the oltp section), then the runs pinned; the
  # two sets of tables (~0.3 GB) fit in shared_buffers together.
  pg_prepare_oltp
  pg_pgbench_load $have_lb
  pg_settle
  pg_pin
  pg_oltp
  pg_pgbench $have_lb
  $LB oltp_read_only $P $D cleanup >/dev/null
  contrib/postgres-sandbox.sh stop
  rm -rf "$PG_TMP"
  trap 'rm -rf "$W"' EXIT
}

# ---- lbench-mpi: what running as several ranks costs ----------------------------
# The same job as K ranks x 1 thread and as 1 process x K threads (null
# driver and the empty event), and the time rank 0 spends from its own end
# to the merged report (merge_ms in the document) for 2 and 4 ranks.
mpi_eps() { # mpi_eps OUT RANKS THREADS ARGS...: events/s of one run into OUT
  local out=$1 k=$2 t=$3; shift 3
  if [ "$k" -gt 1 ]; then
    mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$k" ./lbench-mpi "$@" --threads="$t" --time="$SECS" \
      --verbosity=0 --result-file="$W/m.json" run >/dev/null
  else
    $LB "$@" --threads="$t" --time="$SECS" --verbosity=0 --result-file="$W/m.json" run >/dev/null
  fi
  jget "$W/m.json" "r.totals.events_per_sec" >> "$out"
}

bench_mpi() {
  if [ ! -x ./lbench-mpi ]; then echo "(section mpi: lbench-mpi not built)"; return; fi
  export OMPI_MCA_btl_vader_single_copy_mechanism=none
  echo "== lbench-mpi: 2 ranks x 1 thread against 1 process x 2 threads, ${SECS}s runs, median of $ROUNDS rounds"
  printf 'function event() end\n' > "$W/empty.lua"
  printf '%-22s %16s %16s %8s\n' workload "2 ranks ev/s" "1 proc ev/s" ratio
  local name
  for name in empty null_sql; do
    : > "$W/k2"; : > "$W/k1"
    local args=("$W/empty.lua")
    [ "$name" = null_sql ] && args=(oltp_point_select --db-driver=null)
    for _ in $(seq "$ROUNDS"); do
      mpi_eps "$W/k2" 2 1 "${args[@]}"
      mpi_eps "$W/k1" 1 2 "${args[@]}"
    done
    local a b
    a=$(median < "$W/k2"); b=$(median < "$W/k1")
    printf '%-22s %16.0f %16.0f %8s\n' "$name" "$a" "$b" "$(ratio "$a" "$b")"
  done
  echo "== lbench-mpi: rank 0's time from its end to the merged report (merge_ms), --report-interval=1"
  local k
  for k in 2 4; do
    : > "$W/mm"
    for _ in $(seq "$ROUNDS"); do
      mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$k" ./lbench-mpi "$W/empty.lua" --threads=1 \
        --time="$SECS" --report-interval=1 --verbosity=0 --result-file="$W/m.json" run >/dev/null
      jget "$W/m.json" "r.merge_ms" >> "$W/mm"
    done
    printf '   %d ranks: %.1f ms\n' "$k" "$(median < "$W/mm")"
  done
  echo "   commands: mpirun -np 2 lbench-mpi X --threads=1 --time=$SECS run   vs   lbench X --threads=2 --time=$SECS run"
}

# ---- lbench-mpi at scale: rank 0's merge with 10, 100 and 1,000 ranks -------------
# No MPI: synthetic rank parts through the merge code lbench-mpi runs on
# rank 0 (contrib/merge_bench.lua prints the table; ROUNDS medians).
bench_merge() {
  $LB contrib/merge_bench.lua bench --ranks="${MERGE_RANKS:-10,100,1000}" --rounds="$((ROUNDS > 5 ? ROUNDS : 5))"
}

. contrib/bench-observe.sh
. contrib/bench-sbbuiltin.sh
. contrib/bench-pgscript.sh

for s in "${sections[@]}"; do
  if declare -F "bench_$s" >/dev/null; then "bench_$s"; else echo "(section $s: not available yet)"; fi
done

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

for s in "${sections[@]}"; do
  if declare -F "bench_$s" >/dev/null; then "bench_$s"; else echo "(section $s: not available yet)"; fi
done

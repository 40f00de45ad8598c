#!/usr/bin/env bash
# sysbench 1.0.20's own test suite (tests/t/*.t, run by cram) side by side:
# once with the real sysbench, once with a `sysbench` on PATH that is a
# symlink to lbench, both against one private MariaDB sandbox.
#
# Usage: contrib/sbcram.sh SYSBENCH_SRC [CASE.t ...]
#   SYSBENCH_SRC  a checkout of akopytov/sysbench at tag 1.0.20 (its tests/
#                 and src/lua/ are read; nothing is copied into this tree)
#   CASE.t        only these cases (names as in tests/t/)
#
# Environment (defaults in brackets):
#   LBENCH            [./lbench]              the lbench binary
#   SYSBENCH          [sysbench on PATH]      the real sysbench 1.0.20
#   SBCRAM_OUT        [/tmp/lbench-sbcram]    work directory: bin dirs, .err diffs, logs
#   SBCRAM_EXCUSES    [contrib/sbcram-excuses.txt]
#   LB_SANDBOX_DIR    [$SBCRAM_OUT/sandbox]   the MariaDB sandbox (contrib/mariadb-sandbox.sh)
#   LB_SANDBOX_PORT   [3341]
#
# Prints one line per case: "both" (passes with both), "LBENCH-ONLY-FAIL"
# (passes with sysbench, fails with lbench), "excused" (listed in the
# excuses file, with its reason), "sysbench-fails" (the reference itself
# fails here, so the case says nothing), "skipped" (the case skipped itself,
# e.g. no PostgreSQL), then the totals.  Exit 1 if any case fails with lbench
# only and is not excused.
set -uo pipefail

here=$(cd "$(dirname -- "$0")" && pwd)
root=$(cd "$here/.." && pwd)
SRC=${1:?usage: contrib/sbcram.sh SYSBENCH_SRC [CASE.t ...]}
shift
SRC=$(cd "$SRC" && pwd) || exit 2
[ -d "$SRC/tests/t" ] || { echo "sbcram: $SRC/tests/t not found (want a sysbench 1.0.20 checkout)" >&2; exit 2; }
LBENCH=$(realpath "${LBENCH:-$root/lbench}")
SYSBENCH=$(command -v "${SYSBENCH:-sysbench}") || { echo "sbcram: no sysbench on PATH" >&2; exit 2; }
CRAM=$(command -v cram3 || command -v cram) || { echo "sbcram: cram not found (apt-get install python3-cram)" >&2; exit 2; }
OUT=${SBCRAM_OUT:-/tmp/lbench-sbcram}
EXCUSES=${SBCRAM_EXCUSES:-$root/contrib/sbcram-excuses.txt}
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR:-$OUT/sandbox} LB_SANDBOX_PORT=${LB_SANDBOX_PORT:-3341}

mkdir -p "$OUT"
exec 9>"$OUT.lock"
flock -w 600 9 || { echo "sbcram: another run holds $OUT.lock" >&2; exit 1; }

"$root/contrib/mariadb-sandbox.sh" start >"$OUT/sandbox.log" 2>&1 ||
  { echo "sbcram: sandbox failed: $(tail -3 "$OUT/sandbox.log")" >&2; exit 1; }
trap '"$root/contrib/mariadb-sandbox.sh" stop >/dev/null 2>&1' EXIT
. "$LB_SANDBOX_DIR/env"
export SBCRAM_MYSQL_SOCKET=$LB_MYSQL_SOCKET

# The cases inspect tables with `mysql -uroot sbtest`, which in sysbench's
# CI reaches the default server through its socket; here a wrapper sends it
# to the sandbox (root is socket-authenticated there) and reads MariaDB's
# output as MySQL's (contrib/sbcram-mysql.sh).
mkbin() {
  local dir=$1 target=$2
  rm -rf "$dir"; mkdir -p "$dir"
  ln -s "$target" "$dir/sysbench"
  ln -s "$here/sbcram-mysql.sh" "$dir/mysql"
}
mkbin "$OUT/bin-sysbench" "$SYSBENCH"
mkbin "$OUT/bin-lbench" "$LBENCH"

# config.sh as sysbench's configure writes it, with the real binary's facts:
# the cases compare version strings and skip drivers that were not built in.
has_pgsql=
case $("$SYSBENCH" --help 2>/dev/null) in *"  pgsql - "*) has_pgsql=1 ;; esac
cat >"$OUT/config.sh" <<EOF
export SBTEST_VERSION_STRING="sysbench 1.0.20"
export SBTEST_VERSION="1.0.20"
export SBTEST_HAS_MYSQL=1
export SBTEST_HAS_PGSQL=$has_pgsql
EOF

export SBTEST_ROOTDIR="$SRC/tests" SBTEST_SCRIPTDIR="$SRC/src/lua" SBTEST_SUITEDIR="$SRC/tests/t"
export SBTEST_INCDIR="$SRC/tests/include" SBTEST_CONFIG="$OUT/config.sh"
export LUA_PATH="$SBTEST_SCRIPTDIR/?;$SBTEST_SCRIPTDIR/?.lua;$SBTEST_INCDIR/?;$SBTEST_INCDIR/?.lua"
export SBTEST_MYSQL_ARGS="--mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest"
unset SBTEST_PGSQL_ARGS
. "$SBTEST_CONFIG"

# run_case BIN-DIR CASE TAG: 0 passed, 1 failed, 80 skipped; the diff stays
# in $OUT/TAG/CASE.err
run_case() {
  local bindir=$1 case=$2 tag=$3 log
  mkdir -p "$OUT/$tag"
  cp "$SRC/tests/t/$case" "$OUT/$tag/$case"
  rm -f "$OUT/$tag/$case.err"
  log=$(cd "$OUT/$tag" && PATH="$bindir:$PATH" timeout -k 5 900 "$CRAM" --shell=/bin/bash "$case" 2>&1)
  echo "$log" >"$OUT/$tag/$case.log"
  # a stale sbtest table of one case must not leak into the next
  mysql --socket="$LB_MYSQL_SOCKET" -uroot -Nse \
    "DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest" >/dev/null 2>&1
  case $log in
    *", 1 skipped, "*) return 80 ;;
    *", 0 failed."*) return 0 ;;
  esac
  return 1
}

excuse_for() { awk -v c="$1" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }' "$EXCUSES" 2>/dev/null; }

if [ $# -gt 0 ]; then cases=("$@"); else
  cases=(); for f in "$SRC"/tests/t/*.t; do cases+=("$(basename "$f")"); done
fi
n_ref=0 n_lb=0 n_both=0 n_only=0 n_exc=0 n_skip=0 n_reffail=0
for c in "${cases[@]}"; do
  run_case "$OUT/bin-sysbench" "$c" sysbench; ref=$?
  run_case "$OUT/bin-lbench" "$c" lbench; lb=$?
  [ $ref = 0 ] && n_ref=$((n_ref + 1))
  [ $lb = 0 ] && n_lb=$((n_lb + 1))
  if [ $ref = 80 ]; then n_skip=$((n_skip + 1)); printf '%-40s skipped\n' "$c"
  elif [ $ref != 0 ]; then n_reffail=$((n_reffail + 1)); printf '%-40s sysbench-fails\n' "$c"
  elif [ $lb = 0 ]; then n_both=$((n_both + 1)); printf '%-40s both\n' "$c"
  else
    why=$(excuse_for "$c")
    if [ -n "$why" ]; then n_exc=$((n_exc + 1)); printf '%-40s excused: %s\n' "$c" "$why"
    else n_only=$((n_only + 1)); printf '%-40s LBENCH-ONLY-FAIL (diff: %s)\n' "$c" "$OUT/lbench/$c.err"; fi
  fi
done
echo "sbcram: ${#cases[@]} cases; sysbench passes $n_ref, lbench passes $n_lb; both $n_both," \
  "lbench-only failures $n_only, excused $n_exc, skipped $n_skip, failing with sysbench too $n_reffail"
[ $n_only = 0 ]

#!/usr/bin/env bash
# The whole test suite (called by `make test` after the build).  Every
# suite prints "PASS name" / "FAIL name: why" lines (busted's TAP lines are
# translated); this script tallies them and ends with "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
LOG=$(mktemp -d /tmp/lbench-run.XXXXXX)
passed=0 failed=0

tally() { # tally SUITE  (reads PASS/FAIL lines on stdin, echoes failures)
  local suite=$1 line
  while IFS= read -r line; do
    case "$line" in
      PASS\ *) passed=$((passed + 1)) ;;
      FAIL\ *) failed=$((failed + 1)); echo "  [$suite] $line" ;;
      ok\ [0-9]*) passed=$((passed + 1)) ;;
      not\ ok\ [0-9]*) failed=$((failed + 1)); echo "  [$suite] $line" ;;
    esac
  done
}

suite() { # suite NAME CMD...: run, count, and count a crash of the suite itself as a failure
  local name=$1; shift
  echo "== $name"
  timeout -k 10 "${SUITE_TIMEOUT:-600}" "$@" >"$LOG/$name.log" 2>&1
  local rc=$?
  tally "$name" < "$LOG/$name.log"
  if ! grep -Eq '^(PASS|FAIL|ok|not ok) ' "$LOG/$name.log" || { [ $rc -ne 0 ] && ! grep -Eq '^(FAIL|not ok) ' "$LOG/$name.log"; }; then
    failed=$((failed + 1)); echo "  [$name] FAIL suite exited with status $rc:"; tail -20 "$LOG/$name.log" | sed 's/^/    /'
  fi
}

unit_all() {
  local t rc=0
  for t in build/test/test_*; do
    [ -x "$t" ] || continue
    timeout -k 5 300 "$t" || rc=1
  done
  return $rc
}

embed_test() {
  local out
  out=$(build/embed_example test/cli/scripts/empty.lua 2 2 2>&1)
  if echo "$out" | grep -q '^callbacks: 2 intervals' && echo "$out" | grep -q '"lbench_version"'; then
    echo "PASS embed_example"; else echo "FAIL embed_example: $out" | head -5; fi
}

export -f unit_all embed_test

# ---- 1. unit tests, specs, CLI transcripts, embedding ----------------
suite unit bash -c unit_all
suite spec ./lbench test/spec/run.lua
suite cli env LB=./lbench bash test/cli/core.sh
suite tools env LB=./lbench bash test/cli/tools.sh
suite embed bash -c embed_test

# ---- 2. database end to end (private MariaDB on loopback) ------------
if [ -x test/e2e/run.sh ]; then
  suite e2e test/e2e/run.sh
fi

# ---- 3. sanitizers -----------------------------------------------------
if [ "${LB_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== build: asan+ubsan"
  if make --no-print-directory O=build-asan BIN=build-asan/lbench CFLAGS="-O1 -g -fno-omit-frame-pointer" \
       SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" build-asan/lbench unit-asan >"$LOG/asan-build.log" 2>&1; then
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    export LSAN_OPTIONS=suppressions=$PWD/test/lsan.supp
    suite asan_unit bash -c 'rc=0; for t in build-asan/test/test_*; do timeout -k 5 600 "$t" || rc=1; done; exit $rc'
    suite asan_cli env LB=build-asan/lbench TEST_TIMEOUT=300 bash test/cli/core.sh
    unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
  else
    failed=$((failed + 1)); echo "  FAIL asan build:"; tail -20 "$LOG/asan-build.log"
  fi
  echo "== build: tsan"
  if make --no-print-directory O=build-tsan BIN=build-tsan/lbench CFLAGS="-O1 -g" SAN="-fsanitize=thread" \
       build-tsan/lbench >"$LOG/tsan-build.log" 2>&1; then
    suite tsan env TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/test/tsan.supp" bash test/tsan.sh build-tsan/lbench
  else
    failed=$((failed + 1)); echo "  FAIL tsan build:"; tail -20 "$LOG/tsan-build.log"
  fi
fi

rm -rf "$LOG"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

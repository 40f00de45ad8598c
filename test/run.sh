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
  if echo "$out" | grep -Eq '^callbacks: [12] intervals' && echo "$out" | grep -q '"lbench_version"'; then
    echo "PASS embed_example"; else echo "FAIL embed_example: $out" | head -5; fi
}

# make install into a temporary prefix: the binary finds the stock
# scenarios from any directory, and a program builds against the installed
# header, library and pkg-config file.
install_test() {
  local p
  p=$(mktemp -d /tmp/lbench-install.XXXXXX)
  if ! make --no-print-directory install PREFIX="$p" >"$p.log" 2>&1; then
    echo "FAIL install: $(tail -3 "$p.log")"; rm -rf "$p" "$p.log"; return
  fi
  echo "PASS install"
  for f in bin/lbench lib/liblbench.a lib/liblbench.so include/lbench.h lib/pkgconfig/lbench.pc share/lbench/scenarios/oltp_read_only.lua; do
    [ -e "$p/$f" ] && echo "PASS install_has_$(basename "$f")" || echo "FAIL install_has_$f: missing"
  done
  if (cd / && "$p/bin/lbench" oltp_point_select help) | grep -q -- '--table-size'; then echo "PASS installed_stock_scenario"
  else echo "FAIL installed_stock_scenario: oltp_point_select not found from /"; fi
  if PKG_CONFIG_PATH="$p/lib/pkgconfig" cc contrib/embed_example.c $(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags --libs lbench) \
       -Wl,-rpath,"$p/lib" -o "$p/embed" 2>"$p.log" && "$p/embed" test/cli/scripts/empty.lua 1 2 | grep -Eq '^callbacks: [1-9]'; then
    echo "PASS installed_pkg_config_embed"; else echo "FAIL installed_pkg_config_embed: $(head -3 "$p.log")"; fi
  # A program linked against the installed library finds the stock
  # scenarios beside the library (<libdir>/../share/lbench/scenarios) from
  # any directory, whatever PREFIX the objects were built with; a name
  # that is not there names the directories searched.
  if (cd / && "$p/embed" oltp_point_select 1 1 db-driver=null result-file="$p/ps.json") >"$p.out" 2>&1 \
     && grep -q "\"scenario_path\": \"$p/share/lbench/scenarios/oltp_point_select.lua\"" "$p/ps.json"; then
    echo "PASS installed_embed_finds_stock_scenario"
  else echo "FAIL installed_embed_finds_stock_scenario: $(head -3 "$p.out")"; fi
  if (cd / && "$p/embed" oltp_no_such 1 1 db-driver=null) 2>&1 | grep -q "searched .*$p/share/lbench/scenarios"; then
    echo "PASS installed_embed_unknown_names_dirs"
  else echo "FAIL installed_embed_unknown_names_dirs: $( (cd / && "$p/embed" oltp_no_such 1 1) 2>&1 | head -2)"; fi
  # Static embedding with exactly the flags pkg-config gives: the program
  # must carry the core itself (no liblbench.so dependency, no rpath) and
  # its Lua half must reach every core symbol through the FFI.
  if PKG_CONFIG_PATH="$p/lib/pkgconfig" cc contrib/embed_example.c \
       $(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --static --cflags --libs lbench) -o "$p/embed_static" 2>"$p.log" \
     && ! readelf -d "$p/embed_static" | grep -q 'liblbench' \
     && "$p/embed_static" test/cli/scripts/empty.lua 1 2 2>>"$p.log" | grep -Eq '^callbacks: [1-9]'; then
    echo "PASS installed_pkg_config_static_embed"
  else echo "FAIL installed_pkg_config_static_embed: $(readelf -d "$p/embed_static" 2>&1 | grep -i lbench) $(head -3 "$p.log")"; fi
  # SQLite (the history) is reached through the FFI only: both programs
  # must carry it (the Makefile keeps it past --as-needed).
  local prog
  for prog in embed embed_static; do
    if "$p/$prog" test/cli/scripts/sqlite_origin.lua 1 1 2>&1 | grep -q '^sqlite linked '; then echo "PASS ${prog}_sqlite_linked"
    else echo "FAIL ${prog}_sqlite_linked: $("$p/$prog" test/cli/scripts/sqlite_origin.lua 1 1 2>&1 | head -2)"; fi
  done
  # Linked from the archive without --whole-archive, the runtime error names
  # both flags it needs.
  local deps
  deps=$(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --static --libs lbench \
    | sed -e 's/-Wl,--whole-archive [^ ]* -Wl,--no-whole-archive//' -e 's/-Wl,--push-state,--as-needed -llbench -Wl,--pop-state//')
  if cc contrib/embed_example.c -I"$p/include" -rdynamic "$p/lib/liblbench.a" $deps -o "$p/embed_partial" 2>"$p.log"; then
    "$p/embed_partial" test/cli/scripts/empty.lua 1 2 >"$p.out" 2>&1
    if grep -q -- '-rdynamic' "$p.out" && grep -q -- '--whole-archive' "$p.out"; then echo "PASS static_embed_error_names_flags"
    else echo "FAIL static_embed_error_names_flags: $(head -c 300 "$p.out")"; fi
  else echo "FAIL static_embed_error_names_flags: link failed: $(head -3 "$p.log")"; fi
  # The drop-in names: never by default, on request with LINKS, and a
  # name lbench cannot stand in for is refused.
  if [ ! -e "$p/bin/sysbench" ] && [ ! -e "$p/bin/pgbench" ]; then echo "PASS install_no_links_by_default"
  else echo "FAIL install_no_links_by_default: $(ls "$p/bin")"; fi
  if make --no-print-directory install PREFIX="$p" LINKS="sysbench pgbench" >"$p.log" 2>&1 \
     && [ "$(readlink "$p/bin/sysbench")" = lbench ] && "$p/bin/sysbench" --version | grep -q '^sysbench 1.0.20' \
     && [ "$(readlink "$p/bin/pgbench")" = lbench ] && "$p/bin/pgbench" --version | grep -q '^pgbench (PostgreSQL) 15'; then
    echo "PASS install_links_on_request"
  else echo "FAIL install_links_on_request: $(tail -3 "$p.log"; ls -l "$p/bin")"; fi
  if ! make --no-print-directory install PREFIX="$p" LINKS=fio >"$p.log" 2>&1 && grep -q "LINKS: 'fio' is not one of" "$p.log"; then
    echo "PASS install_links_refuses_unknown"
  else echo "FAIL install_links_refuses_unknown: $(tail -3 "$p.log")"; fi
  rm -rf "$p" "$p.log" "$p.out"
}

export -f unit_all embed_test install_test

# ---- 1. unit tests, specs, CLI transcripts, embedding ----------------
suite unit bash -c unit_all
suite spec ./lbench test/spec/run.lua
suite cli env LB=./lbench bash test/cli/core.sh
suite measure env LB=./lbench bash test/cli/measure.sh
suite intervals env LB=./lbench bash test/cli/intervals.sh
suite fileio env LB=./lbench bash test/cli/fileio.sh
suite tools env LB=./lbench bash test/cli/tools.sh
suite history env LB=./lbench bash test/cli/history.sh
suite stock env LB=./lbench bash test/cli/stock.sh
suite async env LB=./lbench bash test/cli/async.sh
suite metrics env LB=./lbench bash test/cli/metrics.sh
suite errors env LB=./lbench bash test/cli/errors.sh
suite sbcompat env LB=./lbench bash test/cli/sbcompat.sh
suite sbname env LB=./lbench bash test/cli/sbname.sh
suite sbbuiltin env LB=./lbench bash test/cli/sbbuiltin.sh
suite fuzz env LB=./lbench FUZZ_SECONDS=30 bash test/fuzz.sh
suite embed bash -c embed_test
suite install bash -c install_test

# ---- 2. database end to end (private MariaDB on loopback) ------------
if [ -x test/e2e/run.sh ]; then
  suite e2e test/e2e/run.sh
fi
[ -x test/e2e/tpcc.sh ] && suite tpcc test/e2e/tpcc.sh
suite slap test/e2e/slap.sh
suite report test/e2e/report.sh
suite e2e_stock test/e2e/stock.sh
suite load test/e2e/load.sh
suite sysbench_wild test/e2e/sysbench_wild.sh
suite sweep_data test/e2e/sweep_data.sh
suite observe_report test/e2e/observe_report.sh
suite e2e_async test/e2e/async.sh
suite e2e_errors test/e2e/errors.sh
suite stop test/e2e/stop.sh
suite nodeexp test/e2e/nodeexp.sh
suite pg_sandbox test/e2e/pg_sandbox.sh
suite pgsql test/e2e/pgsql.sh
suite pgbench test/e2e/pgbench.sh
suite pgbench_scripts test/e2e/pgbench_scripts.sh
suite pgbench_cli test/e2e/pgbench_cli.sh
suite pgbench_pipeline test/e2e/pgbench_pipeline.sh
suite tpcc_pg test/e2e/tpcc_pg.sh
# Several ranks as one run (real mpirun, 2-4 ranks on this machine): only
# where lbench-mpi was built, i.e. Open MPI's development files were found.
if [ -x ./lbench-mpi ]; then suite mpi test/e2e/mpi.sh; suite mpi_partition test/e2e/mpi_partition.sh
else echo "== mpi: skipped: lbench-mpi was not built (Open MPI not installed: contrib/install-deps.sh test, then make)"; fi

# ---- 3. sanitizers -----------------------------------------------------
if [ "${LB_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== build: asan+ubsan"
  if make --no-print-directory O=build-asan BIN=build-asan/lbench CFLAGS="-O1 -g -fno-omit-frame-pointer" \
       SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" build-asan/lbench unit-asan >"$LOG/asan-build.log" 2>&1; then
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    export LSAN_OPTIONS=suppressions=$PWD/test/lsan.supp
    suite asan_unit bash -c 'rc=0; for t in build-asan/test/test_*; do timeout -k 5 600 "$t" || rc=1; done; exit $rc'
    suite asan_cli env LB=build-asan/lbench TEST_TIMEOUT=300 bash test/cli/core.sh
    suite asan_async env LB=build-asan/lbench TEST_TIMEOUT=300 bash test/cli/async.sh
    suite asan_measure env LB=build-asan/lbench TEST_TIMEOUT=300 bash test/cli/measure.sh
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

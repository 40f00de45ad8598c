# Shared helpers for the shell test suites: each check prints one
# "PASS name" or "FAIL name: why" line, which test/run.sh counts.
LB=${LB:-./lbench}
T=${T:-$(mktemp -d /tmp/lbench-test.XXXXXX)}

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# run NAME CMD... : runs CMD with a timeout, output in $T/NAME.out/.err, status in $rc
run() {
  local name=$1; shift
  timeout -k 5 "${TEST_TIMEOUT:-120}" "$@" >"$T/$name.out" 2>"$T/$name.err"
  rc=$?
}

# expect_ok NAME REGEX CMD... : exit 0 and stdout matches REGEX (extended)
expect_ok() {
  local name=$1 re=$2; shift 2
  run "$name" "$@"
  if [ "$rc" -ne 0 ]; then fail "$name" "exit $rc: $(head -c 400 "$T/$name.err")"; return 1; fi
  if ! grep -Eq -- "$re" "$T/$name.out"; then fail "$name" "stdout does not match /$re/: $(head -c 300 "$T/$name.out")"; return 1; fi
  pass "$name"
}

# expect_fail NAME REGEX CMD... : non-zero exit, no crash, stderr matches REGEX
expect_fail() {
  local name=$1 re=$2; shift 2
  run "$name" "$@"
  if [ "$rc" -eq 0 ]; then fail "$name" "expected a non-zero exit"; return 1; fi
  if [ "$rc" -ge 124 ]; then fail "$name" "crashed or timed out (status $rc): $(head -c 300 "$T/$name.err")"; return 1; fi
  if ! grep -Eq -- "$re" "$T/$name.err"; then fail "$name" "stderr does not match /$re/: $(head -c 400 "$T/$name.err")"; return 1; fi
  pass "$name"
}

# check NAME COND-CMD... : passes when the command succeeds
check() {
  local name=$1; shift
  if "$@" >/dev/null 2>&1; then pass "$name"; else fail "$name" "check failed: $*"; fi
}

# jq-like assertion through lbench's own JSON decoder:
#   json_assert NAME FILE 'lua boolean expression over `r`'
json_assert() {
  local name=$1 file=$2 expr=$3
  if $LB test/cli/scripts/json_assert.lua check --file="$file" --expr="$expr" >"$T/$name.ja" 2>&1; then
    pass "$name"
  else
    fail "$name" "$(head -c 400 "$T/$name.ja")"
  fi
}

# one_line NAME REGEX CMD... : non-zero exit below 124, exactly one stderr
# line matching REGEX, no traceback, and an empty stdout unless
# ALLOW_STDOUT=1 (a user mistake refused before anything runs prints no
# report and no help).
one_line() {
  local name=$1 re=$2; shift 2
  run "$name" "$@"
  local n
  n=$(wc -l < "$T/$name.err")
  if [ "$rc" -eq 0 ]; then fail "$name" "expected a non-zero exit"; return 1; fi
  if [ "$rc" -ge 124 ]; then fail "$name" "crashed or timed out (status $rc): $(head -c 300 "$T/$name.err")"; return 1; fi
  if grep -q 'stack traceback' "$T/$name.err"; then fail "$name" "traceback: $(head -c 400 "$T/$name.err")"; return 1; fi
  if [ "$n" -ne 1 ]; then fail "$name" "stderr has $n lines: $(head -c 400 "$T/$name.err")"; return 1; fi
  if ! grep -Eq -- "$re" "$T/$name.err"; then fail "$name" "stderr does not match /$re/: $(head -c 400 "$T/$name.err")"; return 1; fi
  if [ "${ALLOW_STDOUT:-0}" != 1 ] && [ -s "$T/$name.out" ]; then
    fail "$name" "stdout is not empty: $(head -c 300 "$T/$name.out")"; return 1
  fi
  pass "$name"
}

# suite_lock NAME FILE SECONDS WHO: one run of a suite at a time where two
# would share a sandbox, its counters or a fixed port: wait up to SECONDS for
# the lock on FILE (held on fd 9 until the suite exits), else fail NAME with
# "another WHO holds FILE" and exit.
suite_lock() {
  exec 9>"$2"
  flock -w "$3" 9 || { fail "$1" "another $4 holds $2"; exit 1; }
}

# sandbox_lock SUITE: suite_lock on the suite's own sandbox directory
# (LB_SANDBOX_DIR exported by the caller).
sandbox_lock() {
  suite_lock "$1_sandbox_lock" "$LB_SANDBOX_DIR.lock" 300 "$1 suite"
}

# pg_env_clean: libpq reads these; one left in the caller's environment would
# send psql or lbench elsewhere than the suite's sandbox, or with other
# credentials.
pg_env_clean() {
  unset PGHOST PGHOSTADDR PGPORT PGUSER PGDATABASE PGPASSWORD PGPASSFILE PGSERVICE PGOPTIONS
}

# sandbox_start SUITE: start the suite's private MariaDB (LB_SANDBOX_DIR and
# LB_SANDBOX_PORT exported by the caller), stop it by its PID and remove $T
# at exit, and set $M to the options that reach it.
sandbox_start() {
  if ! contrib/mariadb-sandbox.sh start >"$T/sandbox.log" 2>&1; then
    fail "$1_sandbox_start" "$(tail -5 "$T/sandbox.log")"; exit 1
  fi
  pass "$1_sandbox_start"
  trap 'contrib/mariadb-sandbox.sh stop >/dev/null 2>&1; rm -rf "$T"' EXIT
  set -a; . "$LB_SANDBOX_DIR/env"; set +a
  M="--mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest"
}

# pg_sandbox_start SUITE: start the suite's private PostgreSQL (port
# LB_PG_SANDBOX_PORT exported by the caller) in a fresh directory the
# server's OS user can enter, stop it and remove both directories at
# exit, and set $P to the options that reach it and $PSQL to a psql
# command line for it.
pg_sandbox_start() {
  PGBASE=$(mktemp -d /tmp/lbench-test-pg.XXXXXX)
  chmod 755 "$PGBASE"
  export LB_PG_SANDBOX_DIR=$PGBASE/sb
  if ! contrib/postgres-sandbox.sh start >"$T/pg-sandbox.log" 2>&1; then
    fail "$1_pg_sandbox_start" "$(tail -5 "$T/pg-sandbox.log")"; rm -rf "$PGBASE"; exit 1
  fi
  pass "$1_pg_sandbox_start"
  trap 'contrib/postgres-sandbox.sh stop >/dev/null 2>&1 && rm -rf "$PGBASE"; rm -rf "$T"' EXIT
  set -a; . "$LB_PG_SANDBOX_DIR/env"; set +a
  P="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$LB_PG_PORT --pgsql-user=sbtest --pgsql-password=sbtest --pgsql-db=sbtest"
  PSQL=(env PGPASSWORD=sbtest psql -X -w -q -t -A -h 127.0.0.1 -p "$LB_PG_PORT" -U sbtest -d sbtest)
}

# server_stopped_run NAME PIDS PATTERN CMD...: run CMD (a 3 s run) in the
# background, stop the server's processes (PIDS, a command that prints
# them) with SIGSTOP after 1 s, and pass NAME when CMD ends by itself within
# 12 s with status 1, its report on stdout and PATTERN on stderr (a worker
# stuck past the deadline was cut off); the server continues afterwards.
server_stopped_run() {
  local name=$1 pids=$2 pattern=$3 start bg el
  shift 3
  start=$(date +%s)
  ( "$@" >"$T/$name.out" 2>"$T/$name.err"; echo $? >"$T/$name.rc" ) &
  bg=$!
  sleep 1
  kill -STOP $(eval "$pids") 2>/dev/null
  for _ in $(seq 30); do kill -0 $bg 2>/dev/null || break; sleep 0.5; done
  if kill -0 $bg 2>/dev/null; then fail "$name" "still running 15 s after a 3 s run"; kill -9 $bg
  else
    el=$(( $(date +%s) - start ))
    if [ "$(cat "$T/$name.rc")" = 1 ] && grep -q 'transactions:' "$T/$name.out" && grep -q "$pattern" "$T/$name.err" \
       && [ "$el" -le 12 ]; then pass "$name"
    else fail "$name" "rc=$(cat "$T/$name.rc") after ${el}s: $(head -3 "$T/$name.err")"; fi
  fi
  kill -CONT $(eval "$pids") 2>/dev/null
  wait $bg 2>/dev/null
}

# mpi_setup SUITE: lbench-mpi ($LBM, ./lbench-mpi by default) and mpirun
# must be there (test/run.sh runs the MPI suites only where lbench-mpi was
# built); then MPI is the mpirun command line for Open MPI as root on a
# machine with fewer cores than ranks: no CMA (ptrace-restricted
# containers refuse it), no CPU binding.
mpi_setup() {
  LBM=${LBM:-./lbench-mpi}
  if [ ! -x "$LBM" ] || ! command -v mpirun >/dev/null 2>&1; then
    fail "$1_available" "lbench-mpi or mpirun missing (contrib/install-deps.sh test installs Open MPI; then make)"
    exit 1
  fi
  export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
  MPI=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
}

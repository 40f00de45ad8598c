#!/usr/bin/env bash
# contrib/postgres-sandbox.sh: a private PostgreSQL on 127.0.0.1 with the
# sbtest and lbnopriv roles, real password authentication, status codes,
# idempotent start and stop, and one-line refusals of bad settings.  Its own
# fresh directory and port 5441; the server it started is stopped (by its
# PID, through the script) at exit.
# shellcheck disable=SC2015  # `cond && pass || fail`: pass and fail always succeed
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
S=contrib/postgres-sandbox.sh
pg_env_clean

# A fresh base directory, open to the server's OS user (postgres when run
# as root); the sandbox directory inside it does not exist yet.
BASE=$(mktemp -d /tmp/lbench-test-pg.XXXXXX)
chmod 755 "$BASE"
export LB_PG_SANDBOX_DIR=$BASE/sb LB_PG_SANDBOX_PORT=5441
trap 'if "$S" stop >/dev/null 2>&1; then rm -rf "$BASE"; fi; rm -rf "$T"' EXIT
ENVF=$LB_PG_SANDBOX_DIR/env
DATA=$LB_PG_SANDBOX_DIR/data
PSQL=(psql -X -w -h 127.0.0.1 -p "$LB_PG_SANDBOX_PORT" -d sbtest)

# server_procs: PIDs of processes whose command line names our datadir
server_procs() {
  local p
  for p in /proc/[0-9]*; do
    { tr '\0' ' ' < "$p/cmdline"; } 2>/dev/null | grep -qF -- "$DATA" && echo "${p#/proc/}"
  done
  return 0
}

# gone PID: the process has exited (a zombie not yet reaped by init counts:
# the stopped postmaster was reparented when the script that started it exited)
gone() {
  local st
  st=$({ sed -E 's/^.*\) (.).*$/\1/' "/proc/$1/stat"; } 2>/dev/null) || return 0
  [ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}

# ---- start -------------------------------------------------------------
if ! expect_ok pg_sandbox_start '^postgres sandbox running: port=5441 ' "$S" start; then
  sed 's/^/    /' "$T/pg_sandbox_start.err" | tail -25; exit 1
fi
grep -q 'initialising datadir' "$T/pg_sandbox_start.out" && pass first_start_initialises \
  || fail first_start_initialises "$(head -c 300 "$T/pg_sandbox_start.out")"

missing=""
for v in LB_PG_HOST LB_PG_PORT LB_PG_SOCKET_DIR LB_PG_USER LB_PG_PASSWORD LB_PG_DB LB_PG_SANDBOX_PID; do
  grep -q "^$v=" "$ENVF" 2>/dev/null || missing="$missing $v"
done
[ -z "$missing" ] && pass env_file_vars || fail env_file_vars "missing in $ENVF:$missing"
set -a
# shellcheck disable=SC1090
. "$ENVF"
set +a
pid=${LB_PG_SANDBOX_PID:-}
[ "$LB_PG_HOST" = 127.0.0.1 ] && [ "$LB_PG_PORT" = 5441 ] && [ "$LB_PG_SOCKET_DIR" = "$LB_PG_SANDBOX_DIR" ] \
  && [ "$LB_PG_USER/$LB_PG_PASSWORD/$LB_PG_DB" = sbtest/sbtest/sbtest ] && [ -d "/proc/$pid" ] \
  && pass env_file_values || fail env_file_values "$(tr '\n' ' ' < "$ENVF")"
run env_cmd "$S" env
[ "$rc" -eq 0 ] && cmp -s "$T/env_cmd.out" "$ENVF" && pass env_cmd || fail env_cmd "exit $rc: $(head -c 300 "$T/env_cmd.out")"
[ "$(head -n 1 "$DATA/postmaster.pid" 2>/dev/null)" = "$pid" ] && pass pid_from_postmaster_pid \
  || fail pid_from_postmaster_pid "env says $pid, postmaster.pid says $(head -n 1 "$DATA/postmaster.pid" 2>&1)"

# PostgreSQL refuses root: run as root, the server runs as postgres.
want=$(id -un); [ "$(id -u)" -eq 0 ] && want=postgres
owner=$(stat -c %U "/proc/$pid" 2>/dev/null)
[ "$owner" = "$want" ] && [ "$(stat -c %U "$DATA")" = "$want" ] && [ "$(stat -c %U "$LB_PG_SANDBOX_DIR")" = "$want" ] \
  && pass server_user || fail server_user "server runs as '$owner', datadir owned by $(stat -c %U "$DATA"), expected $want"

# ---- accounts and authentication ---------------------------------------
expect_ok sbtest_select_1 '^1$' env PGPASSWORD=sbtest "${PSQL[@]}" -U sbtest -Atc 'SELECT 1'
expect_fail wrong_password 'password authentication failed for user "sbtest"' \
  env PGPASSWORD=wrong "${PSQL[@]}" -U sbtest -Atc 'SELECT 1'
expect_fail no_password_no_trust 'no password supplied' "${PSQL[@]}" -U sbtest -Atc 'SELECT 1'
expect_fail unknown_user 'password authentication failed for user "nosuchuser"' \
  env PGPASSWORD=x "${PSQL[@]}" -U nosuchuser -Atc 'SELECT 1'
expect_ok sbtest_owns_db '^sbtest$' env PGPASSWORD=sbtest "${PSQL[@]}" -U sbtest -Atc \
  "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'sbtest'"
expect_ok lbnopriv_connects '^1$' env PGPASSWORD=lbnopriv "${PSQL[@]}" -U lbnopriv -Atc 'SELECT 1'
expect_fail lbnopriv_no_create_table 'permission denied for schema public' \
  env PGPASSWORD=lbnopriv "${PSQL[@]}" -U lbnopriv -Atc 'CREATE TABLE lbnopriv_t (a int)'
expect_ok max_connections '^[0-9]+$' env PGPASSWORD=sbtest "${PSQL[@]}" -U sbtest -Atc 'SHOW max_connections'
[ "$(cat "$T/max_connections.out")" -ge 300 ] 2>/dev/null && pass max_connections_300 \
  || fail max_connections_300 "max_connections=$(cat "$T/max_connections.out")"

# ---- loopback only ------------------------------------------------------
ss -ltnH "sport = :$LB_PG_SANDBOX_PORT" >"$T/ss.out" 2>&1
if [ ! -s "$T/ss.out" ]; then fail listens_loopback_only "no listener on port $LB_PG_SANDBOX_PORT: $(head -c 200 "$T/ss.out")"
elif awk '{ print $4 }' "$T/ss.out" | grep -qv "^127\.0\.0\.1:$LB_PG_SANDBOX_PORT\$"; then
  fail listens_loopback_only "$(tr '\n' ' ' < "$T/ss.out")"
else pass listens_loopback_only; fi

# ---- status, second start, restart ---------------------------------------
expect_ok status_running "^postgres sandbox running: port=5441 socket_dir=$LB_PG_SANDBOX_DIR pid=$pid\$" "$S" status
expect_ok second_start_noop "^postgres sandbox already running: port=5441 .*pid=$pid\$" "$S" start
grep -q "^LB_PG_SANDBOX_PID=$pid\$" "$ENVF" && [ -d "/proc/$pid" ] && pass second_start_same_env \
  || fail second_start_same_env "$(tr '\n' ' ' < "$ENVF")"

expect_ok restart '^postgres sandbox running: port=5441 ' "$S" restart
# shellcheck disable=SC1090
. "$ENVF"
if [ "$LB_PG_SANDBOX_PID" != "$pid" ] && gone "$pid" && ! grep -q initialising "$T/restart.out"; then
  pass restart_new_server
else fail restart_new_server "old pid $pid, new pid $LB_PG_SANDBOX_PID: $(tr '\n' ' ' < "$T/restart.out")"; fi
pid=$LB_PG_SANDBOX_PID
expect_ok restart_keeps_accounts '^1$' env PGPASSWORD=sbtest "${PSQL[@]}" -U sbtest -Atc 'SELECT 1'

# ---- stop -----------------------------------------------------------------
expect_ok stop "^postgres sandbox stopped \(pid $pid\)\$" "$S" stop
left=$(server_procs)
gone "$pid" && [ -z "$left" ] && pass stop_ends_server || fail stop_ends_server "still running: pid $pid, procs: $left"
[ ! -e "$ENVF" ] && pass stop_removes_env || fail stop_removes_env "$ENVF still exists"
run status_stopped "$S" status
[ "$rc" -eq 3 ] && grep -q '^postgres sandbox stopped' "$T/status_stopped.out" && pass status_stopped \
  || fail status_stopped "exit $rc: $(head -c 300 "$T/status_stopped.out")"
expect_ok stop_when_stopped '^postgres sandbox not running' "$S" stop
run env_when_stopped "$S" env
[ "$rc" -eq 1 ] && grep -q 'not running' "$T/env_when_stopped.err" && pass env_when_stopped \
  || fail env_when_stopped "exit $rc: $(head -c 300 "$T/env_when_stopped.err")"

# ---- refusals: one line on stderr, exit 1, nothing started or touched -------
# bad_env NAME REGEX VAR=VALUE...: `start` with those settings is refused
bad_env() {
  local name=$1 re=$2; shift 2
  one_line "$name" "$re" env "$@" "$S" start || return
  [ "$rc" -eq 1 ] && pass "${name}_exit_1" || fail "${name}_exit_1" "exit $rc"
}
bad_env port_5432 'LB_PG_SANDBOX_PORT=5432 is reserved' LB_PG_SANDBOX_PORT=5432
bad_env port_abc "LB_PG_SANDBOX_PORT must be a number, got 'abc'" LB_PG_SANDBOX_PORT=abc
bad_env port_range 'LB_PG_SANDBOX_PORT out of range: 70000' LB_PG_SANDBOX_PORT=70000
bad_env dir_root 'LB_PG_SANDBOX_DIR must not be /$' LB_PG_SANDBOX_DIR=/
bad_env dir_system 'LB_PG_SANDBOX_DIR must not be inside the system PostgreSQL' LB_PG_SANDBOX_DIR=/var/lib/postgresql/lbench
bad_env shared_buffers "LB_PG_SANDBOX_SHARED_BUFFERS must look like 256MB .*got '256M'" LB_PG_SANDBOX_SHARED_BUFFERS=256M
mkdir "$BASE/other" && echo keep >"$BASE/other/file"
bad_env dir_not_ours 'exists and is not a postgres sandbox' LB_PG_SANDBOX_DIR="$BASE/other"
[ "$(ls -A "$BASE/other")" = file ] && [ "$(cat "$BASE/other/file")" = keep ] && pass dir_not_ours_untouched \
  || fail dir_not_ours_untouched "$(ls -A "$BASE/other")"
[ -z "$(server_procs)" ] && pass refusals_start_nothing || fail refusals_start_nothing "procs: $(server_procs)"

run usage_none "$S"
[ "$rc" -eq 2 ] && grep -q '^usage: ' "$T/usage_none.err" && pass usage_exit_2 || fail usage_exit_2 "exit $rc"
run usage_bad "$S" bogus
[ "$rc" -eq 2 ] && pass usage_bad_command_exit_2 || fail usage_bad_command_exit_2 "exit $rc"
expect_ok help 'LB_PG_SANDBOX_SHARED_BUFFERS' "$S" --help

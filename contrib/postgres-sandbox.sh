#!/usr/bin/env bash
# Private PostgreSQL server for lbench tests, demos and benchmarks.
#
# Usage: contrib/postgres-sandbox.sh start|stop|status|restart|env
#
# Runs Debian's `postgres` (package postgresql-15, else the newest
# /usr/lib/postgresql/*/bin) with its own data directory, listening on
# 127.0.0.1 only.  Never touches the system cluster (no pg_ctlcluster, no
# systemctl, nothing under /var/lib/postgresql), only ever signals the
# postmaster whose command line names our data directory, and only uses a
# directory it created (marked by $DIR/.lbench-pg-sandbox) or an empty one.
#
# PostgreSQL refuses to run as root: run as root, the server runs as the
# system user `postgres`, which then owns $DIR and $DIR/data; run as any
# other user, the server runs as that user.
#
# Environment (defaults in brackets):
#   LB_PG_SANDBOX_DIR             [/tmp/lbench-pg-sandbox]  base directory
#   LB_PG_SANDBOX_PORT            [5433]                    TCP port on 127.0.0.1
#   LB_PG_SANDBOX_SHARED_BUFFERS  [256MB]                   shared_buffers
#
# Layout: $DIR/data (datadir; PID in data/postmaster.pid), $DIR/.s.PGSQL.PORT
#         (socket), $DIR/server.log, $DIR/env (written by start, removed by stop).
#
# $DIR/env holds, one per line, shell assignments to `source`:
#   LB_PG_HOST LB_PG_PORT LB_PG_SOCKET_DIR LB_PG_USER LB_PG_PASSWORD
#   LB_PG_DB LB_PG_SANDBOX_PID
#
# Accounts created on first start: sbtest/sbtest (LOGIN SUPERUSER), owner of
# database sbtest; lbnopriv/lbnopriv with only CONNECT on sbtest and USAGE on
# its schema public.  Authentication: scram-sha-256 on 127.0.0.1 and on the
# socket, except that the server's superuser (named after the server's OS
# user) logs in on the socket by peer authentication, from that OS user or
# the one who first ran start (e.g. root).  Nothing else is accepted.
#
# Exit codes: 0 ok; 1 error; 2 usage; status: 0 running, 3 stopped.
set -euo pipefail

prog=postgres-sandbox
. "$(dirname -- "$(realpath -- "${BASH_SOURCE[0]}")")/sandbox-lib.sh"

SB_VAR=LB_PG_SANDBOX
SB_NAME=postgres
SB_DAEMON=postgres
SB_ARGV0=(postgres postmaster)
SB_STOP_SIG=INT   # fast shutdown: SIGTERM would wait for the clients to leave

DIR=${LB_PG_SANDBOX_DIR:-/tmp/lbench-pg-sandbox}
PORT=${LB_PG_SANDBOX_PORT:-5433}
SHARED_BUFFERS=${LB_PG_SANDBOX_SHARED_BUFFERS:-256MB}
# Enough for tests that open a few hundred connections (sbtest, a superuser,
# may also use the 3 superuser_reserved_connections).  10k-connection tests
# need more: raise this (each slot costs some shared memory and, with the
# backends, a process each) and the open-files limit of the client.
MAX_CONNECTIONS=1000

sb_set_dir
case "$DIR" in
    *,*|*\"*|*\\*) die "LB_PG_SANDBOX_DIR must not contain commas, quotes or backslashes (it goes into unix_socket_directories), got '$DIR'" ;;
esac
case "$DIR/" in
    /var/lib/postgresql/*|/etc/postgresql/*|/run/postgresql/*|/var/run/postgresql/*)
        die "LB_PG_SANDBOX_DIR must not be inside the system PostgreSQL's directories, got '$DIR'" ;;
esac
sb_check_port 5432 PostgreSQL 5
[[ "$SHARED_BUFFERS" =~ ^[0-9]+(kB|MB|GB|TB)?$ ]] \
    || die "LB_PG_SANDBOX_SHARED_BUFFERS must look like 256MB or 1GB (units kB, MB, GB, TB), got '$SHARED_BUFFERS'"

PIDFILE=$DATA/postmaster.pid    # written and removed by the postmaster itself
LOG=$DIR/server.log
SB_MARK=$DIR/.lbench-pg-sandbox    # marker: this directory is ours
SOCK=$DIR/.s.PGSQL.$PORT
sb_check_sock

SB_WHERE="socket_dir=$DIR"
SB_ENV=LB_PG
SB_ENV_SOCKET=(LB_PG_SOCKET_DIR "$DIR")
# postmaster.pid is left to the server, which checks it (and its shared
# memory) on next start.
SB_STALE=("$ENVFILE")
SB_LOG_KIND="server log"
SB_NOT_READY="did not become ready"
SB_ACCOUNTS=roles
SB_HELP=2,36p

# The OS user the server runs as; its superuser role has the same name.
if [ "$(id -u)" -eq 0 ]; then RUNAS=postgres; else RUNAS=$ME; fi
SUPER=$RUNAS

# find_bindir: the PostgreSQL server binaries (15 preferred, else the newest).
find_bindir() {
    local d
    if [ -x /usr/lib/postgresql/15/bin/postgres ]; then printf '%s\n' /usr/lib/postgresql/15/bin; return 0; fi
    d=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
    if [ -n "$d" ] && [ -x "$d/postgres" ]; then printf '%s\n' "$d"; return 0; fi
    if d=$(pg_config --bindir 2>/dev/null) && [ -x "$d/postgres" ]; then printf '%s\n' "$d"; return 0; fi
    d=$(command -v postgres 2>/dev/null || true)
    if [ -n "$d" ]; then dirname -- "$d"; return 0; fi
    return 1
}

need_bins() {
    local bindir
    bindir=$(find_bindir) || die "PostgreSQL server binaries not found; install postgresql-15 (contrib/install-deps.sh test)"
    POSTGRES=$bindir/postgres
    INITDB=$bindir/initdb
    [ -x "$INITDB" ] || die "initdb not found next to $POSTGRES; install postgresql-15"
    if [ -x "$bindir/psql" ]; then PSQL=$bindir/psql
    else PSQL=$(command -v psql 2>/dev/null) || die "psql not found; install postgresql-client-15"; fi
}

need_runas() {
    case "$RUNAS" in
        sbtest|lbnopriv) die "cannot run as OS user '$RUNAS': that name is taken by a sandbox role; run as another user" ;;
    esac
    if [ "$(id -u)" -eq 0 ]; then
        id -u "$RUNAS" >/dev/null 2>&1 \
            || die "running as root, but there is no '$RUNAS' system user to run the server as; install postgresql-15 or run as a non-root user"
        [ "$(id -u "$RUNAS")" -ne 0 ] || die "system user '$RUNAS' is uid 0; PostgreSQL refuses to run as root"
    fi
}

# as_server CMD...: run CMD as the server's OS user.  setpriv execs CMD in
# place, so a background job's $! is CMD's own PID (runuser, the fallback,
# stays as CMD's parent: server_ready then takes the PID from postmaster.pid).
AS_SERVER=()
set_as_server() {
    [ "$(id -u)" -eq 0 ] || return 0
    if command -v setpriv >/dev/null 2>&1; then
        AS_SERVER=(setpriv --reuid="$RUNAS" --regid="$(id -g "$RUNAS")" --init-groups --)
    else
        AS_SERVER=(runuser -u "$RUNAS" --)
    fi
}
as_server() { "${AS_SERVER[@]}" "$@"; }

# names_datadir PREV ARG: "-D" "$DATA" (backends overwrite their argv with a
# "postgres: ..." title, so only the postmaster itself matches).
names_datadir() { [ "$1" = -D ] && [ "$2" = "$DATA" ]; }

pidfile_pid() {
    [ -r "$PIDFILE" ] || return 1
    head -n 1 -- "$PIDFILE" 2>/dev/null | tr -dc '0-9' || true
}

# pm_ready PID: postmaster.pid names PID and says "ready" (line 8, as pg_ctl -w reads it)
pm_ready() {
    local first status
    [ -r "$PIDFILE" ] || return 1
    first=$(sed -n 1p -- "$PIDFILE" 2>/dev/null | tr -dc '0-9')
    status=$(sed -n 8p -- "$PIDFILE" 2>/dev/null | tr -d ' ')
    [ "$first" = "$1" ] && [ "$status" = ready ]
}

client() {  # run psql as the peer-authenticated superuser on the socket
    env -u PGSERVICE -u PGOPTIONS -u PGPASSWORD \
        "$PSQL" -X -q -w -v ON_ERROR_STOP=1 -h "$DIR" -p "$PORT" -U "$SUPER" -d postgres "$@"
}

# claim_dir: create $DIR (or adopt an empty one) and mark it as ours.  The
# server creates its socket and lock file in $DIR, so it must own it.
claim_dir() {
    local owner
    if [ -e "$DIR" ] || [ -L "$DIR" ]; then
        [ -d "$DIR" ] || die "LB_PG_SANDBOX_DIR=$DIR exists and is not a directory"
        if [ -f "$SB_MARK" ]; then
            owner=$(stat -c %U -- "$DIR")
            [ "$owner" = "$RUNAS" ] \
                || die "$DIR belongs to $owner but the server would run as $RUNAS; run as $owner (as root if it is postgres), or use another LB_PG_SANDBOX_DIR"
        else
            [ -z "$(ls -A -- "$DIR")" ] \
                || die "LB_PG_SANDBOX_DIR=$DIR exists and is not a postgres sandbox (no ${SB_MARK##*/} in it); pick a new or empty directory"
            : > "$SB_MARK"
            if [ "$(id -u)" -eq 0 ]; then chown -- "$RUNAS:" "$DIR"; fi
        fi
    else
        mkdir -p -- "$DIR"
        : > "$SB_MARK"
        if [ "$(id -u)" -eq 0 ]; then chown -- "$RUNAS:" "$DIR"; fi
    fi
    as_server test -w "$DIR" -a -x "$DIR" 2>/dev/null \
        || die "user $RUNAS cannot write $DIR (a parent directory closed to it?); use a directory under /tmp"
}

write_hba() {  # pg_hba.conf and pg_ident.conf (see the header for the policy)
    local u
    {
        printf '# Written by contrib/postgres-sandbox.sh: loopback and socket only.\n'
        printf '# The superuser logs in on the socket by peer authentication, only from\n'
        printf '# the OS users mapped in pg_ident.conf; everything else needs a password.\n'
        printf '# TYPE  DATABASE  USER  ADDRESS  METHOD\n'
        printf 'local   all       %s            peer map=lbsandbox\n' "$SUPER"
        printf 'local   all       all           scram-sha-256\n'
        printf 'host    all       all   127.0.0.1/32  scram-sha-256\n'
    } > "$DATA/pg_hba.conf"
    {
        printf '# Written by contrib/postgres-sandbox.sh: OS users allowed to be %s.\n' "$SUPER"
        printf '# MAPNAME   SYSTEM-USERNAME  PG-USERNAME\n'
        for u in $(printf '%s\n' "$RUNAS" "$ME" | sort -u); do
            printf 'lbsandbox   %s  %s\n' "$u" "$SUPER"
        done
    } > "$DATA/pg_ident.conf"
    if [ "$(id -u)" -eq 0 ]; then chown -- "$RUNAS:" "$DATA/pg_hba.conf" "$DATA/pg_ident.conf"; fi
    chmod 600 -- "$DATA/pg_hba.conf" "$DATA/pg_ident.conf"
}

# initdb_in_dir: initdb as the server's user, from $DIR (the caller's
# directory, e.g. /root, may be closed to that user).
initdb_in_dir() {
    cd -- "$DIR" && as_server "$INITDB" -D "$DATA" -U "$SUPER" \
        --auth-local=peer --auth-host=scram-sha-256 \
        --encoding=UTF8 --locale=C --no-instructions
}

init_datadir() {
    local have want owner
    if [ -f "$DATA/PG_VERSION" ]; then
        have=$(cat -- "$DATA/PG_VERSION")
        want=$("$POSTGRES" -V | sed -E 's/^[^0-9]*([0-9]+).*$/\1/')
        [ "$have" = "$want" ] \
            || die "$DATA was created by PostgreSQL $have but the server is $want; remove it (rm -rf $DATA) and retry"
        owner=$(stat -c %U -- "$DATA")
        [ "$owner" = "$RUNAS" ] \
            || die "$DATA belongs to $owner but the server would run as $RUNAS; run as $owner (or root if it is postgres), or use another LB_PG_SANDBOX_DIR"
        return 0
    fi
    refuse_foreign_datadir
    [ ! -d "$DATA" ] || rmdir -- "$DATA"   # empty: let initdb create it with its own mode
    rm -f -- "$PROVISIONED"
    run_init initdb initdb_in_dir
    write_hba
}

prepare_start() {
    need_bins
    need_runas
    set_as_server
    claim_dir
    rm -f -- "$ENVFILE"
    init_datadir
    touch -- "$LOG"
    if [ "$(id -u)" -eq 0 ]; then chown -- "$RUNAS:" "$LOG"; fi
}

# launch: start the postmaster and wait_ready.
launch() {
    # Settings on the command line override postgresql.conf (and ALTER
    # SYSTEM).  Durability settings (fsync, synchronous_commit, ...) stay
    # at PostgreSQL's defaults.
    setsid "${AS_SERVER[@]}" "$POSTGRES" -D "$DATA" \
        --port="$PORT" \
        --listen_addresses=127.0.0.1 \
        --unix_socket_directories="$DIR" \
        --shared_buffers="$SHARED_BUFFERS" \
        --max_connections="$MAX_CONNECTIONS" \
        --cluster_name=lbench-pg-sandbox \
        --logging_collector=off \
        </dev/null >>"$LOG" 2>&1 &
    wait_ready $!
}

# server_ready PID: postmaster.pid says ready (as pg_ctl -w reads it) for
# PID, or, under runuser, for the postmaster it names; LAUNCHED_PID is then
# the postmaster.
server_ready() {
    local p=$1
    if [ "${AS_SERVER[0]:-}" = runuser ] && [ -r "$PIDFILE" ]; then
        p=$(head -n 1 -- "$PIDFILE" | tr -dc '0-9')
    fi
    pm_ready "$p" && is_ours "$p" && LAUNCHED_PID=$p
}

provision() {
    client -f - <<'SQL'
-- sbtest is a SUPERUSER so that benchmarks and tests may change server
-- settings (ALTER SYSTEM, pg_reload_conf), reset statistics and create
-- extensions.  Acceptable here: a throwaway server reachable only from
-- 127.0.0.1 and its own socket, with a known password.
SELECT 'CREATE ROLE sbtest' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'sbtest')\gexec
ALTER ROLE sbtest LOGIN SUPERUSER PASSWORD 'sbtest';
SELECT 'CREATE ROLE lbnopriv' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'lbnopriv')\gexec
ALTER ROLE lbnopriv LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD 'lbnopriv';
SELECT 'CREATE DATABASE sbtest OWNER sbtest' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'sbtest')\gexec
REVOKE ALL ON DATABASE sbtest FROM PUBLIC;
GRANT CONNECT ON DATABASE sbtest TO lbnopriv;
\connect sbtest
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO lbnopriv;
SQL
}

# stop_wait PID: wait up to 30 s for it to exit after SIGINT (fast
# shutdown), then SIGQUIT (immediate shutdown), then SIGKILL.
stop_wait() {
    gone_within "$1" 30 && return 0
    note "postgres (pid $1) did not exit within 30 s after SIGINT; sending SIGQUIT (immediate shutdown)"
    if is_ours "$1"; then kill -QUIT "$1" 2>/dev/null || true; fi
    gone_within "$1" 10 && return 0
    note "postgres (pid $1) did not exit within 10 s after SIGQUIT; sending SIGKILL"
    if is_ours "$1"; then kill -KILL "$1" 2>/dev/null || true; fi
    gone_within "$1" 10
}

# A server started by root runs as postgres: a user who is neither cannot
# stop it, and must be told so rather than wait for nothing.
cannot_signal() {
    die "cannot signal postgres (pid $1, user $(stat -c %U "/proc/$1" 2>/dev/null || echo '?')); run stop as root or that user"
}

sb_main "$@"

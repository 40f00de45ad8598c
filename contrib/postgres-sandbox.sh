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
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "$prog" "$*" >&2; }

usage() { printf 'usage: %s start|stop|status|restart|env\n' "$0" >&2; exit 2; }

DIR=${LB_PG_SANDBOX_DIR:-/tmp/lbench-pg-sandbox}
PORT=${LB_PG_SANDBOX_PORT:-5433}
SHARED_BUFFERS=${LB_PG_SANDBOX_SHARED_BUFFERS:-256MB}
# Enough for tests that open a few hundred connections (sbtest, a superuser,
# may also use the 3 superuser_reserved_connections).  10k-connection tests
# need more: raise this (each slot costs some shared memory and, with the
# backends, a process each) and the open-files limit of the client.
MAX_CONNECTIONS=1000

[ -n "$DIR" ] || die "LB_PG_SANDBOX_DIR is empty"
DIR=$(realpath -m -- "$DIR")
[ "$DIR" != / ] || die "LB_PG_SANDBOX_DIR must not be /"
case "$DIR" in
    *,*|*\"*|*\\*) die "LB_PG_SANDBOX_DIR must not contain commas, quotes or backslashes (it goes into unix_socket_directories), got '$DIR'" ;;
esac
case "$DIR/" in
    /var/lib/postgresql/*|/etc/postgresql/*|/run/postgresql/*|/var/run/postgresql/*)
        die "LB_PG_SANDBOX_DIR must not be inside the system PostgreSQL's directories, got '$DIR'" ;;
esac
case "$PORT" in
    ''|*[!0-9]*) die "LB_PG_SANDBOX_PORT must be a number, got '$PORT'" ;;
esac
if [ "${#PORT}" -gt 5 ] || [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then die "LB_PG_SANDBOX_PORT out of range: $PORT"; fi
PORT=$((10#$PORT))
[ "$PORT" -ne 5432 ] || die "LB_PG_SANDBOX_PORT=5432 is reserved for the system PostgreSQL; pick another port"
[[ "$SHARED_BUFFERS" =~ ^[0-9]+(kB|MB|GB|TB)?$ ]] \
    || die "LB_PG_SANDBOX_SHARED_BUFFERS must look like 256MB or 1GB (units kB, MB, GB, TB), got '$SHARED_BUFFERS'"

DATA=$DIR/data
PIDFILE=$DATA/postmaster.pid    # written and removed by the postmaster itself
LOG=$DIR/server.log
ENVFILE=$DIR/env
MARK=$DIR/.lbench-pg-sandbox    # marker: this directory is ours
PROVISIONED=$DIR/.provisioned   # marker: roles/database created
ME=$(id -un)

# unix socket paths are limited to 108 bytes ($DIR/.s.PGSQL.NNNNN)
SOCK=$DIR/.s.PGSQL.$PORT
[ "${#SOCK}" -lt 100 ] || die "socket path too long (${#SOCK} bytes): $SOCK; use a shorter LB_PG_SANDBOX_DIR"

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
# stays as CMD's parent: launch then takes the PID from postmaster.pid).
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

# alive PID: process exists and is not a zombie
alive() {
    local st
    [ -r "/proc/$1/stat" ] || return 1
    st=$(sed -E 's/^.*\) (.).*$/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# is_ours PID: a live postmaster whose argv contains exactly "-D" "$DATA"
# (backends overwrite their argv with a "postgres: ..." title, so only the
# postmaster itself matches).
is_ours() {
    local pid=$1 arg first=1 prev=
    case "$pid" in ''|*[!0-9]*) return 1 ;; esac
    alive "$pid" || return 1
    while IFS= read -r -d '' arg; do
        if [ "$first" = 1 ]; then
            first=0
            case "${arg##*/}" in postgres|postmaster) ;; *) return 1 ;; esac
        elif [ "$prev" = -D ] && [ "$arg" = "$DATA" ]; then
            return 0
        fi
        prev=$arg
    done 2>/dev/null < "/proc/$pid/cmdline"
    return 1
}

# running_pid: print the PID of our server and return 0, or return 1.
# postmaster.pid is authoritative; if it is missing, unreadable or stale,
# fall back to a scan for a postmaster naming exactly our datadir.
running_pid() {
    local pid p
    if [ -r "$PIDFILE" ]; then
        pid=$(head -n 1 -- "$PIDFILE" 2>/dev/null | tr -dc '0-9' || true)
        if is_ours "$pid"; then printf '%s\n' "$pid"; return 0; fi
    fi
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        [ "$(cat "$p/comm" 2>/dev/null || true)" = postgres ] || continue
        if is_ours "$pid"; then printf '%s\n' "$pid"; return 0; fi
    done
    return 1
}

# arg_of PID NAME: value of --NAME=VALUE in the process's argv
arg_of() {
    local arg
    while IFS= read -r -d '' arg; do
        case "$arg" in --"$2"=*) printf '%s\n' "${arg#--"$2"=}"; return 0 ;; esac
    done 2>/dev/null < "/proc/$1/cmdline"
    return 1
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

write_env() {  # PID PORT
    local tmp="$ENVFILE.tmp.$$"
    {
        printf 'LB_PG_HOST=%q\n' 127.0.0.1
        printf 'LB_PG_PORT=%q\n' "$2"
        printf 'LB_PG_SOCKET_DIR=%q\n' "$DIR"
        printf 'LB_PG_USER=%q\n' sbtest
        printf 'LB_PG_PASSWORD=%q\n' sbtest
        printf 'LB_PG_DB=%q\n' sbtest
        printf 'LB_PG_SANDBOX_PID=%q\n' "$1"
    } > "$tmp"
    mv -f "$tmp" "$ENVFILE"
}

log_tail() {  # print the last lines of the server log written since offset $1
    local from=${1:-0}
    [ -f "$LOG" ] || { note "no server log at $LOG"; return 0; }
    note "last lines of $LOG:"
    tail -c +"$((from + 1))" "$LOG" | tail -n 25 | sed 's/^/    /' >&2
}

# dir_is_ours: $DIR is absent, or carries our marker.  Anything else is
# someone else's directory: we neither write nor delete anything in it.
dir_is_ours() {
    [ ! -e "$DIR" ] && [ ! -L "$DIR" ] && return 0
    [ -d "$DIR" ] && [ -f "$MARK" ]
}

# claim_dir: create $DIR (or adopt an empty one) and mark it as ours.  The
# server creates its socket and lock file in $DIR, so it must own it.
claim_dir() {
    local owner
    if [ -e "$DIR" ] || [ -L "$DIR" ]; then
        [ -d "$DIR" ] || die "LB_PG_SANDBOX_DIR=$DIR exists and is not a directory"
        if [ -f "$MARK" ]; then
            owner=$(stat -c %U -- "$DIR")
            [ "$owner" = "$RUNAS" ] \
                || die "$DIR belongs to $owner but the server would run as $RUNAS; run as $owner (as root if it is postgres), or use another LB_PG_SANDBOX_DIR"
        else
            [ -z "$(ls -A -- "$DIR")" ] \
                || die "LB_PG_SANDBOX_DIR=$DIR exists and is not a postgres sandbox (no ${MARK##*/} in it); pick a new or empty directory"
            : > "$MARK"
            if [ "$(id -u)" -eq 0 ]; then chown -- "$RUNAS:" "$DIR"; fi
        fi
    else
        mkdir -p -- "$DIR"
        : > "$MARK"
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

init_datadir() {
    local out have want owner
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
    # Never delete what we did not create: a non-empty datadir without
    # PG_VERSION (e.g. an interrupted initialisation) must be removed by hand.
    if [ -d "$DATA" ] && [ -n "$(ls -A -- "$DATA")" ]; then
        die "$DATA exists but is not an initialised datadir; remove it (rm -rf $DATA) and retry"
    fi
    [ ! -d "$DATA" ] || rmdir -- "$DATA"   # empty: let initdb create it with its own mode
    rm -f -- "$PROVISIONED"
    echo "$prog: initialising datadir $DATA"
    if ! out=$(cd -- "$DIR" && as_server "$INITDB" -D "$DATA" -U "$SUPER" \
            --auth-local=peer --auth-host=scram-sha-256 \
            --encoding=UTF8 --locale=C --no-instructions </dev/null 2>&1); then
        printf '%s\n' "$out" | tail -n 25 | sed 's/^/    /' >&2
        rm -rf -- "$DATA"
        die "initdb failed (output above)"
    fi
    write_hba
}

# launch: start the postmaster and wait for it; sets LAUNCHED_PID.
# Returns 0 when postmaster.pid says ready, 1 if it died, 2 on timeout.
launch() {
    local pid p i
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
    pid=$!
    LAUNCHED_PID=$pid
    for ((i = 0; i < 120; i++)); do   # up to 60 s
        p=$pid
        if [ "${AS_SERVER[0]:-}" = runuser ] && [ -r "$PIDFILE" ]; then
            p=$(head -n 1 -- "$PIDFILE" | tr -dc '0-9')
        fi
        if pm_ready "$p" && is_ours "$p"; then
            LAUNCHED_PID=$p
            return 0
        fi
        alive "$pid" || { wait "$pid" 2>/dev/null || true; return 1; }
        sleep 0.5
    done
    return 2
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

cmd_start() {
    local pid rc from newlog
    if pid=$(running_pid); then
        if [ ! -f "$ENVFILE" ] && dir_is_ours; then write_env "$pid" "$(arg_of "$pid" port || echo "$PORT")"; fi
        echo "postgres sandbox already running: port=$(arg_of "$pid" port || echo '?') socket_dir=$DIR pid=$pid"
        return 0
    fi
    need_bins
    need_runas
    set_as_server
    claim_dir
    rm -f -- "$ENVFILE"
    init_datadir
    touch -- "$LOG"
    if [ "$(id -u)" -eq 0 ]; then chown -- "$RUNAS:" "$LOG"; fi

    from=$(stat -c %s -- "$LOG")
    rc=0
    launch || rc=$?
    if [ "$rc" = 2 ]; then
        # Still starting after 60 s: do not leave a half-started server.
        log_tail "$from"
        if is_ours "$LAUNCHED_PID"; then
            kill -INT "$LAUNCHED_PID" 2>/dev/null || true
            stop_wait "$LAUNCHED_PID" || true
        fi
        die "postgres did not become ready within 60 s (see $LOG)"
    elif [ "$rc" != 0 ]; then
        newlog=$(tail -c +"$((from + 1))" "$LOG")
        log_tail "$from"
        if grep -q 'Address already in use' <<<"$newlog"; then
            die "port $PORT on 127.0.0.1 is already in use; set LB_PG_SANDBOX_PORT to a free port"
        fi
        die "postgres failed to start (see $LOG)"
    fi

    pid=$LAUNCHED_PID
    if [ ! -f "$PROVISIONED" ]; then
        provision || die "creating database sbtest and roles failed (server left running; stop it with: $0 stop)"
        : > "$PROVISIONED"
    fi
    write_env "$pid" "$PORT"
    echo "postgres sandbox running: port=$PORT socket_dir=$DIR pid=$pid"
}

# stop_wait PID: wait up to 30 s for it to exit after SIGINT (fast
# shutdown), then SIGQUIT (immediate shutdown), then SIGKILL.
stop_wait() {
    local pid=$1 i
    for ((i = 0; i < 60; i++)); do
        is_ours "$pid" || return 0
        sleep 0.5
    done
    note "postgres (pid $pid) did not exit within 30 s after SIGINT; sending SIGQUIT (immediate shutdown)"
    if is_ours "$pid"; then kill -QUIT "$pid" 2>/dev/null || true; fi
    for ((i = 0; i < 20; i++)); do
        is_ours "$pid" || return 0
        sleep 0.5
    done
    note "postgres (pid $pid) did not exit within 10 s after SIGQUIT; sending SIGKILL"
    if is_ours "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
    for ((i = 0; i < 20; i++)); do
        is_ours "$pid" || return 0
        sleep 0.5
    done
    return 1
}

cmd_stop() {
    local pid
    if ! pid=$(running_pid); then
        # Stale env file only: no server of ours.  postmaster.pid is left to
        # the server, which checks it (and its shared memory) on next start.
        if [ -f "$MARK" ]; then rm -f -- "$ENVFILE"; fi
        echo "postgres sandbox not running (datadir $DATA)"
        return 0
    fi
    # SIGINT is PostgreSQL's fast shutdown (SIGTERM would wait for clients).
    kill -INT "$pid" 2>/dev/null || die "cannot signal postgres (pid $pid, user $(stat -c %U "/proc/$pid" 2>/dev/null || echo '?')); run stop as root or that user"
    stop_wait "$pid" || die "postgres (pid $pid) is still running after SIGKILL"
    if [ -f "$MARK" ]; then rm -f -- "$ENVFILE"; fi
    echo "postgres sandbox stopped (pid $pid)"
}

cmd_status() {
    local pid
    if pid=$(running_pid); then
        echo "postgres sandbox running: port=$(arg_of "$pid" port || echo '?') socket_dir=$DIR pid=$pid"
        return 0
    fi
    echo "postgres sandbox stopped (datadir $DATA)"
    return 3
}

cmd_env() {
    local pid
    pid=$(running_pid) || die "not running; start it with: $0 start"
    if [ ! -f "$ENVFILE" ]; then
        dir_is_ours || die "LB_PG_SANDBOX_DIR=$DIR is not a postgres sandbox (no ${MARK##*/} in it)"
        write_env "$pid" "$(arg_of "$pid" port || echo "$PORT")"
    fi
    cat -- "$ENVFILE"
}

[ "$#" -eq 1 ] || usage
case "$1" in
    start)   cmd_start ;;
    stop)    cmd_stop ;;
    status)  rc=0; cmd_status || rc=$?; exit "$rc" ;;
    restart) cmd_stop; cmd_start ;;
    env)     cmd_env ;;
    -h|--help|help) sed -n '2,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
esac

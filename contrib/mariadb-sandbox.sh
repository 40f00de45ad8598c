#!/usr/bin/env bash
# Private MariaDB server for lbench tests, demos and benchmarks.
#
# Usage: contrib/mariadb-sandbox.sh start|stop|status|restart|env
#
# Runs Debian's `mariadbd` (package mariadb-server) with its own data directory,
# listening on 127.0.0.1 only.  Never touches the system MariaDB service, and
# only ever signals the mariadbd whose command line names our data directory.
#
# Environment (defaults in brackets):
#   LB_SANDBOX_DIR          [/tmp/lbench-sandbox]  base directory
#   LB_SANDBOX_PORT         [3307]                 TCP port on 127.0.0.1
#   LB_SANDBOX_BUFFER_POOL  [256M]                 innodb_buffer_pool_size
#   LB_SANDBOX_MAX_CONNECTIONS [4000]              max_connections
#   LB_SANDBOX_THREAD_POOL  [0]                    1: thread_handling=pool-of-threads
#                                                  (a few threads serve thousands of connections)
#   LB_SANDBOX_BACK_LOG     [server's own]         back_log (the listen backlog)
#
# Layout: $DIR/data (datadir), $DIR/mysqld.sock, $DIR/mysqld.pid,
#         $DIR/error.log, $DIR/env (written by start, removed by stop).
#
# $DIR/env holds, one per line, shell assignments to `source`:
#   LB_MYSQL_HOST LB_MYSQL_PORT LB_MYSQL_SOCKET LB_MYSQL_USER
#   LB_MYSQL_PASSWORD LB_MYSQL_DB LB_SANDBOX_PID
#
# Accounts created on first start: sbtest/sbtest (ALL PRIVILEGES ON *.*) and
# lbnopriv/lbnopriv (SELECT,INSERT,UPDATE,DELETE,CREATE,DROP,INDEX,ALTER on
# sbtest.* only), each @127.0.0.1 and @localhost; database sbtest.
#
# Exit codes: 0 ok; 1 error; 2 usage; status: 0 running, 3 stopped.
set -euo pipefail

prog=mariadb-sandbox
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "$prog" "$*" >&2; }

usage() { printf 'usage: %s start|stop|status|restart|env\n' "$0" >&2; exit 2; }

DIR=${LB_SANDBOX_DIR:-/tmp/lbench-sandbox}
PORT=${LB_SANDBOX_PORT:-3307}
BUFFER_POOL=${LB_SANDBOX_BUFFER_POOL:-256M}
MAX_CONNECTIONS=${LB_SANDBOX_MAX_CONNECTIONS:-4000}
THREAD_POOL=${LB_SANDBOX_THREAD_POOL:-0}
BACK_LOG=${LB_SANDBOX_BACK_LOG:-}

[ -n "$DIR" ] || die "LB_SANDBOX_DIR is empty"
DIR=$(realpath -m -- "$DIR")
[ "$DIR" != / ] || die "LB_SANDBOX_DIR must not be /"
case "$PORT" in
    ''|*[!0-9]*) die "LB_SANDBOX_PORT must be a number, got '$PORT'" ;;
esac
if [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then die "LB_SANDBOX_PORT out of range: $PORT"; fi
[ "$PORT" -ne 3306 ] || die "LB_SANDBOX_PORT=3306 is reserved for the system MariaDB; pick another port"
case "$BUFFER_POOL" in
    [0-9]*) ;;
    *) die "LB_SANDBOX_BUFFER_POOL must look like 256M or 1G, got '$BUFFER_POOL'" ;;
esac
case "$MAX_CONNECTIONS" in
    ''|*[!0-9]*) die "LB_SANDBOX_MAX_CONNECTIONS must be a number, got '$MAX_CONNECTIONS'" ;;
esac
case "$THREAD_POOL" in
    0|1) ;;
    *) die "LB_SANDBOX_THREAD_POOL must be 0 or 1, got '$THREAD_POOL'" ;;
esac
case "$BACK_LOG" in
    *[!0-9]*) die "LB_SANDBOX_BACK_LOG must be a number, got '$BACK_LOG'" ;;
esac

DATA=$DIR/data
SOCK=$DIR/mysqld.sock
PIDFILE=$DIR/mysqld.pid
LOG=$DIR/error.log
ENVFILE=$DIR/env
PROVISIONED=$DIR/.provisioned   # marker: accounts/database created
ME=$(id -un)

# unix socket paths are limited to 108 bytes
[ "${#SOCK}" -lt 100 ] || die "socket path too long (${#SOCK} bytes): $SOCK; use a shorter LB_SANDBOX_DIR"

find_bin() {  # name -> path (PATH, then the sbin dirs non-root PATHs lack)
    local b
    for b in "$(command -v "$1" 2>/dev/null || true)" "/usr/sbin/$1" "/usr/bin/$1" "/usr/local/sbin/$1"; do
        [ -n "$b" ] && [ -x "$b" ] && { printf '%s\n' "$b"; return 0; }
    done
    return 1
}

need_bin() {
    find_bin "$1" || die "$1 not found; install it with: contrib/install-deps.sh test"
}

# alive PID: process exists and is not a zombie
alive() {
    local st
    [ -r "/proc/$1/stat" ] || return 1
    st=$(sed -E 's/^.*\) (.).*$/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# is_ours PID: a live mariadbd whose argv contains exactly --datadir=$DATA
is_ours() {
    local pid=$1 arg first=1 isdb=0
    case "$pid" in ''|*[!0-9]*) return 1 ;; esac
    alive "$pid" || return 1
    while IFS= read -r -d '' arg; do
        if [ "$first" = 1 ]; then
            first=0
            case "${arg##*/}" in mariadbd|mysqld) isdb=1 ;; *) return 1 ;; esac
        elif [ "$isdb" = 1 ] && [ "$arg" = "--datadir=$DATA" ]; then
            return 0
        fi
    done 2>/dev/null < "/proc/$pid/cmdline"
    return 1
}

# running_pid: print the PID of our server and return 0, or return 1.
# The pid file is authoritative; if it is missing or stale, fall back to a
# scan for a mariadbd naming exactly our datadir (e.g. pid file deleted).
running_pid() {
    local pid p
    if [ -f "$PIDFILE" ]; then
        pid=$(tr -dc '0-9' < "$PIDFILE" 2>/dev/null || true)
        if is_ours "$pid"; then printf '%s\n' "$pid"; return 0; fi
    fi
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        [ "$(cat "$p/comm" 2>/dev/null || true)" = mariadbd ] || continue
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

client() {  # run the mariadb client as the socket-authenticated admin
    "$MARIADB" --no-defaults --protocol=socket --socket="$SOCK" -u"$ME" "$@"
}

ping_server() {
    "$MARIADB_ADMIN" --no-defaults --protocol=socket --socket="$SOCK" -u"$ME" \
        --connect-timeout=2 ping >/dev/null 2>&1
}

write_env() {  # PID PORT
    local tmp="$ENVFILE.tmp.$$"
    {
        printf 'LB_MYSQL_HOST=%q\n' 127.0.0.1
        printf 'LB_MYSQL_PORT=%q\n' "$2"
        printf 'LB_MYSQL_SOCKET=%q\n' "$SOCK"
        printf 'LB_MYSQL_USER=%q\n' sbtest
        printf 'LB_MYSQL_PASSWORD=%q\n' sbtest
        printf 'LB_MYSQL_DB=%q\n' sbtest
        printf 'LB_SANDBOX_PID=%q\n' "$1"
    } > "$tmp"
    mv -f "$tmp" "$ENVFILE"
}

log_tail() {  # print the last lines of the error log written since offset $1
    local from=${1:-0}
    [ -f "$LOG" ] || { note "no error log at $LOG"; return 0; }
    note "last lines of $LOG:"
    tail -c +"$((from + 1))" "$LOG" | tail -n 25 | sed 's/^/    /' >&2
}

init_datadir() {
    local installdb out
    installdb=$(need_bin mariadb-install-db)
    [ -d "$DATA/mysql" ] && return 0
    # Never delete what we did not create: a non-empty datadir without the
    # system tables (e.g. an interrupted initialisation) must be removed by hand.
    if [ -d "$DATA" ] && [ -n "$(ls -A -- "$DATA")" ]; then
        die "$DATA exists but is not an initialised datadir; remove it (rm -rf $DATA) and retry"
    fi
    rm -f -- "$PROVISIONED"
    mkdir -p -- "$DATA"
    echo "$prog: initialising datadir $DATA"
    if ! out=$("$installdb" --no-defaults --datadir="$DATA" --user="$ME" \
            --auth-root-authentication-method=socket --auth-root-socket-user="$ME" \
            --skip-test-db </dev/null 2>&1); then
        printf '%s\n' "$out" | tail -n 25 | sed 's/^/    /' >&2
        rm -rf -- "$DATA"
        die "mariadb-install-db failed (output above)"
    fi
}

# launch FLUSH_METHOD: start mariadbd and wait for it; prints the PID.
# Returns 0 when it answers ping, 1 if it died, 2 on timeout (still running).
launch() {
    local flush=$1 pid i
    rm -f -- "$PIDFILE"
    setsid "$MARIADBD" --no-defaults \
        --datadir="$DATA" \
        --socket="$SOCK" \
        --port="$PORT" \
        --bind-address=127.0.0.1 \
        --pid-file="$PIDFILE" \
        --log-error="$LOG" \
        --user="$ME" \
        --innodb-buffer-pool-size="$BUFFER_POOL" \
        --innodb-buffer-pool-chunk-size=32M \
        --innodb-log-file-size=256M \
        --innodb-flush-log-at-trx-commit=2 \
        --innodb-flush-method="$flush" \
        --performance-schema=OFF \
        --skip-log-bin \
        --max-connections="$MAX_CONNECTIONS" \
        --open-files-limit=$((MAX_CONNECTIONS + 2000)) \
        ${BACK_LOG:+--back-log="$BACK_LOG"} \
        $([ "$THREAD_POOL" = 1 ] && echo --thread-handling=pool-of-threads) \
        --max-prepared-stmt-count=1000000 \
        --skip-name-resolve \
        </dev/null >>"$LOG" 2>&1 &
    pid=$!
    LAUNCHED_PID=$pid
    for ((i = 0; i < 120; i++)); do   # up to 60 s
        if ping_server && [ -s "$PIDFILE" ]; then
            return 0
        fi
        alive "$pid" || { wait "$pid" 2>/dev/null || true; return 1; }
        sleep 0.5
    done
    return 2
}

provision() {
    client --batch <<'SQL'
CREATE DATABASE IF NOT EXISTS sbtest;
CREATE USER IF NOT EXISTS 'sbtest'@'127.0.0.1' IDENTIFIED BY 'sbtest';
CREATE USER IF NOT EXISTS 'sbtest'@'localhost' IDENTIFIED BY 'sbtest';
GRANT ALL PRIVILEGES ON *.* TO 'sbtest'@'127.0.0.1';
GRANT ALL PRIVILEGES ON *.* TO 'sbtest'@'localhost';
CREATE USER IF NOT EXISTS 'lbnopriv'@'127.0.0.1' IDENTIFIED BY 'lbnopriv';
CREATE USER IF NOT EXISTS 'lbnopriv'@'localhost' IDENTIFIED BY 'lbnopriv';
GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER ON sbtest.* TO 'lbnopriv'@'127.0.0.1';
GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER ON sbtest.* TO 'lbnopriv'@'localhost';
-- mariadb-install-db adds a proxy grant for root@<hostname>, which
-- --skip-name-resolve warns about in the error log on every start.
DELETE FROM mysql.proxies_priv WHERE Host NOT IN ('localhost', '127.0.0.1', '::1');
FLUSH PRIVILEGES;
SQL
}

cmd_start() {
    local pid rc from flush newlog
    if pid=$(running_pid); then
        [ -f "$ENVFILE" ] || write_env "$pid" "$(arg_of "$pid" port || echo "$PORT")"
        echo "mariadb sandbox already running: port=$(arg_of "$pid" port || echo '?') socket=$SOCK pid=$pid"
        return 0
    fi
    MARIADBD=$(need_bin mariadbd)
    MARIADB=$(need_bin mariadb)
    MARIADB_ADMIN=$(need_bin mariadb-admin)

    mkdir -p -- "$DIR"
    rm -f -- "$ENVFILE" "$PIDFILE"
    init_datadir
    touch -- "$LOG"

    flush=O_DIRECT
    while :; do
        from=$(stat -c %s -- "$LOG")
        rc=0
        launch "$flush" || rc=$?
        [ "$rc" = 0 ] && break
        if [ "$rc" = 2 ]; then
            # Still starting after 60 s: do not leave a half-started server.
            log_tail "$from"
            if is_ours "$LAUNCHED_PID"; then
                kill -TERM "$LAUNCHED_PID" 2>/dev/null || true
                stop_wait "$LAUNCHED_PID" || true
            fi
            die "mariadbd did not answer ping within 60 s (see $LOG)"
        fi
        # It exited.  O_DIRECT unsupported by this filesystem (e.g. tmpfs)?
        newlog=$(tail -c +"$((from + 1))" "$LOG")
        if [ "$flush" = O_DIRECT ] && grep -qi 'O_DIRECT' <<<"$newlog"; then
            note "O_DIRECT not usable for $DATA; retrying with --innodb-flush-method=fsync"
            flush=fsync
            continue
        fi
        log_tail "$from"
        if grep -q 'Address already in use' <<<"$newlog"; then
            die "port $PORT on 127.0.0.1 is already in use; set LB_SANDBOX_PORT to a free port"
        fi
        die "mariadbd failed to start (see $LOG)"
    done

    pid=$(tr -dc '0-9' < "$PIDFILE")
    if [ ! -f "$PROVISIONED" ]; then
        provision || die "creating database sbtest and users failed (server left running; stop it with: $0 stop)"
        : > "$PROVISIONED"
    fi
    write_env "$pid" "$PORT"
    echo "mariadb sandbox running: port=$PORT socket=$SOCK pid=$pid"
}

# stop_wait PID: wait up to 60 s for it to exit, then SIGKILL it.
stop_wait() {
    local pid=$1 i
    for ((i = 0; i < 120; i++)); do
        is_ours "$pid" || return 0
        sleep 0.5
    done
    note "mariadbd (pid $pid) did not exit within 60 s after SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 20; i++)); do
        is_ours "$pid" || return 0
        sleep 0.5
    done
    return 1
}

cmd_stop() {
    local pid
    if ! pid=$(running_pid); then
        rm -f -- "$ENVFILE" "$PIDFILE"   # stale files only: no server of ours
        echo "mariadb sandbox not running (datadir $DATA)"
        return 0
    fi
    kill -TERM "$pid" 2>/dev/null || true
    stop_wait "$pid" || die "mariadbd (pid $pid) is still running after SIGKILL"
    rm -f -- "$ENVFILE" "$PIDFILE"
    echo "mariadb sandbox stopped (pid $pid)"
}

cmd_status() {
    local pid
    if pid=$(running_pid); then
        echo "mariadb sandbox running: port=$(arg_of "$pid" port || echo '?') socket=$SOCK pid=$pid"
        return 0
    fi
    echo "mariadb sandbox stopped (datadir $DATA)"
    return 3
}

cmd_env() {
    local pid
    pid=$(running_pid) || die "not running; start it with: $0 start"
    [ -f "$ENVFILE" ] || write_env "$pid" "$(arg_of "$pid" port || echo "$PORT")"
    cat -- "$ENVFILE"
}

[ "$#" -eq 1 ] || usage
case "$1" in
    start)   cmd_start ;;
    stop)    cmd_stop ;;
    status)  rc=0; cmd_status || rc=$?; exit "$rc" ;;
    restart) cmd_stop; cmd_start ;;
    env)     cmd_env ;;
    -h|--help|help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
esac

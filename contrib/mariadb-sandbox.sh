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
. "$(dirname -- "$(realpath -- "${BASH_SOURCE[0]}")")/sandbox-lib.sh"

SB_VAR=LB_SANDBOX
SB_NAME=mariadb
SB_DAEMON=mariadbd
SB_ARGV0=(mariadbd mysqld)
SB_STOP_SIG=TERM

DIR=${LB_SANDBOX_DIR:-/tmp/lbench-sandbox}
PORT=${LB_SANDBOX_PORT:-3307}
BUFFER_POOL=${LB_SANDBOX_BUFFER_POOL:-256M}
MAX_CONNECTIONS=${LB_SANDBOX_MAX_CONNECTIONS:-4000}
THREAD_POOL=${LB_SANDBOX_THREAD_POOL:-0}
BACK_LOG=${LB_SANDBOX_BACK_LOG:-}

sb_set_dir
sb_check_port 3306 MariaDB
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

SOCK=$DIR/mysqld.sock
PIDFILE=$DIR/mysqld.pid
LOG=$DIR/error.log
sb_check_sock

SB_WHERE="socket=$SOCK"
SB_ENV=LB_MYSQL
SB_ENV_SOCKET=(LB_MYSQL_SOCKET "$SOCK")
SB_STALE=("$ENVFILE" "$PIDFILE")   # a killed mariadbd leaves its pid file behind
SB_MARK=
SB_LOG_KIND="error log"
SB_NOT_READY="did not answer ping"
SB_ACCOUNTS=users
SB_HELP=2,27p

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

names_datadir() { [ "$2" = "--datadir=$DATA" ]; }

pidfile_pid() {
    [ -f "$PIDFILE" ] || return 1
    tr -dc '0-9' < "$PIDFILE" 2>/dev/null || true
}

client() {  # run the mariadb client as the socket-authenticated admin
    "$MARIADB" --no-defaults --protocol=socket --socket="$SOCK" -u"$ME" "$@"
}

ping_server() {
    "$MARIADB_ADMIN" --no-defaults --protocol=socket --socket="$SOCK" -u"$ME" \
        --connect-timeout=2 ping >/dev/null 2>&1
}

init_datadir() {
    local installdb
    installdb=$(need_bin mariadb-install-db)
    [ -d "$DATA/mysql" ] && return 0
    refuse_foreign_datadir
    rm -f -- "$PROVISIONED"
    mkdir -p -- "$DATA"
    run_init mariadb-install-db "$installdb" --no-defaults --datadir="$DATA" --user="$ME" \
        --auth-root-authentication-method=socket --auth-root-socket-user="$ME" \
        --skip-test-db
}

prepare_start() {
    MARIADBD=$(need_bin mariadbd)
    MARIADB=$(need_bin mariadb)
    MARIADB_ADMIN=$(need_bin mariadb-admin)

    mkdir -p -- "$DIR"
    rm -f -- "$ENVFILE" "$PIDFILE"
    init_datadir
    touch -- "$LOG"
    FLUSH=O_DIRECT   # unbuffered InnoDB I/O where the filesystem has it (see relaunch)
}

# launch: start mariadbd with --innodb-flush-method=$FLUSH and wait_ready.
launch() {
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
        --innodb-flush-method="$FLUSH" \
        --performance-schema=OFF \
        --skip-log-bin \
        --max-connections="$MAX_CONNECTIONS" \
        --open-files-limit=$((MAX_CONNECTIONS + 2000)) \
        ${BACK_LOG:+--back-log="$BACK_LOG"} \
        $([ "$THREAD_POOL" = 1 ] && echo --thread-handling=pool-of-threads) \
        --max-prepared-stmt-count=1000000 \
        --skip-name-resolve \
        </dev/null >>"$LOG" 2>&1 &
    wait_ready $!
}

# The pid file is written once the server is up; ping alone may answer
# before it is there.
server_ready() { ping_server && [ -s "$PIDFILE" ]; }

# relaunch NEWLOG: mariadbd exited.  O_DIRECT unsupported by this
# filesystem (e.g. tmpfs)?  Then once more with fsync.
relaunch() {
    if [ "$FLUSH" = O_DIRECT ] && grep -qi 'O_DIRECT' <<<"$1"; then
        note "O_DIRECT not usable for $DATA; retrying with --innodb-flush-method=fsync"
        FLUSH=fsync
        return 0
    fi
    return 1
}

started_pid() { tr -dc '0-9' < "$PIDFILE"; }

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

# stop_wait PID: wait up to 60 s for it to exit, then SIGKILL it.
stop_wait() {
    gone_within "$1" 60 && return 0
    note "mariadbd (pid $1) did not exit within 60 s after SIGTERM; sending SIGKILL"
    kill -KILL "$1" 2>/dev/null || true
    gone_within "$1" 10
}

sb_main "$@"

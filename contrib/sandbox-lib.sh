# Shared skeleton of contrib/mariadb-sandbox.sh and contrib/postgres-sandbox.sh:
# the commands (start, stop, status, restart, env), the checks of the
# settings, finding our server by its command line, waiting for it, the env
# file.  Sourced by both from the directory they are in; it runs nothing
# itself.  What differs between the servers is in the scripts:
#
# Settings (set by the script before it calls anything here):
#   prog          name on the script's messages (mariadb-sandbox)
#   SB_VAR        prefix of its environment variables (LB_SANDBOX: _DIR,
#                 _PORT, and _PID in the env file)
#   SB_NAME       the server's name in the status lines (mariadb)
#   SB_DAEMON     the server's process name (comm) and name in messages
#   SB_ARGV0      the names its argv[0] may have (mariadbd mysqld)
#   SB_STOP_SIG   the signal that shuts it down cleanly (TERM)
# and after sb_set_dir and its own checks:
#   SB_WHERE      where clients find it, in the status lines (socket=...)
#   SB_ENV        prefix of the client variables in the env file (LB_MYSQL)
#   SB_ENV_SOCKET name and value of the env file's socket line
#   SB_STALE      the files stop removes once no server of ours runs
#   SB_MARK       a file that says $DIR is ours, or empty (any $DIR is)
#   SB_LOG_KIND   "error log" or "server log", SB_NOT_READY (how a server
#                 that never came up failed: "did not answer ping"),
#                 SB_ACCOUNTS ("users" or "roles"), SB_HELP (sed range of
#                 the script's header, its help text)
#
# Hooks (functions the script defines; those marked * have a default here):
#   names_datadir PREV ARG   two consecutive argv entries name our datadir
#   pidfile_pid              print the PID in the pid file; 1 if there is none
#   prepare_start            binaries, directory, datadir and log, before launch
#   launch                   start the server in the background and
#                            `wait_ready $!`; returns as wait_ready does
#   server_ready PID         the server launched as PID takes clients
#   relaunch NEWLOG *        after the server exited at start, whether to
#                            launch again (NEWLOG: what it logged)
#   started_pid *            print the PID of the server just started
#   provision                create database sbtest and the accounts
#   stop_wait PID            wait for it to exit, escalating; 1 if it never does
#   cannot_signal PID *      the stop signal could not be sent

die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
note() { printf '%s: %s\n' "$prog" "$*" >&2; }

usage() { printf 'usage: %s start|stop|status|restart|env\n' "$0" >&2; exit 2; }

# sb_set_dir: make $DIR absolute (it is compared with the server's own
# command line) and name the files every sandbox keeps in it.
sb_set_dir() {
    [ -n "$DIR" ] || die "${SB_VAR}_DIR is empty"
    DIR=$(realpath -m -- "$DIR")
    [ "$DIR" != / ] || die "${SB_VAR}_DIR must not be /"
    DATA=$DIR/data
    ENVFILE=$DIR/env
    PROVISIONED=$DIR/.provisioned   # marker: accounts/database created
    ME=$(id -un)
}

# sb_check_port RESERVED SYSTEM [MAXDIGITS]: $PORT is a TCP port, not the
# system server's.  With MAXDIGITS a longer number is out of range too and
# PORT is read as decimal: the server names its socket file after the
# number it reads, so "05441" must become 5441 before we look for it.
sb_check_port() {
    case "$PORT" in
        ''|*[!0-9]*) die "${SB_VAR}_PORT must be a number, got '$PORT'" ;;
    esac
    if [ "${#PORT}" -gt "${3:-${#PORT}}" ] || [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then
        die "${SB_VAR}_PORT out of range: $PORT"
    fi
    [ -z "${3:-}" ] || PORT=$((10#$PORT))
    [ "$PORT" -ne "$1" ] || die "${SB_VAR}_PORT=$1 is reserved for the system $2; pick another port"
}

# sb_check_sock: unix socket paths are limited to 108 bytes; say so before
# the server fails on a longer one.
sb_check_sock() {
    [ "${#SOCK}" -lt 100 ] || die "socket path too long (${#SOCK} bytes): $SOCK; use a shorter ${SB_VAR}_DIR"
}

# alive PID: process exists and is not a zombie
alive() {
    local st
    [ -r "/proc/$1/stat" ] || return 1
    st=$(sed -E 's/^.*\) (.).*$/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# known_argv0 NAME: NAME is one of SB_ARGV0
known_argv0() {
    local n
    for n in "${SB_ARGV0[@]}"; do
        if [ "$1" = "$n" ]; then return 0; fi
    done
    return 1
}

# is_ours PID: a live server of ours: argv[0] is one of SB_ARGV0 and two
# consecutive entries after it name our datadir (names_datadir).  Only such
# a process is ever signalled: a PID from a stale pid file may be anyone's.
is_ours() {
    local pid=$1 arg first=1 prev=
    case "$pid" in ''|*[!0-9]*) return 1 ;; esac
    alive "$pid" || return 1
    while IFS= read -r -d '' arg; do
        if [ "$first" = 1 ]; then
            first=0
            known_argv0 "${arg##*/}" || return 1
        elif names_datadir "$prev" "$arg"; then
            return 0
        fi
        prev=$arg
    done 2>/dev/null < "/proc/$pid/cmdline"
    return 1
}

# running_pid: print the PID of our server and return 0, or return 1.
# The pid file is authoritative; if it is missing or stale, fall back to a
# scan for a server naming exactly our datadir (e.g. pid file deleted).
running_pid() {
    local pid p
    if pid=$(pidfile_pid) && is_ours "$pid"; then printf '%s\n' "$pid"; return 0; fi
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        [ "$(cat "$p/comm" 2>/dev/null || true)" = "$SB_DAEMON" ] || continue
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

# write_env PID PORT: the env file, written whole then renamed, so that a
# reader never sources half of it.
write_env() {
    local tmp="$ENVFILE.tmp.$$"
    {
        printf '%s_HOST=%q\n' "$SB_ENV" 127.0.0.1
        printf '%s_PORT=%q\n' "$SB_ENV" "$2"
        printf '%s=%q\n' "${SB_ENV_SOCKET[@]}"
        printf '%s_USER=%q\n' "$SB_ENV" sbtest
        printf '%s_PASSWORD=%q\n' "$SB_ENV" sbtest
        printf '%s_DB=%q\n' "$SB_ENV" sbtest
        printf '%s_PID=%q\n' "$SB_VAR" "$1"
    } > "$tmp"
    mv -f "$tmp" "$ENVFILE"
}

log_tail() {  # print the last lines of the log written since offset $1
    local from=${1:-0}
    [ -f "$LOG" ] || { note "no $SB_LOG_KIND at $LOG"; return 0; }
    note "last lines of $LOG:"
    tail -c +"$((from + 1))" "$LOG" | tail -n 25 | sed 's/^/    /' >&2
}

# dir_is_ours: $DIR is absent, or carries our marker.  Anything else is
# someone else's directory: we neither write nor delete anything in it.
dir_is_ours() {
    [ -n "$SB_MARK" ] || return 0
    [ ! -e "$DIR" ] && [ ! -L "$DIR" ] && return 0
    [ -d "$DIR" ] && [ -f "$SB_MARK" ]
}

# refuse_foreign_datadir: never delete what we did not create: a non-empty
# datadir that is not initialised (e.g. an interrupted initialisation) must
# be removed by hand.
refuse_foreign_datadir() {
    if [ -d "$DATA" ] && [ -n "$(ls -A -- "$DATA")" ]; then
        die "$DATA exists but is not an initialised datadir; remove it (rm -rf $DATA) and retry"
    fi
}

# run_init TOOL CMD...: initialise $DATA with CMD.  On failure show the end
# of its output and remove the half-made datadir (ours: refuse_foreign_datadir
# found it absent or empty), so that the next start begins afresh.
run_init() {
    local tool=$1 out
    shift
    echo "$prog: initialising datadir $DATA"
    if ! out=$("$@" </dev/null 2>&1); then
        printf '%s\n' "$out" | tail -n 25 | sed 's/^/    /' >&2
        rm -rf -- "$DATA"
        die "$tool failed (output above)"
    fi
}

# wait_ready PID: wait up to 60 s for the server launched as PID (sets
# LAUNCHED_PID).  Returns 0 once server_ready says so, 1 if PID died,
# 2 on timeout (still running).
wait_ready() {
    local pid=$1 i
    LAUNCHED_PID=$pid
    for ((i = 0; i < 120; i++)); do
        if server_ready "$pid"; then return 0; fi
        alive "$pid" || { wait "$pid" 2>/dev/null || true; return 1; }
        sleep 0.5
    done
    return 2
}

relaunch() { return 1; }
started_pid() { printf '%s\n' "$LAUNCHED_PID"; }
cannot_signal() { :; }   # it has exited meanwhile: stop_wait sees it gone

# launch_or_die: launch the server (again while relaunch allows), or die
# with the end of its log.
launch_or_die() {
    local rc from newlog
    while :; do
        from=$(stat -c %s -- "$LOG")
        rc=0
        launch || rc=$?
        [ "$rc" = 0 ] && return 0
        if [ "$rc" = 2 ]; then
            # Still starting after 60 s: do not leave a half-started server.
            log_tail "$from"
            if is_ours "$LAUNCHED_PID"; then
                kill -"$SB_STOP_SIG" "$LAUNCHED_PID" 2>/dev/null || true
                stop_wait "$LAUNCHED_PID" || true
            fi
            die "$SB_DAEMON $SB_NOT_READY within 60 s (see $LOG)"
        fi
        newlog=$(tail -c +"$((from + 1))" "$LOG")
        relaunch "$newlog" && continue
        log_tail "$from"
        if grep -q 'Address already in use' <<<"$newlog"; then
            die "port $PORT on 127.0.0.1 is already in use; set ${SB_VAR}_PORT to a free port"
        fi
        die "$SB_DAEMON failed to start (see $LOG)"
    done
}

# gone_within PID SECONDS: whether PID (as our server) exits within SECONDS.
gone_within() {
    local i
    for ((i = 0; i < $2 * 2; i++)); do
        is_ours "$1" || return 0
        sleep 0.5
    done
    return 1
}

cmd_start() {
    local pid
    if pid=$(running_pid); then
        if [ ! -f "$ENVFILE" ] && dir_is_ours; then write_env "$pid" "$(arg_of "$pid" port || echo "$PORT")"; fi
        echo "$SB_NAME sandbox already running: port=$(arg_of "$pid" port || echo '?') $SB_WHERE pid=$pid"
        return 0
    fi
    prepare_start
    launch_or_die
    pid=$(started_pid)
    if [ ! -f "$PROVISIONED" ]; then
        provision || die "creating database sbtest and $SB_ACCOUNTS failed (server left running; stop it with: $0 stop)"
        : > "$PROVISIONED"
    fi
    write_env "$pid" "$PORT"
    echo "$SB_NAME sandbox running: port=$PORT $SB_WHERE pid=$pid"
}

# forget_files: remove SB_STALE once no server of ours runs, and only in a
# directory that is ours.
forget_files() {
    if [ -z "$SB_MARK" ] || [ -f "$SB_MARK" ]; then rm -f -- "${SB_STALE[@]}"; fi
}

cmd_stop() {
    local pid
    if ! pid=$(running_pid); then
        forget_files   # stale files only: no server of ours
        echo "$SB_NAME sandbox not running (datadir $DATA)"
        return 0
    fi
    kill -"$SB_STOP_SIG" "$pid" 2>/dev/null || cannot_signal "$pid"
    stop_wait "$pid" || die "$SB_DAEMON (pid $pid) is still running after SIGKILL"
    forget_files
    echo "$SB_NAME sandbox stopped (pid $pid)"
}

cmd_status() {
    local pid
    if pid=$(running_pid); then
        echo "$SB_NAME sandbox running: port=$(arg_of "$pid" port || echo '?') $SB_WHERE pid=$pid"
        return 0
    fi
    echo "$SB_NAME sandbox stopped (datadir $DATA)"
    return 3
}

cmd_env() {
    local pid
    pid=$(running_pid) || die "not running; start it with: $0 start"
    if [ ! -f "$ENVFILE" ]; then
        dir_is_ours || die "${SB_VAR}_DIR=$DIR is not a $SB_NAME sandbox (no ${SB_MARK##*/} in it)"
        write_env "$pid" "$(arg_of "$pid" port || echo "$PORT")"
    fi
    cat -- "$ENVFILE"
}

# sb_main ARGS...: the script's command line.
sb_main() {
    [ "$#" -eq 1 ] || usage
    case "$1" in
        start)   cmd_start ;;
        stop)    cmd_stop ;;
        status)  rc=0; cmd_status || rc=$?; exit "$rc" ;;
        restart) cmd_stop; cmd_start ;;
        env)     cmd_env ;;
        -h|--help|help) sed -n "$SB_HELP" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) usage ;;
    esac
}

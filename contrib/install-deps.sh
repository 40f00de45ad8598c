#!/usr/bin/env bash
# Install the Debian packages lbench needs that are missing, and nothing else.
#
# Usage: contrib/install-deps.sh [build|test|bench|pgbtap]      (default: build)
#
#   build  compiler toolchain and libraries needed to build lbench
#   test   build + MariaDB and PostgreSQL servers/clients, busted, gnuplot, sysbench, fio, procps,
#          sqlite3 (the CLI), chromium (headless page checks), cram (make sbcram),
#          prometheus-node-exporter (the --node-exporter test), prometheus
#          (promtool, which checks the metrics endpoint; its service is left
#          stopped and disabled)
#   bench  test + sysbench, fio (the reference tools lbench is compared against)
#   pgbtap build + PostgreSQL 15 and Perl's IPC::Run (make pgbtap: pgbench's own
#          TAP tests, which run on PostgreSQL's Perl test modules)
#
# Environment:
#   LB_EXTRA_PKGS   extra Debian package names (space separated) to require too
#
# Fast path: when everything is installed it prints nothing and exits 0, so it
# is cheap to run on every `make test`.  Works as root, via sudo, and without a
# tty/stdin (CI).  Installing mariadb-server never starts Debian's system
# service: if no /usr/sbin/policy-rc.d exists, a temporary one denying service
# starts is put in place for the duration of the install.
set -euo pipefail

prog=install-deps
err() { printf '%s: %s\n' "$prog" "$*" >&2; }

BUILD_PKGS=(gcc make pkg-config luajit libluajit-5.1-dev libaio-dev libevent-dev
            default-libmysqlclient-dev libpq-dev liburing-dev libsqlite3-dev)
TEST_PKGS=(mariadb-server mariadb-client postgresql-15 postgresql-client-15 iproute2 lua-busted gnuplot-nox sysbench fio procps
           sqlite3 chromium openmpi-bin libopenmpi-dev python3-cram prometheus-node-exporter prometheus)
BENCH_PKGS=(sysbench fio)
PGBTAP_PKGS=(postgresql-15 postgresql-client-15 perl libipc-run-perl)

group=${1:-build}
case "$group" in
    build) pkgs=("${BUILD_PKGS[@]}") ;;
    test)  pkgs=("${BUILD_PKGS[@]}" "${TEST_PKGS[@]}") ;;
    bench) pkgs=("${BUILD_PKGS[@]}" "${TEST_PKGS[@]}" "${BENCH_PKGS[@]}") ;;
    pgbtap) pkgs=("${BUILD_PKGS[@]}" "${PGBTAP_PKGS[@]}") ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) err "unknown group '$group' (usage: $0 [build|test|bench|pgbtap])"; exit 2 ;;
esac
if [ "$#" -gt 1 ]; then
    err "too many arguments (usage: $0 [build|test|bench|pgbtap])"; exit 2
fi
# shellcheck disable=SC2206  # word splitting of the override is intended
[ -n "${LB_EXTRA_PKGS:-}" ] && pkgs+=(${LB_EXTRA_PKGS})

if ! command -v dpkg-query >/dev/null 2>&1; then
    err "dpkg-query not found: this script supports Debian/Ubuntu only; install: ${pkgs[*]}"
    exit 1
fi

# Which packages are missing (deduplicated, order kept)?
missing=()
declare -A seen=()
for p in "${pkgs[@]}"; do
    [ -n "${seen[$p]:-}" ] && continue
    seen[$p]=1
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$status" in
        *" ok installed") ;;
        *) missing+=("$p") ;;
    esac
done

[ "${#missing[@]}" -eq 0 ] && exit 0

install_cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        # No tty (CI): never wait for a password prompt.
        if [ -t 0 ]; then SUDO=(sudo); else SUDO=(sudo -n); fi
    else
        err "missing packages: ${missing[*]}; not root and no sudo; run as root: $install_cmd"
        exit 1
    fi
fi

echo "$prog: installing missing packages ($group): ${missing[*]}"

# Keep the maintainer scripts of mariadb-server, postgresql-15 and the
# Prometheus packages from starting Debian's system services (ports 3306,
# 5432, 9090, 9100): deny service starts
# via policy-rc.d while we install,
# unless the machine already has a policy-rc.d (then it decides, and we leave
# whatever it allows alone).
POLICY=/usr/sbin/policy-rc.d
POLICY_MARK='# lbench install-deps temporary policy'
policy_installed=0
remove_policy() {
    if [ "$policy_installed" = 1 ] && grep -qF "$POLICY_MARK" "$POLICY" 2>/dev/null; then
        "${SUDO[@]}" rm -f "$POLICY" || err "could not remove temporary $POLICY; remove it by hand"
    fi
    policy_installed=0
}
trap remove_policy EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
for p in "${missing[@]}"; do
    if { [ "$p" = mariadb-server ] || [ "$p" = postgresql-15 ] || [ "$p" = prometheus-node-exporter ] \
         || [ "$p" = prometheus ]; } && [ ! -e "$POLICY" ]; then
        printf '#!/bin/sh\n%s (denies service starts during install)\nexit 101\n' "$POLICY_MARK" \
            | "${SUDO[@]}" tee "$POLICY" >/dev/null
        "${SUDO[@]}" chmod 755 "$POLICY"
        policy_installed=1
        break
    fi
done

apt_opts=(-q -o DPkg::Lock::Timeout=300)
if ! "${SUDO[@]}" apt-get "${apt_opts[@]}" -qq update >/dev/null; then
    err "apt-get update failed; run: $install_cmd"
    exit 1
fi
if ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}"; then
    err "apt-get install failed for: ${missing[*]}; run: $install_cmd"
    exit 1
fi
remove_policy
# The tests need promtool alone: Prometheus' server stays stopped and off at boot.
for p in "${missing[@]}"; do
    if [ "$p" = prometheus ]; then
        if command -v systemctl >/dev/null 2>&1; then "${SUDO[@]}" systemctl disable --now prometheus >/dev/null 2>&1 || true; fi
        if command -v update-rc.d >/dev/null 2>&1; then "${SUDO[@]}" update-rc.d prometheus disable >/dev/null 2>&1 || true; fi
    fi
done

# Verify.
still=()
for p in "${missing[@]}"; do
    case "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" in
        *" ok installed") ;;
        *) still+=("$p") ;;
    esac
done
if [ "${#still[@]}" -gt 0 ]; then
    err "still missing after install: ${still[*]}"
    exit 1
fi
echo "$prog: installed: ${missing[*]}"

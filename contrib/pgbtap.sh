#!/usr/bin/env bash
# pgbench 15's own TAP tests (src/bin/pgbench/t/001_pgbench_with_server.pl
# and 002_pgbench_no_server.pl, run by prove) side by side: once with the
# real pgbench first on PATH, once with a `pgbench` that is a symlink to
# lbench.  Each run gets the private cluster the TAP framework starts itself
# (initdb and pg_ctl from PG_BIN), on ports it picks.
#
# Usage: contrib/pgbtap.sh PG_SRC [TEST.pl ...]
#   PG_SRC   a PostgreSQL 15 source tree (Debian's postgresql-15 source
#            package or a checkout at REL_15_*): its src/bin/pgbench/t and
#            src/test/perl are read where they are; nothing is copied into
#            this tree
#   TEST.pl  only these files (names as in src/bin/pgbench/t/)
#
# Environment (defaults in brackets):
#   LBENCH          [./lbench]                         the lbench binary
#   PG_BIN          [/usr/lib/postgresql/15/bin]       initdb, pg_ctl, postgres
#   PGBENCH         [$PG_BIN/pgbench]                  the real pgbench 15
#   PGBTAP_OUT      [/tmp/lbench-pgbtap]               work directory: logs, the clusters
#   PGBTAP_EXCUSES  [contrib/pgbtap-excuses.txt]
#   PGBTAP_USER     [postgres, when run as root]       who runs prove (initdb refuses root)
#
# A case is one command the test files run with its checks (the status,
# stdout and stderr points of one command_checks_all) or one plain ok();
# it is named FILE#N, N being the TAP number of its first point, which is
# stable for one version of the test files.  Prints one line per case that
# does not pass with both tools: "LBENCH-ONLY-FAIL" (passes with pgbench,
# fails with lbench), "excused" (listed in the excuses file, with its
# reason), "pgbench-fails" (the reference fails it here too), then the
# totals.  Exit 1 if a case fails with lbench only and is not excused.
set -uo pipefail

prog=pgbtap
die() { echo "$prog: $*" >&2; exit 2; }
here=$(cd "$(dirname -- "$0")" && pwd)
root=$(cd "$here/.." && pwd)
[ $# -gt 0 ] || die "usage: contrib/pgbtap.sh PG_SRC [TEST.pl ...]"
SRC=$(cd "$1" 2>/dev/null && pwd) || die "$1: no such directory"
shift
T=$SRC/src/bin/pgbench
[ -d "$T/t" ] && [ -f "$SRC/src/test/perl/PostgreSQL/Test/Cluster.pm" ] ||
  die "$SRC has no src/bin/pgbench/t or src/test/perl/PostgreSQL/Test (want a PostgreSQL 15 source tree)"
LBENCH=$(realpath "${LBENCH:-$root/lbench}") && [ -x "$LBENCH" ] || die "no lbench binary (run make)"
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PGBENCH=${PGBENCH:-$PG_BIN/pgbench}
for f in initdb pg_ctl postgres; do [ -x "$PG_BIN/$f" ] || die "$PG_BIN/$f not found (set PG_BIN)"; done
[ -x "$PGBENCH" ] || die "$PGBENCH not found (set PGBENCH)"
command -v prove >/dev/null || die "prove not found (Debian package perl)"
perl -MIPC::Run -e1 2>/dev/null || die "Perl's IPC::Run not found (contrib/install-deps.sh pgbtap)"
OUT=${PGBTAP_OUT:-/tmp/lbench-pgbtap}
EXCUSES=${PGBTAP_EXCUSES:-$root/contrib/pgbtap-excuses.txt}

# initdb refuses to run as root: as root, prove runs as an ordinary user,
# which must be able to read the source tree and the copy of lbench.
RUN=()
if [ "$(id -u)" = 0 ]; then
  user=${PGBTAP_USER:-postgres}
  id "$user" >/dev/null 2>&1 || die "user $user not found (set PGBTAP_USER to a non-root user)"
  RUN=(runuser -u "$user" --)
  "${RUN[@]}" test -r "$T/t/001_pgbench_with_server.pl" || die "$user cannot read $T (set PGBTAP_USER, or put the tree where it can)"
fi

mkdir -p "$OUT" && chmod 755 "$OUT" || die "cannot create $OUT"
exec 9>"$OUT.lock"
flock -w 600 9 || die "another run holds $OUT.lock"

# lbench finds its stock scenarios next to its binary: the copy takes them
# along (the work tree may be out of the test user's reach).
rm -rf "$OUT/bin-pgbench" "$OUT/bin-lbench" "$OUT/lbench"
mkdir -p "$OUT/bin-pgbench" "$OUT/bin-lbench" "$OUT/lbench"
cp "$LBENCH" "$OUT/lbench/lbench" && cp -r "$root/scenarios" "$OUT/lbench/" || die "cannot copy lbench into $OUT"
ln -s "$PGBENCH" "$OUT/bin-pgbench/pgbench"
ln -s "$OUT/lbench/lbench" "$OUT/bin-lbench/pgbench"
chmod -R a+rX "$OUT/lbench"

# run_file TAG TEST.pl: prove -v on one file with TAG's pgbench first on
# PATH; the TAP stream goes to $OUT/TAG/TEST.log
run_file() {
  local tag=$1 file=$2 dir=$OUT/$1
  rm -rf "$dir/${file%.pl}"; mkdir -p "$dir/${file%.pl}"
  [ ${#RUN[@]} -gt 0 ] && chown -R "${RUN[2]}" "$dir"
  # TESTDIR and top_builddir: where the framework keeps its clusters and
  # port locks; pg_regress --config-auth does nothing off Windows.
  (cd "$T" && "${RUN[@]}" env PATH="$OUT/bin-$tag:$PG_BIN:/usr/bin:/bin" TESTDIR="$dir/${file%.pl}" \
     top_builddir="$dir/${file%.pl}" PG_REGRESS=/bin/true \
     timeout -k 5 1200 prove -v -I ../../test/perl -I . "t/$file") >"$dir/$file.log" 2>&1
}

# cases LOG: one line per case, "KEY<TAB>pass|fail<TAB>NAME".  A new case
# starts where the name (less its " status/stdout/stderr ..." suffix)
# changes or at a status point; a "# TODO" point counts as passed, as TAP has it.
cases() {
  awk -v f="${2%%_*}" '
    /^(not )?ok [0-9]+/ {
      ok = ($1 == "ok") || / # TODO/
      line = $0; sub(/^(not )?ok /, "", line)
      n = line + 0; sub(/^[0-9]+( - )?/, "", line); sub(/ # TODO.*$/, "", line)
      base = line; st = sub(/ status \(got .*$/, "", base)
      sub(/ (stdout|stderr) \/.*$/, "", base)
      if (key == "" || base != name || st) { flush(); key = f "#" n; name = base; pass = 1 }
      if (!ok) pass = 0
    }
    function flush() { if (key != "") printf "%s\t%s\t%s\n", key, pass ? "pass" : "fail", name }
    END { flush() }' "$1"
}

# excuse_for KEY NAME: the reason, if the excuses file has KEY for a case
# of that name (an excuse written for another version of the test files,
# whose numbers differ, does not apply)
# (the name through the environment: awk -v would read its backslashes)
excuse_for() { N="$2" awk -F' [|] ' -v k="$1" '$1 == k && $2 == ENVIRON["N"] { print $3; exit }' "$EXCUSES" 2>/dev/null; }

if [ $# -gt 0 ]; then files=("$@"); else
  files=(); for f in "$T"/t/*.pl; do files+=("$(basename "$f")"); done
fi
for file in "${files[@]}"; do [ -f "$T/t/$file" ] || die "$T/t/$file: no such test file"; done
n=0 n_ref=0 n_lb=0 n_both=0 n_only=0 n_exc=0 n_reffail=0
for file in "${files[@]}"; do
  run_file pgbench "$file"; run_file lbench "$file"
  cases "$OUT/pgbench/$file.log" "$file" >"$OUT/pgbench/$file.cases"
  cases "$OUT/lbench/$file.log" "$file" >"$OUT/lbench/$file.cases"
  [ -s "$OUT/pgbench/$file.cases" ] || { echo "$prog: $file gave no TAP points with pgbench; see $OUT/pgbench/$file.log" >&2; exit 1; }
  # Cases are matched by key; a case lbench never reached (its run died
  # first) counts as failed.
  while IFS=$'\t' read -r key ref name; do
    lb=$(awk -F'\t' -v k="$key" '$1 == k { print $2; exit }' "$OUT/lbench/$file.cases")
    n=$((n + 1))
    [ "$ref" = pass ] && n_ref=$((n_ref + 1))
    [ "$lb" = pass ] && n_lb=$((n_lb + 1))
    if [ "$ref" != pass ]; then n_reffail=$((n_reffail + 1)); printf '%-10s pgbench-fails  %s\n' "$key" "$name"
    elif [ "$lb" = pass ]; then n_both=$((n_both + 1))
    else
      why=$(excuse_for "$key" "$name")
      if [ -n "$why" ]; then n_exc=$((n_exc + 1)); printf '%-10s excused        %s: %s\n' "$key" "$name" "$why"
      else n_only=$((n_only + 1)); printf '%-10s LBENCH-ONLY-FAIL %s\n' "$key" "$name"; fi
    fi
  done <"$OUT/pgbench/$file.cases"
done
echo "$prog: $n cases; pgbench passes $n_ref, lbench passes $n_lb; both $n_both," \
  "lbench-only failures $n_only, excused $n_exc, failing with pgbench too $n_reffail"
# the points behind the cases: passed (TODO points count as passed) of all
points() { cat "${@/%/.log}" | awk '/^(not )?ok [0-9]+/ { n++; if ($1 == "ok" || / # TODO/) p++ } END { print p + 0 " of " n + 0 }'; }
echo "$prog: TAP points: pgbench passes $(points "${files[@]/#/$OUT/pgbench/}"), lbench $(points "${files[@]/#/$OUT/lbench/}")"
echo "$prog: TAP streams in $OUT/pgbench/*.log and $OUT/lbench/*.log"
[ $n_only = 0 ]

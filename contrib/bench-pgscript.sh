# make bench, section pgscript (sourced by contrib/bench.sh): pgbench's
# script language, the same custom script file through both tools (issue
# 30: TPS >= 1.0x pgbench's, client CPU per transaction <= 1.0x), on one
# private PostgreSQL (pg_start: port 5446, BENCH_PG_PORT for another), the
# clients pinned apart from the server as in the pgsql section.
#   lbench pgbench --file=F --protocol=MODE ...   vs   pgbench -f F -M MODE ...
# for MODE prepared and simple (pgbench's default: each statement's text
# with its variables' values written in).
# The scripts are contrib/pgscript/select-only.sql and tpcb-like.sql; the
# tables are pgbench's at scale 10, loaded once by pgbench -i.  Both tools
# skip their own vacuum (-n, --vacuum=off): the tables are vacuumed before
# each workload's rounds instead, so neither run pays for it.
bench_pgscript() {
  local c
  for c in psql pgbench; do
    command -v $c >/dev/null || { echo "(pgscript: $c not installed; run contrib/install-deps.sh bench)"; return; }
  done
  echo "== PostgreSQL: pgbench's script language, one custom script file through lbench pgbench and pgbench"
  pg_start
  local P="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$LB_PG_PORT --pgsql-user=sbtest --pgsql-password=sbtest --pgsql-db=sbtest"
  local G="-h 127.0.0.1 -p $LB_PG_PORT -U sbtest"
  local PIN=() PGB scale=10
  # pgbench next to the server's own binary, not Debian's Perl wrapper
  # (see bench_pgsql)
  PGB=$(dirname "$(readlink "/proc/$LB_PG_SANDBOX_PID/exe")")/pgbench
  [ -x "$PGB" ] || PGB=$(command -v pgbench)
  env PGPASSWORD=sbtest "$PGB" $G -i -q -s $scale sbtest > "$W/cmd.out" 2>&1 ||
    { echo "   (pgbench -i failed: $(tail -1 "$W/cmd.out"))"; pgscript_down; return; }
  pg_settle
  pg_pin
  echo "   ${SECS}s runs, scale $scale, median of $ROUNDS alternating rounds"
  printf '%-18s %4s %12s %12s %7s %12s %12s %9s\n' script:mode clients "lbench tps" "pgbench tps" ratio "lb us/tx" "pgb us/tx" "lb/pgb"
  local s f t round mode
  for mode in prepared simple; do
  for s in select-only tpcb-like; do
    f=contrib/pgscript/$s.sql
    for t in 1 2 8; do
      : > "$W/l"; : > "$W/g"
      pg_settle >/dev/null
      for round in $(seq "$ROUNDS"); do
        # Which goes first alternates: the second run of a round meets the
        # tables the first one left (dirtier pages, a longer history).
        if [ $((round % 2)) = 1 ]; then pgscript_lb; pgscript_pgb; else pgscript_pgb; pgscript_lb; fi
      done
      pg_pgbench_row "$s:${mode:0:4}" $t
    done
  done
  done
  echo "   ratio = lbench/pgbench tps (higher is better); us/tx = client CPU (user+sys) per transaction; lb/pgb: CPU ratio (lower is better)"
  echo "   ratios are medians over rounds of the ratio within each round; tps: pgbench's 'without initial connection time', lbench's events_per_sec"
  echo "   commands: lbench pgbench $P --file=contrib/pgscript/S.sql --protocol=MODE --scale=$scale --vacuum=off --threads=T --time=$SECS run"
  echo "             $PGB $G -f contrib/pgscript/S.sql -M MODE -s $scale -n -c T -j T -T $SECS sbtest   (with PGPASSWORD=sbtest)"
  pgscript_down
}

# One round's run of each tool (one connection per thread, as -c T -j T);
# the variables are bench_pgscript's.
pgscript_lb() {
  pgb_run lbench "$W/l" "${PIN[@]}" $LB pgbench $P --file="$f" --protocol="$mode" --scale=$scale --vacuum=off \
    --threads=$t --time="$SECS" --result-file="$W/pgb.json" run
}
pgscript_pgb() {
  pgb_run pgbench "$W/g" "${PIN[@]}" env PGPASSWORD=sbtest "$PGB" $G -f "$f" -M "$mode" -s $scale -n \
    -c $t -j $t -T "$SECS" sbtest
}
pgscript_down() {
  contrib/postgres-sandbox.sh stop
  rm -rf "$PG_TMP"
  trap 'rm -rf "$W"' EXIT
}

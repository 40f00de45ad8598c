# make bench, section pgscript (sourced by contrib/bench.sh): pgbench's
# script language, the same custom script file through both tools (issue
# 30: TPS >= 1.0x pgbench's, client CPU per transaction <= 1.0x), on one
# private PostgreSQL (pg_start: port 5446, BENCH_PG_PORT for another), the
# clients pinned apart from the server as in the pgsql section, idle CPUs
# spinning rather than halting (cpu_idle, below).
#   lbench pgbench --file=F --protocol=MODE ...   vs   pgbench -f F -M MODE ...
# for MODE prepared and simple (pgbench's default: each statement's text
# with its variables' values written in).
# The scripts are contrib/pgscript/select-only.sql and tpcb-like.sql; the
# tables are pgbench's at scale 10, loaded once by pgbench -i.  Both tools
# skip their own vacuum (-n, --vacuum=off): the tables are vacuumed before
# each workload's rounds instead, so neither run pays for it.
bench_pgscript() {
  local P G PGB PIN=() scale=10
  pgscript_up "one custom script file through lbench pgbench and pgbench" || return 0
  cpu_idle poll
  # At least 5 rounds: a row's ratio moves by up to ±10 % between runs of
  # the same binaries on the development VM, and with 3 its median
  # followed single runs (docs/benchmarks-pgscript.md).
  local rounds=$(( ROUNDS > 5 ? ROUNDS : 5 ))
  echo "   ${SECS}s runs, scale $scale, median of $rounds alternating rounds"
  printf '%-18s %4s %12s %12s %7s %12s %12s %9s %8s %8s %9s %10s %10s\n' script:mode clients "lbench tps" "pgbench tps" \
    ratio "lb us/tx" "pgb us/tx" "lb/pgb" "lb once" "pgb once" "per-tx" "ratio 90%" "per-tx 90%"
  local s f t round mode
  for mode in prepared simple; do
  for s in select-only tpcb-like; do
    f=contrib/pgscript/$s.sql
    for t in 1 2 8; do
      : > "$W/l"; : > "$W/g"; : > "$W/l1"; : > "$W/g1"
      pg_settle >/dev/null
      for round in $(seq "$rounds"); do
        # Which goes first alternates: the second run of a round meets the
        # tables the first one left (dirtier pages, a longer history).
        if [ $((round % 2)) = 1 ]; then pgscript_lb; pgscript_pgb; else pgscript_pgb; pgscript_lb; fi
        # What a run costs once (start, logins, exit): one transaction per client.
        pgscript_lb 1; pgscript_pgb 1
      done
      pgscript_row "$s:${mode:0:4}" $t
    done
  done
  done
  echo "   ratio = lbench/pgbench tps (higher is better); us/tx = client CPU (user+sys) per transaction; lb/pgb: CPU ratio (lower is better)"
  echo "   once: client CPU (ms) of a run of one transaction per client (start-up, logins, exit); per-tx: the CPU ratio with"
  echo "   each tool's 'once' taken out of its run, (CPU - once) / (transactions - clients), the cost of a transaction itself"
  echo "   ratios are medians over rounds of the ratio within each round; tps: pgbench's 'without initial connection time', lbench's events_per_sec"
  echo "   90%: the 90 % confidence interval of the round ratios' geometric mean (tps ratio, per-tx CPU ratio): an interval"
  echo "   that holds 1.0 is a difference within the spread of the rounds, one wholly below (tps) or above (per-tx) is a loss"
  echo "   commands: lbench pgbench $P --file=contrib/pgscript/S.sql --protocol=MODE --scale=$scale --vacuum=off --threads=T --time=$SECS run"
  echo "             $PGB $G -f contrib/pgscript/S.sql -M MODE -s $scale -n -c T -j T -T $SECS sbtest   (with PGPASSWORD=sbtest)"
  pgscript_down
}

# One round's run of each tool (one connection per thread, as -c T -j T);
# the variables are bench_pgscript's.
# With an argument (1): one transaction per client instead, into l1 / g1.
pgscript_lb() {
  local len=(--time="$SECS") out=$W/l
  [ -z "${1:-}" ] || { len=(--time=0 --events=$t); out=$W/l1; }
  pgb_run lbench "$out" "${PIN[@]}" $LB pgbench $P --file="$f" --protocol="$mode" --scale=$scale --vacuum=off \
    --threads=$t "${len[@]}" --result-file="$W/pgb.json" run
}
pgscript_pgb() {
  local len=(-T "$SECS") out=$W/g
  [ -z "${1:-}" ] || { len=(-t 1); out=$W/g1; }
  pgb_run pgbench "$out" "${PIN[@]}" env PGPASSWORD=sbtest "$PGB" $G -f "$f" -M "$mode" -s $scale -n \
    -c $t -j $t "${len[@]}" sbtest
}
# pg_pgbench_row's columns, then each tool's median 'once' (ms of CPU) and
# the median over rounds of the CPU ratio per transaction with each run's
# own 'once' taken out.  The files hold "transactions cpu_s tps" per round.
pgscript_row() {
  local row lo go rx tci xci
  row=$(pg_pgbench_row "$1" "$2")
  lo=$(awk '$1 > 0 {print $2 * 1e3}' "$W/l1" | median); go=$(awk '$1 > 0 {print $2 * 1e3}' "$W/g1" | median)
  paste -d' ' "$W/l" "$W/l1" "$W/g" "$W/g1" | awk -v c="$2" '$1 > c && $4 > 0 && $7 > c && $10 > 0 &&
    $8 > $11 { print (($2 - $5) / ($1 - c)) / (($8 - $11) / ($7 - c)) }' > "$W/rx"
  rx=$(median < "$W/rx"); xci=$(ci90 < "$W/rx")
  tci=$(paste -d' ' "$W/l" "$W/g" | awk '$3 > 0 && $6 > 0 {print $3 / $6}' | ci90)
  [ "${rx:-0}" != 0 ] && rx=$(printf %.2f "$rx") || rx=-
  printf '%s %8.1f %8.1f %9s %10s %10s\n' "$row" "${lo:-0}" "${go:-0}" "$rx" "$tci" "$xci"
}

# pgscript_up WHAT: the section's server (pg_start) with pgbench's tables at
# scale 10, vacuumed, pinned; sets the caller's P, G (the two tools'
# connection options), PGB (pgbench) and PIN.  Fails when a tool is missing
# or the load fails (and says so).
pgscript_up() {
  local c
  for c in psql pgbench; do
    command -v $c >/dev/null || { echo "(pgscript: $c not installed; run contrib/install-deps.sh bench)"; return 1; }
  done
  echo "== PostgreSQL: pgbench's script language, $1"
  pg_start
  P="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$LB_PG_PORT --pgsql-user=sbtest --pgsql-password=sbtest --pgsql-db=sbtest"
  G="-h 127.0.0.1 -p $LB_PG_PORT -U sbtest"
  # pgbench next to the server's own binary, not Debian's Perl wrapper
  # (see bench_pgsql)
  PGB=$(dirname "$(readlink "/proc/$LB_PG_SANDBOX_PID/exe")")/pgbench
  [ -x "$PGB" ] || PGB=$(command -v pgbench)
  env PGPASSWORD=sbtest "$PGB" $G -i -q -s $scale sbtest > "$W/cmd.out" 2>&1 ||
    { echo "   (pgbench -i failed: $(tail -1 "$W/cmd.out"))"; pgscript_down; return 1; }
  pg_settle
  pg_pin
}

# make bench, section pgscript_turns: the select-only rows of pgscript once
# more, both tools' runs at once, taking turns (pgscript_interleaved).
# pgscript's tps ratios come from separate 5 s runs, which the VM's other
# tenants move by ±10 % each; in turns a quarter of a second long both
# tools meet the same host.
bench_pgscript_turns() {
  local P G PGB PIN=() scale=10 f=contrib/pgscript/select-only.sql mode t secs=${ILV_SECS:-40}
  pgscript_up "the select-only script through both tools at once, taking turns" || return 0
  cpu_idle poll
  echo "   one tool's process stopped (SIGSTOP) while the other runs, in turns of ${ILV_TURN:-0.25} s, for ${secs} s;"
  echo "   each counts what it finished in its own turns (its per-transaction log)"
  printf '%-18s %4s %12s %12s %7s %6s %10s\n' script:mode clients "lbench tps" "pgbench tps" ratio pairs "ratio 90%"
  for mode in prepared simple; do
    for t in 1 2 8; do
      pg_settle >/dev/null
      pgscript_interleaved "select-only:${mode:0:4}" "$t" "$secs"
    done
  done
  # The method's own error: the same tool in both places.
  mode=prepared
  ILV_AA=1 pgscript_interleaved "A/A pgbench:prep" 2 "$secs"
  # The 8-client rows once more with idle CPUs halting, as the host is set
  # (what the wake-ups cost the server: docs/benchmarks-pgscript-2.md).
  if [ -n "$CPU_IDLE_HOLDER" ]; then
    cpu_idle halt
    for mode in prepared simple; do
      pg_settle >/dev/null
      pgscript_interleaved "halting:${mode:0:4}" 8 "$secs"
    done
  fi
  echo "   tps: the transactions a tool finished in its turns over the time of those turns, less the first ${ILV_SKIP:-0.03} s"
  echo "   of each (what the stop caught in flight), from a sample of ${ILV_SAMPLE:-0.2} of them (--sampling-rate)"
  echo "   ratio: lbench/pgbench over all turns; pairs: lbench's turns with the pgbench turn after each; 90%: the 90 %"
  echo "   confidence interval of the pairs' ratios' geometric mean"
  echo "   A/A: pgbench in lbench's place as well, the method's own error (a run's level moves by about ±2 % beyond its interval)"
  echo "   not tpcb-like: a client stopped inside its transaction holds row locks the other tool's clients would wait for"
  echo "   commands: as section pgscript's, both started together, with --log --sampling-rate=${ILV_SAMPLE:-0.2} and -l --sampling-rate=${ILV_SAMPLE:-0.2}"
  echo "   halting: the 8-client rows with idle CPUs halting, as the host is set; the rows above: idle CPUs spin (cpu_idle in contrib/bench-pgscript.sh)"
  pgscript_down
}

# pgscript_interleaved LABEL T SECS: lbench and pgbench, T clients each,
# started together on script $f; from then on one of the two processes is
# stopped at any time, in turns of ILV_TURN seconds for SECS seconds.  The
# turns' start times go to $W/ilv/turns, each tool's sampled per-transaction
# logs beside it; ilv_rates counts them.
# With ILV_AA=1, pgbench in lbench's place too: an A/A check of the method.
pgscript_interleaved() {
  local d=$W/ilv turn=${ILV_TURN:-0.25} samp=${ILV_SAMPLE:-0.2} len=$(($3 + 4)) lpid gpid lrc grc stop row
  rm -rf "$d"; mkdir -p "$d"
  if [ "${ILV_AA:-0}" = 1 ]; then
    ilv_pgbench "$2" $len "$samp" "$d/lb_log" > "$d/lb.out" 2>&1 &
  else
    "${PIN[@]}" $LB pgbench $P --file="$f" --protocol="$mode" --scale=$scale --vacuum=off --threads="$2" \
      --time=$len --log --sampling-rate="$samp" --log-prefix="$d/lb_log" run > "$d/lb.out" 2>&1 &
  fi
  lpid=$!
  ilv_pgbench "$2" $len "$samp" "$d/pg_log" > "$d/pg.out" 2>&1 &
  gpid=$!
  sleep 1.5   # both connected (their clocks run from here: each ends $len s after)
  stop=$(( ${EPOCHREALTIME/./} + $3 * 1000000 ))
  while [ "${EPOCHREALTIME/./}" -lt $stop ]; do
    # (a process that has ended early is found by the wait below)
    kill -STOP $gpid 2>/dev/null || true; kill -CONT $lpid 2>/dev/null || true
    echo "lb $EPOCHREALTIME" >> "$d/turns"; sleep "$turn"
    kill -STOP $lpid 2>/dev/null || true; kill -CONT $gpid 2>/dev/null || true
    echo "pg $EPOCHREALTIME" >> "$d/turns"; sleep "$turn"
  done
  echo "end $EPOCHREALTIME" >> "$d/turns"
  kill -CONT $lpid $gpid 2>/dev/null || true
  wait $lpid && lrc=0 || lrc=$?
  wait $gpid && grc=0 || grc=$?
  if [ $lrc != 0 ] || [ $grc != 0 ]; then
    printf '%-18s %4s   (a run failed: %s)\n' "$1" "$2" "$(tail -qn1 "$d/lb.out" "$d/pg.out" | tr '\n' ' ')"
    return 0
  fi
  # each log line's end of transaction: its 5th and 6th fields (epoch s, us)
  row=$( { awk '{printf "lb %d.%06d\n", $5, $6}' "$d"/lb_log.*; awk '{printf "pg %d.%06d\n", $5, $6}' "$d"/pg_log.*; } |
    ilv_rates "${ILV_SKIP:-0.03}" "$samp" "$d/turns" "$d/pairs")
  printf '%-18s %4s %s %10s\n' "$1" "$2" "$row" "$(ci90 < "$d/pairs")"
}

# ilv_pgbench T SECS SAMPLE PREFIX: pgbench's side of pgscript_interleaved
# (exec'd: the caller's $! is pgbench itself, which the turns stop).
ilv_pgbench() {
  exec "${PIN[@]}" env PGPASSWORD=sbtest "$PGB" $G -f "$f" -M "$mode" -s $scale -n -c "$1" -j "$1" -T "$2" \
    -l --sampling-rate="$3" --log-prefix="$4" sbtest
}

# ilv_rates SKIP SAMPLE TURNS PAIRS: on stdin "lb|pg EPOCH_SECONDS", one line
# per logged transaction (its end); TURNS holds "lb|pg|end EPOCH_SECONDS",
# the start of each turn.  A transaction counts for its tool when it ended
# in one of that tool's turns, SKIP s or more after the turn's start.
# Prints "LB_TPS PG_TPS RATIO NPAIRS" (the rates over SAMPLE: the logs hold
# that fraction of the transactions) and writes to PAIRS, one per line, the
# ratio of each lbench turn's rate to that of the pgbench turn after it.
ilv_rates() {
  : > "$4"
  awk -v skip="$1" -v samp="$2" -v pairs="$4" '
    BEGIN { n = 0 }   # (an unset n would index who[""] and at[0])
    NR == FNR { who[n] = $1; at[n++] = $2; next }
    $2 >= at[0] && $2 < at[n - 1] {
      lo = 0; hi = n - 1   # the turn: at[lo] <= $2 < at[lo + 1]
      while (hi - lo > 1) { mid = int((lo + hi) / 2); if (at[mid] <= $2) lo = mid; else hi = mid }
      if (who[lo] == $1 && $2 >= at[lo] + skip) cnt[lo]++
    }
    END {
      for (k = 0; k < n - 1; k++) {
        span = at[k + 1] - at[k] - skip
        if (span <= 0) continue
        sum[who[k]] += cnt[k]; dur[who[k]] += span; rate[k] = cnt[k] / span
        if (who[k] == "pg" && k > 0 && who[k - 1] == "lb" && rate[k - 1] > 0 && rate[k] > 0) {
          print rate[k - 1] / rate[k] > pairs; turns++
        }
      }
      l = dur["lb"] > 0 ? sum["lb"] / dur["lb"] / samp : 0; g = dur["pg"] > 0 ? sum["pg"] / dur["pg"] / samp : 0
      printf "%12.0f %12.0f %7s %6d\n", l, g, (g > 0 ? sprintf("%.3f", l / g) : "-"), turns
    }' "$3" -
}

# cpu_idle poll|halt: whether idle CPUs spin or halt during a section's
# runs.  poll: a latency request of 0 us on /dev/cpu_dma_latency (what
# tuned's latency-performance profile and cyclictest do), held by a process
# of its own (sets CPU_IDLE_HOLDER) that ends with this script.  Why: on the
# development VM (KVM, guest halt-polling off) a halted vCPU is woken by an
# interprocessor interrupt through the hypervisor, paid for by the CPU that
# wakes it: the server's, when a client's answer is ready.  A client that
# needs less CPU leaves its CPU idle, and so halted, more often, and costs
# the server more per query; at 8 clients, where the server's CPU is the
# limit, that made the cheaper client the slower one
# (docs/benchmarks-pgscript-2.md).  The spinning is the idle task's, not
# either tool's.  BENCH_IDLE=halt leaves the idle states alone, as does a
# device that is not writable (not root).
CPU_IDLE_HOLDER=
cpu_idle() {
  if [ -n "$CPU_IDLE_HOLDER" ]; then
    kill "$CPU_IDLE_HOLDER" 2>/dev/null || true
    wait "$CPU_IDLE_HOLDER" 2>/dev/null || true
    CPU_IDLE_HOLDER=
  fi
  [ "$1" = poll ] && [ "${BENCH_IDLE:-poll}" = poll ] || return 0
  if [ ! -w /dev/cpu_dma_latency ]; then
    echo "   idle CPUs halt as the host is set (/dev/cpu_dma_latency is not writable)"
    return 0
  fi
  # one process holds the request: tail ends when this script ($$) does
  ( printf '\0\0\0\0'; exec tail --pid=$$ -f /dev/null ) > /dev/cpu_dma_latency &
  CPU_IDLE_HOLDER=$!
  echo "   idle CPUs spin rather than halt (a 0 us request on /dev/cpu_dma_latency; BENCH_IDLE=halt to leave them)"
}

pgscript_down() {
  cpu_idle halt
  contrib/postgres-sandbox.sh stop
  rm -rf "$PG_TMP"
  trap 'rm -rf "$W"' EXIT
}

# make bench, section pgscript_ir: the same scripts as pgscript, counted
# in instructions rather than seconds (callgrind), which the VM's ±10 %
# wall-clock spread does not blur.  One client, N1 and N2 transactions
# each; the slope between them is the steady cost of a transaction, the
# rest the cost of a run's start-up (whole processes, all threads).  The
# slope is pgbench's whole process (one thread does everything) against
# lbench's worker thread: lbench's main thread works per second, not per
# transaction (its interval cuts, about 2.5M instructions a second; the
# server's samples, off here: docs/observing.md), and under valgrind a
# second holds some 50 times fewer transactions than it does at full
# speed, which would count that work 50 times over.
bench_pgscript_ir() {
  local c
  for c in psql pgbench valgrind; do
    command -v $c >/dev/null || { echo "(pgscript_ir: $c not installed)"; return; }
  done
  local n1=${IR_N1:-1000} n2=${IR_N2:-4000}
  echo "== PostgreSQL: one custom script file, instructions per transaction (callgrind), 1 client, $n1 and $n2 transactions"
  pg_start
  local P="--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port=$LB_PG_PORT --pgsql-user=sbtest --pgsql-password=sbtest --pgsql-db=sbtest"
  local G="-h 127.0.0.1 -p $LB_PG_PORT -U sbtest" PGB
  PGB=$(dirname "$(readlink "/proc/$LB_PG_SANDBOX_PID/exe")")/pgbench
  [ -x "$PGB" ] || PGB=$(command -v pgbench)
  env PGPASSWORD=sbtest "$PGB" $G -i -q -s 10 sbtest > "$W/cmd.out" 2>&1 ||
    { echo "   (pgbench -i failed: $(tail -1 "$W/cmd.out"))"; pgscript_down; return; }
  pg_settle
  printf '%-18s %12s %12s %8s %14s %14s\n' script:mode "lbench ins/tx" "pgbench ins/tx" lb/pgb "lbench start" "pgbench start"
  local s mode f l1 l2 g1 g2
  for mode in prepared simple; do
    for s in select-only tpcb-like; do
      f=contrib/pgscript/$s.sql
      read -r l1 w1 < <(ir_count $LB pgbench $P --file="$f" --protocol="$mode" --scale=10 --vacuum=off \
        --server-stats=off --threads=1 --events="$n1" run)
      read -r g1 _ < <(PGPASSWORD=sbtest ir_count "$PGB" $G -f "$f" -M "$mode" -s 10 -n -c 1 -j 1 -t "$n1" sbtest)
      read -r l2 w2 < <(ir_count $LB pgbench $P --file="$f" --protocol="$mode" --scale=10 --vacuum=off \
        --server-stats=off --threads=1 --events="$n2" run)
      read -r g2 _ < <(PGPASSWORD=sbtest ir_count "$PGB" $G -f "$f" -M "$mode" -s 10 -n -c 1 -j 1 -t "$n2" sbtest)
      awk -v s="$s:${mode:0:4}" -v l1="$l1" -v w1="$w1" -v w2="$w2" -v g1="$g1" -v g2="$g2" -v n1="$n1" -v n2="$n2" 'BEGIN {
        if (l1 <= 0 || w1 <= 0 || w2 <= 0 || g1 <= 0 || g2 <= 0) { printf "%-18s (a run failed)\n", s; exit }
        lt = (w2 - w1) / (n2 - n1); gt = (g2 - g1) / (n2 - n1)
        printf "%-18s %12.0f %12.0f %8.2f %13.0fM %13.0fM\n", s, lt, gt, lt / gt, (l1 - n1 * lt) / 1e6, (g1 - n1 * gt) / 1e6 }'
    done
  done
  echo "   ins/tx: user-space instructions per transaction, the slope between $n1 and $n2 transactions (lbench: its worker thread,"
  echo "   pgbench: its process); start: the rest of the $n1-transaction run, all threads (start-up, logins, exit)"
  echo "   commands: valgrind --tool=callgrind lbench pgbench $P --file=contrib/pgscript/S.sql --protocol=MODE --scale=10 --vacuum=off --server-stats=off --threads=1 --events=N run"
  echo "             valgrind --tool=callgrind $PGB $G -f contrib/pgscript/S.sql -M MODE -s 10 -n -c 1 -j 1 -t N sbtest   (with PGPASSWORD=sbtest)"
  pgscript_down
}

# ir_count CMD...: "ALL REST": the user-space instructions CMD executes,
# all threads, and those of its threads but the first (callgrind; CMD
# itself, not a wrapper that execs it: valgrind does not follow an exec);
# "0 0" when it fails.
ir_count() {
  local d="$W/ir"
  rm -rf "$d"; mkdir -p "$d"
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$d/out" "$@" >/dev/null 2>&1 || { echo 0 0; return 0; }
  local f all=0 rest=0 n
  for f in "$d"/out-*; do
    n=$(awk '/^summary:/ {print $2}' "$f")
    all=$((all + ${n:-0}))
    case $f in *-01) ;; *) rest=$((rest + ${n:-0})) ;; esac
  done
  echo "$all $rest"
}

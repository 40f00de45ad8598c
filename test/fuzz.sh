#!/usr/bin/env bash
# Command-line fuzzing of lbench (issue 14): random option names (real ones
# from the help texts, misspelt ones, random strings), random values,
# random orders and positional arguments, random bytes as a script, and
# truncated or corrupted result files for `lbench compare`, `lbench plot` and
# `lbench history import|check`.
#
# Every invocation runs under `timeout` in a private temporary directory.
# A failure is a crash (exit >= 128 or a sanitizer report), a hang (the
# timeout), a traceback for a user mistake ("stack traceback" on stderr;
# a random-bytes script may give a syntax error line, never a traceback of
# lbench's own frames), or an error message of more than one line.  Nothing here reaches a server: the database
# options are forced, last on the line (the last occurrence wins), to a
# closed loopback port, and the options that pick another server, run shell
# commands or write outside the temporary directory are never drawn.
#
#   FUZZ_SEED=N (default 14)   FUZZ_SECONDS=S (default 60)   LB=./lbench
#   FUZZ_LOG=FILE: append every command line, its status and stderr's first line
#
# Prints "PASS name" / "FAIL name: why" lines like test/lib.sh (one PASS
# per category, one FAIL per offending command line, with the line), then
# a summary.
cd "$(dirname "$0")/.." || exit 1
LB=$(cd "$(dirname "${LB:-./lbench}")" && pwd)/$(basename "${LB:-./lbench}")
ROOT=$PWD
# The stock scenarios from any directory, whichever binary (build-asan/...).
export LBENCH_PATH=$ROOT/scenarios${LBENCH_PATH:+:$LBENCH_PATH}
SEED=${FUZZ_SEED:-14}
SECONDS_LIMIT=${FUZZ_SECONDS:-60}
D=$(mktemp -d /tmp/lbench-fuzz.XXXXXX)
trap 'rm -rf "$D"' EXIT
cd "$D" || exit 1

DB=(--mysql-host=127.0.0.1 --mysql-port=1 --mysql-socket= --mysql-connect-timeout=2 --db-driver=mysql --mysql-dry-run=off)
# Runs are short and small whatever was drawn (later occurrences win).
RUNSAFE=(--time=0.3 --events=0 --warmup-time=0 --threads=2 --connections=0)
FIOSAFE=(--target-dir="$D/fio" --target= --manifest= --allow-destructive=off --fill=)
# Never drawn: other servers, shell commands, paths outside $D, and the
# sizes of what a run does (forced above instead).
NEVER=' mysql-host mysql-port mysql-socket db-driver mysql-dry-run pre-system post-system target target-dir manifest
  allow-destructive fill time events warmup-time threads connections help version '

# ---- the vocabulary ------------------------------------------------------------
declare -A CHOICES          # option name -> "a b c" (enum values from the help)
declare -A SCEN_NAMES       # scenario -> its own option names (one string)
NAMES=()                    # every name seen
harvest() { # harvest KEY HELP-TEXT: collect --name and enum choices
  local key=$1 line name arg
  while IFS= read -r line; do
    [[ $line =~ ^\ +--([a-z0-9-]+)(=[^ ]*|\[=on\|off\])? ]] || continue
    name=${BASH_REMATCH[1]} arg=${BASH_REMATCH[2]}
    [[ $NEVER == *" $name "* ]] && continue
    NAMES+=("$name"); SCEN_NAMES[$key]+=" $name"
    if [[ $arg == =*\|* ]]; then CHOICES[$name]=${arg#=}; CHOICES[$name]=${CHOICES[$name]//|/ }; fi
    [[ $arg == "[=on|off]" ]] && CHOICES[$name]="on off true false yes no 1 0 maybe"
  done <<< "$2"
}
harvest core "$("$LB" --help 2>/dev/null)"
DBSCEN=(oltp_read_only oltp_read_write oltp_write_only oltp_point_select oltp_insert oltp_delete oltp_update_index
        oltp_update_non_index select_random_points select_random_ranges bulk_insert tpcc slap pgbench)
for s in "${DBSCEN[@]}" fileio "$ROOT/test/cli/scripts/opts.lua"; do harvest "$s" "$("$LB" "$s" help 2>/dev/null)"; done
mapfile -t NAMES < <(printf '%s\n' "${NAMES[@]}" | sort -u)
if [ "${#NAMES[@]}" -lt 50 ]; then echo "FAIL fuzz_vocabulary: only ${#NAMES[@]} option names from the help texts"; exit 1; fi

LONG=$(printf 'a%.0s' $(seq 1 5000))
VALUES=(-1 0 1 2 -0 00 7 -99999999999 99999999999999999999 1e400 -1e400 1e-9 nan inf -inf 0x10 1.5 -2.5 1k 16K 2M 1G 9T
        "" " " abc "1,,2" ",," , "50," "a,b" "1-0" "0-99999999999" "4k/50:8k/20" "4k/50:8k" "::" "/" "=" "==1"
        "%s%d%n" "'\"" '$(echo hi)' "é日本" "$LONG" "--" "-" "on" "off" "null" "none" "all" "1,2,3" "3-1" "1e5")
# A generator of our own, in this shell: bash reseeds $RANDOM in every
# subshell, so $(...) around it would not repeat for a given seed.  The
# helpers below therefore set variables instead of printing.
R=$SEED
rnd() { R=$(( (R * 1103515245 + 12345) % 2147483648 )); RN=$(( (R >> 8) % $1 )); }
pick() { rnd $#; local a=("$@"); PK=${a[RN]}; }
randstr() { # RS: random junk, 1..n characters
  local alpha='abcdefghijklmnopqrstuvwxyz0123456789-_=,.:/%@#!~ ÄЖ' n
  rnd "${1:-12}"; n=$((RN + 1)); RS=""
  while [ ${#RS} -lt $n ]; do rnd ${#alpha}; RS+=${alpha:RN:1}; done
}
misspell() { # MS: $1 with a character dropped, doubled or swapped
  local w=$1 i
  rnd ${#w}; i=$RN
  rnd 3
  case $RN in
    0) MS="${w:0:i}${w:i+1}" ;;
    1) MS="${w:0:i}${w:i:1}${w:i}" ;;
    *) MS="${w:0:i}${w:i+1:1}${w:i:1}${w:i+2}" ;;
  esac
}
value_for() { # VAL: a value for option $1, plausible half of the time
  local c=${CHOICES[$1]:-}
  rnd 8
  case $RN in
    0|1) if [ -n "$c" ]; then pick $c; else pick 0 1 2 4 8 0.5 1K on off; fi; VAL=$PK ;;
    2) pick 0 1 2 3 5 10 100; VAL=$PK ;;
    3) rnd 65536; VAL=$(( (RN - 32768) * (R % 1000) )) ;;
    4) randstr 20; VAL=$RS ;;
    *) pick "${VALUES[@]}"; VAL=$PK ;;
  esac
}
random_option() { # OPT: one random --option[=value] word, mostly of scenario $1 or the core
  local name own=" ${SCEN_NAMES[core]} ${SCEN_NAMES[${1:-core}]:-}"
  local -a mine=($own)
  rnd 10
  case $RN in
    0) pick "${NAMES[@]}"; misspell "$PK"; name=$MS ;;
    1) pick "${mine[@]}"; misspell "$PK"; name=$MS ;;
    2) randstr 10; name=$RS ;;
    3) pick "${NAMES[@]}"; name=$PK ;;
    *) pick "${mine[@]}"; name=$PK ;;
  esac
  rnd 10
  if [ $RN -eq 0 ]; then OPT="--$name"; else value_for "$name"; OPT="--$name=$VAL"; fi
}

# ---- running and judging one command line ------------------------------------
runs=0 crashes=0 hangs=0 tracebacks=0 multiline=0 failures=0
declare -A CAT_RUNS CAT_FAILS
judge() { # judge CATEGORY NOISE(0/1) CMD...
  local cat=$1 noise=$2; shift 2
  local rc why=""
  timeout -k 2 10 "$@" >"$D/out" 2>"$D/err" </dev/null
  rc=$?
  runs=$((runs + 1)); CAT_RUNS[$cat]=$(( ${CAT_RUNS[$cat]:-0} + 1 ))
  if [ -n "${FUZZ_LOG:-}" ]; then # every command line, its status and first stderr line
    { printf '%s rc=%d lines=%d ' "$cat" $rc "$(wc -l < "$D/err")"; printf '%q ' "$@"; printf '\n    %s\n' "$(head -1 "$D/err" | cut -c1-200)"; } >> "$FUZZ_LOG"
  fi
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why="hang (killed after 10 s)"; hangs=$((hangs + 1))
  elif [ $rc -ge 128 ]; then why="crash (exit $rc)"; crashes=$((crashes + 1))
  elif grep -Eq 'AddressSanitizer|LeakSanitizer|ThreadSanitizer|runtime error:' "$D/err"; then
    why="sanitizer report"; crashes=$((crashes + 1))
  elif grep -q 'stack traceback' "$D/err"; then
    # A random-bytes script that happened to run may fail in its own code:
    # then its own frame comes first.  Anything else is a traceback of ours.
    if [ "$noise" != 1 ] || ! sed -n 2,3p "$D/err" | grep -q 'noise'; then
      why="traceback: $(head -c 300 "$D/err" | tr '\n' ' ')"; tracebacks=$((tracebacks + 1))
    fi
  fi
  # And the message is one line (three for a missing scenario: the line and
  # a two-line hint; two under pgbench's command line, which follows a bad
  # option with its "Try pgbench --help" hint, as pgbench 15 does).
  if [ -z "$why" ] && [ $rc -ne 0 ]; then
    local n max=1
    n=$(wc -l < "$D/err")
    head -1 "$D/err" | grep -q '^lbench: missing scenario' && max=3
    sed -n 2p "$D/err" | grep -q '^pgbench: hint: Try "pgbench --help"' && max=2
    if [ "$n" -gt $max ]; then why="$n lines on stderr: $(head -c 300 "$D/err" | tr '\n' ' ')"; multiline=$((multiline + 1)); fi
  fi
  if [ -n "$why" ]; then
    failures=$((failures + 1)); CAT_FAILS[$cat]=$(( ${CAT_FAILS[$cat]:-0} + 1 ))
    if [ $failures -le 30 ]; then
      printf 'FAIL fuzz_%s: %s; command: ' "$cat" "$why"; printf '%q ' "$@"; echo
    fi
  fi
}

# shuffle WORDS...: the words in a random order, into the array SHUF
shuffle() {
  SHUF=("$@")
  local i t
  for ((i = ${#SHUF[@]} - 1; i > 0; i--)); do
    rnd $((i + 1)); t=${SHUF[i]}; SHUF[i]=${SHUF[RN]}; SHUF[RN]=$t
  done
}

random_words() { # random_words N [SCENARIO]: up to N-1 options, sometimes a stray word, into WORDS
  WORDS=()
  local n i
  rnd "${1:-5}"; n=$RN
  for ((i = 0; i < n; i++)); do random_option "${2:-core}"; WORDS+=("$OPT"); done
  rnd 8
  if [ $RN -eq 0 ]; then randstr 8; pick stray run help prepare "/" . /dev/null "$RS"; WORDS+=("$PK"); fi
}

# line POSITIONAL... -- OPTIONS...: into SHUF, the options scattered at
# random places around the positional words, which keep their order
# (scenario, then command); now and then the whole line is shuffled.
line() {
  local -a pos=() opts=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do pos+=("$1"); shift; done
  shift
  opts=("$@")
  rnd 10
  if [ $RN -eq 0 ]; then shuffle "${pos[@]}" "${opts[@]}"; return; fi
  SHUF=()
  local o p=0
  for o in "${opts[@]}"; do
    rnd 2
    if [ $RN -eq 0 ] && [ $p -lt ${#pos[@]} ]; then SHUF+=("${pos[p]}"); p=$((p + 1)); fi
    SHUF+=("$o")
  done
  while [ $p -lt ${#pos[@]} ]; do SHUF+=("${pos[p]}"); p=$((p + 1)); done
}

COMMANDS=(run help prepare cleanup prewarm bogus "")
S=$ROOT/test/cli/scripts

# ---- the categories ---------------------------------------------------------------
# Options only, no scenario (or an odd first word).
cat_bare() {
  random_words 4
  shuffle "${WORDS[@]}"
  judge bare 0 "$LB" "${SHUF[@]}"
}

# A server scenario, any command: the connect (to a closed port) fails fast.
cat_db() {
  local sc cmd
  pick "${DBSCEN[@]}"; sc=$PK
  pick "${COMMANDS[@]}"; cmd=$PK
  random_words 6 "$sc"
  line "$sc" $cmd -- "${WORDS[@]}"
  judge db 0 "$LB" "${SHUF[@]}" "${DB[@]}" "${RUNSAFE[@]}"
}

# The OLTP scenarios on the null driver: their thread_init, event and
# prepare code runs with the random options (the set stays small).
cat_null() {
  local sc cmd
  pick oltp_read_only oltp_read_write oltp_write_only oltp_point_select oltp_insert oltp_delete oltp_update_index \
    oltp_update_non_index select_random_points select_random_ranges bulk_insert; sc=$PK
  pick run run run prepare prewarm cleanup; cmd=$PK
  random_words 6 "$sc"
  line "$sc" "$cmd" -- "${WORDS[@]}"
  judge null 0 "$LB" "${SHUF[@]}" "${DB[@]}" --db-driver=null $([ "$sc" = bulk_insert ] || echo --tables=2) \
    $([ "$cmd" = run ] || echo --table-size=100) "${RUNSAFE[@]}"
}

# A test script run for real, with the run kept short and small.
cat_script() {
  local sc cmd
  pick empty.lua opts.lua typed.lua restart.lua stop_after.lua hooks.lua; sc=$S/$PK
  pick run run help show par bogus; cmd=$PK
  random_words 5 "$S/opts.lua"
  line "$sc" "$cmd" -- "${WORDS[@]}"
  judge script 0 "$LB" "${SHUF[@]}" "${RUNSAFE[@]}"
}

# fileio: no file set in the private directory, so nothing is written.
cat_fileio() {
  local cmd
  pick run run verify help bogus; cmd=$PK
  random_words 6 fileio
  line fileio "$cmd" -- "${WORDS[@]}"
  judge fileio 0 "$LB" "${SHUF[@]}" "${FIOSAFE[@]}" "${RUNSAFE[@]}"
}

# Random bytes as a script (deterministic: perl's generator, seeded).
cat_noise() {
  local f=$D/noise_$((runs % 4)).lua n
  rnd 400; n=$((RN + 1))
  rnd 1000000
  perl -e 'srand($ARGV[0]); print map { chr(int(rand(256))) } 1 .. $ARGV[1]' "$RN" "$n" > "$f"
  rnd 3; [ $RN -eq 0 ] && printf 'function event() end\n' >> "$f"
  pick run help bogus ""
  judge noise 1 "$LB" "$f" "$PK" "${RUNSAFE[@]}"
}

# Result files: a real one, then truncated, byte-corrupted, spliced and
# otherwise malformed copies for compare and plot.
make_results() {
  "$LB" "$S/empty.lua" run --time=0.2 --report-interval=0.05 --result-file="$D/good.json" >/dev/null 2>&1
  [ -s "$D/good.json" ] || { echo "FAIL fuzz_setup: no result file from empty.lua"; return 1; }
  { printf '{"points":['; cat "$D/good.json"; printf ','; cat "$D/good.json"; printf ']}'; } > "$D/sweep.json"
  perl -e 'print "[" x 200000' > "$D/deep.json"
  printf '{"totals":{"events":"x"},"latency_ms":7,"intervals":{"a":1},"points":null}' > "$D/odd.json"
  printf '{"points":[{"totals":{}}, 5]}' > "$D/odd_sweep.json"
}
corrupt() { # corrupt SRC DST: truncate, flip bytes, both, or (still valid JSON) swap values' types (seeded)
  rnd 1000000
  perl -e '
    srand($ARGV[2]); local $/; open(my $f, "<", $ARGV[0]) or die; my $s = <$f>;
    my $mode = int(rand(5));
    if ($mode >= 3) {
      my @as = ("\"x\"", "null", "[]", "{}", "-1", "1e308", "0", "true", "[1,\"a\"]", "{\"a\":1}");
      $s =~ s/(:\s*)(-?[0-9][0-9.eE+-]*|"[^"]*"|true|false|null)/rand() < 0.15 ? $1 . $as[int(rand(@as))] : $1 . $2/ge;
    } else {
      if ($mode != 1) { $s = substr($s, 0, int(rand(length $s))); }
      if ($mode != 0 && length $s) { for (1 .. 1 + int(rand(6))) { substr($s, int(rand(length $s)), 1) = chr(int(rand(256))); } }
    }
    open(my $o, ">", $ARGV[1]) or die; print $o $s;' "$1" "$2" "$RN"
}
cat_results() {
  local a b tool
  pick good.json sweep.json; corrupt "$D/$PK" "$D/bad_$((runs % 3)).json"
  pick good.json good.json sweep.json; a=$D/$PK
  pick "bad_$((runs % 3)).json" "bad_$((runs % 3)).json" deep.json odd.json odd_sweep.json good.json nope.json . ""
  b=$D/$PK
  pick compare compare plot history_import history_check; tool=$PK
  WORDS=()
  rnd 3
  if [ $RN -eq 0 ]; then pick names output force format title bogus metric baseline max-regression; value_for x; WORDS+=("--$PK=$VAL"); fi
  shuffle "$a" "$b" "${WORDS[@]}"
  # plot writes into --out, the history into its file: always ours, last
  # (a drawn "--out=/" must not win).
  case $tool in
    history_*) judge results 0 "$LB" history "${tool#history_}" "${SHUF[@]}" --history="$D/fuzz.db" ;;
    *) judge results 0 "$LB" "$tool" "${SHUF[@]}" $([ "$tool" = plot ] && echo "--out=$D/plots") ;;
  esac
}

# The tools' own argument parsing, with nothing to run.
cat_tools() {
  local tool
  random_words 4
  pick compare plot sweep history; tool=$PK
  randstr 6; pick "" /nonexistent.json "$RS"
  judge tools 0 "$LB" "$tool" "${WORDS[@]}" "$PK" $([ "$tool" = plot ] && echo "--out=$D/plots") \
    $([ "$tool" = history ] && echo "--history=$D/fuzz.db")
}

make_results || exit 1
CATS=(bare db null script fileio noise results tools)
end=$((SECONDS + SECONDS_LIMIT))
i=0
while [ $SECONDS -lt $end ]; do
  "cat_${CATS[i % ${#CATS[@]}]}"
  i=$((i + 1))
done

for c in "${CATS[@]}"; do
  if [ "${CAT_FAILS[$c]:-0}" -eq 0 ]; then echo "PASS fuzz_$c (${CAT_RUNS[$c]:-0} command lines)"
  else echo "FAIL fuzz_$c: ${CAT_FAILS[$c]} of ${CAT_RUNS[$c]} command lines failed (see above)"; fi
done
echo "fuzz: seed $SEED, $runs command lines in ${SECONDS_LIMIT}s: $crashes crashes, $hangs hangs, $tracebacks tracebacks, $multiline multi-line errors"
[ $failures -eq 0 ]

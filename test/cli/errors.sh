#!/usr/bin/env bash
# User mistakes without a server (issue 14): each must give one line on
# stderr naming the option or file and what was expected, a non-zero exit
# below 124 (no crash, no timeout), no traceback, and - when refused before
# anything runs - nothing on stdout (no report, no help dump).
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
S=test/cli/scripts
DB="--mysql-host=127.0.0.1 --mysql-port=1"   # a closed port: connects fail at once


# ---- 2. a failed connect: one line (the run's report is the runner's) ----
ALLOW_STDOUT=1 one_line connect_refused "^lbench: cannot connect to 127\.0\.0\.1:1 as 'sbtest' \(mysql\): error 200[23]" \
  $LB oltp_point_select $DB run --time=1
one_line connect_refused_prepare "^lbench: cannot connect to 127\.0\.0\.1:1 as 'sbtest' \(mysql\): error 200[23]" \
  $LB oltp_point_select $DB prepare
one_line bad_port "^lbench: --mysql-port=99999: entry '99999': expected an integer <= 65535$" \
  $LB oltp_point_select --mysql-port=99999 run

# A stock scenario without a command: one line naming the commands it has
# (not its workers' own _steps), status 1, as sysbench refuses its tests.
one_line stock_no_command "^lbench: oltp_read_only: a command is required \(run, cleanup, prepare, prewarm, help\); 'lbench oltp_read_only help' lists its options$" \
  $LB oltp_read_only --db-driver=null
one_line stock_no_command_pgbench "^lbench: pgbench: a command is required \(run, cleanup, check, prepare, show-script, help\)" \
  $LB pgbench --db-driver=null
# A user's script without one: its body runs, status 0 (sysbench's script mode).
printf 'print("body ran")\n' > "$T/body_only.lua"
expect_ok script_no_command '^body ran$' $LB "$T/body_only.lua"

# ---- 3. --cpu-affinity beyond this machine, refused before the run -------
ncpu=$(nproc)
one_line cpu_affinity_missing "^lbench: --cpu-affinity=999: CPU 999 does not exist or is not available to this process \(available: 0" \
  $LB $S/empty.lua run --time=0.2 --cpu-affinity=999
one_line cpu_affinity_huge_range "^lbench: --cpu-affinity=0-99999999999: CPU 99999999999 does not exist" \
  $LB $S/empty.lua run --time=0.2 --cpu-affinity=0-99999999999
one_line cpu_affinity_backwards "^lbench: --cpu-affinity=1-0: range 1-0 runs backwards$" $LB $S/empty.lua run --cpu-affinity=1-0
one_line cpu_affinity_just_past "^lbench: --cpu-affinity=0,$ncpu: CPU $ncpu does not exist" $LB $S/empty.lua run --cpu-affinity=0,$ncpu
expect_ok cpu_affinity_last_cpu 'total number of events' $LB $S/empty.lua run --time=0.2 --cpu-affinity=$((ncpu - 1))

# ---- 4. password file ------------------------------------------------------
one_line password_both "^lbench: --mysql-password and --mysql-password-file are both given: keep one$" \
  $LB oltp_point_select $DB --mysql-password=x --mysql-password-file=/nonexistent run
one_line password_file_missing "^lbench: --mysql-password-file: cannot read '/nonexistent': No such file or directory$" \
  $LB oltp_point_select $DB --mysql-password-file=/nonexistent run
one_line password_file_dir "^lbench: --mysql-password-file: cannot read '/': Is a directory$" \
  $LB oltp_point_select $DB --mysql-password-file=/ run

# ---- 5. config files: file and line ------------------------------------------
printf 'threads=2\n# a comment\nrows = x9\n' > "$T/bad_value.cfg"
one_line config_bad_value "^lbench: $T/bad_value.cfg:3: --rows=x9: expected an integer$" \
  $LB $S/opts.lua show --config-file="$T/bad_value.cfg"
printf 'threads=2\nthreds=3\n' > "$T/unknown.cfg"
one_line config_unknown_name "^lbench: $T/unknown.cfg:2: unknown option '--threds' \(did you mean '--threads'\?\)$" \
  $LB $S/opts.lua show --config-file="$T/unknown.cfg"
printf '\n\nthreads=0\n' > "$T/range.cfg"
one_line config_out_of_range "^lbench: $T/range.cfg:3: --threads=0: expected an integer >= 1$" \
  $LB $S/empty.lua run --config-file="$T/range.cfg"
printf 'threads=2\njust words\n' > "$T/junk.cfg"
one_line config_junk_line "^lbench: $T/junk.cfg:2: expected name=value, got 'just words'$" \
  $LB $S/empty.lua run --config-file="$T/junk.cfg"
# the command line wins, so its value is not blamed on the file
expect_ok config_overridden 'rows=5' $LB $S/opts.lua show --config-file="$T/bad_value.cfg" --rows=5
one_line config_dir "^lbench: --config-file: cannot read '/': Is a directory$" $LB $S/empty.lua run --config-file=/

# ---- 6. compare and plot: bad files named -----------------------------------
run real_result $LB $S/empty.lua run --time=0.2 --result-file="$T/good.json"
head -c 200 "$T/good.json" > "$T/truncated.json"
echo '{"hello": [1, 2]}' > "$T/other.json"
echo '{"totals": 7}' > "$T/badshape.json"
: > "$T/empty.json"
one_line compare_directory "^lbench: cannot read '$T': Is a directory$" $LB compare "$T/good.json" "$T"
one_line compare_missing "^lbench: cannot read '$T/nope.json': No such file or directory$" $LB compare "$T/good.json" "$T/nope.json"
one_line compare_truncated "^lbench: '$T/truncated.json' is not a JSON document \(invalid JSON at line [0-9]+: .*\)$" \
  $LB compare "$T/good.json" "$T/truncated.json"
one_line compare_not_lbench "^lbench: '$T/other.json' is not an lbench result file \(no 'totals' or 'points'\)$" \
  $LB compare "$T/good.json" "$T/other.json"
one_line compare_bad_shape "^lbench: '$T/badshape.json' is not an lbench result file \('totals' is not an object\)$" \
  $LB compare "$T/good.json" "$T/badshape.json"
one_line compare_empty "^lbench: '$T/empty.json' is empty, not an lbench result file$" $LB compare "$T/good.json" "$T/empty.json"
one_line plot_truncated "^lbench: '$T/truncated.json' is not a JSON document" $LB plot "$T/truncated.json" --out="$T/plots"
one_line plot_directory "^lbench: cannot read '$T': Is a directory$" $LB plot "$T" --out="$T/plots"

# ---- 7. no scenario --------------------------------------------------------
one_line unknown_option_alone "^lbench: unknown option '--no-such-option' \(see 'lbench --help'" $LB --no-such-option
one_line misspelt_option_alone "^lbench: unknown option '--thread' \(did you mean '--threads'\?\)$" $LB --thread=2
run no_args $LB
if [ "$rc" -eq 1 ] && [ ! -s "$T/no_args.out" ] && [ "$(wc -l < "$T/no_args.err")" -le 3 ] \
   && head -1 "$T/no_args.err" | grep -q '^lbench: missing scenario'; then pass no_args_short
else fail no_args_short "rc=$rc, $(wc -l < "$T/no_args.out") stdout lines, stderr: $(head -c 300 "$T/no_args.err")"; fi

# ---- 8. --percentiles ----------------------------------------------------------
one_line percentiles_empty_entries "^lbench: --percentiles=,,: entry 1 is empty" $LB $S/empty.lua run --percentiles=,,
one_line percentiles_trailing_comma "^lbench: --percentiles=50,: entry 2 is empty" $LB $S/empty.lua run --percentiles=50,
one_line percentiles_not_number "^lbench: --percentiles=50,abc: entry 'abc': expected a number$" $LB $S/empty.lua run --percentiles=50,abc
one_line percentiles_range "^lbench: --percentiles=50,101: entry '101': expected a number <= 100$" $LB $S/empty.lua run --percentiles=50,101
one_line percentiles_negative "^lbench: --percentiles=-1: entry '-1': expected a number >= 0$" $LB $S/empty.lua run --percentiles=-1

# ---- 9. types and ranges of the stock scenarios' options --------------------
one_line tables_negative "^lbench: --tables=-1: expected an integer >= 1$" $LB oltp_read_only $DB --tables=-1 prepare
one_line tables_zero "^lbench: --tables=0: expected an integer >= 1$" $LB oltp_read_write $DB --tables=0 run
one_line table_size_word "^lbench: --table-size=abc: expected an integer$" $LB oltp_insert $DB --table-size=abc prepare
one_line table_size_negative "^lbench: --table-size=-5: expected an integer >= 0$" $LB oltp_delete $DB --table-size=-5 prepare
one_line point_selects_negative "^lbench: --point-selects=-1: expected an integer >= 0$" $LB oltp_point_select $DB --point-selects=-1 run
one_line range_size_zero "^lbench: --range-size=0: expected an integer >= 1$" $LB oltp_read_only $DB --range-size=0 run
one_line reconnect_fraction "^lbench: --reconnect=1.5: expected an integer$" $LB oltp_update_index $DB --reconnect=1.5 run
one_line random_points_zero "^lbench: --random-points=0: expected an integer >= 1$" $LB select_random_points $DB --random-points=0 run
one_line ranges_huge "^lbench: --number-of-ranges=40000: expected an integer <= 32767$" $LB select_random_ranges $DB --number-of-ranges=40000 run
one_line threads_zero "^lbench: --threads=0: expected an integer >= 1$" $LB bulk_insert $DB --threads=0 run
one_line threads_infinite "^lbench: --threads=1e400: expected an integer$" $LB $S/empty.lua run --threads=1e400
one_line threads_huge "^lbench: --threads=99999999: expected an integer <= 10000$" $LB $S/empty.lua run --threads=99999999
one_line time_nan "^lbench: --time=nan: expected a number$" $LB $S/empty.lua run --time=nan
one_line time_negative "^lbench: --time=-1: expected a number >= 0$" $LB $S/empty.lua run --time=-1
one_line report_interval_tiny "^lbench: --report-interval=1e-9: expected 0 or a number >= 0.001$" $LB $S/empty.lua run --report-interval=1e-9
one_line rate_mode_enum "^lbench: --rate-mode=fast: expected one of poisson, constant$" $LB $S/empty.lua run --rate-mode=fast
one_line fileio_file_num_zero "^lbench: --file-num=0: expected an integer >= 1$" $LB fileio --target-dir="$T/fio" --file-num=0 prepare
one_line fileio_block_size_word "^lbench: --file-block-size=big: expected a size" $LB fileio --target-dir="$T/fio" --file-block-size=big prepare
one_line fileio_rwmixread "^lbench: --rwmixread=101: expected a number <= 100$" $LB fileio --target-dir="$T/fio" --rwmixread=101 run
one_line fileio_io_mode "^lbench: --file-io-mode=fast: expected one of sync, async, mmap$" $LB fileio --target-dir="$T/fio" --file-io-mode=fast run
one_line slap_iterations_zero "^lbench: --iterations=0: expected an integer >= 1$" $LB slap $DB --iterations=0 run
one_line tpcc_warehouses_word "^lbench: --warehouses=many: expected an integer$" $LB tpcc $DB --warehouses=many run
[ ! -e "$T/fio" ] && pass fileio_refused_before_writing || fail fileio_refused_before_writing "$T/fio was created"

# ---- 10. --bssplit shares must sum to 100 ---------------------------------------
FIO="fileio --target-dir=$T/bs --file-num=1 --file-total-size=64K"
one_line bssplit_short "^lbench: fileio: --bssplit=4k/50:8k/20: the shares sum to 70%, expected 100%" \
  $LB $FIO --bssplit=4k/50:8k/20 prepare
one_line bssplit_over "^lbench: fileio: --bssplit=4k/60:8k/60: the shares sum to 120%, expected 100%" \
  $LB $FIO --bssplit=4k/60:8k/60 prepare
one_line bssplit_nothing_left "^lbench: fileio: --bssplit=4k/100:8k: the shares already sum to 100%, nothing is left for 8 KiB$" \
  $LB $FIO --bssplit=4k/100:8k prepare
one_line bssplit_empty_entry "^lbench: fileio: --bssplit: '' is not size/percent" $LB $FIO --bssplit=4k/50::8k/50 prepare
run bssplit_rest $LB $FIO --bssplit=4k/50:8k prepare
expect_ok bssplit_rest_taken 'Block size 4 KiB/50%:8 KiB/50%' $LB $FIO --bssplit=4k/50:8k --file-test-mode=rndrd --time=0.2 run
run bssplit_cleanup $LB $FIO cleanup

# ---- 11. a script's own error: its frames first ------------------------------------
expect_fail runtime_error_user_frames "runtime_error.lua:1: boom in the event" $LB $S/runtime_error.lua run --time=1
if sed -n 2,3p "$T/runtime_error_user_frames.err" | tr '\n' ' ' | grep -Eq "^stack traceback: +.*runtime_error\.lua:1: in function 'deep'"; then
  pass runtime_error_user_frame_first
else fail runtime_error_user_frame_first "$(head -c 400 "$T/runtime_error_user_frames.err")"; fi
cat > "$T/init_error.lua" <<'L'
local function helper() local t = nil; return t.x end
function thread_init() helper() end
function event() end
function prepare() error("prepare failed here") end
L
expect_fail thread_init_error "init_error.lua:1: attempt to index local 't'" $LB "$T/init_error.lua" run --time=0.2
if sed -n 3p "$T/thread_init_error.err" | grep -q "init_error.lua:1: in function 'helper'"; then pass thread_init_user_frame_first
else fail thread_init_user_frame_first "$(head -c 400 "$T/thread_init_error.err")"; fi
expect_fail main_state_error "init_error.lua:4: prepare failed here" $LB "$T/init_error.lua" prepare
if sed -n 3p "$T/main_state_error.err" | grep -q "init_error.lua:4: in function"; then pass main_state_user_frame_first
else fail main_state_user_frame_first "$(head -c 400 "$T/main_state_error.err")"; fi
# Only the script's frames: the message with its file:line first, then
# the frames of the script's own files; none of lbench's (its modules, the
# xpcalls of its event loop), in a thread, a virtual user, thread_init or a
# command of the main state.  A C function the script called stays.
# user_frames NAME FRAME... : the traceback of NAME's stderr is exactly these frames
user_frames() {
  local name=$1; shift
  local want got
  want=$(printf '%s|' "$@")
  got=$(sed -n '/^stack traceback:$/,$p' "$T/$name.err" | sed 1d | sed 's/^\t//' | tr '\n' '|')
  if [ "$got" = "$want" ] && ! grep -q 'lua/lbench/' "$T/$name.err"; then pass "${name}_only_user_frames"
  else fail "${name}_only_user_frames" "got '$got', want '$want'"; fi
}
user_frames runtime_error_user_frames "$S/runtime_error.lua:1: in function 'deep'" "$S/runtime_error.lua:2: in function 'event'"
check runtime_error_message_first grep -q "^lbench: $S/runtime_error.lua:1: boom in the event$" "$T/runtime_error_user_frames.err"
expect_fail vu_error "runtime_error.lua:1: boom in the event" $LB $S/runtime_error.lua run --time=1 --connections=2
user_frames vu_error "$S/runtime_error.lua:1: in function 'deep'" "$S/runtime_error.lua:2: in function 'event'"
user_frames thread_init_error "$T/init_error.lua:1: in function 'helper'" "$T/init_error.lua:2: in function 'thread_init'"
cat > "$T/c_error.lua" <<'L'
local function pad(n) local s = string.rep("x", n); return s end
function event() pad("many") end
L
expect_fail c_error "c_error.lua:1: bad argument #2 to 'rep'" $LB "$T/c_error.lua" run --time=1
user_frames c_error "[C]: in function 'rep'" "$T/c_error.lua:1: in function 'pad'" "$T/c_error.lua:2: in function 'event'"
if sed -n '/^stack traceback:$/,$p' "$T/main_state_error.err" | grep -q 'lua/lbench/'; then
  fail main_state_only_user_frames "$(head -c 400 "$T/main_state_error.err")"
else pass main_state_only_user_frames; fi

# ---- 12. --time past what the int64 ns clock holds: refused, the bound named ----
one_line time_past_clock "^lbench: --time=9300000000: expected a number <= 4000000000$" \
  $LB oltp_point_select --db-driver=null --time=9300000000 run
one_line warmup_past_clock "^lbench: --warmup-time=1e10: expected a number <= 4000000000$" \
  $LB $S/empty.lua run --warmup-time=1e10
one_line rate_schedule_past_clock "^lbench: --rate=1000@10000000000: the schedule lasts 1e\+10 s; expected at most 4000000000 s" \
  $LB $S/empty.lua run --rate=1000@10000000000
expect_ok time_at_bound 'total number of events: +100$' $LB $S/empty.lua run --time=4000000000 --events=100

# random bytes as a script: a syntax error line, no traceback
head -c 300 /dev/urandom | tr -d '\000' > "$T/noise.lua"; printf '\n)(' >> "$T/noise.lua"
one_line noise_script "^lbench: .*noise\.lua" $LB "$T/noise.lua" run

rm -rf "$T"

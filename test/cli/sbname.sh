#!/usr/bin/env bash
# sysbench 1.0.20's command line, without a server: lbench started as
# `sysbench` (a symlink) prints what sysbench prints (version, banner, its
# words for a missing benchmark, sysbench.version in scripts) and keeps its
# own output under its own name; under either name the options sysbench 0.5
# users type (--test, --max-requests, --max-time, --num-threads, --tx-rate)
# work with sysbench's warnings, --verbosity below 3 drops the final report,
# `SCRIPT help` follows sysbench's order, and sb_rand_uniq(a, b) stays
# within its bounds.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
S=test/cli/scripts/sbname
trap 'rm -rf "$T"' EXIT
N="--db-driver=null"
mkdir -p "$T/bin"
ln -s "$(realpath "$LB")" "$T/bin/sysbench"
SB="$T/bin/sysbench"

# ---- sb_rand_uniq(a, b): within [a, b], no repeat over the range -------------
run rand_uniq $LB $S/uniq.lua $N --verbosity=0 --events=1 run
if [ "$rc" = 0 ] && [ "$(wc -l < "$T/rand_uniq.out")" = 1000 ] &&
   [ "$(sort -n "$T/rand_uniq.out" | uniq | wc -l)" = 1000 ] &&
   [ "$(sort -n "$T/rand_uniq.out" | head -1)" = 1 ] && [ "$(sort -n "$T/rand_uniq.out" | tail -1)" = 1000 ]; then
  pass sb_rand_uniq_within_bounds
else fail sb_rand_uniq_within_bounds "exit $rc: $(sort -n "$T/rand_uniq.out" | sed -n '1p;$p' | tr '\n' ' ') $(head -c 300 "$T/rand_uniq.err")"; fi
run rand_uniq_big $LB $S/uniq.lua $N --verbosity=0 --events=1 --lo=1 --hi=1000000000 run
n_out=$(awk '$1 < 1 || $1 > 1000000000' "$T/rand_uniq_big.out" | wc -l)
[ "$rc" = 0 ] && [ "$n_out" = 0 ] && [ "$(sort -n "$T/rand_uniq_big.out" | uniq | wc -l)" = 1000 ] &&
  pass sb_rand_uniq_1e9 || fail sb_rand_uniq_1e9 "exit $rc, $n_out values outside [1, 1e9]"

# ---- sysbench 0.5's options, with sysbench's warnings ------------------------
run legacy_opts $LB $N --verbosity=0 --test=$S/count.lua --max-requests=7 --num-threads=2 --max-time=30 run
if [ "$rc" = 0 ] && diff <(printf '%s\n' "WARNING: --num-threads is deprecated, use --threads instead" \
     "WARNING: --max-requests is deprecated, use --events instead" "WARNING: --max-time is deprecated, use --time instead") \
     <(grep WARNING "$T/legacy_opts.out") >/dev/null &&
   grep -qx "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options." "$T/legacy_opts.err" &&
   [ "$(grep -c '^event$' "$T/legacy_opts.out")" = 7 ] && grep -q '^threads 2$' "$T/legacy_opts.out"; then
  pass legacy_options_warn_and_apply
else fail legacy_options_warn_and_apply "exit $rc: $(head -c 400 "$T/legacy_opts.out") / $(head -c 200 "$T/legacy_opts.err")"; fi
# sysbench warns only for a value past the alias's default: no warning, no change
run legacy_defaults $LB $N --verbosity=0 $S/count.lua --num-threads=1 --max-requests=0 --events=2 run
[ "$rc" = 0 ] && ! grep -q WARNING "$T/legacy_defaults.out" && [ "$(grep -c '^event$' "$T/legacy_defaults.out")" = 2 ] &&
  pass legacy_options_at_default_silent || fail legacy_options_at_default_silent "exit $rc: $(head -c 300 "$T/legacy_defaults.out")"
run legacy_rate $LB $N --verbosity=0 $S/count.lua --tx-rate=1000 --events=3 run
grep -qx "WARNING: --tx-rate is deprecated, use --rate instead" "$T/legacy_rate.out" && grep -q '^rate 1000$' "$T/legacy_rate.out" &&
  pass legacy_tx_rate || fail legacy_tx_rate "$(head -c 300 "$T/legacy_rate.out")"

# ---- --verbosity: below 3, no header and no final report ---------------------
run verbosity0 $LB $S/count.lua $N --verbosity=0 --events=2 run
[ "$rc" = 0 ] && ! grep -q 'General statistics\|Running the test' "$T/verbosity0.out" &&
  [ "$(grep -c '^event$' "$T/verbosity0.out")" = 2 ] && pass verbosity_0_no_report ||
  fail verbosity_0_no_report "$(head -c 300 "$T/verbosity0.out")"
expect_ok verbosity_3_report '^General statistics:' $LB $S/count.lua $N --events=2 run

# ---- SCRIPT help: its help(), else its options, else sysbench's refusal -----
expect_ok help_own_function '^own help$' $LB $S/help_own.lua help
expect_ok help_options '^  --rows=N' $LB $S/count.lua help
expect_fail help_none "'noopts' test does not implement the 'help' command" $LB $S/noopts.lua help
ALLOW_STDOUT=1 one_line help_none_one_line "does not implement the 'help' command" $LB $S/noopts.lua help

# ---- started as `sysbench` ---------------------------------------------------
expect_ok sb_version '^sysbench 1\.0\.20$' $SB --version
expect_ok lb_version '^lbench ' $LB --version
run sb_banner $SB $S/count.lua $N --events=1 run
[ "$rc" = 0 ] && head -1 "$T/sb_banner.out" | grep -Eq '^sysbench 1\.0\.20 \(using system LuaJIT [0-9.a-z-]+\)$' &&
  sed -n 2p "$T/sb_banner.out" | grep -q '^$' && pass sysbench_name_banner ||
  fail sysbench_name_banner "exit $rc: $(head -c 300 "$T/sb_banner.out")"
run lb_banner $LB $S/count.lua $N --events=1 run
! grep -q '^sysbench ' "$T/lb_banner.out" && pass lbench_name_no_banner || fail lbench_name_no_banner "$(head -3 "$T/lb_banner.out")"
run sb_quiet $SB $S/count.lua $N --verbosity=0 --events=1 run
! grep -q '^sysbench ' "$T/sb_quiet.out" && pass sysbench_name_quiet_no_banner || fail sysbench_name_quiet_no_banner "$(head -3 "$T/sb_quiet.out")"
run sb_missing $SB no_such_benchmark run
[ "$rc" = 1 ] && grep -qx "FATAL: Cannot find benchmark 'no_such_benchmark': no such built-in test, file or module" "$T/sb_missing.out" &&
  pass sysbench_name_missing_benchmark || fail sysbench_name_missing_benchmark "exit $rc: $(cat "$T/sb_missing.out" "$T/sb_missing.err" | head -c 300)"
expect_ok sysbench_name_version_in_script '^1\.0\.20 sysbench 1\.0\.20 sysbench$' $SB $S/version.lua $N --verbosity=0 --events=1 run
expect_ok lbench_name_version_in_script '^[0-9.]+ lbench [0-9.]+ lbench$' $LB $S/version.lua $N --verbosity=0 --events=1 run
expect_ok sysbench_compat_option '^sysbench 1\.0\.20$' $LB --sysbench-compat=on --version
run sb_help $SB --help
[ "$rc" = 0 ] && grep -qx 'Usage:' "$T/sb_help.out" && grep -qx 'Commands implemented by most tests: prepare run cleanup help' "$T/sb_help.out" &&
  grep -qx 'General options:' "$T/sb_help.out" && grep -qx 'Compiled-in tests:' "$T/sb_help.out" &&
  grep -qx '  fileio - File I/O test' "$T/sb_help.out" && ! grep -q '^  oltp_read_only' "$T/sb_help.out" &&
  grep -Eq '^  --threads=N {20,}' "$T/sb_help.out" &&
  pass sysbench_name_help_layout || fail sysbench_name_help_layout "exit $rc: $(head -c 300 "$T/sb_help.out")"
# sysbench's own --help line for line, lbench's further options in a block
# of their own; every option sysbench's help lists is one lbench takes
if command -v sysbench >/dev/null; then
  sysbench --help >"$T/sb_help.ref" 2>&1
  diff "$T/sb_help.ref" <(sed '/^lbench options/,/^$/d' "$T/sb_help.out") >"$T/sb_help.diff" &&
    grep -q '^  --connections=N ' "$T/sb_help.out" && pass sysbench_name_help_as_sysbench ||
    fail sysbench_name_help_as_sysbench "$(head -c 500 "$T/sb_help.diff")"
fi
bad=""
for o in $(sed '/^lbench options/,$d' "$T/sb_help.out" | grep -Eo '^  --[a-z-]+' | sed 's/^  --//'); do
  case $o in help|version|config-file|db-driver) continue ;; esac
  v=$(grep -E "^  --$o[=\[]" "$T/sb_help.out" | sed -nE 's/.*\[([^]]*)\]$/\1/p' | head -1)
  case $o in mysql-socket) v=/nonexistent ;; esac
  $LB $N $S/noopts.lua "--$o=$v" --events=1 --verbosity=0 run >/dev/null 2>"$T/opt.err" || bad="$bad --$o=$v($(head -c 80 "$T/opt.err"))"
done
[ -z "$bad" ] && pass sysbench_help_options_all_taken || fail sysbench_help_options_all_taken "$bad"
printf 'function event()\nfoo\n' > "$T/syntax.lua"
run sb_syntax $SB "$T/syntax.lua" $N run
[ "$rc" = 1 ] && grep -Eq "^FATAL: .*syntax\.lua:[0-9]+: " "$T/sb_syntax.out" && pass sysbench_name_fatal_script_error ||
  fail sysbench_name_fatal_script_error "exit $rc: $(cat "$T/sb_syntax.out" "$T/sb_syntax.err" | head -c 300)"
printf 'x = 1\n' > "$T/noevent.lua"
run sb_noevent $SB "$T/noevent.lua" $N run
[ "$rc" = 1 ] && grep -qx "FATAL: cannot find the event() function in $T/noevent.lua" "$T/sb_noevent.out" &&
  pass sysbench_name_no_event_function || fail sysbench_name_no_event_function "exit $rc: $(cat "$T/sb_noevent.out" "$T/sb_noevent.err" | head -c 300)"
expect_fail lbench_name_no_event_function 'noevent defines no event\(\) function' $LB "$T/noevent.lua" $N run
# The run's header and final report: sysbench's lines, numbers aside (the
# real sysbench 1.0.20 runs the same script beside it).
if command -v sysbench >/dev/null; then
  for seed in 0 5; do
    run "sb_layout_ref_$seed" sysbench $S/noopts.lua --events=10 --rand-seed=$seed run
    run "sb_layout_$seed" $SB $S/noopts.lua $N --events=10 --rand-seed=$seed run
    if diff <(sed -E 's/[0-9]+\.[0-9]+/N/g' "$T/sb_layout_ref_$seed.out") <(sed -E 's/[0-9]+\.[0-9]+/N/g' "$T/sb_layout_$seed.out") \
         >"$T/sb_layout_$seed.diff"; then pass "sysbench_name_report_layout_seed_$seed"
    else fail "sysbench_name_report_layout_seed_$seed" "$(head -c 500 "$T/sb_layout_$seed.diff")"; fi
  done
else fail sysbench_name_report_layout "sysbench is not installed (contrib/install-deps.sh test)"; fi
run lb_layout $LB $S/noopts.lua $N --events=10 run
grep -q '^CPU time (user+sys):' "$T/lb_layout.out" && grep -q 'events per second:' "$T/lb_layout.out" &&
  pass lbench_name_keeps_its_report || fail lbench_name_keeps_its_report "$(head -c 300 "$T/lb_layout.out")"

# ---- a script on standard input; options of a script that declares none -----
printf "print('from stdin')\n" > "$T/stdin.lua"
run sb_stdin $SB < "$T/stdin.lua"
[ "$rc" = 0 ] && grep -qx 'from stdin' "$T/sb_stdin.out" && pass sysbench_name_script_on_stdin ||
  fail sysbench_name_script_on_stdin "exit $rc: $(cat "$T/sb_stdin.out" "$T/sb_stdin.err" | head -c 300)"
run lb_stdin $LB - < "$T/stdin.lua"
[ "$rc" = 0 ] && grep -qx 'from stdin' "$T/lb_stdin.out" && pass script_dash_on_stdin ||
  fail script_dash_on_stdin "exit $rc: $(cat "$T/lb_stdin.out" "$T/lb_stdin.err" | head -c 300)"
printf "function event() print('ev ' .. sysbench.opt.foo .. ' ' .. tostring(sysbench.opt.flag)) end\n" > "$T/free.lua"
run free_opts $LB "$T/free.lua" $N --verbosity=0 --foo=bar --flag --threads=2 --events=2 run
[ "$rc" = 0 ] && [ "$(grep -c '^ev bar true$' "$T/free_opts.out")" = 2 ] && pass undeclared_options_reach_the_script ||
  fail undeclared_options_reach_the_script "exit $rc: $(cat "$T/free_opts.out" "$T/free_opts.err" | head -c 300)"
one_line declared_options_refuse_others "unknown option '--foo'" $LB $S/count.lua $N --foo=bar --events=1 run
run sb_extra_arg $SB foo bar baz
[ "$rc" = 1 ] && [ "$(cat "$T/sb_extra_arg.out")" = "Unrecognized command line argument: baz" ] &&
  pass sysbench_name_extra_argument || fail sysbench_name_extra_argument "exit $rc: $(head -c 300 "$T/sb_extra_arg.out")"
one_line undeclared_near_miss_refused "unknown option '--thread' \(did you mean '--threads'\?\)" $LB "$T/free.lua" $N --thread=2 --events=1 run

# ---- sysbench 0.5's globals: test, mysql_table_engine, myisam_max_rows -------
printf 'function prepare() print(test .. " " .. mysql_table_engine .. " " .. myisam_max_rows) end\n' > "$T/globals.lua"
expect_ok legacy_globals "^$T/globals.lua innodb 1000000\$" $LB --test="$T/globals.lua" prepare
expect_ok legacy_globals_table_engine "^$T/globals.lua myisam 1000000\$" $LB "$T/globals.lua" --mysql-table-engine=myisam prepare

# ---- report hooks at the end of a --time run: whole intervals, then the
# cumulative report once with no thread running (as sysbench calls them) ------
run hooks_end $LB $S/hooks.lua $N --time=1.5 --report-interval=1 run
[ "$rc" = 0 ] && [ "$(grep -c '^intermediate 1$' "$T/hooks_end.out")" = 1 ] && ! grep -q '^intermediate 0' "$T/hooks_end.out" &&
  [ "$(grep -c '^cumulative' "$T/hooks_end.out")" = 1 ] && grep -qx 'cumulative 0' "$T/hooks_end.out" &&
  pass report_hooks_whole_intervals_then_cumulative || fail report_hooks_whole_intervals_then_cumulative "exit $rc: $(head -c 300 "$T/hooks_end.out")"

# ---- a script's options as sysbench lists and reads them ---------------------
run sb_opts_help $SB $S/opts.lua help
cat > "$T/opts_help.want" <<'WANT'
opts.lua options:
  --count=N          a count without a default
  --flag_a[=on|off]  a flag [off]
  --flag_b[=on|off]  a flag without a default
  --names=[LIST,...] a list [x,y]
  --ratio=N          a ratio [0.5]
  --str_a=STRING     a string
  --str_b=STRING     another string [b]

WANT
[ "$rc" = 0 ] && diff <(sed 1,2d "$T/sb_opts_help.out") "$T/opts_help.want" >"$T/opts_help.diff" &&
  pass sysbench_name_script_help_layout || fail sysbench_name_script_help_layout "exit $rc: $(head -c 400 "$T/opts_help.diff")"
expect_ok options_without_default_read_as_sysbench '^\[\] \[b\] false true 0 0.5 x\+y$' $LB $S/opts.lua prepare
run sb_bad_bool $SB $S/opts.lua --flag_a=5 prepare
[ "$rc" = 1 ] && grep -qx 'invalid option: --flag-a=5' "$T/sb_bad_bool.out" && pass sysbench_name_invalid_option_value ||
  fail sysbench_name_invalid_option_value "exit $rc: $(head -c 300 "$T/sb_bad_bool.out")"
run sb_undeclared $SB $S/opts.lua --nope=3 prepare
[ "$rc" = 1 ] && grep -qx 'invalid option: --nope=3' "$T/sb_undeclared.out" && pass sysbench_name_invalid_option_name ||
  fail sysbench_name_invalid_option_name "exit $rc: $(head -c 300 "$T/sb_undeclared.out")"
run sb_no_cleanup $SB $S/opts.lua cleanup
[ "$rc" = 1 ] && grep -qx "'opts.lua' test does not implement the 'cleanup' command." "$T/sb_no_cleanup.err" &&
  pass sysbench_name_missing_command || fail sysbench_name_missing_command "exit $rc: $(head -c 300 "$T/sb_no_cleanup.out")"
run sb_unknown_cmd $SB $S/opts.lua frobnicate
[ "$rc" = 1 ] && grep -qx "Unknown command: frobnicate" "$T/sb_unknown_cmd.out" && pass sysbench_name_unknown_command ||
  fail sysbench_name_unknown_command "exit $rc: $(head -c 300 "$T/sb_unknown_cmd.out")"
run sb_builtin_no_cmd $SB fileio
[ "$rc" = 1 ] && grep -qx "The 'fileio' test requires a command argument. See 'sysbench fileio help'" "$T/sb_builtin_no_cmd.err" &&
  pass sysbench_name_builtin_needs_command || fail sysbench_name_builtin_needs_command "exit $rc: $(head -c 300 "$T/sb_builtin_no_cmd.err")"
printf 'sysbench.cmdline.options = { {} }\nfunction help() end\n' > "$T/badtable.lua"
ALLOW_STDOUT=1 one_line malformed_options_one_line 'wrong table structure in sysbench.cmdline.options' $LB "$T/badtable.lua" help
run sb_badtable $SB "$T/badtable.lua" help
[ "$rc" = 1 ] && grep -q "^FATAL: .*wrong table structure in sysbench.cmdline.options$" "$T/sb_badtable.out" &&
  ! grep -q traceback "$T/sb_badtable.out" && pass sysbench_name_malformed_options ||
  fail sysbench_name_malformed_options "exit $rc: $(head -c 300 "$T/sb_badtable.out")"
printf 'function prepare() error("test error") end\n' > "$T/raises.lua"
run sb_raises $SB "$T/raises.lua" prepare
[ "$rc" = 1 ] && [ "$(sed 1,2d "$T/sb_raises.out")" = "FATAL: $T/raises.lua:1: test error" ] &&
  pass sysbench_name_script_error_one_line || fail sysbench_name_script_error_one_line "exit $rc: $(head -c 300 "$T/sb_raises.out")"

# ---- where the script's own lines fall in the run's output -------------------
run sb_order $SB $S/order.lua $N --events=1 run
got=$(grep -E '^(script body|event function|Initializing worker threads\.\.\.|Threads started!|General statistics:)$' "$T/sb_order.out" | tr '\n' '|')
[ "$got" = "script body|Initializing worker threads...|script body|Threads started!|event function|General statistics:|" ] &&
  pass sysbench_name_output_order || fail sysbench_name_output_order "$got"

# ---- a benchmark found as a module on LUA_PATH; standard input as sysbench ---
mkdir -p "$T/mods" && printf "print('module loaded')\n" > "$T/mods/my_bench_mod.lua"
run lua_path_module env LUA_PATH="$T/mods/?.lua;;" $SB my_bench_mod
[ "$rc" = 0 ] && grep -qx 'module loaded' "$T/lua_path_module.out" && pass benchmark_as_module_on_lua_path ||
  fail benchmark_as_module_on_lua_path "exit $rc: $(head -c 300 "$T/lua_path_module.out")"
printf 'function prepare() print("prepare") end\nprint("global")\n' > "$T/stdin2.lua"
run sb_stdin_cmd $SB - prepare < "$T/stdin2.lua"
[ "$rc" = 0 ] && [ "$(sed 1,2d "$T/sb_stdin_cmd.out")" = "global" ] && pass sysbench_name_stdin_body_only ||
  fail sysbench_name_stdin_body_only "exit $rc: $(head -c 300 "$T/sb_stdin_cmd.out")"
run lb_stdin_cmd $LB - prepare < "$T/stdin2.lua"
[ "$rc" = 0 ] && grep -qx prepare "$T/lb_stdin_cmd.out" && pass lbench_name_stdin_runs_command ||
  fail lbench_name_stdin_runs_command "exit $rc: $(head -c 300 "$T/lb_stdin_cmd.out")"

# ---- a parallel command: sysbench's line for its worker threads only when
# there are several; an unknown driver in sysbench's two lines --------------
run sb_par1 $SB $S/parallel.lua $N --threads=1 par
run sb_par2 $SB $S/parallel.lua $N --threads=2 par
[ "$(grep -c 'Initializing worker threads' "$T/sb_par1.out")" = 0 ] && grep -qx 'par 0' "$T/sb_par1.out" &&
  [ "$(grep -c 'Initializing worker threads' "$T/sb_par2.out")" = 1 ] && [ "$(grep -c '^par [01]$' "$T/sb_par2.out")" = 2 ] &&
  pass sysbench_name_parallel_command_line || fail sysbench_name_parallel_command_line "$(cat "$T/sb_par1.out" "$T/sb_par2.out" | head -c 300)"
run sb_bad_driver $SB --db-driver=nonexisting $S/count.lua cleanup
[ "$rc" = 1 ] && [ "$(sed 1,2d "$T/sb_bad_driver.out")" = "FATAL: invalid database driver name: 'nonexisting'
FATAL: \`cleanup' function failed: $S/count.lua: failed to initialize the DB driver" ] && pass sysbench_name_unknown_driver ||
  fail sysbench_name_unknown_driver "exit $rc: $(head -c 300 "$T/sb_bad_driver.out")"

# ---- --histogram: the chart before the report, as sysbench prints it --------
if command -v sysbench >/dev/null; then
  run sb_hist_ref sysbench $S/noopts.lua --events=5 --histogram run
  run sb_hist $SB $S/noopts.lua $N --events=5 --histogram run
  norm() { sed -E 's/[0-9]+\.[0-9]+/N/g' "$1" | grep -vE '^ +N \|\*+ +[0-9]+$'; }
  if diff <(norm "$T/sb_hist_ref.out") <(norm "$T/sb_hist.out") >"$T/sb_hist.diff" &&
     grep -Eq '^ +[0-9]+\.[0-9]{3} \|\*+ +[0-9]+$' "$T/sb_hist.out"; then pass sysbench_name_histogram_layout
  else fail sysbench_name_histogram_layout "$(head -c 500 "$T/sb_hist.diff")"; fi
fi

# ---- sysbench 0.5 scripts read their options as globals -----------------------
printf 'function prepare() print("prepare", oltp_tables_count, num_threads) end\nfunction event() print("event", oltp_tables_count) end\n' > "$T/globals.lua"
run legacy_globals $LB $N "$T/globals.lua" --oltp-tables-count=8 --threads=2 prepare
run legacy_globals_ev $LB $N "$T/globals.lua" --oltp-tables-count=8 --events=1 --verbosity=0 run
[ "$(cat "$T/legacy_globals.out")" = "prepare	8	2" ] && [ "$(cat "$T/legacy_globals_ev.out")" = "event	8" ] &&
  pass legacy_options_as_globals || fail legacy_options_as_globals "$(cat "$T/legacy_globals.out" "$T/legacy_globals_ev.out" "$T/legacy_globals.err" | head -c 300)"

#!/usr/bin/env bash
# sysbench compatibility without a server: sysbench 1.0.20's FFI surface
# declared and callable (test/cli/scripts/sb/), sysbench's report functions
# and C histogram printing what sysbench prints for the same input (both
# tools run here), sysbench's rules for globals with strictness as an
# opt-in, a script's own thread_run on the null driver.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
S=test/cli/scripts/sb
trap 'rm -rf "$T"' EXIT
N="--db-driver=null"
have_sysbench=0; command -v sysbench >/dev/null && have_sysbench=1

# same_output NAME SCRIPT COMMAND: both tools print the same (sysbench's
# banner line and blank lines aside).
same_output() {
  local name=$1 script=$2 cmd=$3
  if [ "$have_sysbench" != 1 ]; then fail "$name" "sysbench is not installed (contrib/install-deps.sh test)"; return; fi
  run "${name}_sb" sysbench "$script" "$cmd"
  run "${name}_lb" $LB "$script" "$cmd"
  if [ "$rc" -ne 0 ]; then fail "$name" "lbench exit $rc: $(head -c 300 "$T/${name}_lb.err")"; return; fi
  if [ ! -s "$T/${name}_lb.out" ]; then fail "$name" "lbench printed nothing"; return; fi
  if diff <(grep -v '^sysbench [0-9]\|^$' "$T/${name}_sb.out") <(grep -v '^$' "$T/${name}_lb.out") >"$T/$name.diff"; then
    pass "$name"; else fail "$name" "$(head -c 600 "$T/$name.diff")"; fi
}

# ---- the FFI surface ---------------------------------------------------------
expect_ok ffi_surface_declared '^82 names, missing: none$' $LB $S/surface.lua check
expect_ok ffi_redeclared '^reads 25$' $LB $S/redeclare.lua $N --threads=1 --events=25 --time=0 run
run ffi_redeclared_2 $LB $S/redeclare.lua $N --threads=2 --events=40 --time=0 --result-file="$T/redeclare.json" run
json_assert ffi_own_loop_events "$T/redeclare.json" 'r.totals.events == 40 and r.totals.queries.read == 40'
n=$(grep -c '^reads ' "$T/ffi_redeclared_2.out"); sum=$(awk '/^reads /{s+=$2} END{print s}' "$T/ffi_redeclared_2.out")
[ "$n" = 2 ] && [ "$sum" = 40 ] && pass ffi_counter_val_per_thread || fail ffi_counter_val_per_thread "$(cat "$T/ffi_redeclared_2.out" | head -5)"
# --rate paces the script's own loop through sb_more_events (intended starts,
# queue time); a constant rate never starts more than rate x time events.
run ffi_own_loop_rate $LB $S/redeclare.lua $N --threads=2 --rate=300 --rate-mode=constant --time=1 \
  --result-file="$T/rate.json" run
json_assert ffi_own_loop_rate "$T/rate.json" 'r.totals.events > 0 and r.totals.events <= 302 and r.queue_ms ~= nil
  and r.totals.queries.read == r.totals.events'
# A declaration that is wrong (not a redefinition) is still the script's error.
printf 'ffi.cdef[[ void sb_counter_inc(int, no_such_type); ]]\nfunction event() end\n' > "$T/bad_cdef.lua"
expect_fail ffi_bad_cdef "bad_cdef.lua:1: .*no_such_type" $LB "$T/bad_cdef.lua" $N --events=1 run

# ---- random numbers from the state's own stream -----------------------------
for rt in special uniform gaussian pareto; do
  run "rand_ffi_$rt" $LB $S/rand.lua --rand-seed=7 --rand-type=$rt --via=ffi draw
  run "rand_lua_$rt" $LB $S/rand.lua --rand-seed=7 --rand-type=$rt --via=lua draw
  a=$(cat "$T/rand_ffi_$rt.out"); b=$(cat "$T/rand_lua_$rt.out")
  [ -n "$a" ] && [ "$a" = "$b" ] && pass "sb_rand_same_stream_$rt" || fail "sb_rand_same_stream_$rt" "ffi '$a' lua '$b'"
done
run rand_other_seed $LB $S/rand.lua --rand-seed=8 --via=ffi draw
[ "$(cat "$T/rand_other_seed.out")" != "$(cat "$T/rand_ffi_special.out")" ] && pass sb_rand_seeded || fail sb_rand_seeded "seeds 7 and 8 drew the same"
# The same law as sysbench for the same --rand-* options (the hot rows of
# "special" sit where sysbench puts them): 200 000 draws through each tool,
# the hot share within 0.01, the mean within 30 and the sd within 4 %.
same_law() {
  local name=$1; shift
  if [ "$have_sysbench" != 1 ]; then fail "$name" "sysbench is not installed (contrib/install-deps.sh test)"; return; fi
  run "${name}_sb" sysbench $S/dist.lua --events=1 --threads=1 "$@" run
  run "${name}_lb" $LB $S/dist.lua --events=1 --threads=1 "$@" run
  local a b; a=$(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+$' "$T/${name}_sb.out"); b=$(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+$' "$T/${name}_lb.out")
  if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ");
       d = x[1] - y[1]; m = x[2] - y[2]; s = (x[3] - y[3]) / x[3];
       exit !(d < 0.01 && d > -0.01 && m < 30 && m > -30 && s < 0.04 && s > -0.04) }'; then
    pass "$name"; else fail "$name" "sysbench '$a', lbench '$b' (hot share, mean, sd)"; fi
}
same_law rand_special_law_as_sysbench
same_law rand_special_options_as_sysbench --rand-spec-pct=10 --rand-spec-res=40 --rand-spec-iter=4
same_law rand_gaussian_law_as_sysbench --rand-type=gaussian
same_law rand_pareto_law_as_sysbench --rand-type=pareto --rand-pareto-h=0.3
expect_ok sb_rand_str '^[0-9]{2}-[a-z]{3} x[0-9][a-z]!$' $LB $S/rand.lua str

# ---- what sysbench prints for the same input ---------------------------------
same_output report_json_as_sysbench $S/reports.lua json
same_output report_csv_as_sysbench $S/reports.lua csv
same_output report_default_as_sysbench $S/reports.lua default
same_output sb_histogram_print_as_sysbench $S/hist.lua hist
same_output histogram_object_print_as_sysbench $S/hist.lua lua
# report_json is one JSON document (an array) per series, not a line per stat.
run report_json_doc $LB $S/reports.lua json
cp "$T/report_json_doc.out" "$T/reports.json"
json_assert report_json_is_array "$T/reports.json" '#r == 2 and r[1].time == 1 and r[1].threads == 4 and r[1].tps == 1234
  and r[1].qps.total == 24680 and r[1].qps.reads == 17276 and r[1].latency == 8.45 and r[2].tps == 20'
# As a run's hook: the intervals form one array, the final report another.
cat > "$T/json_hooks.lua" <<'L'
function event() sysbench.sleep(20) end
sysbench.hooks.report_intermediate = sysbench.report_json
sysbench.hooks.report_cumulative = sysbench.report_json
L
run json_hooks $LB "$T/json_hooks.lua" $N --time=2 --report-interval=1 run
opens=$(grep -c '^\[$' "$T/json_hooks.out"); closes=$(grep -c '^\]$' "$T/json_hooks.out")
[ "$rc" -eq 0 ] && [ "$opens" = 2 ] && [ "$closes" = 2 ] && ! grep -q '"time_total"' "$T/json_hooks.out" \
  && pass report_json_hook_series || fail report_json_hook_series "[ x$opens ] x$closes: $(head -c 300 "$T/json_hooks.out")"

# ---- globals: sysbench's rules for scripts, strictness as an opt-in ----------
run lazy_global $LB $S/lazy.lua $N --events=5 --result-file="$T/lazy.json" run
json_assert lazy_global_reads_nil "$T/lazy.json" 'r.status == "ok" and r.totals.events == 5'
expect_fail lazy_global_strict "lazy.lua:3: undefined global 'seen'" $LB $S/lazy.lua $N --strict-globals=on --events=5 run
# A stock scenario (found by name) is strict unless told otherwise.
mkdir -p "$T/stock"; cp $S/lazy.lua "$T/stock/lazy_stock.lua"
LBENCH_PATH="$T/stock" expect_fail stock_strict_by_default "undefined global 'seen'" $LB lazy_stock $N --events=5 run
LBENCH_PATH="$T/stock" expect_ok stock_strict_off 'total number of events: +5$' $LB lazy_stock $N --strict-globals=off --events=5 run
one_line strict_globals_bad_value "--strict-globals=maybe" $LB $S/lazy.lua --strict-globals=maybe run

# ---- sysbench.cmdline helpers --------------------------------------------------
cat > "$T/cmds.lua" <<'L'
sysbench.cmdline.options = { rows = {"Rows", 10} }
sysbench.cmdline.commands = { load = {function() return true end, sysbench.cmdline.PARALLEL_COMMAND},
                              show = {function() sysbench.cmdline.print_test_options() end} }
function check()
  local c = sysbench.cmdline
  assert(c.command_defined("load") and c.command_parallel("load") and not c.command_parallel("show")
    and not c.command_defined("nope") and c.call_command("show") and c.command == "check")
  print("helpers ok")
end
sysbench.cmdline.commands.check = {check}
function event() end
L
expect_ok cmdline_helpers '^helpers ok$' $LB "$T/cmds.lua" check
expect_ok print_test_options '--rows=N' $LB "$T/cmds.lua" show

# ---- options declared through sb_lua_set_test_args -----------------------------
expect_ok test_args_defaults '^batch=25\(number\) mode=fast hosts=a\+b$' $LB $S/test_args.lua show
expect_ok test_args_given '^batch=7\(number\) mode=slow hosts=x\+y$' $LB $S/test_args.lua show --batch=7 --mode=slow --hosts=x,y
expect_ok test_args_help '--batch=N +Rows per batch \[25\]' $LB $S/test_args.lua help
one_line test_args_typed "^lbench: --batch=x: expected an integer$" $LB $S/test_args.lua show --batch=x

# ---- init() before the workers, done() after the final report (sysbench's order)
cat > "$T/order.lua" <<'L'
function init() print("INIT") end
function done() print("DONE") end
function event() end
L
run order $LB "$T/order.lua" $N --events=3 run
order=$(grep -oE '^(INIT|DONE)$|total number of events' "$T/order.out" | tr '\n' '|')
[ "$rc" -eq 0 ] && [ "$order" = "INIT|total number of events|DONE|" ] && pass init_done_order || fail init_done_order "$order"

# Shared helpers for the shell test suites: each check prints one
# "PASS name" or "FAIL name: why" line, which test/run.sh counts.
LB=${LB:-./lbench}
T=${T:-$(mktemp -d /tmp/lbench-test.XXXXXX)}

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# run NAME CMD... : runs CMD with a timeout, output in $T/NAME.out/.err, status in $rc
run() {
  local name=$1; shift
  timeout -k 5 "${TEST_TIMEOUT:-120}" "$@" >"$T/$name.out" 2>"$T/$name.err"
  rc=$?
}

# expect_ok NAME REGEX CMD... : exit 0 and stdout matches REGEX (extended)
expect_ok() {
  local name=$1 re=$2; shift 2
  run "$name" "$@"
  if [ "$rc" -ne 0 ]; then fail "$name" "exit $rc: $(head -c 400 "$T/$name.err")"; return 1; fi
  if ! grep -Eq -- "$re" "$T/$name.out"; then fail "$name" "stdout does not match /$re/: $(head -c 300 "$T/$name.out")"; return 1; fi
  pass "$name"
}

# expect_fail NAME REGEX CMD... : non-zero exit, no crash, stderr matches REGEX
expect_fail() {
  local name=$1 re=$2; shift 2
  run "$name" "$@"
  if [ "$rc" -eq 0 ]; then fail "$name" "expected a non-zero exit"; return 1; fi
  if [ "$rc" -ge 124 ]; then fail "$name" "crashed or timed out (status $rc): $(head -c 300 "$T/$name.err")"; return 1; fi
  if ! grep -Eq -- "$re" "$T/$name.err"; then fail "$name" "stderr does not match /$re/: $(head -c 400 "$T/$name.err")"; return 1; fi
  pass "$name"
}

# check NAME COND-CMD... : passes when the command succeeds
check() {
  local name=$1; shift
  if "$@" >/dev/null 2>&1; then pass "$name"; else fail "$name" "check failed: $*"; fi
}

# jq-like assertion through lbench's own JSON decoder:
#   json_assert NAME FILE 'lua boolean expression over `r`'
json_assert() {
  local name=$1 file=$2 expr=$3
  if $LB test/cli/scripts/json_assert.lua check --file="$file" --expr="$expr" >"$T/$name.ja" 2>&1; then
    pass "$name"
  else
    fail "$name" "$(head -c 400 "$T/$name.ja")"
  fi
}

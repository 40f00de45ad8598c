#!/usr/bin/env bash
# User mistakes against a real server (issue 14): a missing table, a table
# that exists already, a wrong password, a wrong port.  Each gives one line
# on stderr, a non-zero exit and no traceback.  Its own private sandbox
# (directory and port), started here and stopped by its PID at the end.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=/tmp/lbench-test-sandbox-err LB_SANDBOX_PORT=3318
if ! contrib/mariadb-sandbox.sh start >"$T/sandbox.log" 2>&1; then
  fail errors_sandbox_start "$(tail -5 "$T/sandbox.log")"; exit 1
fi
pass errors_sandbox_start
trap 'contrib/mariadb-sandbox.sh stop >/dev/null 2>&1; rm -rf "$T"' EXIT
set -a; . "$LB_SANDBOX_DIR/env"; set +a
M="--mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest"

# one_line NAME REGEX CMD... : non-zero exit below 124, exactly one stderr
# line matching REGEX, no traceback (stdout is the runner's business).
one_line() {
  local name=$1 re=$2; shift 2
  run "$name" "$@"
  local n
  n=$(wc -l < "$T/$name.err")
  if [ "$rc" -eq 0 ]; then fail "$name" "expected a non-zero exit"; return 1; fi
  if [ "$rc" -ge 124 ]; then fail "$name" "crashed or timed out (status $rc): $(head -c 300 "$T/$name.err")"; return 1; fi
  if grep -q 'stack traceback' "$T/$name.err"; then fail "$name" "traceback: $(head -c 400 "$T/$name.err")"; return 1; fi
  if [ "$n" -ne 1 ]; then fail "$name" "stderr has $n lines: $(head -c 400 "$T/$name.err")"; return 1; fi
  if ! grep -Eq -- "$re" "$T/$name.err"; then fail "$name" "stderr does not match /$re/: $(head -c 400 "$T/$name.err")"; return 1; fi
  pass "$name"
}

run cleanup_first $LB oltp_read_only $M --tables=9 cleanup
expect_ok prepare_two 'Creating table' $LB oltp_read_only $M --tables=2 --table-size=100 prepare

# a run on more tables than were prepared: the first missing one is named
one_line missing_table "^lbench: table sbtest3 does not exist \(sbtest1\.\.sbtest2 do\): use --tables=2, or run cleanup, then prepare with --tables=9$" \
  $LB oltp_read_only $M --tables=9 --table-size=100 --time=1 run
one_line missing_table_threads "^lbench: table sbtest3 does not exist" $LB oltp_point_select $M --tables=3 --threads=2 --time=1 run
one_line missing_table_async "^lbench: table sbtest3 does not exist" $LB oltp_point_select $M --tables=3 --connections=4 --time=1 run
# prepare over tables that exist
one_line table_exists "^lbench: table sbtest1 already exists in database 'sbtest': run cleanup first" \
  $LB oltp_read_only $M --tables=2 --table-size=100 prepare
run cleanup_two $LB oltp_read_only $M --tables=2 cleanup
one_line no_tables_at_all "^lbench: table sbtest1 does not exist in database 'sbtest': run prepare first" \
  $LB oltp_read_write $M --time=1 run
one_line no_table_random_points "^lbench: table sbtest1 does not exist in database 'sbtest': run prepare first" \
  $LB select_random_points $M --time=1 run
one_line no_table_bulk_insert "^lbench: table sbtest1 does not exist: run prepare with --threads=1" \
  $LB bulk_insert $M --time=1 run

# connects that fail: one line naming host, port and user
one_line bad_password "^lbench: cannot connect to 127\.0\.0\.1:$LB_MYSQL_PORT as 'sbtest' \(mysql\): error 1045: Access denied" \
  $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-password=wrong --time=1 run
one_line bad_password_prepare "^lbench: cannot connect to 127\.0\.0\.1:$LB_MYSQL_PORT as 'sbtest' \(mysql\): error 1045" \
  $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-password=wrong prepare
one_line bad_user_async "^lbench: cannot connect to 127\.0\.0\.1:$LB_MYSQL_PORT as 'nobody' \(mysql\): error (1045|1698): Access denied" \
  $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-user=nobody --connections=4 --time=1 run
one_line bad_port "^lbench: cannot connect to 127\.0\.0\.1:1 as 'sbtest' \(mysql\): error 200[23]" \
  $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=1 --mysql-password=sbtest --time=1 run
printf 'wrong\n' > "$T/pw"
one_line bad_password_file "^lbench: cannot connect to .* error 1045" \
  $LB oltp_point_select --mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-password-file="$T/pw" --time=1 run

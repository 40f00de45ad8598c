#!/usr/bin/env bash
# User mistakes against a real server (issue 14): a missing table, a table
# that exists already, a wrong password, a wrong port.  Each gives one line
# on stderr, a non-zero exit and no traceback.  Its own private sandbox
# (directory and port), started here and stopped by its PID at the end.
cd "$(dirname "$0")/../.." || exit 1
. test/lib.sh
export LB_SANDBOX_DIR=/tmp/lbench-test-sandbox-err LB_SANDBOX_PORT=3318
sandbox_start errors

ALLOW_STDOUT=1   # stdout is the runner's business here

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

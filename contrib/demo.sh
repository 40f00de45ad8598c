#!/usr/bin/env bash
# make demo: start a private MariaDB (contrib/mariadb-sandbox.sh), prepare
# sysbench-style tables, run 10 s of oltp_read_write, print the report,
# write the result document, and stop the server again.
set -euo pipefail
cd "$(dirname "$0")/.."
export LB_SANDBOX_DIR=${LB_SANDBOX_DIR:-/tmp/lbench-demo} LB_SANDBOX_PORT=${LB_SANDBOX_PORT:-3308}
contrib/mariadb-sandbox.sh start
trap 'contrib/mariadb-sandbox.sh stop' EXIT
set -a; . "$LB_SANDBOX_DIR/env"; set +a
DB="--mysql-host=127.0.0.1 --mysql-port=$LB_MYSQL_PORT --mysql-user=$LB_MYSQL_USER --mysql-db=$LB_MYSQL_DB"
export LBENCH_MYSQL_PASSWORD=$LB_MYSQL_PASSWORD   # not on the command line (ps)
W="--tables=4 --table-size=100000"
echo "== lbench oltp_read_write $DB $W cleanup/prepare"
./lbench oltp_read_write $DB $W cleanup >/dev/null
./lbench oltp_read_write $DB $W --threads=2 prepare
echo
echo "== lbench oltp_read_write $DB $W --threads=2 --time=10 --report-interval=1 --percentiles=50,95,99 run"
./lbench oltp_read_write $DB $W --threads=2 --time=10 --report-interval=1 --percentiles=50,95,99 \
  --result-file=demo-result.json run
echo "Result document: demo-result.json"

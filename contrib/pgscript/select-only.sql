-- make bench, section pgscript: one primary-key read of pgbench_accounts
-- per transaction (the work of pgbench's built-in select-only), as a file.
\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;

-- One row per transaction, for comparing several clients' draws with
-- pgbench's: (tool, client, transaction number, script, values).
\set n :n + 1
\set a random(1, 100000)
\set g random_gaussian(1, 1000, 3)
INSERT INTO pgscript_log (tool, client, n, script, a, g) VALUES (:tool, :client_id, :n, 1, :a, :g);

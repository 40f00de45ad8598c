-- Client 1 fails at its first transaction; the others go on writing rows.
\if :client_id = 1
\set b 1 / 0
\endif
INSERT INTO pgscript_log (tool, client, n, script, a, g) VALUES (:tool, :client_id, 0, 0, 0, 0);

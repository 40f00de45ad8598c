\set n :n + 1
\set a random_exponential(1, 100000, 4)
\set g permute(:a, 100000)
INSERT INTO pgscript_log (tool, client, n, script, a, g) VALUES (:tool, :client_id, :n, 2, :a, :g);

-- What each query mode sends: statements prepared on the server (prepared
-- mode only) and the type the server sees for a variable (a literal in
-- simple mode, an untyped parameter in extended and prepared mode).
SELECT count(*) AS n FROM pg_prepared_statements \gset
\set n debug(:n)
SELECT length(pg_typeof(:n)::text) AS l \gset
\set l debug(:l)

-- A compound command: the simple protocol alone takes several statements.
SELECT 1 AS a \; SELECT 2 AS b \gset
\set b debug(:b)

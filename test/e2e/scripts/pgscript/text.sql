-- Simple mode writes each variable's value into the statement's text: a
-- value longer than the text's first buffer (:long, 700 bytes, given with
-- -D), an integer, and a variable that does not exist, left as written.
\set i 123456789012
SELECT length(':long') AS n, length(':nosuch') AS u, :i + 1 AS j \gset
\set dn debug(:n)
\set du debug(:u)
\set dj debug(:j)

-- SQL that PostgreSQL and MySQL/MariaDB both take: the draws of a seeded
-- run do not depend on the server.
\set a random(1, 1000)
\set b random_zipfian(1, 1000, 1.5)
SELECT :a AS one, :a * 2 AS two, :b * 1 AS three
\gset
\set d debug(:two - :one + :three)
\set d debug(hash(:one))
SELECT :b * 3 AS x \gset p_
\set d debug(:p_x)

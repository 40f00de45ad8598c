\set a random(1, 10)
\set b :a / 0

-- Every function and operator of pgbench's expression language, printed
-- with debug(), and \gset / \aset / \if; compared line by line with
-- pgbench 15's output for the same --random-seed (prepared and simple).
\set a random(1, 1000)
\set b random(-100, 100)
\set d debug(:a + :b * 2 - 7)
\set d debug(:a / 7 + :a % 7 + -:b % 3 + 7 % -3 + -7 / 2)
\set d debug(:a * 1.5 - :b / 4.0)
\set d debug((:a & 255) | (:b << 3) # ~:a)
\set d debug(:b >> 2)
\set d debug(mod(:a, 7) + mod(-:a, 7) + MOD(:b, -3) + mod(7.9, 2))
\set d debug(1 << 70)
\set d debug(-9223372036854775808)
\set d debug(9223372036854775807 - :a + :a)
\set d debug(:a < :b)
\set d debug(:a > :b)
\set d debug(:a <= 500 AND :b >= 0 OR NOT (:a = :b) AND :a <> 3 AND :a != 4)
\set d debug(:a IS NULL)
\set d debug(:a IS NOT NULL)
\set d debug(NULL IS NULL)
\set d debug(NULL ISNULL)
\set d debug(:a NOTNULL)
\set d debug(true IS TRUE)
\set d debug(false IS NOT FALSE)
\set d debug(NULL OR true)
\set d debug(true AND NULL)
\set d debug(false AND 1 / 0 = 0)
\set d debug(true OR 1 / 0 = 0)
\set d debug(NULL + 1)
\set d debug(NOT NULL)
\set d debug(CASE WHEN :a < 300 THEN :a IS NULL WHEN :a < 600 THEN :a * 2 ELSE :a * 1.0 END)
\set d debug(CASE WHEN :a > 2000 THEN 1 END)
\set d debug(abs(:b) + abs(-2.5))
\set d debug(abs(-9223372036854775807 - 1))
\set d debug(double(:a) / 3)
\set d debug(int(2.5) + int(3.5) + int(-2.5) + int(:a / 7.0))
\set d debug(exp(:a / 1000.0) + ln(:a) + sqrt(:a))
\set d debug(sqrt(-1))
\set d debug(exp(1000))
\set d debug(-exp(1000))
\set d debug(0.0 / 0.0)
\set d debug(pi() * :a)
\set d debug(pow(:a, 0.5) + power(2, 10) + pow(1.0001, 100000))
\set d debug(least(:a, :b, 7) + greatest(:a, :b, 7))
\set d debug(least(:a, 2.5) + greatest(1, :b * 1.0))
\set d debug(hash(:a))
\set d debug(hash(:a, 5))
\set d debug(hash_murmur2(:b))
\set d debug(hash_fnv1a(:a))
\set d debug(hash_fnv1a(:b, -1))
\set d debug(permute(:a, 1000))
\set d debug(permute(:b, 17, 42))
\set d debug(permute(-:a, 1))
\set d debug(random_exponential(1, 1000000, 0.5))
\set d debug(random_gaussian(-1000, 1000, 2.5))
\set d debug(random_zipfian(1, 1000000, 1.07))
\set d debug(random_zipfian(1, 10, 4))
\set d debug(random(-4611686018427387904, 4611686018427387902))
\set d debug(random(5, 5))
\set d debug(1.5e3 + .5 + 3. + 1e-3)
\set d debug(:scale + :client_id)
\set d debug(:default_seed)
\set d debug(:random_seed)
\set d debug(:n + 1)
\set d debug(:t AND true)
\set d debug(:f OR false)
\set d debug(:s + 1)
\set d debug(:x * 2)
SELECT :a AS one, :a * 2 AS two, NULL AS three, 'x' || :b AS four \gset
\set d debug(:one + :two)
\set d debug(:two - :one)
SELECT :b AS five \gset p_
\set d debug(:p_five * 3)
SELECT v AS six FROM generate_series(1, 3) AS v \aset
\set d debug(:six)
\if :a % 3 = 0
  \set d debug(30)
  \if :b > 0
    \set d debug(31)
  \else
    \set d debug(32)
  \endif
\elif :a % 3 = 1
  \set d debug(40)
\else
  \set d debug(50)
\endif
\if :a < 0
  \set d debug(60)
\elif :a < 0
  \set d debug(61)
\endif
\sleep 1 us
\sleep :a us
\setshell sh echo 41
\set d debug(:sh + 1)
\shell true
\set d debug(random(1, 1000))
-- A copy keeps its value when the variable it was copied from changes;
-- an integer variable that becomes a double, a boolean and text and then
-- an integer again reads as each in turn (in every query mode).
\set c :a
\set a :a + 1000
\set d debug(:c * 10000 + :a)
\set c :c * 0.5
\set d debug(:c)
\set c :c > 0
\set d debug(:c)
SELECT :a + 1 AS c \gset
\set d debug(:c + 1)
\set c :a - 1
\set d debug(:c)
\set d debug(:a)
SELECT :c AS e, :a AS f

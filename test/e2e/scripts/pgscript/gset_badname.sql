SELECT 1 AS "bad name!" \gset

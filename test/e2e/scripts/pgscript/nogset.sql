SELECT 1 AS x WHERE false \gset

-- a statement the server refuses
SELECT nosuchcol FROM pg_class LIMIT 1;

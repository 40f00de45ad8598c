\if 1
SELECT 1;

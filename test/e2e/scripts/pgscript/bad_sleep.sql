SELECT 1;
\sleep 1 hour

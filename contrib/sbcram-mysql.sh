#!/usr/bin/env bash
# The `mysql` that sysbench's cram cases call (contrib/sbcram.sh puts it on
# PATH): the MariaDB client sent to the sandbox's socket, its output made
# to read as MySQL's where only the server's or client's dialect differs, so
# that a case fails for what sysbench or lbench did, not for the server:
#   - SHOW CREATE TABLE: MariaDB prints a numeric default unquoted
#     (DEFAULT 0), MySQL quotes it (DEFAULT '0');
#   - an error in batch mode: MariaDB's client echoes the statement between
#     dashes before "ERROR ...", MySQL's prints the error line alone.
# Standard output first, then standard error: a call of these cases writes
# to one of them only.
: "${SBCRAM_MYSQL_SOCKET:?}"
err=$(mktemp)
out=$(/usr/bin/mysql --socket="$SBCRAM_MYSQL_SOCKET" "$@" 2>"$err")
rc=$?
[ -n "$out" ] && printf '%s\n' "$out" | sed -E "s/ DEFAULT (-?[0-9]+)([ ,]|\$)/ DEFAULT '\\1'\\2/"
awk '/^--------------$/ { skip = !skip; if (!skip) blank = 1; next }
     skip { next }
     blank && /^$/ { blank = 0; next }
     { blank = 0; print }' "$err" >&2
rm -f "$err"
exit $rc

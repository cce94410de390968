#!/bin/sh
# The README documents every config key the program knows (the key table is the source).
. "$(dirname "$0")/lib.sh"

run_ts 0 "check default.ini" check "$SRC/configs/default.ini" || finish
keys=$(awk '/^\[/ { gsub(/[][]/, ""); section = $0; next }
            /^[a-z_]+ = / { print section "." $1 }' "$OUT")
[ -n "$keys" ] || fail "no keys found in the check output"
for key in $keys; do
    grep -q "\`$key\`" "$SRC/README.md" || fail "README does not document config key $key"
done
finish

#!/bin/sh
# docs/touchstone.1 (issue 27): groff and man find nothing to warn about; it names every command
# and option `touchstone --help` and `touchstone COMMAND --help` give, and no other (its
# SYNOPSIS line of each command has the options --help's has); its EXIT STATUS lists the
# statuses --help lists; its .TH names the project's version; its ENVIRONMENT names every variable the sources and the job scripts
# read, and none they do not. Each difference is printed.
. "$(dirname "$0")/lib.sh"
MAN=$SRC/docs/touchstone.1
[ -r "$MAN" ] || { fail "no $MAN"; finish; }

# ---- the roff: no warning of groff's (-ww: all of them) nor of man's ----
groff -ww -z -man "$MAN" >"$WORK/groff" 2>&1 || fail "groff -man $MAN: exit status $?"
[ -s "$WORK/groff" ] && fail "groff -ww -z -man warns: $(head -5 "$WORK/groff")"
if command -v man >/dev/null; then
    MANWIDTH=80 man --warnings -l "$MAN" >/dev/null 2>"$WORK/man" || fail "man -l $MAN: exit status $?"
    [ -s "$WORK/man" ] && fail "man --warnings -l warns: $(head -5 "$WORK/man")"
fi
# The version the page names is the project's (a release changes both).
version=$(sed -n 's/^ *VERSION \([0-9.]*\)$/\1/p' "$SRC/CMakeLists.txt")
grep -q "^\.TH TOUCHSTONE 1 .* \"touchstone $version\"" "$MAN" ||
    fail "touchstone.1: its .TH line does not name touchstone $version (CMakeLists.txt's VERSION): $(grep '^\.TH' "$MAN")"
# The page as text, one line per paragraph (so each synopsis entry is one line), no hyphens added.
groff -man -Tascii -P-cbou -rLL=2000n -rHY=0 "$MAN" 2>/dev/null | sed 's/\x2010/-/g' >"$WORK/page"
# section NAME: the page's lines under the heading NAME (unindented), up to the next heading.
section() {
    awk -v s="$1" '/^[A-Z][A-Z ]*$/ { on = ($0 == s); next } on' "$WORK/page"
}
# tags NAME: the words of the tags of section NAME's .TP paragraphs (the roff line after .TP),
# one a line: macro, quotes, font escapes and commas dropped, \- read as -.
tags() {
    awk -v s="$1" '/^\.SH / { t = $0; sub(/^\.SH +/, "", t); gsub(/"/, "", t); on = (t == s); next }
                   on && tag { line = $0; sub(/^\.[A-Z]+ */, "", line); gsub(/\\-/, "-", line)
                               gsub(/\\f[BIRP]/, "", line); gsub(/[",\\]/, " ", line)
                               n = split(line, w, " "); for (i = 1; i <= n; i++) print w[i] }
                   { tag = on && /^\.TP/ }' "$MAN"
}

# ---- what --help says: the synopsis as cli.docs_match reads it, the option list, the statuses ----
# synopsis FILE: "CMD OPTION" for each option of each command's lines of a synopsis.
synopsis() {
    awk '{ line = $0; sub(/^usage:/, "", line)
           if (match(line, /^ *touchstone [a-z]+/)) { split(substr(line, RSTART), w, " "); cmd = w[2] }
           n = split(line, words, /[][ |]+/)
           for (i = 1; i <= n; i++) if (words[i] ~ /^--?[a-z]/) { o = words[i]; sub(/=.*/, "", o); print cmd, o } }' \
        "$1" | sort -u
}
# help_options FILE: the options of the option list, "  -o, --output FILE" giving both.
help_options() {
    sed -n 's/^  \(--[a-z-]*\) .*/\1/p; s/^  -[a-z], \(--[a-z-]*\) .*/\1/p' "$1"
    sed -n 's/^  \(-[a-z]\), .*/\1/p' "$1"
}
run_ts 0 "--help" --help || finish
cp "$OUT" "$WORK/help"
awk '/^$/ { exit } { print }' "$WORK/help" >"$WORK/help_synopsis"
synopsis "$WORK/help_synopsis" >"$WORK/help_pairs"
sed -n 's/^ *touchstone \([a-z][a-z]*\).*/\1/p; s/^usage: touchstone \([a-z][a-z]*\).*/\1/p' "$WORK/help" |
    sort -u >"$WORK/help_commands"
[ "$(wc -l <"$WORK/help_commands")" -ge 9 ] || fail "found only $(wc -l <"$WORK/help_commands") commands in --help"
{
    help_options "$WORK/help"
    awk '{ print $2 }' "$WORK/help_pairs"
} | sort -u >"$WORK/help_options"
awk '/^exit status:/ { on = 1 }
     on { line = $0
          while (match(line, /(^|[,:]) *[0-9]+ [a-z]/)) {
              s = substr(line, RSTART, RLENGTH); gsub(/[^0-9]/, "", s); print s
              line = substr(line, RSTART + RLENGTH) } }' "$WORK/help" | sort -u >"$WORK/help_statuses"

# ---- commands, both ways ----
tags COMMANDS | sort -u >"$WORK/man_commands"
comm -23 "$WORK/help_commands" "$WORK/man_commands" >"$WORK/diff1"
while read -r c; do
    fail "touchstone.1: COMMANDS has no '$c', a command of --help"
done <"$WORK/diff1"
comm -13 "$WORK/help_commands" "$WORK/man_commands" >"$WORK/diff2"
while read -r c; do
    fail "touchstone.1: COMMANDS has '$c', which --help does not name"
done <"$WORK/diff2"
[ -s "$WORK/man_commands" ] || fail "touchstone.1: no commands found under COMMANDS: is the pattern still right?"

# ---- options, both ways: the OPTIONS tags against --help and every COMMAND --help ----
tags OPTIONS | grep -E '^--?[a-zA-Z]' | sort -u >"$WORK/man_options"
[ "$(wc -l <"$WORK/man_options")" -ge 20 ] || fail "touchstone.1: only $(wc -l <"$WORK/man_options") options under OPTIONS"
while read -r cmd; do
    run_ts 0 "$cmd --help" "$cmd" --help || continue
    help_options "$OUT" >"$WORK/cmd_options"
    awk '/^$/ { exit } { print }' "$OUT" >"$WORK/cmd_synopsis"
    synopsis "$WORK/cmd_synopsis" | awk '{ print $2 }' >>"$WORK/cmd_options"
    sort -u "$WORK/cmd_options" | comm -23 - "$WORK/man_options" >"$WORK/diff3"
while read -r o; do
        fail "touchstone.1: OPTIONS has no $o, which touchstone $cmd --help names"
    done <"$WORK/diff3"
done <"$WORK/help_commands"
comm -23 "$WORK/help_options" "$WORK/man_options" >"$WORK/diff4"
while read -r o; do
    fail "touchstone.1: OPTIONS has no $o, an option of --help"
done <"$WORK/diff4"
comm -13 "$WORK/help_options" "$WORK/man_options" >"$WORK/diff5"
while read -r o; do
    fail "touchstone.1: OPTIONS has $o, which --help does not name"
done <"$WORK/diff5"
# Each command's line of the SYNOPSIS has the options --help's line of it has.
section SYNOPSIS >"$WORK/man_synopsis"
synopsis "$WORK/man_synopsis" >"$WORK/man_pairs"
diff "$WORK/help_pairs" "$WORK/man_pairs" | sed -n 's/^< \(.*\)/\1/p' >"$WORK/diff6"
while read -r c o; do
    fail "touchstone.1: the SYNOPSIS of $c has no $o (--help's has)"
done <"$WORK/diff6"
diff "$WORK/help_pairs" "$WORK/man_pairs" | sed -n 's/^> \(.*\)/\1/p' >"$WORK/diff7"
while read -r c o; do
    fail "touchstone.1: the SYNOPSIS of $c has $o, --help's has not"
done <"$WORK/diff7"

# ---- exit statuses ----
tags "EXIT STATUS" | grep -E '^[0-9]+$' | sort -u >"$WORK/man_statuses"
cmp -s "$WORK/help_statuses" "$WORK/man_statuses" ||
    fail "touchstone.1: EXIT STATUS lists $(tr '\n' ' ' <"$WORK/man_statuses"), --help $(tr '\n' ' ' <"$WORK/help_statuses")"

# ---- environment: what the sources read (getenv's names and the variables they list) and the
# job scripts ($TOUCHSTONE...), both ways; a prefix such as "OMP_" is not a variable ----
(cd "$SRC" && grep -rhoE '"(TOUCHSTONE|OMP|GOMP|SLURM|SLURMD|OMPI|PMIX|PMI|HWLOC)_[A-Z_]*[A-Z]"' \
    app common config dist io topo record kernels tools) | tr -d '"' >"$WORK/read"
(cd "$SRC" && grep -rhoE '\$\{?TOUCHSTONE[A-Z_]*' jobs) | tr -d '${' >>"$WORK/read"
sort -u -o "$WORK/read" "$WORK/read"
[ "$(wc -l <"$WORK/read")" -ge 30 ] || fail "found only $(wc -l <"$WORK/read") variables in the sources: is the pattern still right?"
tags ENVIRONMENT | grep -E '^[A-Z][A-Z_]+$' | sort -u >"$WORK/man_env"
comm -23 "$WORK/read" "$WORK/man_env" >"$WORK/diff8"
while read -r v; do
    fail "touchstone.1: ENVIRONMENT does not name $v, which touchstone or its job scripts read"
done <"$WORK/diff8"
comm -13 "$WORK/read" "$WORK/man_env" >"$WORK/diff9"
while read -r v; do
    fail "touchstone.1: ENVIRONMENT names $v, which nothing reads"
done <"$WORK/diff9"
echo "$(wc -l <"$WORK/man_commands") commands, $(wc -l <"$WORK/man_options") options, $(wc -l <"$WORK/man_env") variables"
finish

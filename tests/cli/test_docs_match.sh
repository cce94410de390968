#!/bin/sh
# The docs name only behaviour the binary has, where a script can tell (issue 23: a README that
# said schema_version 2 of files that said 3, jobs/README.md saying runs across ranks were "not
# built yet"). Each stale place is printed as FILE:LINE. The binary's own word is the source:
# - commands: every `touchstone CMD` the docs print is a command of --help, and every command of
#   --help is in docs/usage.md and README.md;
# - options: every option printed after `touchstone CMD` is one --help gives CMD (check takes
#   run's, and --keys of its own), and every option of --help is in docs/usage.md;
# - exit statuses: those --help lists are the rows of usage.md's table and the only ones any
#   page names ("exit status N", "exits N"); architecture.md's table names no other;
# - the schema version: a file run writes says record/ts_record.h's TS_SCHEMA_VERSION, and every
#   "schema_version N" of the docs says it too, unless the sentence is about another version;
# - config keys: every `--set SECTION.KEY=` and every `section.key` the docs print is a key check
#   prints (cli.readme checks that docs/configuration.md documents every key).
. "$(dirname "$0")/lib.sh"

cd "$SRC" || exit 1
docs=$(ls README.md docs/*.md jobs/README.md bench/README.md tests/README.md tests/*/README.md 2>/dev/null)
[ -n "$docs" ] || fail "no documents found under $SRC"

run_ts 0 "--help" --help || finish
cp "$OUT" "$WORK/help"

# ---- what --help says ----
# The synopsis: "usage: touchstone CMD ..." and "       touchstone CMD ...", continuation lines
# (deeper indent, no `touchstone`) belong to the command above; one line "CMD OPTION" each.
awk '/^$/ { exit }
     { line = $0; sub(/^usage:/, "", line)
       if (match(line, /^ *touchstone [a-z]+/)) { split(substr(line, RSTART), w, " "); cmd = w[2] }
       n = split(line, words, /[][ |]+/)
       for (i = 1; i <= n; i++) if (words[i] ~ /^--?[a-z]/) { o = words[i]; sub(/=.*/, "", o); print cmd, o } }' \
    "$WORK/help" | sort -u >"$WORK/synopsis"
sed -n 's/^ *touchstone \([a-z][a-z]*\).*/\1/p; s/^usage: touchstone \([a-z][a-z]*\).*/\1/p' "$WORK/help" | sort -u >"$WORK/commands"
[ "$(wc -l <"$WORK/commands")" -ge 8 ] || fail "found only $(wc -l <"$WORK/commands") commands in --help: is the pattern still right?"
# The option list: "  -o, --output FILE  ..." gives -o and --output as one option.
sed -n 's/^  \(-[a-z]\), \(--[a-z-]*\).*/\1 \2/p' "$WORK/help" >"$WORK/aliases"
sed -n 's/^  \(--[a-z-]*\) .*/\1/p; s/^  -[a-z], \(--[a-z-]*\) .*/\1/p; s/^  \(-[a-z]\), .*/\1/p' "$WORK/help" |
    sort -u >"$WORK/options"
awk '{ print $2 }' "$WORK/synopsis" | sort -u >>"$WORK/options"
sort -u -o "$WORK/options" "$WORK/options"
# "exit status: 0 ..., 1 ..., 2 ..., 3 ...": the statuses at the start of its lines.
awk '/^exit status:/ { on = 1 }
     on { line = $0
          while (match(line, /(^|[,:]) *[0-9]+ [a-z]/)) {
              s = substr(line, RSTART, RLENGTH); gsub(/[^0-9]/, "", s); print s
              line = substr(line, RSTART + RLENGTH) } }' "$WORK/help" | sort -u >"$WORK/statuses"
[ "$(wc -l <"$WORK/statuses")" -ge 3 ] || fail "found only $(wc -l <"$WORK/statuses") exit statuses in --help"

# ---- the code of the docs: fenced or indented lines, and inline `code`, as FILE:LINE<TAB>TEXT ----
# An indented block starts after a blank line (an indented line after text continues a list
# item). Lines of touchstone's messages ("touchstone: error: ...") are output, not commands.
for doc in $docs; do
    awk -v doc="$doc" '
        /^[ \t]*```/ { fenced = !fenced; next }
        /touchstone: (error|warning)/ { block = 0; next }
        fenced || (/^(    |\t)/ && block) { print doc ":" FNR "\t" $0; next }
        { block = /^[ \t]*$/ }
        { line = $0
          while (match(line, /`[^`]+`/)) {
              print doc ":" FNR "\t" substr(line, RSTART + 1, RLENGTH - 2)
              line = substr(line, RSTART + RLENGTH)
          } }' "$doc"
done >"$WORK/code"

# ---- commands: each `touchstone CMD` printed, with the options that follow it ----
# A command ends at a pipe, a redirection, ;, &&, ), a comment or the end of the line; an
# option is a word starting with - (its value after = dropped). "touchstone: error:" and
# paths such as touchstone-survey/ are not commands.
awk -F '\t' '
    { text = $2
      while (match(text, /(^|[ \/("])touchstone [a-z][a-z_-]*/)) {
          rest = substr(text, RSTART + RLENGTH - 0)
          head = substr(text, RSTART, RLENGTH); sub(/^.*touchstone /, "", head)
          text = rest
          cut = match(rest, /[|;&)#>`]/) ? substr(rest, 1, RSTART - 1) : rest
          n = split(cut, w, /[ \t]+/)
          opts = ""
          for (i = 1; i <= n; i++) if (w[i] ~ /^--?[a-z]/) { o = w[i]; sub(/[=:,.].*/, "", o); opts = opts " " o }
          print $1 "\t" head "\t" opts
      } }' "$WORK/code" >"$WORK/uses"
[ "$(wc -l <"$WORK/uses")" -ge 50 ] || fail "found only $(wc -l <"$WORK/uses") touchstone commands in the docs: is the pattern still right?"

# Each command must be one of --help, each option one --help gives that command (check takes
# run's; -o is --output), in one awk over the uses.
awk -F '\t' -v commands="$(tr '\n' ' ' <"$WORK/commands")" -v work="$WORK" '
    FILENAME == work "/aliases" { split($0, w, " "); alias[w[1]] = w[2]; alias[w[2]] = w[1]; next }
    FILENAME == work "/synopsis" { split($0, w, " "); given[w[1] " " w[2]] = 1; next }
    FILENAME == work "/commands" { known[$0] = 1; next }
    { where = $1; cmd = $2
      if (!(cmd in known)) {
          print where ": \047touchstone " cmd "\047 is not a command of touchstone --help (" commands ")"
          next
      }
      c = cmd == "check" ? "run" : cmd
      n = split($3, opts, " ")   # the uses: FILE:LINE, the command, its options
      for (i = 1; i <= n; i++) {
          o = opts[i]
          if (!((c " " o) in given) && !((cmd " " o) in given) && !((o in alias) && (c " " alias[o]) in given))
              print where ": \047touchstone " cmd " ... " o "\047: --help gives " cmd " no option " o
      } }' "$WORK/aliases" "$WORK/synopsis" "$WORK/commands" "$WORK/uses" >"$WORK/wrong_uses"
while read -r line; do fail "$line"; done <"$WORK/wrong_uses"

# Every command of --help in docs/usage.md and README.md, every option in docs/usage.md.
while read -r cmd; do
    for doc in docs/usage.md README.md; do
        grep -q "touchstone $cmd\b" "$doc" || fail "$doc: never names 'touchstone $cmd', a command of --help"
    done
done <"$WORK/commands"
while read -r opt; do
    grep -q -- "$opt\b" docs/usage.md || fail "docs/usage.md: never names $opt, an option of --help"
done <"$WORK/options"

# ---- exit statuses ----
want=$(tr '\n' ' ' <"$WORK/statuses")
table=$(awk '/^## Exit status/ { on = 1; next } on && /^## / { exit }
             on && /^\| [0-9]+ \|/ { print $2 }' docs/usage.md | sort -u | tr '\n' ' ')
[ "$table" = "$want" ] || fail "docs/usage.md: the exit status table has $table, --help lists $want"
awk -F '|' '/^\| `TS_[A-Z_]+` \|/ { s = $(NF - 1); gsub(/ /, "", s); print FILENAME ":" FNR "\t" s }' \
    docs/architecture.md >"$WORK/named"
for doc in $docs; do
    awk -v doc="$doc" '{ line = tolower($0)
        while (match(line, /(exit status(es)?|exits( with)?|exit code) [0-9]+/)) {
            s = substr(line, RSTART, RLENGTH); sub(/.* /, "", s)
            print doc ":" FNR "\t" s
            line = substr(line, RSTART + RLENGTH) } }' "$doc"
done >>"$WORK/named"
awk -F '\t' -v want="$want" 'NR == FNR { listed[$1] = 1; next }
    !($2 in listed) { print $1 ": exit status " $2 ", which --help does not list (" want ")" }' \
    "$WORK/statuses" "$WORK/named" >"$WORK/wrong_statuses"
while read -r line; do fail "$line"; done <"$WORK/wrong_statuses"

# ---- the schema version ----
version=$(sed -n 's/^#define TS_SCHEMA_VERSION \([0-9]*\).*/\1/p' record/ts_record.h)
[ -n "$version" ] || fail "record/ts_record.h: no TS_SCHEMA_VERSION"
run_ts 0 "a tiny run" run configs/sum.ini --set sum.n=1000 --set run.iterations=1 --set placement.audit=false \
    -q -o "$WORK/tiny.h5" &&
    h5dump -a /schema_version "$WORK/tiny.h5" | grep -q "(0): $version\$" ||
    fail "a file run writes does not say schema_version $version (record/ts_record.h)"
for doc in $docs; do
    awk -v doc="$doc" -v v="$version" '
        { line = $0
          while (match(line, /schema_version`?( =| is|:)? `?[0-9]+/)) {
              n = substr(line, RSTART, RLENGTH); sub(/.*[^0-9]/, "", n)
              # A sentence about another version: one touchstone refuses, reads, or wrote before.
              if (n != v && $0 !~ /newer|older|before|earlier|since|reads schema/)
                  print doc ":" FNR ": schema_version " n ", but touchstone writes " v
              line = substr(line, RSTART + RLENGTH) } }' "$doc"
done >"$WORK/versions"
while read -r line; do fail "$line"; done <"$WORK/versions"

# ---- config keys printed in --set ----
run_ts 0 "check default.ini" check configs/default.ini || finish
awk '/^\[/ { gsub(/[][]/, ""); section = $0; next } /^[a-z_]+ = / { print section "." $1 }' "$OUT" | sort -u >"$WORK/keys"
[ "$(wc -l <"$WORK/keys")" -ge 20 ] || fail "found only $(wc -l <"$WORK/keys") keys in check's output"
awk -F '\t' '{ text = $2
    while (match(text, /--set [a-z_]+\.[a-z_.]+=/)) {
        k = substr(text, RSTART + 6, RLENGTH - 7); print $1 "\t" k
        text = substr(text, RSTART + RLENGTH) } }' "$WORK/code" >"$WORK/set_keys"
# Also every `section.key` named in code of the docs, for the sections check prints (a file name
# such as run.sbatch is not a key, nor a test such as mpi.readback of tests/mpi).
sections=$(cut -d. -f1 "$WORK/keys" | sort -u | paste -sd'|' -)
awk -F '\t' -v re="(^|[^a-zA-Z0-9_./-])($sections)[.][a-z_]+" '{ text = $2
    while (match(text, re)) {
        k = substr(text, RSTART, RLENGTH); sub(/^[^a-z]/, "", k)
        if (k !~ /[.](ini|sbatch|sh|h5|c|h|md|py|png|txt|log)$/) print $1 "\t" k
        text = substr(text, RSTART + RLENGTH) } }' "$WORK/code" >>"$WORK/set_keys"
awk -F '\t' 'NR == FNR { known[$1] = 1; next }
    !($2 in known) && $2 != "section.key" { print }' "$WORK/keys" "$WORK/set_keys" >"$WORK/unknown_keys"
while IFS="$(printf '\t')" read -r where key; do
    [ -f "tests/${key%%.*}/CMakeLists.txt" ] && grep -q "${key#*.}" "tests/${key%%.*}/CMakeLists.txt" && continue
    fail "$where: $key: no such config key (touchstone check prints none)"
done <"$WORK/unknown_keys"

# ---- the job scripts say what docs/cluster.md says: as root, mpirun needs Open MPI's consent ----
if [ "$(id -u)" = 0 ] && mpirun --version 2>/dev/null | grep -q "Open MPI"; then
    (cd "$WORK" && env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM TOUCHSTONE="$TS" \
        TOUCHSTONE_RESULTS="$WORK/results" bash "$SRC/jobs/hybrid-mpirun.sbatch" "$SRC/configs/sum.ini" >"$OUT" 2>"$ERR")
    status=$?
    [ "$status" -eq 2 ] || fail "jobs/hybrid-mpirun.sbatch as root without OMPI_ALLOW_RUN_AS_ROOT: exit status $status, expected 2"
    expect_in "$ERR" "running as root, which Open MPI's mpirun refuses unless OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 are set" \
        "hybrid-mpirun.sbatch as root: the variables named"
    grep -q "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1" docs/cluster.md || fail "docs/cluster.md: never names OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
else
    echo "not root or no Open MPI mpirun: the run-as-root message of hybrid-mpirun.sbatch not checked"
fi

echo "$(wc -l <"$WORK/uses") commands, $(wc -l <"$WORK/named") exit statuses, $(wc -l <"$WORK/set_keys") config keys checked"
finish

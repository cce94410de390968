#!/bin/sh
# The docs stay true to the program and to themselves: docs/configuration.md documents every
# config key the program knows (the key table is the source); README.md stays a front door of
# at most 250 lines; every relative link of the docs leads to a file, and to a heading there
# when it names one; every `touchstone run|check|topo` the docs print with real arguments
# runs as printed (run through check, which takes every option of run, refuses what run
# would refuse before it starts, and runs nothing).
. "$(dirname "$0")/lib.sh"

CONFIG_DOC=$SRC/docs/configuration.md
[ -f "$CONFIG_DOC" ] || fail "docs/configuration.md is missing"

# ---- every key check prints is in the configuration page's table ----
run_ts 0 "check default.ini" check "$SRC/configs/default.ini" || finish
keys=$(awk '/^\[/ { gsub(/[][]/, ""); section = $0; next }
            /^[a-z_]+ = / { print section "." $1 }' "$OUT")
[ -n "$keys" ] || fail "no keys found in the check output"
for key in $keys; do
    grep -q "^| .*\`$key\`" "$CONFIG_DOC" 2>/dev/null ||
        fail "docs/configuration.md does not document config key $key in its key table"
done

# ---- the README is a front door ----
lines=$(wc -l <"$SRC/README.md")
[ "$lines" -le 250 ] || fail "README.md has $lines lines, at most 250 (the rest belongs in docs/)"

# The documents whose links and commands are checked.
docs=$(cd "$SRC" && ls README.md docs/*.md jobs/README.md bench/README.md tests/README.md \
    tests/*/README.md 2>/dev/null)
[ -n "$docs" ] || fail "no documents found under $SRC"

# ---- links: every [text](target) outside code blocks resolves ----
# slugs FILE: the anchors GitHub gives FILE's headings (lower case, punctuation dropped,
# blanks to '-', a repeated heading numbered -1, -2, ...), one per line.
slugs() {
    awk '/^[ \t]*```/ { fenced = !fenced; next }
         fenced || !/^#+ / { next }
         { s = $0; sub(/^#+ +/, "", s); sub(/ +#* *$/, "", s); s = tolower(s)
           gsub(/[^a-z0-9 _-]/, "", s); gsub(/ /, "-", s)
           n = seen[s]++; print (n ? s "-" n : s) }' "$1"
}
nlinks=0
for doc in $docs; do
    dir=$(dirname "$doc")
    links=$(awk '/^[ \t]*```/ { fenced = !fenced; next }
                 fenced { next }
                 { line = $0
                   while (match(line, /\]\([^) ]+\)/)) {
                       print FNR " " substr(line, RSTART + 2, RLENGTH - 3)
                       line = substr(line, RSTART + RLENGTH)
                   } }' "$SRC/$doc")
    [ -n "$links" ] || continue
    echo "$links" >"$WORK/links"
    while read -r lineno target; do
        case $target in
        http://* | https://* | mailto:*) continue ;;
        esac
        nlinks=$((nlinks + 1))
        path=${target%%#*}
        anchor=
        case $target in *'#'*) anchor=${target#*#} ;; esac
        if [ -z "$path" ]; then
            file=$SRC/$doc
        else
            file=$SRC/$dir/$path
        fi
        if [ ! -e "$file" ]; then
            fail "$doc:$lineno: link to $target: $dir/$path does not exist"
            continue
        fi
        if [ -n "$anchor" ]; then
            case $file in
            *.md) slugs "$file" | grep -qx -- "$anchor" ||
                fail "$doc:$lineno: link to $target: no heading '#$anchor' in $(basename "$file")" ;;
            *) fail "$doc:$lineno: link to $target: an anchor into a file that is not markdown" ;;
            esac
        fi
    done <"$WORK/links"
done
[ "$nlinks" -ge 50 ] || fail "only $nlinks relative links found in the docs: is the link pattern still right?"

# ---- commands: every touchstone run|check|topo printed with real arguments runs ----
# From code (indented or fenced lines) and inline `code`, the part from `touchstone` on, with
# the environment assignments written before it. A $VAR of a `for VAR in WORDS` loop of the
# same code block is tried with each word; any other $VAR is 1. Anything with a placeholder
# (CONFIG, FILE, N, CKPT, ..., [options], <...>) is a synopsis, not a command.
for doc in $docs; do
    awk -v doc="$doc" '
        function emit(cmd,    v, words, n, i, c) {
            sub(/[ \t]+#.*$/, "", cmd)
            if (cmd !~ /(^|[ \/])touchstone (run|check|topo)( |$)/) return
            # Loop variables: one command per word.
            for (v in loopwords) {
                if (index(cmd, "$" v) == 0) continue
                n = split(loopwords[v], words, " ")
                for (i = 1; i <= n; i++) { c = cmd; gsub("\\$" v, words[i], c); emit(c) }
                return
            }
            gsub(/\$[a-z_]+/, "1", cmd)
            print doc ":" FNR "\t" cmd
        }
        function scan(text) {
            if (match(text, /([A-Z_]+=[^ ]+ )*(\.\/)?touchstone (run|check|topo)/))
                emit(substr(text, RSTART))
        }
        /^[ \t]*```/ { fenced = !fenced; if (!fenced) split("", loopwords); next }
        fenced || /^(    |\t)[^`]*$/ {
            if (match($0, /for [a-z_]+ in [^;]*;/)) {
                spec = substr($0, RSTART + 4, RLENGTH - 5)
                var = spec; sub(/ .*/, "", var)
                sub(/^[a-z_]+ in /, "", spec)
                loopwords[var] = spec
            }
            line = $0; sub(/^[ \t]*(\$ )?/, "", line)
            scan(line)
            next
        }
        { split("", loopwords)
          line = $0
          while (match(line, /`[^`]+`/)) {
              span = substr(line, RSTART + 1, RLENGTH - 2)
              line = substr(line, RSTART + RLENGTH)
              scan(span)
          } }' "$SRC/$doc"
done | sort -u >"$WORK/commands"

mkdir "$WORK/cwd"
case $TS in /*) ;; *) TS=$(pwd)/$TS ;; esac # the commands run in $WORK/cwd
SRC=$(cd "$SRC" && pwd)
ln -s "$SRC/configs" "$WORK/cwd/configs"
ncommands=0
while IFS="$(printf '\t')" read -r where cmd; do
    case $cmd in
    *CONFIG* | *FILE* | *CKPT* | *'...'* | *'['* | *'<'* | *'$'* | *' N'* | *' N '* | *'|'*) continue ;;
    esac
    # Environment assignments, then touchstone, then its arguments.
    set -- $cmd
    envs=
    while [ $# -gt 0 ]; do
        case $1 in
        [A-Z_]*=*) envs="$envs $1"; shift ;;
        *) break ;;
        esac
    done
    shift # touchstone (or ./touchstone)
    sub=$1
    shift
    # run and check name a config first; `touchstone run` alone is the command's name in prose.
    case $sub in
    run | check) case ${1:-} in *.ini) ;; *) continue ;; esac ;;
    esac
    [ "$sub" = run ] && sub=check
    # check judges the output as run does: the docs create an output's folder before the run
    # (mkdir -p, which is not a touchstone command), so it is made here too.
    out=$(printf '%s\n' "$@" | sed -n '/^-o$/{n;p;}')
    case $out in */*) mkdir -p "$WORK/cwd/${out%/*}" ;; esac
    ncommands=$((ncommands + 1))
    if ! (cd "$WORK/cwd" && env $envs "$TS" "$sub" "$@" >"$OUT" 2>"$ERR"); then
        fail "$where: '$cmd' no longer runs as printed (touchstone $sub $*)"
        sed 's/^/    stderr: /' "$ERR" | head -5 >&2
    fi
done <"$WORK/commands"
[ "$ncommands" -ge 5 ] || fail "only $ncommands touchstone commands found in the docs: is the pattern still right?"
echo "$nlinks links and $ncommands commands checked"
finish

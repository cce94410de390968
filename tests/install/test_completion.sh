#!/bin/bash
# tools/completion.bash (installed as share/bash-completion/completions/touchstone) driven as
# bash drives it, through COMP_WORDS and COMP_CWORD, alone and under bash-completion: commands,
# each command's options (those --help gives it), option values, the keys of --set and the values
# of each (those `check --keys` lists), and CONFIG and run files by their extension.
# Arguments: TOUCHSTONE SOURCE_DIR
. "$(dirname "$0")/../cli/lib.sh"
SCRIPT=$SRC/tools/completion.bash
BASH_COMPLETION=/usr/share/bash-completion/bash_completion

# comp WORDS...: completes the last word of "touchstone WORDS..." (the binary under test as
# its first word); COMPREPLY, sorted, one a line, in $WORK/got.
comp() {
    COMP_WORDS=("$TS" "$@")
    COMP_CWORD=$#
    COMP_LINE="${COMP_WORDS[*]}"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    _touchstone touchstone "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort >"$WORK/got"
}
# comp_line LINE [nosort]: completes at the end of "touchstone LINE" with COMP_WORDS as bash
# splits the line: at blanks, and at = and : (COMP_WORDBREAKS), each of which is then a word of
# its own; nosort: only COMPREPLY, in its order.
comp_line() {
    COMP_LINE="$TS $1"
    COMP_POINT=${#COMP_LINE}
    local split=${COMP_LINE//=/ = }
    read -ra COMP_WORDS <<<"${split//:/ : }"
    [[ $COMP_LINE == *' ' ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _touchstone touchstone "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    [ "${2-}" = nosort ] || printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort >"$WORK/got"
}
# expect WHAT WORD...: $WORK/got holds exactly WORDs.
expect() {
    what=$1
    shift
    printf '%s\n' "$@" | sed '/^$/d' | sort >"$WORK/want"
    cmp -s "$WORK/got" "$WORK/want" ||
        fail "$what: completed $(tr '\n' ' ' <"$WORK/got")expected $(tr '\n' ' ' <"$WORK/want")"
}

run_ts 0 "--help" --help || finish
cp "$OUT" "$WORK/help"
commands=$(sed -n 's/^ *touchstone \([a-z][a-z]*\).*/\1/p; s/^usage: touchstone \([a-z][a-z]*\).*/\1/p' "$WORK/help" | sort -u)
# The options --help gives each command: "CMD OPTION" of the synopsis (cli.docs_match reads it
# so), and their other spelling of the option list ("-o, --output").
awk '/^$/ { exit }
     { line = $0; sub(/^usage:/, "", line)
       if (match(line, /^ *touchstone [a-z]+/)) { split(substr(line, RSTART), w, " "); cmd = w[2] }
       if (line ~ /^ *touchstone -/) cmd = "" # --help | --version: no command
       n = split(line, words, /[][ |]+/)
       for (i = 1; i <= n; i++) if (words[i] ~ /^--?[a-z]/) { o = words[i]; sub(/=.*/, "", o); print cmd, o } }' \
    "$WORK/help" | sort -u >"$WORK/pairs"
sed -n 's/^  \(-[a-z]\), \(--[a-z-]*\).*/\1 \2/p' "$WORK/help" >"$WORK/aliases"
run_ts 0 "check --keys" check --keys || finish
cut -d' ' -f1 "$OUT" >"$WORK/keys"
awk 'NF > 1' "$OUT" >"$WORK/values"
[ "$(wc -l <"$WORK/values")" -ge 10 ] || fail "check --keys: $(wc -l <"$WORK/values") keys with values, expected 10 or more"

mkdir "$WORK/files" "$WORK/files/sub" && cd "$WORK/files" || finish
touch a.ini b.h5 c.txt d.xml e.html

# checks: every case, in the shell as it stands (bash-completion loaded or not).
checks() {
    how=$1
    complete -p touchstone 2>/dev/null | grep -q -- "-F _touchstone touchstone$" ||
        fail "$how: complete -p touchstone: $(complete -p touchstone 2>&1)"
    comp ""
    # shellcheck disable=SC2086
    expect "$how: the commands" $commands --help --version
    comp ch
    expect "$how: 'ch'" check
    for cmd in $commands; do
        c=$cmd
        [ "$cmd" = check ] && c=run # check takes every option of run, and its own
        awk -v c="$c" -v cmd="$cmd" '$1 == c || $1 == cmd { print $2 }' "$WORK/pairs" >"$WORK/opts"
        awk 'NR == FNR { o[$1] = 1; next } ($1 in o) || ($2 in o) { print $1; print $2 }' "$WORK/opts" "$WORK/aliases" >>"$WORK/opts"
        comp "$cmd" -
        # shellcheck disable=SC2046
        expect "$how: the options of $cmd (those --help gives it)" $(sort -u "$WORK/opts") --help
    done
    comp run a.ini --set ""
    # shellcheck disable=SC2046
    expect "$how: --set: the keys of check --keys" $(sed 's/$/=/' "$WORK/keys")
    comp check a.ini --set sum.
    # shellcheck disable=SC2046
    expect "$how: --set sum." $(grep '^sum\.' "$WORK/keys" | sed 's/$/=/')
    # --set KEY=VALUE: the values check --keys lists for KEY (every KEY once, alone), as bash
    # splits the line at = and :, the answers being what follows the last of them.
    if [ "$how" = alone ]; then
        while read -r key values; do
            comp_line "run a.ini --set $key=" nosort
            echo "$key ${COMPREPLY[*]}"
        done <"$WORK/values" >"$WORK/completed"
        cmp -s "$WORK/completed" "$WORK/values" ||
            fail "$how: --set KEY= does not complete the values check --keys lists: $(diff "$WORK/values" "$WORK/completed" | grep '^>' | head -3 | tr '\n' ' ')"
    fi
    comp_line "run a.ini --set openmp.proc_bind="
    # shellcheck disable=SC2046
    expect "$how: --set openmp.proc_bind=" $(sed -n 's/^openmp\.proc_bind //p' "$WORK/values")
    comp_line "check a.ini --set sum.mode=f"
    expect "$how: --set sum.mode=f" fast
    comp_line "run a.ini --set init.policy=b"
    expect "$how: --set init.policy=b" bind:
    comp_line "run a.ini --set init.policy=bind:"
    expect "$how: --set init.policy=bind: (a node number)" ""
    comp_line "run a.ini --set stencil.nx="
    expect "$how: --set stencil.nx= (a number)" ""
    comp_line "run a.ini --set sum.mode=fast "
    expect "$how: after --set KEY=VALUE, run's CONFIG again" a.ini sub
    comp run ""
    expect "$how: run's CONFIG" a.ini sub
    comp topo --threads 2 ""
    expect "$how: topo's CONFIG after --threads N" a.ini sub
    comp run a.ini --restart ""
    expect "$how: --restart" b.h5 sub
    comp run a.ini -o ""
    expect "$how: run -o" b.h5 sub
    comp compare b.h5 ""
    expect "$how: compare's run files and vs" b.h5 sub vs
    for cmd in report plot show; do
        comp "$cmd" ""
        expect "$how: $cmd's run files" b.h5 sub
    done
    comp report b.h5 --html ""
    expect "$how: report --html" e.html sub
    comp topo --topology ""
    expect "$how: --topology" d.xml sub
    comp survey -o ""
    expect "$how: survey -o" sub
    comp survey --html -
    expect "$how: survey --html takes no value" --quick --full -o --output --html --dump --sections --help
    comp survey --sections ""
    expect "$how: survey --sections" sweep stream scaling mixes loaded_latency c2c
    comp survey --sections stream,lo
    expect "$how: survey --sections after a comma" stream,loaded_latency
    comp compare b.h5 --format ""
    expect "$how: compare --format" text csv json markdown
    comp show b.h5 --format ""
    expect "$how: show --format" text json
    comp plot b.h5 --kind ""
    expect "$how: plot --kind" scaling init timeline
    comp run a.ini --threads ""
    expect "$how: --threads takes a number" ""
}

# shellcheck disable=SC1090
. "$SCRIPT"
checks "alone"
if [ -r "$BASH_COMPLETION" ]; then
    # bash-completion's own start, then the script as it loads it (the interactive shell's).
    unset -f _touchstone
    # shellcheck disable=SC1090
    . "$BASH_COMPLETION"
    . "$SCRIPT"
    checks "under bash-completion"
else
    fail "no $BASH_COMPLETION (Debian: bash-completion; scripts/setup-deps.sh --test installs it)"
fi
cd / || true
finish

# bash completion for touchstone: installed as share/bash-completion/completions/touchstone,
# where bash-completion loads it the first time `touchstone <TAB>` is typed (or source it).
# Commands, each command's options and their values, CONFIG files (*.ini) for run, check and
# topo, run files (*.h5) for compare, report, plot and show, and the keys of --set and the
# values of those that take a closed set, which the binary itself lists (`touchstone check
# --keys`: "section.key value ..." a line), so that they never go stale here.
# The options of each command are those of `touchstone --help` (install.completion checks it).

# check --keys of the binary $1 into _touchstone_keys_list, asked once a shell: called in the
# shell itself, not in a $(...), which would keep the answer to itself.
_touchstone_ask_keys()
{
    if [[ ${_touchstone_keys_of-} != "$1" ]]; then
        _touchstone_keys_list=$("$1" check --keys 2>/dev/null)
        _touchstone_keys_of=$1
    fi
}

# The keys of --set (the first word of each line of _touchstone_keys_list).
_touchstone_keys()
{
    local line
    while read -r line; do
        printf '%s\n' "${line%% *}"
    done <<<"$_touchstone_keys_list"
}

# The values key $1 takes, when they are a closed set (the rest of its line).
_touchstone_values()
{
    local line words IFS=' '
    while read -r line; do
        if [[ ${line%% *} == "$1" && $line == *' '* ]]; then
            read -ra words <<<"${line#* }"
            printf '%s\n' "${words[@]}"
        fi
    done <<<"$_touchstone_keys_list"
}

# The binary being completed: the command word when it is one, else touchstone on the PATH.
_touchstone_binary()
{
    local ts=${COMP_WORDS[0]}
    [[ -x $ts ]] || ts=$(type -P touchstone) || return 1
    printf '%s\n' "$ts"
}

# --set KEY=VALUE with the cursor in VALUE: completes the values of KEY and returns 0; else 1.
# Bash splits the words at = and : (COMP_WORDBREAKS), so the argument is read whole from the line
# up to the cursor, and each answer is cut to the part after the last break, the text bash
# replaces (what bash-completion's __ltrim_colon_completions does for ':').
_touchstone_set_value()
{
    local line=${COMP_LINE:0:COMP_POINT}
    local arg=${line##*[[:space:]]}
    local before=${line%"$arg"}
    before=${before%"${before##*[![:space:]]}"}
    [[ ${before##*[[:space:]]} == --set && $arg == *=* ]] || return 1
    local ts key=${arg%%=*} value=${arg#*=}
    # After "bind:" comes a node number, which only the machine knows.
    [[ $value == *: ]] && return 0
    ts=$(_touchstone_binary) || return 0
    _touchstone_ask_keys "$ts"
    local IFS=$'\n'
    COMPREPLY=($(compgen -P "$key=" -W "$(_touchstone_values "$key")" -- "$value"))
    # A policy that takes a node ("bind:") is not finished: no space after it.
    [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *: ]] && compopt -o nospace 2>/dev/null
    local breaks=${COMP_WORDBREAKS//[^=:]/}
    if [[ -n $breaks && $arg == *["$breaks"]* ]]; then
        local cut=${arg%"${arg##*["$breaks"]}"}
        COMPREPLY=("${COMPREPLY[@]#"$cut"}")
    fi
    return 0
}

# Files ending in $1 and folders, for the current word.
_touchstone_files()
{
    local IFS=$'\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY+=($(compgen -d -- "$cur") $(compgen -f -X "!*$1" -- "$cur"))
}

_touchstone()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion || return
    else
        cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
        words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
    fi
    COMPREPLY=()
    local commands="run check topo advise survey compare report plot show"
    if ((cword == 1)); then
        COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
        return
    fi
    local cmd=${words[1]} options
    case $cmd in
    run) options="--serial-init --threads --set -o --output --overwrite --restart -q --quiet --help" ;;
    check) options="--serial-init --threads --set -o --output --overwrite --restart -q --quiet --keys --help" ;;
    topo) options="--set --threads --format --topology --synthetic --all-ranks --help" ;;
    advise) options="--ranks --threads --smt --slurm --topology --synthetic --check --format --help" ;;
    survey) options="--quick --full -o --output --html --dump --sections --help" ;;
    compare) options="--format --force --help" ;;
    report) options="--format --html --help" ;;
    plot) options="-o --output --kind --size --overwrite --help" ;;
    show) options="--format --help" ;;
    *) return ;;
    esac

    # The value of the option before the cursor.
    _touchstone_set_value && return
    case $prev in
    --set)
        local ts
        ts=$(_touchstone_binary) || return
        _touchstone_ask_keys "$ts"
        compopt -o nospace 2>/dev/null
        COMPREPLY=($(compgen -W "$(_touchstone_keys)" -S = -- "$cur"))
        return
        ;;
    --format)
        case $cmd in
        compare | report) COMPREPLY=($(compgen -W "text csv json markdown" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
        esac
        return
        ;;
    --kind)
        COMPREPLY=($(compgen -W "scaling init timeline" -- "$cur"))
        return
        ;;
    --sections)
        # Names joined by commas: the ones before the last comma kept, the last completed.
        local done_part=${cur%"${cur##*,}"}
        compopt -o nospace 2>/dev/null
        COMPREPLY=($(compgen -P "$done_part" -W "sweep stream scaling mixes loaded_latency c2c" -- "${cur##*,}"))
        return
        ;;
    --topology)
        _touchstone_files .xml
        return
        ;;
    --restart)
        _touchstone_files .h5
        return
        ;;
    -o | --output | --html)
        case $cmd in
        survey) [[ $prev == --html ]] || COMPREPLY=($(compgen -d -- "$cur")) ;;
        report) _touchstone_files .html ;;
        plot) _touchstone_files "" ;;
        *) _touchstone_files .h5 ;;
        esac
        # survey --html takes no value: fall through to the options and arguments below.
        [[ $cmd == survey && $prev == --html ]] || return
        ;;
    --threads | --ranks | --synthetic | --size)
        return
        ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$options" -- "$cur"))
        return
    fi
    case $cmd in
    run | check | topo) _touchstone_files .ini ;;
    compare)
        COMPREPLY=($(compgen -W "vs" -- "$cur"))
        _touchstone_files .h5
        ;;
    report | plot | show) _touchstone_files .h5 ;;
    esac
}
complete -F _touchstone touchstone

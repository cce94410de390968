# bash completion for touchstone: installed as share/bash-completion/completions/touchstone,
# where bash-completion loads it the first time `touchstone <TAB>` is typed (or source it).
# Commands, each command's options and their values, CONFIG files (*.ini) for run, check and
# topo, run files (*.h5) for compare, report, plot and show, and the keys of --set, which the
# binary itself lists (`touchstone check --keys`), so that they never go stale here.
# The options of each command are those of `touchstone --help` (cli.completion checks it).

# The keys of --set, asked once a shell of the binary being completed.
_touchstone_keys()
{
    local ts=$1
    if [[ ${_touchstone_keys_of-} != "$ts" ]]; then
        _touchstone_keys_list=$("$ts" check --keys 2>/dev/null)
        _touchstone_keys_of=$ts
    fi
    printf '%s\n' "$_touchstone_keys_list"
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
    topo) options="--set --threads --format --topology --synthetic --help" ;;
    advise) options="--ranks --threads --smt --slurm --topology --synthetic --check --format --help" ;;
    survey) options="--quick --full -o --output --html --dump --help" ;;
    compare) options="--format --force --help" ;;
    report) options="--format --html --help" ;;
    plot) options="-o --output --kind --size --overwrite --help" ;;
    show) options="--format --help" ;;
    *) return ;;
    esac

    # The value of the option before the cursor.
    case $prev in
    --set)
        local ts=${words[0]}
        [[ -x $ts ]] || ts=$(type -P touchstone) || return
        compopt -o nospace 2>/dev/null
        COMPREPLY=($(compgen -W "$(_touchstone_keys "$ts")" -S = -- "$cur"))
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

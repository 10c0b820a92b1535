# bash completion for hearsay: its options, read from the program's own help.
_hearsay() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    if [[ ${COMP_WORDS[COMP_CWORD-1]} == --dictate ]]; then
        mapfile -t COMPREPLY < <(compgen -W "toggle start stop raise status" -- "$cur")
        return
    fi
    if [[ $cur == -* ]]; then
        local options
        options=$(QT_QPA_PLATFORM=offscreen "${COMP_WORDS[0]}" --help 2>/dev/null | grep -o -e '--[a-z0-9][a-z0-9-]*' | sort -u)
        mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
        return
    fi
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _hearsay hearsay

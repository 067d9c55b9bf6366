# bash completion for lab(1), installed by `make install` to
# PREFIX/share/bash-completion/completions/lab.  It reads what it completes from lab itself
# ('lab --help' lists the commands, 'lab CMD --help' the options), so that the command table
# stays the one place that names them.
_lab_words() {
	# $1: "lab" or "lab job": the command or verb names of its help's list
	"$@" --help 2>/dev/null | awk '
		/^commands:$/ || /^  submit / { on = 1 }
		/^commands:$/ { next }
		on && /^$/ { exit }
		on && NF > 1 && /^  [a-z]/ { print $1 }'
}

_lab() {
	local cur=${COMP_WORDS[COMP_CWORD]} lab=${COMP_WORDS[0]} cmd=() i
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in -*) ;; *) cmd+=("${COMP_WORDS[i]}") ;; esac
		[ "${#cmd[@]}" -ge 1 ] && [ "${cmd[0]}" != job ] && break
		[ "${#cmd[@]}" -ge 2 ] && break
	done
	if [ "${#cmd[@]}" -eq 0 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_lab_words "$lab") --help --version" -- "$cur")
	elif [ "${cmd[0]}" = job ] && [ "${#cmd[@]}" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_lab_words "$lab" job)" -- "$cur")
	elif [[ $cur == -* ]]; then
		local opts
		opts=$("$lab" "${cmd[@]}" --help 2>/dev/null | grep -oE -- '--[a-z][a-z-]*' | sort -u)
		mapfile -t COMPREPLY < <(compgen -W "$opts --help" -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}
complete -o filenames -F _lab lab

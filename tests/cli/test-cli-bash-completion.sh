#!/bin/bash
# The bash completion of cudastore (cli/completion/cudastore, installed in bash-completion's
# completions directory), sourced into a plain bash without bash-completion: the commands, each
# command's options, directories after --images-dir and --plugin-dir, directories and checkpoint
# archives after check --images and for inspect and verify, and the pids whose cudastore-PID.img the images directory holds;
# and, where bash-completion is installed, that its loader finds the file by the command's name.
. "$top_srcdir/tests/e2e/lib.sh"
setup_work
COMP=$top_srcdir/cli/completion/cudastore
[ -f "$COMP" ] || bail "no $COMP"
plan 18
# complete WORD...: what completing the last word offers, sorted, on one line (run in $WORK)
complete_words() {
	(cd "$WORK/t" && bash --norc --noprofile -c '
		. "$1" || exit 1; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_cudastore cudastore "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort | paste -sd" " -' _ "$COMP" "$@")
}
mkdir -p "$WORK/t/dirA" "$WORK/t/dirB" "$WORK/t/img"
: >"$WORK/t/dfile"; : >"$WORK/t/ck.tar.zst"; : >"$WORK/t/old.tgz"; : >"$WORK/t/notes.txt"
for f in cudastore-7.img cudastore-12.img cudastore-index.img cudastore-7-gpu0.ext cudastore-7.json inventory.img; do
	: >"$WORK/t/img/$f"
done

check "sourcing it registers _cudastore for cudastore" \
	bash -c "bash --norc -c '. \"$COMP\" && complete -p cudastore' | grep -q -- '-F _cudastore cudastore'"
check "the commands" [ "$(complete_words cudastore '')" = "check gc help inspect verify" ]
check "a command's start: 'i' gives inspect" [ "$(complete_words cudastore i)" = inspect ]
check "the options before a command" [ "$(complete_words cudastore -)" = "--help --json --version" ]
check "check's options" [ "$(complete_words cudastore check --)" = "--criu --dev --help --images --images-dir --json --plugin-dir" ]
check "check --images: directories and checkpoint archives, not other files" \
	[ "$(complete_words cudastore check --images '')" = "ck.tar.zst dirA dirB img old.tgz" ]
check "check --images DIR --: the options again (DIR is --images' value)" \
	[ "$(complete_words cudastore check --images img --j)" = "--json" ]
check "check --images-dir: directories only" [ "$(complete_words cudastore check --images-dir d)" = "dirA dirB" ]
check "check --json --plugin-dir (an option first): directories" [ "$(complete_words cudastore check --json --plugin-dir di)" = "dirA dirB" ]
check "verify's options" [ "$(complete_words cudastore verify -)" = "--help --json -v" ]
check "gc's options" [ "$(complete_words cudastore gc --)" = "--help --json --store" ]
check "gc --store: directories only" [ "$(complete_words cudastore gc --store d)" = "dirA dirB" ]
check "verify: directories and checkpoint archives, not other files" \
	[ "$(complete_words cudastore verify '')" = "ck.tar.zst dirA dirB img old.tgz" ]
check "verify DIR: the pids of its manifests, not the index" [ "$(complete_words cudastore verify img '')" = "12 7" ]
check "inspect --json DIR 1: the pids starting with 1" [ "$(complete_words cudastore inspect --json img 1)" = 12 ]
check "nothing after the pid" [ -z "$(complete_words cudastore verify img 7 '')" ]
check "help: the commands" [ "$(complete_words cudastore help v)" = verify ]
BC=/usr/share/bash-completion/bash_completion
if [ -f "$BC" ]; then
	mkdir -p "$WORK/bcu/completions" && cp "$COMP" "$WORK/bcu/completions/"
	check "bash-completion's loader finds it by the command's name" \
		bash -c "BASH_COMPLETION_USER_DIR='$WORK/bcu' bash --norc -c '. $BC; __load_completion cudastore && complete -p cudastore' |
			grep -q -- '-F _cudastore cudastore'"
else
	ok "# SKIP bash-completion is not installed"
fi
done_testing

#!/bin/bash
# The cudastore command as tools and operators drive it, without criu or a GPU: options after
# DIR, one message for a bad option, a missing argument named as such, 'help check', and under
# --json every error a JSON object on stdout (parsed by python3) with schema 2 and the exit code
# unchanged; non-ASCII paths come out as UTF-8; CRIU images without GPU state pass verify; left
# cudastore files without a manifest are named as such.
. "$top_srcdir/tests/e2e/lib.sh"
setup_work
CS=$CUDASTORE_CMD
plan 20
run() { "$CS" "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?; }
jget() { json_get "$WORK/out" "$1" 2>/dev/null; }

DIR=$WORK/é-dir
mkdir -p "$DIR"
run inspect "$DIR" --json
check "inspect DIR --json: the option after DIR is taken, exit 1 (no images)" [ "$RC" = 1 ]
check "the error is a JSON object on stdout: schema 2, ok false, exit_code 1, the command" \
	[ "$(jget "(d['schema'], d['ok'], d['exit_code'], d['command'])")" = "(2, False, 1, 'inspect')" ]
check "the non-ASCII path is UTF-8 in the JSON, as it is on disk" \
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8")); sys.exit(sys.argv[2] not in d["error"])' \
	"$WORK/out" "$DIR"
run verify --json
check "verify --json without DIR: exit 2 and a JSON error naming what is missing" \
	[ "$RC/$(jget "(d['ok'], d['exit_code'], 'images directory' in d['error'])")" = "2/(False, 2, True)" ]
run verify --json "$WORK/nonexistent"
check "verify --json on a missing directory: exit 2, JSON names it" \
	[ "$RC/$(jget "'$WORK/nonexistent' in d['error']")" = 2/True ]
run inspect "$DIR" --bogus
check "an unknown option after DIR: exit 2, one message naming it, then the hint" \
	[ "$RC/$(wc -l <"$WORK/err")/$(grep -c "unknown option '--bogus'" "$WORK/err")" = 2/2/1 ]
run inspect -x "$DIR"
check "an unknown short option is named" [ "$RC/$(grep -c "unknown option '-x'" "$WORK/err")" = 2/1 ]
run check --images-dir
check "a missing argument is not called an unknown option" \
	[ "$RC/$(grep -c "option '--images-dir' needs an argument" "$WORK/err")/$(grep -c unknown "$WORK/err")" = 2/1/0 ]
run check --json --images-dir
check "... and under --json it is a JSON error with exit code 2" [ "$(jget "(d['exit_code'], d['ok'])")" = "(2, False)" ]
run inspect --json=yes "$DIR"
check "--json=VALUE: 'takes no value'" [ "$RC/$(grep -c "option '--json' takes no value" "$WORK/err")" = 2/1 ]
run help check
check "'cudastore help check' prints check's help" [ "$RC/$(grep -c '^Usage: cudastore check' "$WORK/out")" = 0/1 ]
run help verify
check "'cudastore help verify' prints verify's help" [ "$RC/$(grep -c '^Usage: cudastore verify' "$WORK/out")" = 0/1 ]
run verify "$WORK/nonexistent" 12 13
check "a third argument is named" [ "$RC/$(grep -c "not '13'" "$WORK/err")" = 2/1 ]

# CRIU images without cudastore files: what a dump of a CPU-only process leaves
mkdir -p "$WORK/cpu"; : >"$WORK/cpu/inventory.img"; : >"$WORK/cpu/pstree.img"
run verify "$WORK/cpu"
check "verify on CRIU images without GPU state: exit 0, 'no GPU state'" [ "$RC/$(grep -c 'no GPU state' "$WORK/out")" = 0/1 ]
run verify "$WORK/cpu" --json
check "verify --json: ok, gpu_state false, no processes, schema 2" \
	[ "$(jget "(d['schema'], d['ok'], d['gpu_state'], d['processes'])")" = "(2, True, False, [])" ]
run inspect --json "$WORK/cpu"
check "inspect --json on them: exit 0, gpu_state false" [ "$RC/$(jget "d['gpu_state']")" = 0/False ]
run verify "$WORK/cpu" 42
check "verify of a pid in images without GPU state: exit 1, says there is none" \
	[ "$RC/$(grep -c 'holds no GPU state' "$WORK/err")" = 1/1 ]

# a manifest deleted while its extent and summary remain
mkdir -p "$WORK/left"; : >"$WORK/left/inventory.img"
: >"$WORK/left/cudastore-77-gpu0.ext"; echo '{}' >"$WORK/left/cudastore-77.json"
run verify "$WORK/left"
check "extents without a manifest: exit 1, not 'no images' but the files and the missing manifest" \
	[ "$RC/$(grep -c 'holds cudastore files (cudastore-77' "$WORK/err")/$(grep -c 'no manifest' "$WORK/err")" = 1/1/1 ]
run verify --json "$WORK/left"
check "... the same under --json" [ "$RC/$(jget "'no manifest' in d['error']")" = 1/True ]
: >"$WORK/notanarchive.tar"; echo "garbage" >"$WORK/notanarchive.tar"
run verify "$WORK/notanarchive.tar"
check "a file that is no archive: exit 1, named, nothing left in TMPDIR" \
	[ "$RC/$(grep -c 'notanarchive.tar is neither an images directory nor a checkpoint archive' "$WORK/err")" = 1/1 ]
done_testing

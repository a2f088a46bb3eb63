#!/bin/bash
# Under --json every answer of the cudastore command is one JSON object, help and the command
# line's own errors included: 'help --json', '--help --json', 'help COMMAND --json', 'COMMAND
# --help --json', '--version --json', and for an unknown command, no command or help on a word
# that is no command an error object with exit_code 2 (the same status as without --json), --json
# also before the command. check --json gives numbers and booleans as JSON numbers and booleans
# ("0 (auto)" is 0 with a note), warnings as a list, under schema 2; inspect --json gives the
# summary's instants with "utc", as every instant. Before, help printed text, an unknown command
# printed nothing on stdout, check's values were the text output's strings and gpu_phase had no
# utc.
. "$top_srcdir/tests/e2e/lib.sh"
setup_work
CS=$CUDASTORE_CMD
TOOL=$top_builddir/tests/cli/cs-sparse-images
export CUDASTORE_LIBCUDA=$WORK/no-libcuda.so CUDASTORE_LIBNVML=$WORK/no-nvml.so
plan 16
run() { "$CS" "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?; }
jget() { json_get "$WORK/out" "$1" 2>/dev/null; }

run help --json
check "help --json: one JSON object, exit 0, the usage and the commands" \
	bash -c "[ $RC = 0 ] && [ \"\$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d[\"command\"], d[\"ok\"], d[\"exit_code\"], d[\"help\"].startswith(\"Usage: cudastore COMMAND\"), d[\"commands\"])' '$WORK/out')\" = \"help True 0 True ['check', 'inspect', 'verify', 'gc', 'help']\" ]"
run --help --json
check "--help --json: the same object" [ "$RC/$(jget "(d['command'], d['help'].startswith('Usage: cudastore COMMAND'))")" = "0/('help', True)" ]
run help verify --json
check "help verify --json: verify's help as JSON" [ "$RC/$(jget "(d['command'], d['help'].startswith('Usage: cudastore verify'))")" = "0/('verify', True)" ]
run check --help --json
check "check --help --json: check's help as JSON" [ "$RC/$(jget "(d['command'], d['help'].startswith('Usage: cudastore check'))")" = "0/('check', True)" ]
run --version --json
check "--version --json: the version as JSON" bash -c "[ $RC = 0 ] && [ \"\$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d[\"command\"], d[\"version\"][0].isdigit())' '$WORK/out')\" = 'version True' ]"
run frobnicate --json
check "unknown command --json: exit 2, an error object naming it, command null" \
	[ "$RC/$(jget "(d['schema'], d['command'], d['ok'], d['exit_code'], d['error'])")" = "2/(2, None, False, 2, \"unknown command 'frobnicate'\")" ]
check "... the message and the usage on stderr as without --json" \
	bash -c "grep -q \"unknown command 'frobnicate'\" '$WORK/err' && grep -q '^Usage: cudastore COMMAND' '$WORK/err'"
run --json frobnicate
check "--json before the command: the same error object, one line" [ "$RC/$(jget "d['exit_code']")/$(wc -l <"$WORK/out")" = 2/2/1 ]
run --json
check "no command, --json: an error object, exit 2" [ "$RC/$(jget "(d['ok'], d['error'])")" = "2/(False, 'no command given')" ]
run help nope --json
check "help on a word that is no command: an error object, exit 2" \
	[ "$RC/$(jget "(d['command'], d['exit_code'], 'not a command' in d['error'])")" = "2/('help', 2, True)" ]

# ---- check: typed values, warnings a list
printf 'threads = 4\nthreads = 3\nchunk_mb = 8\nchunk_mb = 2\ndirect_io = no\n' >"$CONFIG"
run check --json --plugin-dir "$WORK"
check "check --json: schema 2" [ "$(jget "d['schema']")" = 2 ]
check "numbers are JSON numbers: threads 3, chunk_mb 2, pinned_mb 256" \
	[ "$(jget "[d['options']['values'][k]['value'] for k in ('threads', 'chunk_mb', 'pinned_mb')]")" = "[3, 2, 256]" ]
check "yes and no are true and false, auto and paths stay strings" \
	[ "$(jget "[d['options']['values'][k]['value'] for k in ('direct_io', 'skip_zero', 'rescue', 'libcuda')]")" = "[False, True, 'auto', '$WORK/no-libcuda.so']" ]
check "'0 (auto)' is 0 with a note; an unset helper is null with where it is looked for" \
	[ "$(jget "(d['options']['values']['stripes'], d['options']['values']['helper']['value'], 'beside the plugin' in d['options']['values']['helper']['note'])")" = "({'value': 0, 'note': 'auto', 'source': 'default'}, None, True)" ]
check "warnings: a list, one entry per key set twice" \
	[ "$(jget "[w.split(': ', 1)[1] for w in d['options']['warnings']]")" = "[\"'threads' set again (first at line 1); the last value wins\", \"'chunk_mb' set again (first at line 3); the last value wins\"]" ]

# ---- inspect: the summary's instants with utc
: >"$CONFIG"
mkdir -p "$WORK/img"
"$TOOL" "$WORK/img" 7 1 $((1 << 20)) $((1 << 20)) index || bail "cs-sparse-images failed"
printf '{"schema":1,"pid":7,"ns_pid":7,"seconds":1.5,"phases":[{"name":"copy-out","seconds":1.5,"bytes":1048576}],"devices":[],"gpu_phase":{"start":{"seconds":1700000000,"nanoseconds":5},"end":{"seconds":1700000001,"nanoseconds":0}}}\n' \
	>"$WORK/img/cudastore-7.json"
run inspect --json "$WORK/img"
check "inspect --json: gpu_phase's start and end are instants with utc, seconds and nanoseconds kept" \
	[ "$(jget "d['processes'][0]['summary']['gpu_phase']")" = "{'start': {'seconds': 1700000000, 'nanoseconds': 5, 'utc': '2023-11-14T22:13:20Z'}, 'end': {'seconds': 1700000001, 'nanoseconds': 0, 'utc': '2023-11-14T22:13:21Z'}}" ]
done_testing

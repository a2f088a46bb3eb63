#!/bin/bash
# The same images restored again and again leave the verdict of the process's earlier life in
# its outfile: verdict() must wait for the one this life writes, never return the old one (nor
# an outfile caught between its truncation and its write).
. "$top_srcdir/tests/e2e/lib.sh"
setup_work
plan 3

# late_writer OUT TEXT: on SIGTERM, truncates OUT, waits, then writes TEXT (a slow, non-atomic
# writer: the worst a process can do)
late_writer() {
	setsid -f bash -c 'echo $$ >"$1.pid"; trap ": >\"$1\"; sleep 0.5; echo \"$2\" >\"$1\"; exit 0" TERM
		while :; do sleep 0.05; done' late-writer "$1" "$2" </dev/null >/dev/null 2>&1
	wait_file "$1.pid" 10 || bail "the stand-in process did not start"
	PID=$(cat "$1.pid")
	PIDS_TO_KILL="$PIDS_TO_KILL $PID"
}

echo PASS >"$WORK/w.out"
late_writer "$WORK/w.out" "FAIL: this life's verdict"
check "an earlier life's PASS is not taken for this life's verdict" \
	[ "$(verdict "$PID" "$WORK/w.out")" = "FAIL: this life's verdict" ]

echo "FAIL: an earlier life" >"$WORK/w.out"
late_writer "$WORK/w.out" PASS
check "nor an earlier FAIL" [ "$(verdict "$PID" "$WORK/w.out")" = PASS ]

rm -f "$WORK/w.out"
late_writer "$WORK/w.out" PASS
check "a process that never had a verdict gets its own" [ "$(verdict "$PID" "$WORK/w.out")" = PASS ]
done_testing

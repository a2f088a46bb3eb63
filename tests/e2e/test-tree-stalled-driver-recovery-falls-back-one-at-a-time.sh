#!/bin/bash
# A tree of 2 CUDA processes whose root stalls the thread the driver works on: the checkpoint runs
# past op_timeout_s and criu stops the helper; the new helper's recovery of both at once gets no
# answer either (the root's driver never answers), so criu goes one process at a time: the root is
# ended with the reason, the child, already running again after the at-once recovery, runs on,
# and criu dump fails in bounded time with no file left.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
set_config "op_timeout_s = 3"
plan 6
start_workload w --size 4m --fork-cuda 1 --decoy-driver-thread
sleep 0.5
CHILD=$(cat /proc/"$WPID"/task/*/children | tr ' ' '\n' | grep . | head -n1)
PIDS_TO_KILL="$PIDS_TO_KILL $CHILD"
t0=$(date +%s)
CRIU_TIMEOUT=90 criu_dump "$WORK/img" "$WPID"
rc=$?
t=$(($(date +%s) - t0))
check "criu dump fails ($rc) in bounded time ($t s: the 3 s bound three times, and set-up)" \
	[ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$t" -le 40 ]
line_of() { grep -an "$1" "$WORK/img/dump.log" | head -n1 | cut -d: -f1; }
back=$(line_of "pid $CHILD: running again with its GPU memory after cudastore-helper died")
gaveout=$(line_of "the recovery of the 2 processes at once got no answer; one process at a time now")
check "the at-once recovery got no answer, and criu went one process at a time" [ -n "$gaveout" ]
check "the child was running again before the at-once request gave out (log lines ${back:-?} < ${gaveout:-?})" \
	[ -n "$back" ] && [ -n "$gaveout" ] && [ "$back" -lt "$gaveout" ]
check "the root, whose driver does not answer, was ended with the reason" log_has "$WORK/img/dump.log" \
	"pid $WPID: its CUDA driver does not answer; killing it"
sleep 0.5
check "the root is not left hung, and the child runs on" bash -c "! kill -0 $WPID 2>/dev/null || grep -q '^State:.*Z' /proc/$WPID/status; kill -0 $CHILD"
check "no file of the failed dump is left" [ -z "$(cd "$WORK/img" && ls cudastore-*.img cudastore-*.ext 2>/dev/null)" ]
done_testing

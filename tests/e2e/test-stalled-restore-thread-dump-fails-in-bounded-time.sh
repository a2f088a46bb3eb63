#!/bin/bash
# A target stalls the thread the driver works on (a decoy the emulated driver names as its
# restore thread): the checkpoint request makes no progress for op_timeout_s, criu stops the
# helper, a new helper cannot reach the driver either, so the process is ended with the reason,
# and criu dump fails in bounded time instead of hanging with the tree frozen.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
set_config "op_timeout_s = 3"
plan 6
start_workload w --size 8m --decoy-driver-thread
t0=$(date +%s)
CRIU_TIMEOUT=60 criu_dump "$WORK/img" "$WPID"
rc=$?
t=$(( $(date +%s) - t0 ))
check "criu dump fails ($rc) in bounded time ($t s: the 3 s bound twice, and set-up)" test "$rc" != 0 -a "$rc" != 124 -a "$t" -le 30
check "criu said which request made no progress for its bound" log_has "$WORK/img/dump.log" \
	"cudastore-helper \(pid [0-9]*\) made no progress on checkpoint of pid $WPID for 3 s \(op_timeout_s\).*stopping it"
check "a new helper tried to take the process over" log_has "$WORK/img/dump.log" "taking over the 1 CUDA process"
check "the process whose driver does not answer was ended, with the reason" log_has "$WORK/img/dump.log" \
	"pid $WPID: its CUDA driver did not answer the recovery for 3 s; killing it"
sleep 0.5
check "it is not left hung" gone "$WPID"
check "no file of the failed dump is left" [ -z "$(cd "$WORK/img" && ls cudastore-*.img cudastore-*.ext 2>/dev/null)" ]
done_testing

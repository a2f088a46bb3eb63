#!/bin/bash
# With the default options, a tree whose root's driver never answers (a decoy the emulated
# driver names as its restore thread) and whose child is sound: criu dump fails within a minute,
# not after the half hour a whole-request bound allowed, the root is ended with the reason and
# the child runs on with every byte of its GPU memory.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 4
start_workload w --size 4m --fork-cuda 1 --decoy-driver-thread
sleep 0.5
CHILD=$(cat /proc/"$WPID"/task/*/children | tr ' ' '\n' | grep . | head -n1)
PIDS_TO_KILL="$PIDS_TO_KILL $CHILD"
t0=$(date +%s)
CRIU_TIMEOUT=120 criu_dump "$WORK/img" "$WPID"
rc=$?
t=$(($(date +%s) - t0))
check "criu dump fails ($rc) within a minute ($t s; op_timeout_s is 30 s by default)" \
	[ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$t" -lt 60 ]
check "the root was ended with the reason" log_has "$WORK/img/dump.log" \
	"pid $WPID: its CUDA driver did not answer the recovery for 10 s; killing it"
sleep 0.5
check "the root is not left hung" bash -c "! kill -0 $WPID 2>/dev/null || grep -q '^State:.*Z' /proc/$WPID/status"
# the child's verdict goes to the workload's stderr (its parent, which would collect it, is gone)
kill -TERM "$CHILD"
for _ in $(seq 100); do grep -q "cuda-workload\[$CHILD\]: \(PASS\|FAIL\)" "$WORK/w.err" && break; sleep 0.1; done
v=$(grep -o "cuda-workload\[$CHILD\]: \(PASS\|FAIL\).*" "$WORK/w.err" | head -n1)
check "the child runs on with every byte ($v)" [ "$v" = "cuda-workload[$CHILD]: PASS" ]
done_testing

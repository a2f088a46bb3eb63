#!/bin/bash
# With the default options, a tree whose root's driver never answers (a decoy the emulated
# driver names as its restore thread) and whose child is sound: criu dump fails within a minute,
# not after the half hour a whole-request bound allowed, the root is ended with the reason, and
# its child with it instead of being left an orphan.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 4
start_decoy_tree
timed_dump 120
check "criu dump fails ($rc) within a minute ($t s; op_timeout_s is 30 s by default)" \
	test "$rc" != 0 -a "$rc" != 124 -a "$t" -lt 60
check "the root was ended with the reason, and its descendants with it" log_has "$WORK/img/dump.log" \
	"pid $WPID: its CUDA driver did not answer the recovery for 10 s; killing it and its descendants"
check "the child was running again first" log_has "$WORK/img/dump.log" \
	"pid $CHILD: running again with its GPU memory after cudastore-helper died"
sleep 0.5
check "neither is left hung nor an orphan" \
	bash -c "for p in $WPID $CHILD; do ! kill -0 \$p 2>/dev/null || grep -q '^State:.*Z' /proc/\$p/status || exit 1; done"
done_testing

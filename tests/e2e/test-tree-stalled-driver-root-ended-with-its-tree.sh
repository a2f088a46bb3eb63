#!/bin/bash
# A tree of 2 CUDA processes whose root stalls the thread the driver works on: the checkpoint
# makes no progress for op_timeout_s and criu stops the helper; the new helper recovers both at
# once and reports each one's fate as it is decided: the child runs again at once, the root's
# driver never answers, so when that helper is stopped too criu ends the root with the reason
# (no third round one process at a time) and its child with it, which would be left an orphan,
# and criu dump fails within two bounds with no file left.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
set_config "op_timeout_s = 3"
plan 7
start_decoy_tree
timed_dump 90
check "criu dump fails ($rc) in bounded time ($t s: the 3 s bound twice, and set-up)" \
	test "$rc" != 0 -a "$rc" != 124 -a "$t" -le 20
line_of() { grep -an "$1" "$WORK/img/dump.log" | head -n1 | cut -d: -f1; }
back=$(line_of "pid $CHILD: running again with its GPU memory after cudastore-helper died")
ended=$(line_of "pid $WPID: its CUDA driver did not answer the recovery for 3 s; killing it and its descendants")
check "the child was running again before the root was ended (log lines ${back:-?} < ${ended:-?})" \
	test -n "$back" -a -n "$ended" -a "${back:-0}" -lt "${ended:-0}"
check "the at-once recovery was stopped for making no progress" log_has "$WORK/img/dump.log" \
	"made no progress on recover for 3 s"
check "no round one process at a time was needed" \
	bash -c "! grep -aq 'one process at a time now' '$WORK/img/dump.log'"
check "the child was not ended for a reason of its own" bash -c "! grep -aq 'pid $CHILD: .*killing it' '$WORK/img/dump.log'"
sleep 0.5
check "the root is not left hung, and its child is not left an orphan" \
	bash -c "for p in $WPID $CHILD; do ! kill -0 \$p 2>/dev/null || grep -q '^State:.*Z' /proc/\$p/status || exit 1; done"
check "no file of the failed dump is left" [ -z "$(cd "$WORK/img" && ls cudastore-*.img cudastore-*.ext 2>/dev/null)" ]
done_testing

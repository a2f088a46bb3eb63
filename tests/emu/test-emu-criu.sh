#!/bin/bash
# test-emu-criu: the emulator's application state survives a real CRIU dump/restore: a
# driver-managed checkpoint, criu dump, criu restore (same pid and tids), then the restore
# thread is found again and restore + unlock work on the restored process, which verifies
# every byte. No plugin involved (an empty plugin directory): emu-ctl plays cuda-checkpoint
# before and after CRIU. Every step is bounded in time; nothing here waits without a limit.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu
setup_work
use_emulator
C=$top_builddir/tests/emu/emu-ctl
ctl() { timeout -k 2 60 "$C" "$@"; }
ctl_ok() { ctl "$@" >/dev/null; } # exit 0 on CUDA_SUCCESS
PLUGINDIR=$WORK/no-plugins
mkdir -p "$PLUGINDIR"

start_workload app --size 3m
P=$WPID
check "workload started (pid $P)" alive "$P"
tid=$(ctl tid "$P")
check "the driver names a restore thread (tid $tid)" [ -n "$tid" ]
check "driver-managed lock before the dump" ctl_ok lock "$P" 10000
check "driver-managed checkpoint before the dump" ctl_ok checkpoint "$P"
if ! criu_dump "$WORK/img" "$P"; then
	not_ok "criu dump"
	tail -n 15 "$WORK/img/dump.log" 2>/dev/null | sed 's/^/# /'
	done_testing
fi
ok "criu dump"
check "the dumped process is gone" wait_gone "$P"
if ! criu_restore "$WORK/img"; then
	not_ok "criu restore"
	tail -n 15 "$WORK/img/restore.log" 2>/dev/null | sed 's/^/# /'
	done_testing
fi
ok "criu restore"
check "criu restore brought pid $P back" alive "$P"
check "the restore thread is found again (tid $tid)" [ "$(ctl tid "$P")" = "$tid" ]
check "still CHECKPOINTED after CRIU" [ "$(ctl state "$P")" = 2 ]
check "driver-managed restore of the restored process" ctl_ok restore "$P"
check "unlock of the restored process" ctl_ok unlock "$P"
check_verdict app "$P" "workload verified every byte"
[ "$T_FAILED" = 0 ] || tail -n 5 "$WORK/app.err" 2>/dev/null | sed 's/^/# /'
plan "$T_N"
done_testing

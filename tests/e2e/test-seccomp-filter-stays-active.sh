#!/bin/bash
# A workload whose seccomp filter (every thread) makes sched_yield() fail with EPERM: while the
# driver's thread works for criu (checkpoint, restore, complete, unlock) the filter still applies
# to it, although criu keeps seccomp suspended (PTRACE_O_SUSPEND_SECCOMP) in the threads it
# holds. The emulator's driver thread calls sched_yield() for every request and traces the errno.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
export CUDASTORE_EMU_TRACE=$WORK/trace
plan 9

filtered() { # filtered OP: the driver thread served OP, and its sched_yield was always denied
	[ "$(tr_count "$CUDASTORE_EMU_TRACE" "drv:$1:seccomp" 1)" -ge 1 ] &&
		[ "$(tr_count "$CUDASTORE_EMU_TRACE" "drv:$1:seccomp" 0)" = 0 ]
}

start_workload w --size 4m --seccomp-deny-yield
criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
check "the filter applied to the driver thread during the lock" filtered lock
check "the filter applied to the driver thread during the checkpoint" filtered checkpoint
check "... and during Complete" filtered complete
wait_gone "$WPID"
: >"$CUDASTORE_EMU_TRACE"
criu_restore "$WORK/img"
check "criu restore succeeds" [ $? = 0 ]
check "the filter applied to the driver thread during the restore" filtered restore
check "... and during unlock" filtered unlock
check "restored process runs" alive "$WPID"
check_verdict w "$WPID" "memory intact and the filter still active after restore"
done_testing

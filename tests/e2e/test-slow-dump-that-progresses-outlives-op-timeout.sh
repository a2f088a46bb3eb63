#!/bin/bash
# op_timeout_s bounds the time without progress, not a request's length: with op_timeout_s = 2,
# dumps and restores that take 3 to 4 times that but keep moving finish with every byte:
# a CustomStorage and a driver-managed process whose (emulated) driver is slow at its own rate,
# and a CustomStorage copy slowed in the helper's copies (slow storage, one copy thread).
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
set_config "op_timeout_s = 2"
plan 12
# slow_case NAME MODE [workload options...]: dump, restore, verify; CRIU_ENV as set by the caller
slow_case() {
	local name=$1 mode=$2 took; shift 2
	start_workload "$name" --size 64m --seed 7 "$@"
	CRIU_ENV="CUDASTORE_MODE=$mode ${CRIU_ENV:-}" criu_dump "$WORK/$name" "$WPID"
	check "$name: the dump succeeds" [ $? = 0 ]
	took=$(sed -n "s/.*pid $WPID: GPU checkpoint done in \([0-9.]*\) s.*/\1/p" "$WORK/$name/dump.log" | head -n1)
	check "$name: its GPU checkpoint took ${took:-?} s, over 3 x op_timeout_s" \
		awk "BEGIN { exit !(${took:-0} > 6) }"
	wait_gone "$WPID"
	CRIU_ENV="CUDASTORE_MODE=$mode ${CRIU_ENV:-}" criu_restore "$WORK/$name"
	check "$name: the restore succeeds" [ $? = 0 ]
	check_verdict "$name" "$WPID" "$name: every byte back"
}
# the driver's own rate: 20 MB/s, about 7 s for each checkpoint and restore call of 64 MiB
export CUDASTORE_EMU_RATE_MBPS=20
slow_case custom-slow-driver custom
slow_case driver-slow-driver driver
unset CUDASTORE_EMU_RATE_MBPS
# slow copies in the helper: one copy thread, every chunk 250 ms each way (about 8 s)
CRIU_ENV="CUDASTORE_THREADS=1 CUDASTORE_EMU_DELAY=cuMemcpyDtoHAsync:250,cuMemcpyHtoDAsync:250" \
	slow_case custom-slow-copy custom
done_testing

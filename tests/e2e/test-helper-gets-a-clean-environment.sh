#!/bin/bash
# cudastore-helper does not inherit criu's environment: it gets a fixed PATH and only the test
# variables (CUDASTORE_EMU_*, CUDASTORE_TEST_*); no LD_LIBRARY_PATH, LD_PRELOAD, CUDA_VISIBLE_DEVICES
# or anything else of criu's. The dump works as before.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
STALL=$WORK/stall
plan 7
start_workload w --size 4m
export CUDASTORE_EMU_TRACE=$WORK/trace CUDASTORE_TEST_STALL=after-lock CUDASTORE_TEST_STALL_FILE=$STALL
CRIU_ENV="CS_SECRET=1 LD_LIBRARY_PATH=$WORK/nowhere CUDA_VISIBLE_DEVICES=7 PATH=$WORK/bin:$PATH" \
	criu_dump "$WORK/img" "$WPID" &
DPID=$!
wait_file "$STALL" 60 || bail "the helper never reached after-lock"
HPID=$(cat "$STALL")
env_of() { tr '\0' '\n' <"/proc/$HPID/environ"; }
env_of | sed 's/^/# helper: /'
check "criu's own variables do not reach the helper" sh -c "! grep -q '^CS_SECRET=' /proc/$HPID/environ"
check "no LD_LIBRARY_PATH" sh -c "! tr '\0' '\n' </proc/$HPID/environ | grep -q '^LD_LIBRARY_PATH='"
check "no CUDA_VISIBLE_DEVICES" sh -c "! tr '\0' '\n' </proc/$HPID/environ | grep -q '^CUDA_VISIBLE_DEVICES='"
check "PATH is the fixed one" [ "$(env_of | grep '^PATH=')" = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" ]
check "the emulator's and the test hooks' variables pass" \
	sh -c "tr '\0' '\n' </proc/$HPID/environ | grep -q '^CUDASTORE_EMU_TRACE=' && tr '\0' '\n' </proc/$HPID/environ | grep -q '^CUDASTORE_TEST_STALL='"
rm -f "$STALL"
wait "$DPID"
check "the dump succeeds" [ $? = 0 ]
unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
wait_gone "$WPID"
criu_restore "$WORK/img"
check_verdict w "$WPID" "the restored process verifies its GPU memory"
done_testing

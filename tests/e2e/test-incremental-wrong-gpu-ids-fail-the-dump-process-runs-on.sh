#!/bin/bash
# A GPU hasher that goes wrong (here the emulator's roots with a bit flipped: a driver or GPU that
# computes other ids than the CPU for the same bytes) fails a chunked dump instead of filing its
# chunks under false names: the copy threads re-hash a sample of the chunks on the CPU. The
# process runs on with every byte, no chunk of the failed dump is left, and the same dump on a
# sound driver succeeds and restores.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
plan 7
start_workload w --size 32m --zero-percent 0
set_config "chunks = yes"
CRIU_ENV="CUDASTORE_EMU_HASH_WRONG=1" criu_dump "$WORK/bad" "$WPID"
check "a chunked dump whose GPU ids are wrong fails" [ $? != 0 ]
check "its log says the GPU's ids differ from the CPU's and what to do" log_has "$WORK/bad/dump.log" \
	"the id the GPU hashed before the copy differs from the CPU's for the same bytes.*chunks = no"
check "no chunk of it is left" bash -c "[ -z \"\$(find '$WORK/bad' -path '*cudastore-chunks*' -type f)\" ]"
sleep 0.3
check "the process runs on" alive "$WPID"
criu_dump "$WORK/good" "$WPID"
check "on a sound driver the same dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
criu_restore "$WORK/good"
check "and restores" [ $? = 0 ]
check_verdict w "$WPID" "the restored process verified every byte"
done_testing

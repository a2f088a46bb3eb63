#!/bin/bash
# A first chunked dump (no parent) hashes its GPU memory where it lies too: the all-zero chunks
# never cross PCIe (half of 2 x 64 MiB here, counted by the emulator), the copy threads name the
# others by their GPU ids, every chunk file holds the bytes its name says (re-computed here from
# the file), and the dump restores with every byte verified.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
command -v python3 >/dev/null || skip_all "python3 not installed"
plan 7
start_workload w --size 64m --zero-percent 50
set_config "chunks = yes"
CRIU_ENV="CUDASTORE_EMU_DTOH_COUNT=$WORK/dtoh" criu_dump "$WORK/img" "$WPID"
check "a first chunked dump of memory half zeros succeeds" [ $? = 0 ]
GPU=$((2 * (64 << 20)))
moved=$(cat "$WORK"/dtoh.* 2>/dev/null | awk '{s += $1} END {print s + 0}')
stored=$(chunk_bytes "$WORK/img")
diag "$moved bytes device-to-host, $stored bytes of chunks, of $GPU GPU bytes"
check "its log says the ids were hashed on the GPU before the copy" log_has "$WORK/img/dump.log" \
	"pid $WPID: chunk ids hashed on the GPU before the copy: [1-9][0-9]* of [0-9]+ bytes known"
check "no zero chunk crossed PCIe: device-to-host at most the chunk bytes and 1 %" \
	[ "$moved" -le $((stored + GPU / 100)) ]
check "and well under the GPU bytes ($moved of $GPU)" [ "$moved" -le $((GPU * 3 / 4)) ]
check "every chunk file holds the bytes its name says" python3 "$top_srcdir/tests/e2e/chunk-ids.py" "$WORK/img"
wait_gone "$WPID"
criu_restore "$WORK/img"
check "the dump restores" [ $? = 0 ]
check_verdict w "$WPID" "the restored process verified every byte"
done_testing

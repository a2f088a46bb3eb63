#!/bin/bash
# Chunked images with a shared store: 10 processes holding the same 256 MiB of GPU memory (the same
# weights), each dumped on its own into its own images directory, take at most 1.1 times the
# storage of one, and the nine after the first move at most 5 % of their GPU bytes over PCIe (the
# store's chunks carry their XXH3, so a chunk found there by its GPU-hashed id is not copied);
# each images directory links all of its chunks, and the last one restores with every byte
# verified after the store and the other nine are deleted.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
plan 7
set_config "chunk_store = ../store"
ok=0
for i in $(seq 10); do
	start_workload "w$i" --size 128m --zero-percent 0 --seed 42
	CRIU_ENV="CUDASTORE_EMU_DTOH_COUNT=$WORK/dtoh$i" criu_dump "$WORK/d$i" "$WPID" && ok=$((ok + 1))
	wait_gone "$WPID"
done
check "10 chunked dumps into one store succeed" [ "$ok" = 10 ]
one=$(chunk_bytes "$WORK/d1")
all=$(unique_bytes "$WORK/store" "$WORK"/d*/cudastore-chunks)
diag "one process: $one bytes of chunks; all 10 with the store: $all bytes ($((all * 100 / one)) %)"
check "10 processes take at most 1.1 times the storage of one" [ $((all * 10)) -le $((one * 11)) ]
moved=() most=0
for i in $(seq 10); do
	moved[i]=$(cat "$WORK/dtoh$i".* 2>/dev/null | awk '{s += $1} END {print s + 0}')
	[ "$i" -gt 1 ] && [ "${moved[i]}" -gt "$most" ] && most=${moved[i]}
done
diag "device-to-host: the first ${moved[1]} bytes, the most of the nine others $most bytes"
check "the first copies every chunk over PCIe" [ "${moved[1]}" -ge "$one" ]
check "each of the nine others at most 5 % of it ($most bytes)" [ "$most" -le $((one / 20)) ]
check "each images directory links every chunk it needs" \
	bash -c "for i in \$(seq 10); do [ \$(find '$WORK'/d\$i/cudastore-chunks -type f | wc -l) = $(find "$WORK/d1/cudastore-chunks" -type f | wc -l) ] || exit 1; done"
rm -rf "$WORK/store" "$WORK"/d[1-9]
criu_restore "$WORK/d10"
check "the last dump restores with the store and the others deleted" [ $? = 0 ]
check_verdict w10 "$WPID" "restored process verified every byte"
done_testing

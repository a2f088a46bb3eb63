#!/bin/bash
# Chunked images with a shared store: 10 processes holding the same 256 MiB of GPU memory (the same
# weights), each dumped on its own into its own images directory, take at most 1.1 times the
# storage of one; each images directory links all of its chunks, and the last one restores with
# every byte verified after the store and the other nine are deleted.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
plan 5
set_config "chunk_store = ../store"
ok=0
for i in $(seq 10); do
	start_workload "w$i" --size 128m --zero-percent 0 --seed 42
	criu_dump "$WORK/d$i" "$WPID" && ok=$((ok + 1))
	wait_gone "$WPID"
done
check "10 chunked dumps into one store succeed" [ "$ok" = 10 ]
one=$(chunk_bytes "$WORK/d1")
all=$(unique_bytes "$WORK/store" "$WORK"/d*/cudastore-chunks)
diag "one process: $one bytes of chunks; all 10 with the store: $all bytes ($((all * 100 / one)) %)"
check "10 processes take at most 1.1 times the storage of one" [ $((all * 10)) -le $((one * 11)) ]
check "each images directory links every chunk it needs" \
	bash -c "for i in \$(seq 10); do [ \$(find '$WORK'/d\$i/cudastore-chunks -type f | wc -l) = $(find "$WORK/d1/cudastore-chunks" -type f | wc -l) ] || exit 1; done"
rm -rf "$WORK/store" "$WORK"/d[1-9]
criu_restore "$WORK/d10"
check "the last dump restores with the store and the others deleted" [ $? = 0 ]
check_verdict w10 "$WPID" "restored process verified every byte"
done_testing

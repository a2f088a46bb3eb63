#!/bin/bash
# cudastore on chunked images: inspect shows per GPU the bytes new in a dump against those found in
# its parent or the store, and the chain of parents (a deleted one said so); verify checks every
# chunk and names a deleted or changed one; gc --store removes only chunks no images directory
# links, and nothing while a dump holds the store.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
CS=$CUDASTORE_CMD
plan 15
start_workload w --size 16m --zero-percent 0
set_config "chunk_store = ../store"
criu_dump "$WORK/img1" "$WPID" --leave-running || bail "the first chunked dump failed"
set_config "chunk_store = ../store" "parent = ../img1"
criu_dump "$WORK/img2" "$WPID" || bail "the child dump failed"
new=$(manifest_new_bytes "$WORK/img2" "$WPID")
export CUDASTORE_CONFIG=$WORK/cudastore.conf

"$CS" inspect "$WORK/img2" >"$WORK/inspect.txt" 2>&1
check "inspect exits 0 on the child" [ $? = 0 ]
check "it shows the new and the found bytes, every chunk linked" \
	grep -Eq "chunks cudastore-chunks/ \(sha256-tree-4k\): .* new in this dump, .* found in its parent or store, every one linked" "$WORK/inspect.txt"
check "it shows the chain" grep -Eq "parents: +\.\./img1 \(dump [0-9a-f]{8}\)$" "$WORK/inspect.txt"
"$CS" inspect --json "$WORK/img2" >"$WORK/inspect.json"
check "inspect --json: new bytes as the manifest says, the parent named" python3 -c "
import json, sys
p = json.load(open('$WORK/inspect.json'))['processes'][0]
c = p['devices'][0]['chunk_files']
sys.exit(not (c['new_bytes'] == $new and c['found_bytes'] > 0 and c['missing_chunks'] == 0 and
              p['parents'][0]['dir'] == '../img1' and p['parents'][0]['present']))"
"$CS" verify "$WORK/img2" >"$WORK/verify.txt" 2>&1
check "verify accepts the child" [ $? = 0 ]

rm -rf "$WORK/img1"
"$CS" inspect "$WORK/img2" >"$WORK/inspect.txt" 2>&1
check "with the parent deleted, inspect says so" grep -Eq "parents: +\.\./img1 \(dump [0-9a-f]{8}, deleted\)" "$WORK/inspect.txt"
"$CS" verify "$WORK/img2" >/dev/null 2>&1
check "and verify still accepts the child" [ $? = 0 ]

flock -s "$WORK/store/lock" sleep 3 &
sleep 0.5
"$CS" gc --store "$WORK/store" >"$WORK/gc.txt" 2>&1
check "gc refuses while a dump holds the store" [ $? = 1 ]
check "saying why" grep -q "a dump is using the store now; nothing was removed" "$WORK/gc.txt"
wait
n=$(find "$WORK/store" -path '*/tmp' -prune -o -type f -name '????????????????????????????????????????????????????????????????' -print | wc -l)
"$CS" gc --store "$WORK/store" >"$WORK/gc.txt" 2>&1
check "gc removes the chunk only the deleted parent used ($(cat "$WORK/gc.txt"))" \
	grep -q "removed 1 unreferenced chunk(s) .* kept $((n - 1)) chunk(s)" "$WORK/gc.txt"
"$CS" verify "$WORK/img2" >/dev/null 2>&1
check "the child still verifies after gc" [ $? = 0 ]

victim=$(find "$WORK/img2/cudastore-chunks" -type f | sort | head -n1)
printf 'X' | dd of="$victim" bs=1 seek=100 conv=notrunc 2>/dev/null
"$CS" verify "$WORK/img2" >"$WORK/verify.txt" 2>&1
check "verify refuses a changed chunk ($?), naming it" grep -q "checksum mismatch in cudastore-chunks/${victim#*/cudastore-chunks/}" "$WORK/verify.txt"
rm "$victim"
"$CS" verify "$WORK/img2" >"$WORK/verify.txt" 2>&1
check "verify refuses a deleted chunk ($?), naming it" grep -q "cudastore-chunks/${victim#*/cudastore-chunks/}, is missing" "$WORK/verify.txt"
"$CS" inspect "$WORK/img2" >"$WORK/inspect.txt" 2>&1
check "inspect says a chunk is missing" grep -q "chunks: 1 MISSING" "$WORK/inspect.txt"

rm -rf "$WORK/img2"
"$CS" gc --store "$WORK/store" >"$WORK/gc.txt" 2>&1
check "with every images directory deleted, gc empties the store" [ -z "$(find "$WORK/store" -type f ! -name lock)" ]
done_testing

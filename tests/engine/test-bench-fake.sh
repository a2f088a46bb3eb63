#!/bin/sh
# test-bench-fake: cs-bench runs end to end on the fake libcuda (tiny sizes), verifies every byte, and skips with 77 without libcuda;
# it creates a missing --dir, and its restore-overlap stand-in (--overlap) and its restore with buffers pinned
# ahead (--pool) verify every byte too.
set -u
b=${top_builddir:-.}
bench=$b/bench/cs-bench
lib=$b/tests/engine/libcuda-fake.so
echo "1..12"
n=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi; }

out=$(CUDASTORE_LIBCUDA=/nonexistent/libcuda.so.1 "$bench" --sizes 1M 2>&1); rc=$?
[ $rc = 77 ] && echo "$out" | grep -q '^skipped: no libcuda'; ok $? "no libcuda: exit 77 with 'skipped: no libcuda' (rc $rc)"

# /dev/shm when there is one: a memory filesystem, so the benchmark does not drop the host's page cache
base=${TMPDIR:-/tmp}
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
dir=$(mktemp -d "$base/cs-bench-test.XXXXXX") || exit 99
out=$(CUDASTORE_TEST_LOGLEVEL=1 CUDASTORE_LIBCUDA=$lib "$bench" --dir "$dir" --sizes 4M,9M --chunk 1M \
	--pinned 3M --threads 2 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok $rc "cs-bench on the fake device exits 0"
[ "$(echo "$out" | grep -c '"verified":true')" = 4 ]; ok $? "4 rows (2 sizes x dense, zero75), all verified"
[ -z "$(ls -A "$dir")" ]; ok $? "no files left in the directory without --keep"

out=$(CUDASTORE_TEST_LOGLEVEL=1 CUDASTORE_LIBCUDA=$lib "$bench" --dir "$dir/new/sub" --sizes 6M --chunk 1M \
	--pinned 3M --threads 2 --kinds dense --no-naive --overlap 0.1 --prefetch-max 4M 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok $rc "a missing --dir is created; --overlap run exits 0"
echo "$out" | grep -q '^# overlap 6M dense: window 0.10 s, prefetch read [0-9]* bytes.*verified$'
ok $? "the overlap row verifies every byte"
# (how much the nice-19 prefetch reads in 0.1 s depends on the machine's load; what it read is used)
j=$(echo "$out" | grep '"bench":"cs-bench-overlap"')
pf=$(echo "$j" | sed -n 's/.*"prefetch_bytes":\([0-9]*\).*/\1/p'); tk=$(echo "$j" | sed -n 's/.*"taken_bytes":\([0-9]*\).*/\1/p')
[ -n "$pf" ] && [ "$pf" = "$tk" ] && [ "$pf" -le 4194304 ]; ok $? "the restore took all the prefetch read ($tk of $pf bytes), within its 4 MiB bound"
out=$(CUDASTORE_TEST_LOGLEVEL=1 CUDASTORE_LIBCUDA=$lib "$bench" --dir "$dir" --sizes 5M --chunk 1M \
	--pinned 3M --threads 2 --no-naive --pool 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
ok $rc "--pool run exits 0"
echo "$out" | grep -q '^# --pool: 3 x 1048576 bytes pinned once in [0-9.]* s'
ok $? "--pool says what it pinned ahead, and how long it took"
[ "$(echo "$out" | grep -cE '"verified":true.*"restore_pool_gbps":([1-9][0-9.]*|0\.[0-9]*[1-9])')" = 2 ] &&
	[ "$(echo "$out" | grep -c '^# 5M .*restore thread setup [0-9.]* s.*restore with the pool [0-9.]* GB/s')" = 2 ]
ok $? "both rows verified the pooled restore and report it beside the thread setup times"
# the read limit is the faster of its chunk-sized and 256 KiB passes, and both were measured
echo "$out" | grep '"bench":"cs-bench"' | awk '{
	rd = $0; sub(/.*"storage_read_gbps":/, "", rd); sub(/,.*/, "", rd)
	pc = $0; sub(/.*"storage_read_piece_gbps":/, "", pc); sub(/[,}].*/, "", pc)
	if (!(pc + 0 > 0 && rd + 0 >= pc + 0)) bad = 1; n++ } END { exit (n == 2 && !bad) ? 0 : 1 }'
ok $? "the read limit is the faster of the chunk-sized and 256 KiB read passes (both measured)"
[ "$(echo "$out" | grep -cE '^# 5M dense: .*read \+ H2D alone \([0-9]+ threads, no hashing\) [0-9.]+ GB/s: the restore [0-9.]+ of it, with the pool [0-9.]+$')" = 1 ] &&
	echo "$out" | grep '"kind":"dense"' | grep -qE '"pipeline_gbps":([1-9][0-9.]*|0\.[0-9]*[1-9])'
ok $? "the dense row measured read + H2D without the engine and compares both restores with it"
rm -rf "$dir"

#!/bin/sh
# test-bench-fake: cs-bench runs end to end on the fake libcuda (tiny sizes), verifies every byte, and skips with 77 without libcuda;
# it creates a missing --dir, and its restore-overlap stand-in (--overlap) and its restore with buffers pinned
# ahead (--pool) verify every byte too, with and without --tmpfs-readback, and count the kernel's page
# promotions; --limits-after measures the storage limits again after each row and gives the ratios against them too
# (without it those fields are 0); every copy says where its threads' time went (files and checks, waiting
# for the GPU, within threads x seconds); the kernel's page
# promotions (a restore of fresh tmpfs pages reads them through mappings, and promotes few); --procs 4 runs 4 engine calls at once per row, verifies every byte
# of every copy and prints the 4-copy storage limit beside the aggregate.
set -u
b=${top_builddir:-.}
bench=$b/bench/cs-bench
lib=$b/tests/engine/libcuda-fake.so
echo "1..29"
n=0
all=
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
all="$all$out"
ok $rc "cs-bench on the fake device exits 0"
[ "$(echo "$out" | grep -c '"verified":true')" = 4 ]; ok $? "4 rows (2 sizes x dense, zero75), all verified"
[ -z "$(ls -A "$dir")" ]; ok $? "no files left in the directory without --keep"
[ "$(echo "$out" | grep -c '"storage_write_after_gbps":0.000,"storage_read_after_gbps":0.000,"limit_dump_after_gbps":0.000,"limit_restore_after_gbps":0.000,')" = 4 ] &&
	! echo "$out" | grep -q 'limits measured again'
ok $? "without --limits-after the limits are measured once: the after fields are 0 and no row mentions them"
# the header's restore thread count is the engine's plan, as every row ran it (it once printed
# pinned / chunk, 3 here, while the restores ran one thread per CPU)
hdr=$(echo "$out" | sed -n 's/^# cs-bench: .*threads option 2 (restore \([0-9]*\);.*/\1/p')
[ -n "$hdr" ] && [ "$(echo "$out" | grep -c "\"restore_threads\":$hdr,")" = 4 ]
ok $? "the header's restore thread count ($hdr) is what every row's restore ran"

out=$(CUDASTORE_TEST_LOGLEVEL=1 CUDASTORE_LIBCUDA=$lib "$bench" --dir "$dir/new/sub" --sizes 6M --chunk 1M \
	--pinned 3M --threads 2 --kinds dense --no-naive --overlap 0.1 --prefetch-max 4M 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
all="$all$out"
ok $rc "a missing --dir is created; --overlap run exits 0"
echo "$out" | grep -q '^# overlap 6M dense: window 0.10 s, prefetch read [0-9]* bytes.*verified$'
ok $? "the overlap row verifies every byte"
# (how much the nice-19 prefetch reads in 0.1 s depends on the machine's load; what it read is used)
j=$(echo "$out" | grep '"bench":"cs-bench-overlap"')
pf=$(echo "$j" | sed -n 's/.*"prefetch_bytes":\([0-9]*\).*/\1/p'); tk=$(echo "$j" | sed -n 's/.*"taken_bytes":\([0-9]*\).*/\1/p')
[ -n "$pf" ] && [ "$pf" = "$tk" ] && [ "$pf" -le 4194304 ]; ok $? "the restore took all the prefetch read ($tk of $pf bytes), within its 4 MiB bound"
out=$(CUDASTORE_TEST_LOGLEVEL=1 CUDASTORE_LIBCUDA=$lib "$bench" --dir "$dir" --sizes 5M --chunk 1M \
	--pinned 3M --threads 2 --no-naive --pool --limits-after 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
all="$all$out"
ok $rc "--pool run exits 0"
echo "$out" | grep -q '^# --pool: 3 x 1048576 bytes pinned once in [0-9.]* s'
ok $? "--pool says what it pinned ahead, and how long it took"
[ "$(echo "$out" | grep -cE '"verified":true.*"restore_pool_gbps":([1-9][0-9.]*|0\.[0-9]*[1-9])')" = 2 ] &&
	[ "$(echo "$out" | grep -cE '"dump_pool_gbps":([1-9][0-9.]*|0\.[0-9]*[1-9][0-9]*),"dump_pool_ratio":')" = 2 ] &&
	[ "$(echo "$out" | grep -c '^# 5M .*restore thread setup [0-9.]* s.*dump with the pool [0-9.]* GB/s.*restore with the pool [0-9.]* GB/s')" = 2 ]
ok $? "both rows verified the pooled dump and restore and report them beside the thread setup times"
# the read limit is the faster of its chunk-sized and 256 KiB passes, and both were measured
echo "$out" | grep '"bench":"cs-bench"' | awk '{
	rd = $0; sub(/.*"storage_read_gbps":/, "", rd); sub(/,.*/, "", rd)
	pc = $0; sub(/.*"storage_read_piece_gbps":/, "", pc); sub(/[,}].*/, "", pc)
	if (!(pc + 0 > 0 && rd + 0 >= pc + 0)) bad = 1; n++ } END { exit (n == 2 && !bad) ? 0 : 1 }'
ok $? "the read limit is the faster of the chunk-sized and 256 KiB read passes (both measured)"
[ "$(echo "$out" | grep -cE '^# 5M dense: .*read \+ H2D alone \([0-9]+ threads, no hashing\) [0-9.]+ GB/s: the restore [0-9.]+ of it, with the pool [0-9.]+(;|$)')" = 1 ] &&
	echo "$out" | grep '"kind":"dense"' | grep -qE '"pipeline_gbps":([1-9][0-9.]*|0\.[0-9]*[1-9])'
ok $? "the dense row measured read + H2D without the engine and compares both restores with it"
# --limits-after: positive limits measured again, limit = min(PCIe, storage), ratios = rate / that limit
echo "$out" | grep '"bench":"cs-bench"' | awk '
	function f(k,   v) { v = $0; sub(".*\"" k "\":", "", v); sub(/[,}].*/, "", v); return v + 0 }
	function near(a, b) { return a - b <= 0.002 + 0.002 * b && b - a <= 0.002 + 0.002 * b }
	{ n++
	  w = f("storage_write_after_gbps"); r = f("storage_read_after_gbps")
	  ld = f("pcie_d2h_gbps") < w ? f("pcie_d2h_gbps") : w; lr = f("pcie_h2d_gbps") < r ? f("pcie_h2d_gbps") : r
	  if (!(w > 0 && r > 0 && near(f("limit_dump_after_gbps"), ld) && near(f("limit_restore_after_gbps"), lr))) bad = 1
	  if (!near(f("restore_pool_ratio_after"), f("restore_pool_gbps") / f("limit_restore_after_gbps"))) bad = 1
	  if (!near(f("dump_pool_ratio_after"), f("dump_pool_gbps") / f("limit_dump_after_gbps"))) bad = 1
	  if (!near(f("restore_ratio_after"), f("restore_gbps") / f("limit_restore_after_gbps"))) bad = 1 }
	END { exit (n == 2 && !bad) ? 0 : 1 }' &&
	[ "$(echo "$out" | grep -cE '^# 5M .*; limits measured again after the row: dump [0-9.]+ GB/s \(was [0-9.]+\), restore [0-9.]+ GB/s \(was [0-9.]+\): the dump [0-9.]+ of it, the restore [0-9.]+; with the pool [0-9.]+, [0-9.]+$')" = 2 ]
ok $? "--limits-after: both rows measured the storage limits again and give every ratio against them too"
echo "$out" | grep '"bench":"cs-bench"' | awk '
	function f(k,   v) { v = $0; sub(".*\"" k "\":", "", v); sub(/[,}].*/, "", v); return v + 0 }
	{ n++
	  split("dump restore dump_pool restore_pool", c, " ")
	  for (i = 1; i <= 4; i++) {
		t = f(c[i] "_threads_s"); io = f(c[i] "_io_s"); w = f(c[i] "_gpu_wait_s")
		if (!(t > 0 && io > 0 && w >= 0 && io + w <= t * 1.01 + 0.001)) bad = 1
	  } }
	END { exit (n == 2 && !bad) ? 0 : 1 }' &&
	[ "$(echo "$out" | grep -cE "^# 5M .*; the threads' time with the pool: dump [0-9]+ % in the files and checks, [0-9]+ % waiting for the GPU; restore [0-9]+ %, [0-9]+ %;")" = 2 ]
ok $? "every copy of both rows says where its threads' time went, within threads x seconds"
# the kernel's page promotions around the pooled copies: in a memory filesystem (classic LRU) the
# pooled restore of pages just written reads them through mappings (tmpfs_restore_map = auto);
# read(2) promotes at least half of the dense row's 1280 pages (other processes can only add to
# the system-wide count, never take from it, so only lower bounds are checked)
classic=no
[ "$base" = /dev/shm ] && ! grep -qv '^0x0*$' /sys/kernel/mm/lru_gen/enabled 2>/dev/null && classic=yes
[ "$(echo "$out" | grep -cE '^# 5M .*pages the kernel promoted to its active list \(pgactivate\): [0-9]+ during the dump with the pool, [0-9]+ during its restore')" = 2 ] &&
	[ "$(echo "$out" | grep -c '"tmpfs_restore_map":"auto"')" = 2 ] &&
	if [ $classic = yes ]; then
		echo "$out" | grep '"kind":"dense"' | grep -q '"restore_pool_mapped":true' &&
			echo "$out" | grep -q '^# 5M dense: .* during its restore (read through mappings)'
	fi
ok $? "both rows count the kernel's promotions; a pooled restore of fresh tmpfs pages reads through mappings"
out=$(CUDASTORE_TEST_LOGLEVEL=1 CUDASTORE_LIBCUDA=$lib "$bench" --dir "$dir" --sizes 5M --chunk 1M \
	--pinned 3M --threads 2 --kinds dense --no-naive --pool --tmpfs-restore-map no 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
all="$all$out"
[ $rc = 0 ] && [ "$(echo "$out" | grep -c '"verified":true.*"tmpfs_restore_map":"no","restore_mapped":false,"restore_pool_mapped":false')" = 1 ] &&
	if [ $classic = yes ]; then
		pr=$(echo "$out" | sed -n 's/.*"restore_pool_pages_promoted":\([0-9]*\).*/\1/p')
		echo "# dense 5M pooled restore with read(2): $pr pages promoted"
		[ -n "$pr" ] && [ "$pr" -ge 640 ]
	fi
ok $? "--tmpfs-restore-map no: the pooled restore reads with read(2), which promotes at least half the pages"
out=$(CUDASTORE_TEST_LOGLEVEL=1 CUDASTORE_LIBCUDA=$lib "$bench" --dir "$dir" --sizes 5M --chunk 1M \
	--pinned 3M --threads 2 --kinds dense --no-naive --pool --tmpfs-readback 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
all="$all$out"
[ $rc = 0 ] && [ "$(echo "$out" | grep -c '"tmpfs_readback":true,.*"verified":true')" = 1 ]
ok $? "--tmpfs-readback: the pooled row dumps with the read-back, says so in its JSON, verifies every byte"

# --procs 4: 8 MiB and 12 MiB rows = 4 copies of 2 and 3 MiB, dense and zero75 (rates: sanity only)
out=$(CUDASTORE_TEST_LOGLEVEL=1 CUDASTORE_LIBCUDA=$lib "$bench" --dir "$dir/procs" --sizes 8M,12M --chunk 1M \
	--pinned 3M --threads 2 --no-naive --procs 4 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
all="$all$out"
ok $rc "--procs 4 run exits 0"
echo "$out" | grep -q '^# --procs 4: .*4 concurrent copies of size/4 bytes each (sharers 4), sharing one pinned pool of 4 x 1048576 bytes'
ok $? "--procs says how it splits the row and what the shared pool holds"
pj=$(echo "$out" | grep '"bench":"cs-bench-procs"')
[ "$(echo "$pj" | grep -c '"procs":4,"size_per_proc":\(2097152\|3145728\),.*"sharers":4,.*"verified":true')" = 4 ] &&
	[ "$(echo "$out" | grep -cE '^# procs (8|12)M (dense|zero75): verified 4 x (2097152|3145728) bytes')" = 4 ]
ok $? "4 procs rows (2 sizes x dense, zero75), every copy's bytes verified"
[ "$(echo "$out" | grep -cE '^# procs (8|12)M (dense|zero75) dump: +4 copies of [0-9]+ bytes: [0-9.]+ GB/s aggregate; wall [0-9.]+ s, sum of copies [0-9.]+ s \([0-9.]+ x wall\); limit [0-9.]+ GB/s = min\(pinned D2H [0-9.]+, N-writer storage [0-9.]+: 4 x [0-9]+ writers, 4 x [0-9]+ files\); ratio [0-9.]+; target >= 0.8: (met|missed)$')" = 4 ] &&
	[ "$(echo "$out" | grep -cE '^# procs (8|12)M (dense|zero75) restore: 4 copies of [0-9]+ bytes: [0-9.]+ GB/s aggregate; wall [0-9.]+ s, sum of copies [0-9.]+ s \([0-9.]+ x wall\); limit [0-9.]+ GB/s = min\(pinned H2D [0-9.]+, N-reader storage [0-9.]+: 4 x [0-9]+ readers\); ratio [0-9.]+; target >= 0.8: (met|missed)$')" = 4 ]
ok $? "every procs row prints the aggregate, wall vs sum of copies, the 4-copy limit, the ratio and the target"
# sanity: rates and limits positive; each copy's own time lies inside the wall, so their sum is at most
# 4 walls (+1 % rounding); ratios = aggregate / limit
echo "$pj" | awk '
	function f(k,   v) { v = $0; sub(".*\"" k "\":", "", v); sub(/[,}].*/, "", v); return v + 0 }
	{ n++
	  if (!(f("dump_gbps") > 0 && f("restore_gbps") > 0 && f("storage_write_gbps") > 0 && f("storage_read_gbps") > 0)) bad = 1
	  if (!(f("dump_sum_s") > 0 && f("dump_sum_s") <= 4.04 * f("dump_wall_s"))) bad = 1
	  if (!(f("restore_sum_s") > 0 && f("restore_sum_s") <= 4.04 * f("restore_wall_s"))) bad = 1
	  if (!(f("pcie_d2h_gbps") > 0 && f("pcie_h2d_gbps") > 0)) bad = 1
	  ld = f("pcie_d2h_gbps") < f("storage_write_gbps") ? f("pcie_d2h_gbps") : f("storage_write_gbps")
	  lr = f("pcie_h2d_gbps") < f("storage_read_gbps") ? f("pcie_h2d_gbps") : f("storage_read_gbps")
	  if (ld - f("limit_dump_gbps") > 0.001 || f("limit_dump_gbps") - ld > 0.001) bad = 1
	  if (lr - f("limit_restore_gbps") > 0.001 || f("limit_restore_gbps") - lr > 0.001) bad = 1
	  # the JSON rounds rates to 0.001 GB/s: a ratio over a small limit (a slow sanitized build)
	  # carries that rounding of its limit and rate, beside the 0.01 of its own
	  t = 0.01 + (f("dump_ratio") + 1) * 0.0005 / ld
	  r = f("dump_gbps") / ld; if (r - f("dump_ratio") > t || f("dump_ratio") - r > t) bad = 1
	  t = 0.01 + (f("restore_ratio") + 1) * 0.0005 / lr
	  r = f("restore_gbps") / lr; if (r - f("restore_ratio") > t || f("restore_ratio") - r > t) bad = 1 }
	END { exit (n == 4 && !bad) ? 0 : 1 }'
ok $? "procs rates and limits are positive, sum of copies within 4 x wall, limit = min(PCIe, storage), ratio = aggregate / limit"
[ -z "$(ls -A "$dir/procs")" ]; ok $? "no extents or scratch files of the 4 copies left"

# --procs-weights 5,1,1,1: copies of 10, 2, 2 and 2 MiB; --procs-split size (the default, as the
# plugin shares a tree's copies) gives the large one more restore threads than the even split does
wrun() { # wrun SPLIT: the run's output in $dir/w-SPLIT.out, its exit status
	CUDASTORE_TEST_LOGLEVEL=1 CUDASTORE_LIBCUDA=$lib "$bench" --dir "$dir/weights" --sizes 16M --chunk 1M \
		--pinned 8M --threads 4 --no-naive --kinds dense --procs 4 --procs-weights 5,1,1,1 \
		--procs-split "$1" >"$dir/w-$1.out" 2>&1
}
copies() { grep '"bench":"cs-bench-procs"' "$dir/w-$1.out" | sed 's/.*"copies":\[//; s/\]}$//'; }
first_threads() { copies "$1" | sed 's/^{"bytes":[0-9]*,"dump_threads":[0-9]*,"dump_s":[0-9.]*,"restore_threads":\([0-9]*\).*/\1/'; }
wrun size; rc1=$?
wrun even; rc2=$?
all="$all$(cat "$dir/w-size.out" "$dir/w-even.out")"
[ $rc1 = 0 ] && [ $rc2 = 0 ] && grep -q '"verified":true.*"split":"size"' "$dir/w-size.out" &&
	[ "$(copies size | grep -o '"bytes":[0-9]*' | tr '\n' ' ')" = '"bytes":10485760 "bytes":2097152 "bytes":2097152 "bytes":2097152 ' ] &&
	grep -qE '^# procs 16M dense dump: +4 copies moving 16777216 bytes: ' "$dir/w-size.out" &&
	grep -qE '^# procs 16M dense: by-size split; copy: bytes, dump threads / s, restore threads / s \(setup s, teardown s, files and checks, GPU wait\): 1: 10485760, ' "$dir/w-size.out"
ok $? "--procs-weights 5,1,1,1: copies of 10, 2, 2, 2 MiB, every byte verified, each copy's bytes, threads and time printed"
t1=$(first_threads size); t2=$(first_threads even)
rm -f "$dir/w-size.out" "$dir/w-even.out"
[ -n "$t1" ] && [ -n "$t2" ] && [ "$t1" -gt "$t2" ]
ok $? "split by size, the 10 MiB copy's restore ran more threads ($t1) than with an even split ($t2)"
"$bench" --procs 4 --procs-weights 1,2 >/dev/null 2>&1; [ $? = 2 ]
ok $? "--procs-weights with fewer weights than --procs is refused (exit 2)"
# the fake says on stderr when a program broke a driver rule (a stream destroyed with work never
# waited for: the zero chunks of a fill still queued while the dump read them)
! echo "$all" | grep -q 'driver-rule violations'; ok $? "no driver-rule violation in any run"
rm -rf "$dir"

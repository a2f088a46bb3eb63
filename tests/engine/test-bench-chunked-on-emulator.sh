#!/bin/bash
# test-bench-chunked-on-emulator: cs-bench --chunked runs end to end on the driver emulator (whose
# kernels run on the CPU: its rates are for correctness only, never performance): for each kind
# it prints the three result lines with numbers; the child of unchanged memory moves at most 5 %
# of the GPU bytes device-to-host and writes at most 1 %; the first chunked dump of zero75 memory
# moves only its non-zero quarter; the child's chunk files hold the bytes their names say and are
# the parent's files linked, not written again; it exits 0. A driver without the kernel entry
# points (the fake libcuda) makes it exit 1 saying the hasher cannot run; --chunked with --hash
# or --procs is a usage error (exit 2).
. "$top_srcdir/tests/e2e/lib.sh"

plan 12
bench=$top_builddir/bench/cs-bench
emu=$top_builddir/tests/emu/lib/libcuda.so.1
WORK=$(mktemp -d /tmp/cudastore-test.XXXXXX) || bail "mktemp failed" # removed by lib.sh at exit
export CUDASTORE_CONFIG=$WORK/cudastore.conf
echo "# config of ${0##*/}" >"$CUDASTORE_CONFIG"
# a memory filesystem when there is one: the bench drops no page cache there
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
dir=$(mktemp -d "$base/cs-bench-chunked.XXXXXX") || bail "mktemp failed"
trap 'rm -rf "$dir"; cleanup' EXIT
export CUDASTORE_EMU_DEVICES=1 CUDASTORE_EMU_MEM_MB=256
out=$(CUDASTORE_LIBCUDA=$emu "$bench" --chunked --sizes 64m --kinds dense,zero75 --dir "$dir/b" --keep 2>&1)
rc=$?
diag "$(sed 's/^/# /' <<<"$out")"
check "exit 0" [ "$rc" = 0 ]
n='[0-9]+\.[0-9]+'
count() { [ "$(grep -Ec "$1" <<<"$out")" = 2 ]; }
check "the chunked dump line, twice: its GB/s beside the extent dump's, the target" \
	count "^chunked dump: $n GB/s \(extent dump $n GB/s\): $n of it \(target >= 0\.9\)$"
check "the child dump line, twice: bytes moved and written, time and rate beside the first" \
	count "^child dump: moved [0-9]+ of 67108864 bytes \($n %, target <= 5 %\), wrote [0-9]+ \($n %, target <= 1 %\); $n s, $n GB/s \(first chunked dump $n s, $n GB/s\)$"
check "the chunked restore line, twice: its GB/s beside the extent restore's, the target" \
	count "^chunked restore: $n GB/s \(extent restore $n GB/s\): $n of it \(target >= 0\.9\)$"
json() { [ "$(grep -c '^{"bench":"cs-bench-chunked","size":67108864,.*"child_moved_bytes":[0-9]*,"child_written_bytes":[0-9]*,.*"verified":true}$' <<<"$out")" = 2 ]; }
check "one JSON line per kind, with the child's bytes moved and written" json
small() { # every child line: moved <= 5 %, written <= 1 % of the 64 MiB
	local moved wrote k=0
	while read -r moved wrote; do
		[ $((moved * 100)) -le $((67108864 * 5)) ] && [ $((wrote * 100)) -le 67108864 ] || return 1
		k=$((k + 1))
	done < <(sed -nE 's/^child dump: moved ([0-9]+) of [0-9]+ bytes .*, wrote ([0-9]+) .*/\1 \2/p' <<<"$out")
	[ "$k" = 2 ]
}
check "the child moves at most 5 % and writes at most 1 % of the GPU bytes" small
quarter() { grep -q '^# chunked 64M zero75: .*first dump wrote 16777216 bytes, moved 16777216$' <<<"$out"; }
check "the first dump of zero75 memory moves and writes only its non-zero 16 MiB" quarter
child=$dir/b/cs-bench-chunked-child
files=$(find "$child/cudastore-chunks" -type f 2>/dev/null | wc -l)
check "the child (zero75, kept) links its 4 non-zero chunks" [ "$files" = 4 ]
check "the child's chunk files hold the bytes their names say" python3 "$top_srcdir/tests/e2e/chunk-ids.py" "$child"
linked() { ! find "$child/cudastore-chunks" -type f -links 1 | grep -q .; }
check "each child chunk is the parent's file (linked, not written again)" linked

out=$(CUDASTORE_LIBCUDA=$top_builddir/tests/engine/libcuda-fake.so "$bench" --chunked --sizes 8m --dir "$dir/f" 2>&1)
rc=$?
diag "$(sed 's/^/# /' <<<"$out")"
nokernel() { [ "$rc" = 1 ] && grep -q 'the GPU hasher cannot run here' <<<"$out" && ! grep -q '^chunked dump:' <<<"$out"; }
check "a driver without kernels: exit 1, the hasher cannot run, no result line" nokernel
usage() { "$bench" --chunked --hash --size 8m >/dev/null 2>&1 && return 1; [ $? = 2 ] || return 1
	"$bench" --chunked --procs 2 >/dev/null 2>&1; [ $? = 2 ]; }
check "--chunked with --hash or --procs is a usage error (exit 2)" usage
done_testing

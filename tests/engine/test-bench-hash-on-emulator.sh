#!/bin/bash
# test-bench-hash-on-emulator: cs-bench --hash runs end to end on the driver emulator (whose
# kernels run on the CPU): it prints the one result line the GPU host's run is read by, the ids
# it checked (every chunk the CPUs hashed, 32 spread over the rest) all match, it exits 0; a
# failed kernel launch makes it exit 1 with the reason; a driver without the kernel entry points
# (the fake libcuda) makes it exit 1 saying the hasher cannot run.
. "$top_srcdir/tests/e2e/lib.sh"

plan 6
bench=$top_builddir/bench/cs-bench
emu=$top_builddir/tests/emu/lib/libcuda.so.1
export CUDASTORE_EMU_DEVICES=1 CUDASTORE_EMU_MEM_MB=256
out=$(CUDASTORE_LIBCUDA=$emu "$bench" --hash --size 37m --chunk 64k --hash-cpu 5m 2>&1)
rc=$?
diag "$out"
check "exit 0" [ "$rc" = 0 ]
line() { grep -Eq '^gpu hash: [0-9.]+ GB/s \(device copy [0-9.]+ GB/s, CPU [0-9.]+ GB/s\); ids match the CPU.s: yes$' <<<"$out"; }
check "the result line: GPU rate, device copy and CPU rates, ids match" line
sampled() { grep -q '^# ids checked against cs_chunk_id on the host: 112 of 592 chunks (the first 80, and 32 spread' <<<"$out"; }
check "592 ids, 80 hashed by the CPUs and 32 sampled, checked" sampled

out=$(CUDASTORE_EMU_FAULTS=cuLaunchKernel:2:719 CUDASTORE_LIBCUDA=$emu "$bench" --hash --size 8m --chunk 64k 2>&1)
rc=$?
diag "$out"
failed() { [ "$rc" = 1 ] && grep -q 'eng_gpu_hash of 8388608 bytes failed' <<<"$out" && ! grep -q '^gpu hash:' <<<"$out"; }
check "a failed launch: exit 1 with the reason, no result line" failed

out=$(CUDASTORE_LIBCUDA=$top_builddir/tests/engine/libcuda-fake.so "$bench" --hash --size 8m --chunk 1m 2>&1)
rc=$?
diag "$out"
nokernel() { [ "$rc" = 1 ] && grep -q 'the GPU hasher cannot run here' <<<"$out"; }
check "a driver without kernels: exit 1, the hasher cannot run" nokernel
usage() { "$bench" --hash --size 0 >/dev/null 2>&1; [ $? = 2 ]; }
check "--size 0 is a usage error (exit 2)" usage
done_testing

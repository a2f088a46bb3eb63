#!/bin/sh
# gen-gpu-hash-ptx.sh - plugin/engine/gpu_hash.ptx from gpu_hash.cu, run by make when nvcc is
# there. The PTX is kept in the tree so that machines without the CUDA toolkit build; its first
# line records the SHA-256 of the .cu it came from, which the build (gpu-hash-ptx-check.sh) and
# a test check, so a .cu changed without its PTX made again fails the build.
# compute_80: PTX that every driver from CUDA 11.0 on JIT-compiles for the GPU it finds
# (A100, H100, H200 and later).
# Usage: gen-gpu-hash-ptx.sh NVCC GPU_HASH_CU OUT_PTX
set -eu
nvcc=$1 cu=$2 out=$3
sum=$(sha256sum <"$cu" | cut -d' ' -f1)
ver=$("$nvcc" --version | sed -n 's/^Cuda compilation tools, release [0-9.]*, V\([0-9.]*\)$/\1/p')
"$nvcc" -O3 -arch=compute_80 -ptx -o "$out.tmp" "$cu"
{
	echo "// cudastore: from gpu_hash.cu sha256 $sum, nvcc ${ver:-unknown} -O3 -arch=compute_80 -ptx; do not edit"
	# the compiler's build line names the machine's toolkit build only: left out, so that the
	# same .cu and nvcc release give the same file
	grep -v '^// Compiler Build ID:' "$out.tmp"
} >"$out.new"
rm -f "$out.tmp"
mv "$out.new" "$out"

#!/bin/sh
# gpu-hash-ptx-check.sh - does gpu_hash.ptx come from this gpu_hash.cu? Compares the SHA-256
# its first line records (gen-gpu-hash-ptx.sh) with the .cu's. Exit 0 if so; else 1 with what
# to do. Usage: gpu-hash-ptx-check.sh GPU_HASH_CU GPU_HASH_PTX
set -eu
cu=$1 ptx=$2
want=$(sha256sum <"$cu" | cut -d' ' -f1)
got=$(sed -n '1s/^\/\/ cudastore: from gpu_hash.cu sha256 \([0-9a-f]*\),.*/\1/p' "$ptx")
[ "$want" = "$got" ] && exit 0
echo "$ptx was not made from this $cu (its recorded sha256 ${got:-none}, the .cu's $want):" \
	"make it again on a machine with nvcc (make plugin/engine/gpu_hash.ptx) and commit it" >&2
exit 1

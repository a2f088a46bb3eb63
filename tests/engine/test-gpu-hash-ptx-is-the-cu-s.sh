#!/bin/bash
# test-gpu-hash-ptx-is-the-cu-s: the PTX kept in the tree (plugin/engine/gpu_hash.ptx) is the
# one made from plugin/engine/gpu_hash.cu: the SHA-256 its first line records is the .cu's, the
# build's check refuses a .cu changed by one byte and says what to do, and where nvcc is the
# release the PTX names, making it again gives the same bytes.
. "$top_srcdir/tests/e2e/lib.sh"

plan 4
cu=$top_srcdir/plugin/engine/gpu_hash.cu
ptx=$top_srcdir/plugin/engine/gpu_hash.ptx
chk=$top_srcdir/scripts/gpu-hash-ptx-check.sh
WORK=$(mktemp -d /tmp/cudastore-test.XXXXXX) || bail "mktemp failed" # removed by lib.sh at exit

want=$(sha256sum <"$cu" | cut -d' ' -f1)
check "the PTX's first line records the .cu's SHA-256 ($want)" \
	grep -q "^// cudastore: from gpu_hash.cu sha256 $want, nvcc " <(head -n 1 "$ptx")
check "the build's check passes on the tree" sh "$chk" "$cu" "$ptx"

cp "$cu" "$WORK/gpu_hash.cu" && echo "// one more line" >>"$WORK/gpu_hash.cu"
out=$(sh "$chk" "$WORK/gpu_hash.cu" "$ptx" 2>&1)
rc=$?
diag "$out"
refused() { [ "$rc" = 1 ] && grep -q "make it again on a machine with nvcc" <<<"$out"; }
check "a changed .cu: the check fails and says to make the PTX again with nvcc" refused

nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
recorded=$(sed -n '1s/.*, nvcc \([0-9.]*\) .*/\1/p' "$ptx")
have=$("$nvcc" --version 2>/dev/null | sed -n 's/^Cuda compilation tools, release [0-9.]*, V\([0-9.]*\)$/\1/p')
if [ -n "$have" ] && [ "$have" = "$recorded" ]; then
	sh "$top_srcdir/scripts/gen-gpu-hash-ptx.sh" "$nvcc" "$cu" "$WORK/gpu_hash.ptx"
	check "nvcc $have makes the same PTX again" cmp "$ptx" "$WORK/gpu_hash.ptx"
else
	echo "ok 4 # SKIP no nvcc $recorded here (found: ${have:-none}): the PTX is not made again"
fi
done_testing

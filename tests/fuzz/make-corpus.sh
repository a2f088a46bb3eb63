#!/bin/bash
# make-corpus.sh - regenerate the manifest fuzzer's seed corpus (tests/fuzz/corpus) from real
# dumps: cuda-workload on the driver emulator, dumped by criu with the plugin, in several shapes
# (1, 2 and 4 GPUs, zero chunks, chunk sizes, driver-managed mode, a tree of CUDA processes).
# Each manifest cudastore-<pid>.img is copied as <scenario>[-<n>].img.
# Usage, as root, from a configured and built tree (make check builds the test programs):
#   top_srcdir=. top_builddir=. CRIU=/usr/local/sbin/criu PLUGIN_SO=./cudastore_plugin.so \
#       tests/fuzz/make-corpus.sh [OUTDIR]
. "$top_srcdir/tests/e2e/lib.sh"
OUT=${1:-$top_srcdir/tests/fuzz/corpus}
need_criu
setup_work
use_emulator
: >"$WORK/cudastore.conf"
export CUDASTORE_CONFIG=$WORK/cudastore.conf
mkdir -p "$OUT"

# scenario NAME "ENV=V ..." workload options...
scenario() {
	local name=$1 envs=$2 n=0 img; shift 2
	(
		# shellcheck disable=SC2086
		export CUDASTORE_EMU_DEVICES=1 $envs
		start_workload "$name" "$@"
		criu_dump "$WORK/$name" "$WPID" || { echo "make-corpus: dump $name failed" >&2; kill -9 "$WPID"; exit 1; }
	) || return 1
	for img in "$WORK/$name"/cudastore-*.img; do
		[ -e "$img" ] || { echo "make-corpus: $name wrote no manifest" >&2; return 1; }
		n=$((n + 1))
		cp "$img" "$OUT/$name$([ "$n" = 1 ] || echo "-$n").img"
	done
	echo "make-corpus: $name: $n manifest(s)"
}

scenario custom-1gpu-1m "" --buffers 2 --size 1m
scenario custom-1gpu-zero75 "" --buffers 2 --size 16m --zero-percent 75
scenario custom-1gpu-odd-size "" --buffers 3 --size 1000003
scenario custom-1gpu-chunk1m "CUDASTORE_CHUNK_MB=1" --buffers 2 --size 9m --zero-percent 30
scenario custom-1gpu-chunk64m "CUDASTORE_CHUNK_MB=64" --buffers 1 --size 70m
scenario custom-2gpu "CUDASTORE_EMU_DEVICES=2" --devices 2 --size 4m
scenario custom-4gpu "CUDASTORE_EMU_DEVICES=4" --devices 4 --size 2m --zero-percent 50
scenario custom-noskip "CUDASTORE_SKIP_ZERO=no" --buffers 2 --size 4m --zero-percent 50
scenario driver-1gpu "CUDASTORE_MODE=driver" --buffers 2 --size 1m
scenario driver-on-13000 "CUDASTORE_EMU_DRIVER_VERSION=13000" --size 1m
scenario tree-2cuda "CUDASTORE_EMU_DEVICES=2" --devices 2 --size 1m --fork-cuda 2 --fork-cpu 1
ls -l "$OUT"

#!/usr/bin/env bash
# make-gpu-artifacts.sh - collect everything the GPU-host suite needs into one folder
# (default out/gpu-artifacts): a relocatable CRIU bundle, the plugin, the workload and tools,
# and the suite itself. The GPU host needs nothing installed besides the NVIDIA driver.
set -euo pipefail
cd "$(dirname "$0")/.."
OUTDIR=${1:-out/gpu-artifacts}
scripts/setup-debian.sh
make -j"$(nproc)" tests/workload/cuda-workload tests/gpu/cs-driver-timing tests/e2e/cs-manifest-tool \
	bench/cs-bench bench/cs-hash-bench bench/cs-wire-bench cudastore-helper tests/emu/lib/libcuda.so.1 \
	tests/emu/lib/libnvidia-ml.so.1 >/dev/null
rm -rf "$OUTDIR" && mkdir -p "$OUTDIR/bin" "$OUTDIR/plugins"
scripts/provide-criu.sh --bundle "$OUTDIR/criu" >/dev/null
cp cudastore_plugin.so cudastore-helper "$OUTDIR/plugins/"
cp tests/workload/cuda-workload tests/gpu/cs-driver-timing tests/e2e/cs-manifest-tool bench/cs-bench bench/cs-hash-bench bench/cs-wire-bench "$OUTDIR/bin/"
cp tests/gpu/run-gpu-suite.sh bench/run-gpu-bench.sh bench/run-gpu-perf.sh bench/criu-overlap.sh "$OUTDIR/"
# the driver emulator: criu-overlap.sh measures whole criu restores with it (run-gpu-perf.sh)
mkdir -p "$OUTDIR/emu" && cp tests/emu/lib/libcuda.so.1 tests/emu/lib/libnvidia-ml.so.1 "$OUTDIR/emu/"
echo "GPU artifacts in $OUTDIR ($(du -sh "$OUTDIR" | cut -f1))"

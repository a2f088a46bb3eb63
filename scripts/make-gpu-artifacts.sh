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
	tests/emu/lib/libnvidia-ml.so.1 tests/gpu/cuda-checkpoint-standin cudastore >/dev/null
rm -rf "$OUTDIR" && mkdir -p "$OUTDIR/bin" "$OUTDIR/plugins"
# CRIU's own cuda plugin, for run-gpu-suite.sh's comparison (tree-4x4g), in a directory of its
# own: loaded together with cudastore it would claim every process first
scripts/provide-criu.sh --bundle "$OUTDIR/criu" --cuda-plugin "$OUTDIR/criu-cuda-plugin" >/dev/null
cp cudastore_plugin.so cudastore-helper "$OUTDIR/plugins/"
# the helper's libraries beyond glibc (json-c) travel with it: the GPU host installs nothing
command -v patchelf >/dev/null || apt-get install -y -qq --no-install-recommends patchelf >/dev/null
mkdir -p "$OUTDIR/plugins/lib"
for lib in $(ldd cudastore-helper | awk '/=> \//{print $3}' | grep -Ev '/lib(c|m|dl|pthread|rt)\.so'); do
	cp -L "$lib" "$OUTDIR/plugins/lib/"
done
patchelf --set-rpath '$ORIGIN/lib' "$OUTDIR/plugins/cudastore-helper"
# the cudastore command (inspect, verify, check --images) with its libraries (libarchive's too;
# not libxml2 and the 30 MB of ICU data it pulls in: the GPU host's own libxml2.so.2 serves)
for lib in $(ldd cudastore | awk '/=> \//{print $3}' | grep -Ev '/lib(c|m|dl|pthread|rt|xml2|icu[a-z]*|stdc\+\+|gcc_s)\.so'); do
	cp -Ln "$lib" "$OUTDIR/plugins/lib/" 2>/dev/null || true
done
cp cudastore "$OUTDIR/bin/"
patchelf --set-rpath '$ORIGIN/../plugins/lib' "$OUTDIR/bin/cudastore"
cp tests/workload/cuda-workload tests/gpu/cs-driver-timing tests/e2e/cs-manifest-tool bench/cs-bench bench/cs-hash-bench bench/cs-wire-bench "$OUTDIR/bin/"
# cs-bench's libraries beyond glibc (libcrypto, for --hash's chunk ids on the CPU) travel with it
for lib in $(ldd bench/cs-bench | awk '/=> \//{print $3}' | grep -Ev '/lib(c|m|dl|pthread|rt)\.so'); do
	cp -Ln "$lib" "$OUTDIR/plugins/lib/" 2>/dev/null || true
done
patchelf --set-rpath '$ORIGIN/../plugins/lib' "$OUTDIR/bin/cs-bench"
# the cuda-checkpoint stand-in CRIU's plugin runs (the suite puts it on PATH as cuda-checkpoint)
cp tests/gpu/cuda-checkpoint-standin "$OUTDIR/bin/"
# the CUDA IPC pair run-ipc-probe.sh checkpoints is a runtime-API program: nvcc, with cudart linked
# statically so that the GPU host needs nothing but its driver. Without nvcc the rest is packed.
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$NVCC" ]; then
	echo "make-gpu-artifacts: no nvcc (set NVCC): the IPC pair (bin/cuda-ipc-pair) was not built" >&2
elif "$NVCC" -O2 -cudart static -o tests/gpu/cuda-ipc-pair tests/gpu/cuda-ipc-pair.cu; then
	cp tests/gpu/cuda-ipc-pair "$OUTDIR/bin/"
else
	echo "make-gpu-artifacts: $NVCC failed: the IPC pair (bin/cuda-ipc-pair) was not built" >&2
fi
cp tests/gpu/run-ipc-probe.sh "$OUTDIR/"
cp tests/gpu/run-gpu-suite.sh tests/gpu/run-hash-bench.sh bench/run-gpu-bench.sh bench/run-gpu-perf.sh bench/criu-overlap.sh bench/tree-bench.sh \
	bench/bench-setup.sh "$OUTDIR/"
# the driver emulator: criu-overlap.sh measures whole criu restores with it (run-gpu-perf.sh)
mkdir -p "$OUTDIR/emu" && cp tests/emu/lib/libcuda.so.1 tests/emu/lib/libnvidia-ml.so.1 "$OUTDIR/emu/"
# runc end to end (tests/gpu/run-runc-gpu.sh): Debian's runc with its libseccomp beside it
# (RPATH $ORIGIN/lib, so that runc's re-executed init finds it too), and a container rootfs
# base: busybox-static plus Debian's loader and the libraries the workload and libcuda need.
if command -v runc >/dev/null && command -v busybox >/dev/null; then
	command -v patchelf >/dev/null || apt-get install -y -qq --no-install-recommends patchelf >/dev/null
	mkdir -p "$OUTDIR/runc/lib" "$OUTDIR/rootfs-base/bin"
	cp "$(command -v runc)" "$OUTDIR/runc/runc"
	cp -L "$(ldd "$(command -v runc)" | awk '/libseccomp/{print $3}')" "$OUTDIR/runc/lib/"
	patchelf --set-rpath '$ORIGIN/lib' "$OUTDIR/runc/runc"
	cp "$(command -v busybox)" "$OUTDIR/rootfs-base/bin/busybox"
	for a in sh cat sleep ls ps; do ln -sf busybox "$OUTDIR/rootfs-base/bin/$a"; done
	for lib in $(ldd tests/workload/cuda-workload | awk '/=> \//{print $3} /^\t\/lib/{print $1}') \
		/lib/x86_64-linux-gnu/libm.so.6 /lib/x86_64-linux-gnu/libdl.so.2 \
		/lib/x86_64-linux-gnu/libpthread.so.0 /lib/x86_64-linux-gnu/librt.so.1; do
		mkdir -p "$OUTDIR/rootfs-base$(dirname "$lib")"
		cp -L "$lib" "$OUTDIR/rootfs-base$lib"
	done
	mkdir -p "$OUTDIR/rootfs-base/proc" "$OUTDIR/rootfs-base/sys" "$OUTDIR/rootfs-base/dev" "$OUTDIR/rootfs-base/tmp"
	cp tests/gpu/run-runc-gpu.sh "$OUTDIR/"
else
	echo "make-gpu-artifacts: runc or busybox-static missing; run-runc-gpu.sh not packed" >&2
fi
echo "GPU artifacts in $OUTDIR ($(du -sh "$OUTDIR" | cut -f1))"

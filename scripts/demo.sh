#!/usr/bin/env bash
# demo.sh - set up a fresh Debian 12 machine with only what the demo needs (scripts/setup-build.sh:
# the build's packages, CRIU 4.2.1 from source, the build), then checkpoint and restore a GPU
# workload through CRIU with the cudastore plugin: on the real GPU when one is present, otherwise
# on the driver emulator. The workload verifies every byte of its GPU memory after the restore;
# timings and image sizes are printed, the images are checked with `cudastore verify` before the
# restore and shown with `cudastore inspect` at the end, and the demo's own time last of all.
# The test suite's set-up (scripts/setup-debian.sh: container runtimes, clang, crun, ...) is not
# needed here.
#
set -euo pipefail
DEMO_T0=$(date +%s.%N)

usage() {
	cat <<'USAGE'
Usage (as root): scripts/demo.sh [OPTION]...
Set up this Debian 12 machine with what the demo needs (the build's packages, CRIU 4.2.1, the
build: about 2-3 minutes the first time, seconds after), then checkpoint and restore a CUDA
workload through criu and the cudastore plugin: on the real GPU when one is present, else on
the bundled driver emulator. The workload verifies every byte of its GPU memory after restore.

  --size SIZE          size of each GPU buffer (default 256m)
  --buffers N          GPU buffers per GPU (default 2)
  --devices N          GPUs to use; emulated GPUs without a real one (default 1)
  --zero-percent P     share of all-zero chunks, which the images skip (default 50)
  --mode MODE          the plugin's mode: auto, custom or driver (default auto)
  --emulator           use the driver emulator even when a GPU is present
  --dir DIR            write the images (with dump.log and restore.log) to DIR and keep them
  --keep               keep the demo's whole work directory under /tmp: the images with
                       criu's logs, the plugin and helper criu loaded, the workload's output
  -h, --help           show this help
USAGE
}
cd "$(dirname "$0")/.."
TOP=$PWD

SIZE=256m BUFFERS=2 DEVICES=1 ZERO=50 DIR= FORCE_EMU= MODE=auto KEEP=
while [ $# -gt 0 ]; do
	case "$1" in
	--size) SIZE=$2; shift 2 ;;
	--buffers) BUFFERS=$2; shift 2 ;;
	--devices) DEVICES=$2; shift 2 ;;
	--zero-percent) ZERO=$2; shift 2 ;;
	--dir) DIR=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--emulator) FORCE_EMU=1; shift ;;
	--mode) MODE=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "demo: unknown argument '$1' (scripts/demo.sh --help lists the options)" >&2; exit 2 ;;
	esac
done

# what the demo runs, and nothing else: the plugin, its helper and the command, the driver
# emulator and the workload (check programs)
scripts/setup-build.sh cudastore_plugin.so cudastore-helper cudastore tests/emu/lib/libcuda.so.1 \
	tests/emu/lib/libnvidia-ml.so.1 tests/workload/cuda-workload
SETUP_S=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $DEMO_T0}")
echo "demo: set-up done in $SETUP_S s"

CRIU=/usr/local/sbin/criu
WORK=$(mktemp -d /tmp/cudastore-demo.XXXXXX)
IMG=${DIR:-$WORK/images}
pid=
# whatever ends the demo: the workload is killed, the work directory removed unless kept, and
# the demo's own time printed last
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	if [ -n "$DIR" ]; then
		rm -rf "$WORK"
		echo "demo: the images are kept in $IMG"
	elif [ -n "$KEEP" ]; then
		echo "demo: everything is kept in $WORK (--keep); remove it when done:"
		echo "    $IMG: the images, with criu's dump.log and restore.log"
		echo "    $WORK/plugins: the plugin and helper criu loaded (-L)"
		echo "    $WORK/workload.out, workload.err, out: the workload's output and its verdict"
	else
		rm -rf "$WORK"
		echo "demo: the images in $IMG were removed (--keep or --dir DIR keeps them)"
	fi
	echo "demo: $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $DEMO_T0}") s in all ($SETUP_S s of set-up)"
	true
}
trap cleanup EXIT
mkdir -p "$IMG" "$WORK/plugins"
cp cudastore_plugin.so cudastore-helper "$WORK/plugins/"
export CUDASTORE_MODE=$MODE

if [ -z "$FORCE_EMU" ] && ls /dev/nvidia0 >/dev/null 2>&1 && ldconfig -p | grep -q 'libcuda.so.1 '; then
	echo "demo: NVIDIA GPU found: using the real driver"
else
	echo "demo: no NVIDIA GPU here: using cudastore's driver emulator (CUDA 13.4 behaviour, $DEVICES emulated GPU(s))"
	export CUDASTORE_LIBCUDA=$TOP/tests/emu/lib/libcuda.so.1
	export CUDASTORE_LIBNVML=$TOP/tests/emu/lib/libnvidia-ml.so.1
	export CUDASTORE_EMU_DEVICES=$DEVICES
fi

tests/workload/cuda-workload --daemon --devices "$DEVICES" --buffers "$BUFFERS" --size "$SIZE" \
	--zero-percent "$ZERO" --pidfile "$WORK/pid" --ready "$WORK/ready" --outfile "$WORK/out" \
	>"$WORK/workload.out" 2>"$WORK/workload.err" </dev/null
for i in $(seq 600); do [ -e "$WORK/ready" ] && break; sleep 0.1; done
[ -e "$WORK/ready" ] || { echo "demo: workload did not start:"; cat "$WORK/workload.err"; exit 1; }
pid=$(cat "$WORK/pid")
echo "demo: workload pid $pid: $DEVICES GPU(s) x $BUFFERS buffers x $SIZE, $ZERO% zeros, filled and running"

t0=$(date +%s.%N)
if ! "$CRIU" dump -t "$pid" -D "$IMG" -o dump.log -v4 -L "$WORK/plugins"; then
	echo "demo: dump FAILED; log:"; grep -E 'Error|cudastore' "$IMG/dump.log" | tail -n 30; exit 1
fi
t1=$(date +%s.%N)
echo "demo: criu dump done in $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s; plugin log:"
grep 'cudastore:' "$IMG/dump.log" | sed 's/^.*cudastore:/    /'
echo "demo: images in $IMG:"
ls -ls "$IMG" | grep -v '^total' | awk '{printf "    %-34s %12d bytes, %10d allocated\n", $NF, $6, $1*1024}'
# criu restores the process under its old pid: it must be free (the dump killed the process)
echo "demo: waiting until pid $pid is free: criu restores the process under the same pid"
for i in $(seq 200); do [ -d "/proc/$pid" ] || break; sleep 0.05; done

echo "demo: cudastore verify $IMG (what a restore checks, without touching a GPU):"
./cudastore verify "$IMG" | sed 's/^/    /'

t0=$(date +%s.%N)
if ! "$CRIU" restore -d -D "$IMG" -o restore.log -v4 -L "$WORK/plugins"; then
	echo "demo: restore FAILED; log:"; grep -E 'Error|cudastore' "$IMG/restore.log" | tail -n 30; exit 1
fi
t1=$(date +%s.%N)
echo "demo: criu restore done in $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s; plugin log:"
grep 'cudastore:' "$IMG/restore.log" | sed 's/^.*cudastore:/    /'

sleep 0.5
kill -TERM "$pid"
for i in $(seq 600); do [ -s "$WORK/out" ] && break; sleep 0.1; done
verdict=$(head -n1 "$WORK/out" 2>/dev/null || echo "no verdict")
pid=
echo "demo: workload verified every byte of its GPU memory after restore: $verdict"
echo "demo: cudastore inspect $IMG:"
./cudastore inspect "$IMG" | sed 's/^/    /'
[ "$verdict" = PASS ]

#!/usr/bin/env bash
# demo.sh - set up a fresh Debian 12 machine (packages, CRIU from source, build), then
# checkpoint and restore a GPU workload through CRIU with the cudastore plugin: on the real
# GPU when one is present, otherwise on the driver emulator. The workload verifies every byte
# of its GPU memory after the restore; timings and image sizes are printed, the images are
# checked with `cudastore verify` before the restore and shown with `cudastore inspect` at the end.
#
# Usage (as root): scripts/demo.sh [--size 256m] [--buffers 2] [--devices 1] [--zero-percent 50]
#                                  [--dir DIR] [--keep] [--emulator] [--mode auto|custom|driver]
#   --dir DIR  write the images to DIR (kept)
#   --keep     keep the images (and the plugin log) in the temporary directory after the demo
set -euo pipefail
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
	-h|--help) sed -n '2,12p' "$0"; exit 0 ;;
	*) echo "demo: unknown argument $1" >&2; exit 2 ;;
	esac
done

scripts/setup-debian.sh
make -j"$(nproc)" cudastore tests/emu/lib/libcuda.so.1 tests/emu/lib/libnvidia-ml.so.1 tests/workload/cuda-workload >/dev/null

CRIU=/usr/local/sbin/criu
WORK=$(mktemp -d /tmp/cudastore-demo.XXXXXX)
IMG=${DIR:-$WORK/images}
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

pid=
cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	if [ -n "$DIR" ]; then
		rm -rf "$WORK"
		echo "demo: the images are kept in $IMG"
	elif [ -n "$KEEP" ]; then
		echo "demo: the images are kept in $IMG (--keep); remove $WORK when done"
	else
		rm -rf "$WORK"
		echo "demo: the images in $IMG were removed (--keep or --dir DIR keeps them)"
	fi
	true
}
trap cleanup EXIT

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

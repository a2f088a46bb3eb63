#!/usr/bin/env bash
# check-images-time.sh - how long `cudastore check --images` takes to answer "can this host
# restore these images, onto which GPUs" for a tree of 4 CUDA processes (the root and 3 children,
# each on every GPU) dumped on an 8-GPU emulated host: 32 GPU facts to read, 8 checkpointed GPUs
# to place. The tree is dumped once through real criu; then the check runs RUNS times on the same
# host. Prints each run's wall and CPU time and verdict, then the medians and the slowest run
# beside the limit (1 s), from the same runs; exits 1 when the median wall time is over the limit
# or a verdict is not "restore" (the slowest run is shown: on a loaded machine one run may wait
# for a CPU far longer than it works). Usage (as root, from a built tree):
#
#   bench/check-images-time.sh [--runs 10] [--limit 1.0] [--size 4m] [--criu PATH]
#
# The driver emulator of tests/emu (CUDASTORE_EMU_DEVICES=8); the check reads the manifests and
# stats the extents, never their bytes, so the GPU memory's size barely counts. Most of the CPU
# time is the emulated NVML's own: it finds each GPU's memory in use by reading every process's
# /proc/PID/maps, once per GPU.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
RUNS=10 LIMIT=1.0 SIZE=4m CRIU=${CRIU:-/usr/local/sbin/criu}
PLUGINS= REAL=0 WORKLOAD=$top/tests/workload/cuda-workload EMU=$top/tests/emu/lib
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) RUNS=$2 ;; --limit) LIMIT=$2 ;; --size) SIZE=$2 ;; --criu) CRIU=$2 ;;
	-h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "check-images-time: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift 2
done
[ "$(id -u)" = 0 ] || { echo "check-images-time: needs root (criu)" >&2; exit 2; }
CS=$top/cudastore
[ -x "$CS" ] || { echo "check-images-time: $CS not built (make)" >&2; exit 2; }
TMP=$(mktemp -d /tmp/cudastore-check-images-time.XXXXXX)
TREE=
trap 'for p in $TREE; do kill -9 "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
. "$here/bench-setup.sh"
export CUDASTORE_CONFIG=$TMP/cs.conf CUDASTORE_EMU_DEVICES=8
# UUIDs of this bench: the emulated NVML counts every process's memory on a UUID, host-wide
CUDASTORE_EMU_UUIDS=$(for i in 0 1 2 3 4 5 6 7; do printf 'GPU-c4ec7153-0000-4000-8000-00000000000%d,' "$i"; done)
export CUDASTORE_EMU_UUIDS=${CUDASTORE_EMU_UUIDS%,}
: >"$CUDASTORE_CONFIG"
chmod 600 "$CUDASTORE_CONFIG"

"$WORKLOAD" --daemon --pidfile "$TMP/w.pid" --ready "$TMP/w.ready" --outfile "$TMP/w.out" \
	--devices 8 --size "$SIZE" --buffers 1 --fork-cuda 3 >/dev/null 2>"$TMP/w.err" </dev/null
for _ in $(seq 600); do [ -e "$TMP/w.ready" ] && break; sleep 0.1; done
[ -e "$TMP/w.ready" ] || { echo "check-images-time: workload did not start: $(tail -n2 "$TMP/w.err")" >&2; exit 1; }
WPID=$(cat "$TMP/w.pid")
sleep 0.5
TREE="$WPID $(cat /proc/"$WPID"/task/*/children)"
mkdir -p "$TMP/img"
if ! "$CRIU" dump -t "$WPID" -D "$TMP/img" -o dump.log -v4 -L "$PLUGINS" >/dev/null 2>&1; then
	echo "check-images-time: criu dump failed (see $TMP/img/dump.log)" >&2
	exit 1
fi
n=$(ls "$TMP/img" | grep -c '^cudastore-[0-9]*\.img$')

echo "# check --images on an 8-GPU emulated host: $n processes, each on 8 GPUs ($(nproc) CPUs," \
	"load average $(cut -d' ' -f1 /proc/loadavg))"
bad=0
TIMEFORMAT='%R %U %S'
for r in $(seq "$RUNS"); do
	{ time "$CS" check --images "$TMP/img" --json >"$TMP/out.json" 2>"$TMP/out.err"; } 2>"$TMP/t"
	rc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["exit_code"])' "$TMP/out.json" 2>/dev/null)
	v=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["images"]["verdict"])' "$TMP/out.json" 2>/dev/null)
	[ "${rc:-}/${v:-}" = 0/restore ] || bad=$((bad + 1))
	read -r wall user sys <"$TMP/t"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
	echo "run $r: $wall s wall, $cpu s CPU, exit ${rc:-?}, verdict ${v:-none}"
	echo "$wall" >>"$TMP/wall"
	echo "$cpu" >>"$TMP/cpu"
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
wall=$(median "$TMP/wall") cpu=$(median "$TMP/cpu") slowest=$(sort -g "$TMP/wall" | tail -n1)
within=$(awk -v s="$wall" -v l="$LIMIT" 'BEGIN { print (s <= l) ? "within" : "OVER" }')
echo "check --images, $n processes on 8 GPUs: median $wall s wall ($cpu s CPU), slowest $slowest s;" \
	"limit $LIMIT s: $within"
[ "$within" = within ] && [ "$bad" = 0 ]

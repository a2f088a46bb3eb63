#!/usr/bin/env bash
# run-gpu-suite.sh - end-to-end checkpoint/restore of real CUDA processes through CRIU and the
# cudastore plugin on an NVIDIA host. Needs only prebuilt artifacts (scripts/make-gpu-artifacts.sh)
# and root; nothing is installed on the host.
#
#   run-gpu-suite.sh [--artifacts DIR] [--images DIR] [--sizes "1g 16g 64g"] [--out FILE] [--sizes-only]
#
# Every scenario verifies every byte of the workload's GPU memory after restore and that the
# workload keeps running (it checks windows of its memory every ~100 ms while alive).
# Prints a table (scenario, size, mode, dump s, restore s, GPU phase s, GB/s, result) and
# writes it to --out. Scenarios the driver cannot support are SKIPPED with the reason, never
# reported as passed.
set -uo pipefail
ART=$(cd "$(dirname "$0")" && pwd)
IMGBASE=/dev/shm/cudastore-gpu
SIZES="1g 16g 64g"
OUTFILE=$PWD/gpu-results.txt
EXTRAS=1
while [ $# -gt 0 ]; do
	case "$1" in
	--artifacts) ART=$2; shift 2 ;;
	--images) IMGBASE=$2; shift 2 ;;
	--sizes) SIZES=$2; shift 2 ;;
	--out) OUTFILE=$2; shift 2 ;;
	--sizes-only) EXTRAS=0; shift ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done
CRIU=$ART/criu/criu
PLUGINS=$ART/plugins
W=$ART/bin/cuda-workload
TMP=$(mktemp -d /tmp/cudastore-gpu.XXXXXX)
mkdir -p "$IMGBASE"
ROWS=()
FAILS=0
PIDS=
CRIU_LIMIT=${CRIU_LIMIT:-900} # seconds per criu call: a hang fails its scenario, not the suite
RESTORE_OPTS=()
trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$TMP"' EXIT

log() { echo "[$(date +%T)] $*" >&2; }
row() { ROWS+=("$(printf '%-34s %7s %-7s %8s %9s %8s %7s  %s' "$@")"); log "RESULT: $*"; [[ "$8" == PASS* || "$8" == SKIP* ]] || FAILS=$((FAILS + 1)); }
now() { date +%s.%N; }
dt() { awk "BEGIN{printf \"%.2f\", $2 - $1}"; }
bytes_of() { numfmt --from=iec "${1^^}" 2>/dev/null || echo 0; }
wait_gone() { for i in $(seq 400); do [ -d "/proc/$1" ] || return 0; sleep 0.05; done; return 1; }
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
gpu_phase() { sed -n "s/.*pid $2: GPU $3 done in \([0-9.]*\) s.*/\1/p" "$1" | head -n1; }

if command -v nvidia-smi >/dev/null; then
	DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1)
	NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
else # dry run on the driver emulator (CUDASTORE_LIBCUDA set)
	DRIVER="emulated-${CUDASTORE_EMU_DRIVER_VERSION:-13040}"
	NGPU=${CUDASTORE_EMU_DEVICES:-1}
fi
"$CRIU" check >/dev/null 2>&1 || { echo "criu check failed on this host"; exit 1; }

start() { # start NAME [workload args]: sets WPID
	local n=$1; shift
	rm -f "$TMP/$n".*
	"$W" --daemon --pidfile "$TMP/$n.pid" --ready "$TMP/$n.ready" --outfile "$TMP/$n.out" "$@" >"$TMP/$n.stdout" 2>"$TMP/$n.err" </dev/null
	for i in $(seq 1800); do [ -e "$TMP/$n.ready" ] && break; sleep 0.1; done
	[ -e "$TMP/$n.ready" ] || { log "workload $n did not start: $(tail -n3 "$TMP/$n.err")"; WPID=; return 1; }
	WPID=$(cat "$TMP/$n.pid"); PIDS="$PIDS $WPID"
}
verdict() { # verdict NAME PID
	kill -TERM "$2" 2>/dev/null
	for i in $(seq 3000); do [ -s "$TMP/$1.out" ] && break; sleep 0.1; done
	head -n1 "$TMP/$1.out" 2>/dev/null || echo "no verdict"
}

# roundtrip NAME SIZE MODE-EXPECTED [dump opts] -- [workload args]
roundtrip() {
	local name=$1 size=$2 expect=$3; shift 3
	local dopts=() wargs=() img=$IMGBASE/$name t0 t1 t2 d r gd gr v gbs
	while [ $# -gt 0 ] && [ "$1" != -- ]; do dopts+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	wargs=("$@")
	rm -rf "$img"; mkdir -p "$img"
	start "$name" --size "$size" "${wargs[@]}" || { row "$name" "$size" "$expect" - - - - "FAIL: workload did not start"; return; }
	t0=$(now)
	timeout -k 5 "$CRIU_LIMIT" "$CRIU" dump -t "$WPID" -D "$img" -o dump.log -v4 -L "$PLUGINS" "${dopts[@]}" >/dev/null 2>&1
	local rc=$?; t1=$(now)
	if [ $rc != 0 ]; then
		row "$name" "$size" "$expect" "$(dt $t0 $t1)" - - - "FAIL: dump: $(grep -m1 'Error' "$img/dump.log")"
		kill -9 "$WPID"; return
	fi
	if ! grep -q "pid $WPID .*mode $expect" "$img/dump.log"; then
		row "$name" "$size" "$expect" "$(dt $t0 $t1)" - - - "FAIL: plugin did not choose $expect"
		kill -9 "$WPID"; return
	fi
	gd=$(gpu_phase "$img/dump.log" "$WPID" checkpoint)
	wait_gone "$WPID"
	local td=$(dt $t0 $t1)
	t1=$(now)
	timeout -k 5 "$CRIU_LIMIT" "$CRIU" restore -d -D "$img" -o restore.log -v4 -L "$PLUGINS" "${RESTORE_OPTS[@]}" >/dev/null 2>&1
	rc=$?; t2=$(now)
	[ $rc = 124 ] || [ $rc = 137 ] && log "$name: criu restore hung; killed after ${CRIU_LIMIT} s"
	gr=$(gpu_phase "$img/restore.log" "$WPID" restore)
	local notstopped=
	if [ "${#RESTORE_OPTS[@]}" -gt 0 ] && [ "${RESTORE_OPTS[0]}" = -s ]; then
		sleep 1
		grep -q '^State:.*T' "/proc/$WPID/status" 2>/dev/null || notstopped=1
		kill -CONT "$WPID" 2>/dev/null
	fi
	sleep 1
	v=$(verdict "$name" "$WPID")
	[ $rc = 0 ] || v="FAIL: restore rc $rc; $v"
	[ -z "$notstopped" ] || v="FAIL: not stopped after restore -s; $v"
	gbs=$(awk -v b="$(bytes_of "$size")" -v n="${NBUF:-1}" -v t="${gd:-0}" 'BEGIN{ if (t > 0) printf "%.2f", b * n / t / 1e9; else print "-" }')
	row "$name" "$size" "$expect" "$td" "$(dt $t1 $t2)" "${gd:-?}/${gr:-?}" "$gbs" "$v"
	du -sh "$img" >&2
	rm -rf "$img"
}

log "host: $(nvidia-smi -L 2>/dev/null | head -n2 | tr '\n' ' '); driver $DRIVER; $(nproc) CPUs; $(free -g | awk '/Mem/{print $2}') GiB RAM"
log "images in $IMGBASE ($(df -h "$IMGBASE" | awk 'NR==2{print $4}') free)"

# 1. one process, sizes (driver-managed on drivers without CustomStorage: auto picks it)
MODE=driver-managed
for s in $SIZES; do
	need=$(( $(bytes_of "$s") * 2 ))
	free=$(df -B1 --output=avail "$IMGBASE" | tail -n1)
	mem=$(awk '/MemAvailable/{print $2*1024}' /proc/meminfo)
	if [ "$need" -gt "$free" ] || [ "$need" -gt "$mem" ]; then
		row "one-process" "$s" "$MODE" - - - - "SKIPPED: needs ~$((need >> 30)) GiB host RAM and images space, have $((mem >> 30)) / $((free >> 30))"
		continue
	fi
	NBUF=1 roundtrip "one-process-$s" "$s" "$MODE" -- --buffers 1
done

if [ "$EXTRAS" = 1 ]; then
# 2. a tree: two CUDA processes and a CPU-only child
roundtrip "tree-2cuda-1cpu" 1g "$MODE" -- --buffers 1 --fork-cuda 1 --fork-cpu 1

# 3. --leave-running, then the process keeps computing correctly
name=leave-running; img=$IMGBASE/$name; rm -rf "$img"; mkdir -p "$img"
if start $name --size 2g --buffers 1; then
	t0=$(now); "$CRIU" dump -t "$WPID" -D "$img" -o dump.log -v4 -L "$PLUGINS" --leave-running >/dev/null 2>&1; rc=$?; t1=$(now)
	sleep 2
	if [ $rc = 0 ] && kill -0 "$WPID" && [ ! -s "$TMP/$name.out" ]; then v=$(verdict $name "$WPID"); else v="FAIL: rc $rc"; fi
	row "$name" 2g "$MODE" "$(dt $t0 $t1)" - "$(gpu_phase "$img/dump.log" "$WPID" checkpoint)/-" - "$v"
	rm -rf "$img"
fi

# 3b. signals throughout dump and restore: a 1 ms ITIMER_REAL with a SIGALRM handler (the
# workload fails unless it still ticks after restore); then restore -s, whose SIGSTOP is queued
# before the GPU restore; then a seccomp filter denying sched_yield (must survive, and apply to
# the driver's thread while it works for criu)
NBUF=1 roundtrip "itimer-1ms" 1g "$MODE" -- --buffers 1 --itimer-us 1000
RESTORE_OPTS=(-s)
NBUF=1 roundtrip "itimer-1ms-restore-stopped" 1g "$MODE" -- --buffers 1 --itimer-us 1000
RESTORE_OPTS=()
NBUF=1 roundtrip "seccomp-filter" 1g "$MODE" -- --buffers 1 --seccomp-deny-yield

# 4. one process using two GPUs
if [ "$NGPU" -ge 2 ]; then
	roundtrip "two-gpus" 4g "$MODE" -- --devices 2 --buffers 1
else
	row "two-gpus" - - - - - - "SKIPPED: host has $NGPU GPU"
fi

# 5. custom mode is refused before the lock; the process keeps running
name=custom-refused; img=$IMGBASE/$name; rm -rf "$img"; mkdir -p "$img"
if start $name --size 1g --buffers 1; then
	CUDASTORE_MODE=custom "$CRIU" dump -t "$WPID" -D "$img" -o dump.log -v4 -L "$PLUGINS" >/dev/null 2>&1; rc=$?
	if [ $rc != 0 ] && grep -q "mode=custom but driver CUDA .* lacks CustomStorage" "$img/dump.log" && ! grep -q "locked in" "$img/dump.log"; then
		v=$(verdict $name "$WPID")
	else
		v="FAIL: rc $rc (custom mode was not refused before the lock)"
	fi
	row "$name" 1g custom - - - - "$v"
	rm -rf "$img"
fi

# 6. CustomStorage scenarios need a 13.4 driver
read -r _ DRV_API _ HAS_CS < <("$ART/bin/cs-driver-timing" --version 2>/dev/null || echo "driver 0 custom_storage 0")
if [ "${HAS_CS:-0}" = 1 ]; then
	for s in $SIZES; do NBUF=1 roundtrip "custom-$s" "$s" CustomStorage -- --buffers 1; done
	NBUF=1 roundtrip "custom-zero75-4g" 4g CustomStorage -- --buffers 1 --zero-percent 75
else
	row "custom-storage (all sizes)" - CustomStorage - - - - "SKIPPED: driver $DRIVER (CUDA ${DRV_API:-?}) lacks CustomStorage (needs 13.4 / R615+)"
fi

# 7. a corrupted manifest is refused and the process does not run with wrong data
name=corrupt; img=$IMGBASE/$name; rm -rf "$img"; mkdir -p "$img"
if start $name --size 1g --buffers 1; then
	"$CRIU" dump -t "$WPID" -D "$img" -o dump.log -v4 -L "$PLUGINS" >/dev/null 2>&1
	wait_gone "$WPID"
	m=$img/cudastore-$WPID.img
	printf '\xff' | dd of="$m" bs=1 seek=20 conv=notrunc 2>/dev/null
	"$CRIU" restore -d -D "$img" -o restore.log -v4 -L "$PLUGINS" >/dev/null 2>&1
	sleep 1
	if grep -q "images .* are unusable" "$img/restore.log" && ! alive "$WPID"; then v=PASS
	else v="FAIL: corrupt manifest not refused: $(grep -m2 -E 'Error|cudastore: pid' "$img/restore.log" | tr '\n' ' ')"; fi
	cp "$img/restore.log" "${OUTFILE%/*}/corrupt-restore.log" 2>/dev/null
	row "$name" 1g "$MODE" - - - - "$v"
	rm -rf "$img"
fi

# 8. the driver's own calls on the same workload, no CRIU: the plugin's overhead reference
name=driver-only
if start $name --size 16g --buffers 1; then
	"$ART/bin/cs-driver-timing" "$WPID" > "$TMP/timing" 2>&1
	v=$(verdict $name "$WPID")
	c=$(awk '$1=="checkpoint"{print $2}' "$TMP/timing"); r=$(awk '$1=="restore"{print $2}' "$TMP/timing")
	row "driver-calls-only (no CRIU)" 16g driver - - "${c:-?}/${r:-?}" "$(awk -v t="${c:-0}" 'BEGIN{if(t>0) printf "%.2f", 16*1073741824/t/1e9; else print "-"}')" "$v"
fi

fi # EXTRAS

{
	echo "cudastore GPU suite: $(date -u +%FT%TZ), driver $DRIVER, $NGPU GPU(s), images in $IMGBASE"
	printf '%-34s %7s %-7s %8s %9s %8s %7s  %s\n' scenario size mode "dump s" "restore s" "GPU c/r s" "GB/s" result
	printf '%s\n' "${ROWS[@]}"
} | tee "$OUTFILE"
[ "$FAILS" = 0 ]

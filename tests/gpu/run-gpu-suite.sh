#!/usr/bin/env bash
# run-gpu-suite.sh - end-to-end checkpoint/restore of real CUDA processes through CRIU and the
# cudastore plugin on an NVIDIA host. Needs only prebuilt artifacts (scripts/make-gpu-artifacts.sh)
# and root; nothing is installed on the host.
#
#   run-gpu-suite.sh [--artifacts DIR] [--images DIR] [--sizes "1g 16g 64g"] [--out FILE] [--sizes-only]
#                    [--tree-only] [--tree-size 4g] [--tree-runs 2] [--robust-only] [--ipc-only]
#                    [--travel-only]
#
# tree-4x4g (also alone with --tree-only): a tree of 4 CUDA processes of --tree-size each and a
# CPU child, dumped and restored --tree-runs times with cudastore and as often with CRIU's own
# cuda plugin (artifacts' criu-cuda-plugin/, running bin/cuda-checkpoint-standin as
# cuda-checkpoint), alternating; it prints both whole commands and cudastore's GPU phase wall
# time against the processes' summed times beside the targets (<= 0.35 checkpoint, <= 0.4 restore).
#
# robust (also alone with --robust-only): failures that must neither lose nor hang anything.
#   progress-op-timeout-2s: a 16 GiB driver-managed dump and restore with op_timeout_s = 2; the
#   driver's calls take several times that, and must be seen moving (the plugin's debug lines
#   give the driver thread's CPU time and resident memory every 2 s), so both succeed.
#   ipc-pair-refused: a CUDA IPC pair (bin/cuda-ipc-pair: the exporter and the importer it forked)
#   on a driver before branch 610 is refused before anything is locked; both run on and verify.
#   ipc-pair-leave-running: the same pair dumped with old_driver_trees = allow and --leave-running:
#   the importer, which the driver can never restore, is ended with the reason (not left hung),
#   criu exits 0, the exporter runs on and verifies.
#   helper-killed-tree: cudastore-helper SIGKILLed in the middle of a tree's GPU phase (4 CUDA
#   processes of 2 GiB and a CPU-only child, old_driver_trees = allow): a new helper brings all
#   back, each CUDA child and the CPU-only child run on, the root verifies every byte.
#
# Every scenario verifies every byte of the workload's GPU memory after restore and that the
# workload keeps running (it checks windows of its memory every ~100 ms while alive).
# Prints a table (scenario, size, mode, dump s, restore s, GPU phase s, GB/s, result) and
# writes it to --out. Scenarios the driver cannot support are SKIPPED with the reason, never
# reported as passed.
set -uo pipefail
# The suite adopts the workloads it orphans (PR_SET_CHILD_SUBREAPER, kept across exec), so that a
# tree criu killed is reaped and its pids are free for the restore even where pid 1 reaps nothing.
if [ -z "${CS_SUITE_SUBREAPER:-}" ] && command -v python3 >/dev/null; then
	CS_SUITE_SUBREAPER=1 exec python3 -c 'import ctypes, os, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)
os.execv(sys.argv[1], sys.argv[1:])' "$BASH" "$0" "$@"
fi
ART=$(cd "$(dirname "$0")" && pwd)
IMGBASE=/dev/shm/cudastore-gpu
SIZES="1g 16g 64g"
OUTFILE=$PWD/gpu-results.txt
EXTRAS=1
SIZED=1
TREE=1
TREE_SIZE=${TREE_SIZE:-4g}
TREE_RUNS=${TREE_RUNS:-2}
ROBUST=1
while [ $# -gt 0 ]; do
	case "$1" in
	--artifacts) ART=$2; shift 2 ;;
	--images) IMGBASE=$2; shift 2 ;;
	--sizes) SIZES=$2; shift 2 ;;
	--out) OUTFILE=$2; shift 2 ;;
	--sizes-only) EXTRAS=0; TREE=0; ROBUST=0; shift ;;
	--tree-only) EXTRAS=0; SIZED=0; TREE=1; ROBUST=0; shift ;;
	--robust-only) EXTRAS=0; SIZED=0; TREE=0; ROBUST=1; shift ;;
	--ipc-only) EXTRAS=0; SIZED=0; TREE=0; ROBUST=ipc; shift ;;
	--travel-only) EXTRAS=0; SIZED=0; TREE=0; ROBUST=travel; shift ;;
	--tree-size) TREE_SIZE=$2; shift 2 ;;
	--tree-runs) TREE_RUNS=$2; shift 2 ;;
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
	NO_GPU=
else # dry run on the driver emulator (CUDASTORE_LIBCUDA set)
	NO_GPU=1
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
	[ -n "${IMGKEEP:-}" ] || rm -rf "$img"
}

log "host: $(nvidia-smi -L 2>/dev/null | head -n2 | tr '\n' ' '); driver $DRIVER; $(nproc) CPUs; $(free -g | awk '/Mem/{print $2}') GiB RAM"
log "images in $IMGBASE ($(df -h "$IMGBASE" | awk 'NR==2{print $4}') free)"

# 1. one process, sizes (driver-managed on drivers without CustomStorage: auto picks it)
MODE=driver-managed
[ "$SIZED" = 1 ] || SIZES=
for s in $SIZES; do
	need=$(( $(bytes_of "$s") * 2 ))
	free=$(df -B1 --output=avail "$IMGBASE" | tail -n1)
	mem=$(awk '/MemAvailable/{printf "%.0f", $2 * 1024}' /proc/meminfo)
	if [ "$need" -gt "$free" ] || [ "$need" -gt "$mem" ]; then
		row "one-process" "$s" "$MODE" - - - - "SKIPPED: needs ~$((need >> 30)) GiB host RAM and images space, have $((mem >> 30)) / $((free >> 30))"
		continue
	fi
	NBUF=1 roundtrip "one-process-$s" "$s" "$MODE" -- --buffers 1
done

if [ "$EXTRAS" = 1 ]; then
# 2. a tree: two CUDA processes and a CPU-only child
# (its two CUDA processes share no memory: allowed on a driver before branch 610)
CUDASTORE_OLD_DRIVER_TREES=allow roundtrip "tree-2cuda-1cpu" 1g "$MODE" -- --buffers 1 --fork-cuda 1 --fork-cpu 1

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

# 9. tree-4x4g: a tree of 4 CUDA processes (root + 3 children) and a CPU child, dumped and restored
# with cudastore and with CRIU's own cuda plugin, alternating, on the same tree shape
TREE_NCUDA=4
CUDA_PLUGIN_DIR=$ART/criu-cuda-plugin
STANDIN=$ART/bin/cuda-checkpoint-standin
TREE_ROWS=()
TREE_LOGS=${OUTFILE%/*}

tree_pids() { echo "$1" $(cat /proc/"$1"/task/*/children 2>/dev/null); }
# the first pid of the list still in /proc, if any (a zombie keeps its pid until it is reaped)
first_left() { local p; for p in "$@"; do wait_gone "$p" || { echo "$p"; return; }; done; }

# cudastore's own line for a batch: "WALL SUM" of its GPU checkpoint|restore phase
cs_batch() {
	sed -n "s/.*GPU $2 phase of $TREE_NCUDA processes.*: \([0-9.]*\) s wall, \([0-9.]*\) s summed.*/\1 \2/p" "$1" | tail -n1
}

# CRIU's cuda plugin logs no times of its own. Each process's GPU work runs from the plugin's
# line matching RE for that pid to the next line of criu's log (its cuda-checkpoint runs log
# nothing when they succeed). Prints "PROCESSES WALL SUM": first start to last end, and the sum.
criu_cuda_phase() {
	awk -v re="$2" '
	!match($0, /^\([0-9]+\.[0-9]+\)/) { next }
	{ t = substr($0, 2, RLENGTH - 2) + 0 }
	open && $0 !~ /Restore thread pid/ { sum += t - t0; last = t; open = 0 }
	$0 ~ re { if (!n++) first = t; t0 = t; open = 1 }
	END { if (n && !open) printf "%d %.3f %.3f\n", n, last - first, sum }' "$1"
}

# tree_phase WHICH LOG checkpoint|restore: "WALL SUM" of the GPU phase, or nothing
tree_phase() {
	local n w s
	if [ "$1" = cudastore ]; then
		cs_batch "$2" "$3"
		return
	fi
	if [ "$3" = checkpoint ]; then
		read -r n w s < <(criu_cuda_phase "$2" 'cuda_plugin: Checkpointing CUDA devices on pid')
	else
		read -r n w s < <(criu_cuda_phase "$2" 'cuda_plugin: resuming devices on pid')
	fi
	[ "${n:-0}" = "$TREE_NCUDA" ] && echo "$w $s"
}

# tree_row WHICH RUN DUMP RESTORE "CKWALL CKSUM" "RSWALL RSSUM" RESULT
tree_row() {
	TREE_ROWS+=("$1|$2|$3|$4|$5|$6|$7")
	row "tree-4x4g $1 #$2" "${TREE_NCUDA}x$TREE_SIZE" "$MODE" "$3" "$4" "${5%% *}/${6%% *}" - "$7"
}

# tree_fail WHICH RUN DUMP WHY: the run stops here; the tree is killed
tree_fail() {
	local p
	for p in $TPIDS; do kill -9 "$p" 2>/dev/null; done
	tree_row "$1" "$2" "$3" - - - "FAIL: $4"
}

# tree_run cudastore|criu-cuda RUN
tree_run() {
	local which=$1 run=$2 img=$IMGBASE/tree-4x4g plugdir=$PLUGINS env=() t0 t1 t2 rc td ck rs left v
	if [ "$which" = criu-cuda ]; then
		plugdir=$CUDA_PLUGIN_DIR
		env=(PATH="$TMP/standin:$PATH")
		# the driver emulator has no /proc/driver/nvidia/gpus, the only thing CRIU's
		# FI_PLUGIN_CUDA_FORCE_ENABLE fault skips
		[ -z "$NO_GPU" ] || env+=(CRIU_FAULT=138)
	fi
	rm -rf "$img"; mkdir -p "$img"
	if ! start "tree-$which-$run" --size "$TREE_SIZE" --buffers 1 --fork-cuda $((TREE_NCUDA - 1)) --fork-cpu 1; then
		tree_row "$which" "$run" - - - - "FAIL: workload did not start"
		return
	fi
	sleep 0.5
	TPIDS=$(tree_pids "$WPID"); PIDS="$PIDS $TPIDS"
	t0=$(now)
	# the tree's processes share no GPU memory: allowed on a driver before branch 610
	timeout -k 5 "$CRIU_LIMIT" env CUDASTORE_OLD_DRIVER_TREES=allow "${env[@]}" "$CRIU" dump -t "$WPID" -D "$img" -o dump.log -v4 -L "$plugdir" >/dev/null 2>&1
	rc=$?; t1=$(now); td=$(dt $t0 $t1)
	grep -aE 'cudastore:|cuda_plugin:|Error' "$img/dump.log" >"$TREE_LOGS/tree-4x4g-$which-$run-dump.lines" 2>/dev/null
	[ $rc = 0 ] || { tree_fail "$which" "$run" "$td" "dump rc $rc: $(grep -am1 'Error' "$img/dump.log")"; return; }
	if [ "$which" = cudastore ] && ! grep -aq "pid $WPID .*mode $MODE" "$img/dump.log"; then
		tree_fail "$which" "$run" "$td" "cudastore did not choose $MODE"
		return
	fi
	ck=$(tree_phase "$which" "$img/dump.log" checkpoint)
	[ -n "$ck" ] || { tree_fail "$which" "$run" "$td" "no GPU checkpoint of $TREE_NCUDA processes in criu's log"; return; }
	left=$(first_left $TPIDS)
	[ -z "$left" ] || { tree_fail "$which" "$run" "$td" "pid $left still there after the dump (not reaped)"; return; }
	t1=$(now)
	timeout -k 5 "$CRIU_LIMIT" env "${env[@]}" "$CRIU" restore -d -D "$img" -o restore.log -v4 -L "$plugdir" >/dev/null 2>&1
	rc=$?; t2=$(now)
	grep -aE 'cudastore:|cuda_plugin:|Error' "$img/restore.log" >"$TREE_LOGS/tree-4x4g-$which-$run-restore.lines" 2>/dev/null
	rs=$(tree_phase "$which" "$img/restore.log" restore)
	sleep 1
	v=$(verdict "tree-$which-$run" "$WPID")
	[ $rc = 0 ] || v="FAIL: restore rc $rc; $v"
	[ -n "$rs" ] || [[ "$v" != PASS* ]] || v="FAIL: no GPU restore of $TREE_NCUDA processes in criu's log"
	tree_row "$which" "$run" "$td" "$(dt $t1 $t2)" "$ck" "${rs:--}" "$v"
	left=$(first_left $TPIDS)
	[ -z "$left" ] || log "tree-4x4g: pid $left of the tree still there after its verdict"
	du -sh "$img" >&2
	[ -n "${IMGKEEP:-}" ] || rm -rf "$img"
}

# tree_space: why the tree cannot run here (images space, host memory), or nothing
tree_space() {
	local gpu free mem
	gpu=$(( $(bytes_of "$TREE_SIZE") * TREE_NCUDA ))
	free=$(df -B1 --output=avail "$IMGBASE" | tail -n1)
	mem=$(awk '/MemAvailable/{printf "%.0f", $2 * 1024}' /proc/meminfo)
	# images: the GPU memory staged in the processes' host memory, and their other pages; host
	# memory: the processes' staged copy or restored pages, plus images on a memory filesystem
	if [ "$gpu" -le 0 ]; then
		echo "--tree-size $TREE_SIZE is not a size"
	elif [ $((gpu + (1 << 30))) -gt "$free" ] || [ $((2 * gpu + (2 << 30))) -gt "$mem" ]; then
		echo "needs $(((gpu >> 30) + 1)) GiB free in $IMGBASE and $(((2 * gpu >> 30) + 2)) GiB of available host memory, have $((free >> 30)) / $((mem >> 30))"
	fi
}

tree_scenario() {
	local why r
	why=$(tree_space)
	if [ -n "$why" ]; then
		row "tree-4x4g" "${TREE_NCUDA}x$TREE_SIZE" "$MODE" - - - - "SKIPPED: $why"
		return
	fi
	CRIU_CUDA=
	if [ ! -f "$CUDA_PLUGIN_DIR/cuda_plugin.so" ] || [ ! -x "$STANDIN" ]; then
		CRIU_CUDA="SKIPPED: no $CUDA_PLUGIN_DIR/cuda_plugin.so or $STANDIN (scripts/make-gpu-artifacts.sh packs them)"
	else
		mkdir -p "$TMP/standin" && ln -sf "$STANDIN" "$TMP/standin/cuda-checkpoint"
	fi
	for r in $(seq "$TREE_RUNS"); do
		tree_run cudastore "$r"
		if [ -z "$CRIU_CUDA" ]; then tree_run criu-cuda "$r"; else tree_row criu-cuda "$r" - - - - "$CRIU_CUDA"; fi
	done
}

# the tree's own table and its targets, from TREE_ROWS
tree_table() {
	[ "${#TREE_ROWS[@]}" -gt 0 ] || return 0
	echo
	echo "tree-4x4g: $TREE_NCUDA CUDA processes of $TREE_SIZE (root + $((TREE_NCUDA - 1)) children) + 1 CPU child, $MODE;" \
		"GPU phases from cudastore's batch line, CRIU's cuda plugin's from its log (one process after another)"
	printf '%s\n' "${TREE_ROWS[@]}" | awk -F'|' '
	function ratio(ws,   a) { split(ws, a, " "); return (a[2] > 0) ? a[1] / a[2] : -1 }
	function f(x) { return x < 0 ? "-" : sprintf("%.2f", x) }
	function col(ws, i,   a) { if (split(ws, a, " ") < 2) return "-"; return a[i] }
	BEGIN {
		printf "%-3s %-17s %7s %9s   %9s %9s %9s   %9s %9s %9s   %s\n", "run", "plugin", "dump s", "restore s",
			"ckpt wall", "ckpt sum", "wall/sum", "rest wall", "rest sum", "wall/sum", "result"
	}
	{
		name = $1 == "cudastore" ? "cudastore" : "criu cuda_plugin"
		rc = ratio($5); rr = ratio($6)
		printf "%-3s %-17s %7s %9s   %9s %9s %9s   %9s %9s %9s   %s\n", $2, name, $3, $4,
			col($5, 1), col($5, 2), f(rc), col($6, 1), col($6, 2), f(rr), $7
		pass = ($7 ~ /^PASS/)
		if ($1 == "cudastore") {
			ncs++; if (!pass) csbad++
			if (rc < 0 || rc > wck) wck = (rc < 0 ? 99 : rc)
			if (rr < 0 || rr > wrs) wrs = (rr < 0 ? 99 : rr)
			csd[$2] = $3; csr[$2] = $4; csck[$2] = col($5, 1); csrs[$2] = col($6, 1)
			if ($2 > runs) runs = $2
		} else if (pass) {
			crd[$2] = $3; crr[$2] = $4; crck[$2] = col($5, 2); crrs[$2] = col($6, 2)
		}
	}
	function met(ok) { return ok ? "MET" : "MISSED" }
	END {
		if (!ncs) exit
		ok = !csbad
		printf "targets (cudastore, %d run(s), %s):\n", ncs, ok ? "every byte verified in each" : "NOT every run verified"
		printf "  GPU checkpoint phase <= 0.35 x the processes summed time: worst %s -> %s\n", f(wck == 99 ? -1 : wck), met(ok && wck <= 0.35)
		printf "  GPU restore phase    <= 0.40 x the processes summed time: worst %s -> %s\n", f(wrs == 99 ? -1 : wrs), met(ok && wrs <= 0.40)
		nd = nr = fd = fr = 0; ld = lr = lc = ""
		for (r = 1; r <= runs; r++) {
			if (!(r in csd) || !(r in crd)) continue
			nd++; if (csd[r] + 0 < crd[r] + 0) fd++
			if (csr[r] != "-" && crr[r] != "-") { nr++; if (csr[r] + 0 < crr[r] + 0) fr++ }
			ld = ld sprintf(" #%s %s vs %s", r, csd[r], crd[r])
			lr = lr sprintf(" #%s %s vs %s", r, csr[r], crr[r])
			lc = lc sprintf(" #%s %s vs %s / %s vs %s", r, csck[r], crck[r], csrs[r], crrs[r])
		}
		if (!nd) { print "  whole dump and restore against CRIU\047s cuda plugin: no run of CRIU\047s plugin passed; NOT compared"; exit }
		printf "  whole criu dump faster than CRIU\047s cuda plugin (s, cudastore vs CRIU\047s plugin):%s -> %s\n", ld, met(ok && fd == nd)
		printf "  whole criu restore faster than CRIU\047s cuda plugin:%s -> %s\n", lr, met(ok && nr == nd && fr == nr)
		printf "  for reference, GPU checkpoint / restore wall s, cudastore vs CRIU\047s plugin (one process after another):%s\n", lc
	}'
}

[ "$TREE" = 0 ] || tree_scenario

# pair NAME [cuda-ipc-pair options]: a detached exporter and importer, ready; sets E and I
pair() {
	local n=$1; shift
	rm -f "$TMP/$n".*
	"$ART/bin/cuda-ipc-pair" --daemon --size 256m --pidfile "$TMP/$n.pid" --child-pidfile "$TMP/$n.cpid" \
		--ready "$TMP/$n.ready" --outfile "$TMP/$n.out" "$@" >"$TMP/$n.log" 2>&1 </dev/null
	E=$(cat "$TMP/$n.pid" 2>/dev/null) I=$(cat "$TMP/$n.cpid" 2>/dev/null)
	[ -e "$TMP/$n.ready" ] && [ -n "$E" ] && [ -n "$I" ] || { log "pair $n did not start: $(tail -n2 "$TMP/$n.log")"; return 1; }
	PIDS="$PIDS $E $I"
}
# pair_verdict NAME: both verdicts after SIGTERM to the exporter (it forwards it to the importer);
# each file is waited for while its process is there
pair_verdict() {
	local f p
	kill -TERM "$E" 2>/dev/null
	for f in parent child; do
		[ $f = parent ] && p=$E || p=$I
		for i in $(seq 300); do
			[ -s "$TMP/$1.out.$f" ] && break
			alive "$p" || { sleep 0.3; break; }
			sleep 0.1
		done
	done
	echo "exporter $(head -n1 "$TMP/$1.out.parent" 2>/dev/null || echo none), importer $(head -n1 "$TMP/$1.out.child" 2>/dev/null || echo none)"
}

ipc_scenarios() {
	local img=$IMGBASE/ipc rc v t0 t1
	[ -x "$ART/bin/cuda-ipc-pair" ] || { row ipc-pair-refused - - - - - - "SKIPPED: bin/cuda-ipc-pair not built (no nvcc)"; return; }
	rm -rf "$img"; mkdir -p "$img"
	if pair ipc1; then
		t0=$(now); "$CRIU" dump -t "$E" -D "$img" -o dump.log -v4 -L "$PLUGINS" >/dev/null 2>&1; rc=$?; t1=$(now)
		v=$(pair_verdict ipc1)
		if [ $rc != 0 ] && grep -q "the tree of pid $E has 2 CUDA processes" "$img/dump.log" &&
			! grep -q "locked in" "$img/dump.log" && [ "$v" = "exporter PASS, importer PASS" ]; then
			row ipc-pair-refused 256m driver-managed "$(dt $t0 $t1)" - - - "PASS: refused before any lock; $v"
		else
			row ipc-pair-refused 256m driver-managed "$(dt $t0 $t1)" - - - "FAIL: rc $rc; $v; $(grep -a -m1 'Error' "$img/dump.log")"
		fi
		grep -a 'the tree of pid' "$img/dump.log" | cut -c1-300 >&2
	fi
	rm -rf "$img"; mkdir -p "$img"
	if pair ipc2; then
		t0=$(now)
		CUDASTORE_OLD_DRIVER_TREES=allow "$CRIU" dump -t "$E" -D "$img" -o dump.log -v4 -L "$PLUGINS" -R >/dev/null 2>&1
		rc=$?; t1=$(now)
		sleep 1
		local hung=no
		grep -qs '^State:.*[RS]' "/proc/$I/status" && hung=yes
		v=$(pair_verdict ipc2)
		if [ $rc = 0 ] && [ $hung = no ] && grep -q "pid $I: cannot be resumed after the dump" "$img/dump.log" &&
			[[ "$v" == "exporter PASS"* ]]; then
			row ipc-pair-leave-running 256m driver-managed "$(dt $t0 $t1)" - - - "PASS: importer ended with the reason, exporter runs on; $v"
		else
			row ipc-pair-leave-running 256m driver-managed "$(dt $t0 $t1)" - - - "FAIL: rc $rc, importer left running/hung: $hung; $v"
		fi
		grep -a "cannot be resumed after the dump\|cuCheckpointProcessRestore failed" "$img/dump.log" | cut -c1-300 >&2
	fi
	rm -rf "$img"
}

# the helper SIGKILLed once the tree's GPU phase runs: a new helper brings every process back
helper_killed_tree() {
	local img=$IMGBASE/helper-killed-tree h rc i kids v t0 t1 back
	rm -rf "$img"; mkdir -p "$img"
	start helper-killed-tree --size "${ROBUST_TREE_SIZE:-2g}" --buffers 1 --fork-cuda 3 --fork-cpu 1 || return
	kids=$(cat /proc/"$WPID"/task/*/children)
	t0=$(now)
	CUDASTORE_OLD_DRIVER_TREES=allow "$CRIU" dump -t "$WPID" -D "$img" -o dump.log -v4 -L "$PLUGINS" >/dev/null 2>&1 &
	local cpid=$!
	for i in $(seq 600); do grep -qa 'restore thread [0-9]* running' "$img/dump.log" 2>/dev/null && break; sleep 0.05; done
	sleep 0.5
	h=$(sed -n 's/.*cudastore-helper running as pid \([0-9]*\).*/\1/p' "$img/dump.log" | head -n1)
	kill -9 "$h"
	wait "$cpid"; rc=$?; t1=$(now)
	back=$(grep -ac 'running again with its GPU memory after cudastore-helper died' "$img/dump.log")
	sleep 1
	local alive_all=yes
	for i in $WPID $kids; do alive "$i" || alive_all=no; done
	v=$(verdict helper-killed-tree "$WPID")
	if [ $rc != 0 ] && [ "$back" = 4 ] && [ $alive_all = yes ] && [ "$v" = PASS ]; then
		row helper-killed-tree 4x2g driver-managed "$(dt $t0 $t1)" - - - "PASS: helper $h killed mid-phase, 4 of 4 back, the CPU child runs on, every byte"
	else
		row helper-killed-tree 4x2g driver-managed "$(dt $t0 $t1)" - - - "FAIL: rc $rc, $back of 4 back, all alive: $alive_all; $v"
	fi
	grep -a "made no progress\|is gone during\|running again\|killing it\|GPU recovery phase\|cudastore-helper's memory" "$img/dump.log" | cut -c1-240 >&2
	rm -rf "$img"
}

# robust: op_timeout_s bounds the time without progress, not a call's length
robust_scenarios() {
	local d=$IMGBASE/progress-op-timeout-2s moved
	CUDASTORE_OP_TIMEOUT_S=2 IMGKEEP=1 NBUF=1 roundtrip progress-op-timeout-2s "${ROBUST_SIZE:-16g}" "$MODE" -- --buffers 1
	# the longest the driver thread went without being seen at work, at the 2 s debug lines
	moved=$(cat "$d"/dump.log "$d"/restore.log 2>/dev/null | sed -n 's/.*last moved \([0-9.]*\) s ago.*/\1/p' | sort -n | tail -n1)
	log "progress-op-timeout-2s: the driver thread was last seen at work at most ${moved:-?} s before a look"
	grep -ah 'its driver thread' "$d"/dump.log "$d"/restore.log 2>/dev/null | cut -c1-200 >&2
	rm -rf "$d"
	ipc_scenarios
	helper_killed_tree
}
# travel: what the images record of this host and its GPU, the restore's placement and its host
# rules on real hardware. travel-facts: a driver-managed dump's manifest names this GPU (product,
# compute capability, memory, bus id, the process's use) and this driver; `cudastore check
# --images` says yes (timed); the restore places the GPU on itself and the process verifies.
# travel-refused: a device map naming a GPU this host lacks: check says no, the restore refuses
# before any process runs and leaves the images as they were; then they restore.
travel_scenarios() {
	local img=$IMGBASE/travel C=$ART/bin/cudastore t0 t1 tc td rc sum0 sum1 v j
	rm -rf "$img"; mkdir -p "$img"
	start travel --size "${TRAVEL_SIZE:-1g}" || { row travel-facts - - - - - - "FAIL: workload did not start"; return; }
	t0=$(now)
	timeout -k 5 "$CRIU_LIMIT" "$CRIU" dump -t "$WPID" -D "$img" -o dump.log -v4 -L "$PLUGINS" >/dev/null 2>&1
	rc=$?; t1=$(now)
	td=$(dt $t0 $t1)
	[ $rc = 0 ] || { row travel-facts - - "$td" - - - "FAIL: dump: $(grep -a -m1 "Error: cudastore" "$img/dump.log")"; kill -9 "$WPID"; return; }
	wait_gone "$WPID"
	# the workload's files as the dump saw them: each later restore needs them so (criu checks sizes)
	mkdir -p "$TMP/travel-files"; cp -a "$TMP"/travel.* "$TMP/travel-files/"
	"$C" inspect "$img" >&2
	j=$("$C" inspect --json "$img")
	v=$(echo "$j" | python3 -c 'import json,sys; p=json.load(sys.stdin)["processes"][0]; h=p["host"]; g=p["gpus"][0]
print("ok" if h["driver_version"] and h["arch"] and g["name"] and g["cc_major"] > 0 and g["total_memory"] > 0 and g["pci_bus_id"] and g["used_bytes"] >= int(sys.argv[1]) else "bad", h["driver_version"], g["name"], g["pci_bus_id"], g["used_bytes"])' "$(bytes_of "${TRAVEL_SIZE:-1g}")" 2>&1)
	log "travel-facts: the images record: $v"
	sum0=$(cd "$img" && sha256sum cudastore-* | sort)
	t0=$(now); "$C" check --images "$img" >&2; rc=$?; tc=$(dt $t0 "$(now)")
	log "travel-facts: cudastore check --images answered $rc in $tc s"
	t0=$(now)
	timeout -k 5 "$CRIU_LIMIT" "$CRIU" restore -d -D "$img" -o restore.log -v4 -L "$PLUGINS" >/dev/null 2>&1
	t1=$(now)
	grep -a 'placement:' "$img/restore.log" | cut -c1-220 >&2
	local vd
	vd=$(verdict travel "$WPID") # also ends the restored process before the next restore
	if [[ "$v" != ok* ]]; then row travel-facts "${TRAVEL_SIZE:-1g}" driver "$td" "$(dt $t0 $t1)" - - "FAIL: facts: $v"
	elif [ "$rc" != 0 ]; then row travel-facts "${TRAVEL_SIZE:-1g}" driver "$td" "$(dt $t0 $t1)" - - "FAIL: check --images said no ($rc)"
	elif ! grep -aq 'placement: .*the same GPU (UUID)' "$img/restore.log"; then row travel-facts "${TRAVEL_SIZE:-1g}" driver "$td" "$(dt $t0 $t1)" - - "FAIL: no placement line"
	else row travel-facts "${TRAVEL_SIZE:-1g}" driver "$td" "$(dt $t0 $t1)" - - "$vd, check ${tc} s"; fi
	wait_gone "$WPID"
	cp -a "$TMP/travel-files/." "$TMP/"
	t0=$(now); CUDASTORE_DEVICE_MAP=0=7 "$C" check --images "$img" >&2; rc=$?; tc=$(dt $t0 "$(now)")
	CUDASTORE_DEVICE_MAP=0=7 timeout -k 5 "$CRIU_LIMIT" "$CRIU" restore -d -D "$img" -o refused.log -v4 -L "$PLUGINS" >/dev/null 2>&1
	local rr=$?
	sleep 0.5
	sum1=$(cd "$img" && sha256sum cudastore-* | sort)
	if [ "$rc" != 1 ]; then row travel-refused - driver - - - - "FAIL: check --images answered $rc, not 1"
	elif [ $rr = 0 ] || alive "$WPID"; then row travel-refused - driver - - - - "FAIL: the restore did not refuse"
	elif ! grep -aq 'this host cannot restore these images: device_map sends' "$img/refused.log"; then row travel-refused - driver - - - - "FAIL: no reason logged"
	elif [ "$sum0" != "$sum1" ]; then row travel-refused - driver - - - - "FAIL: the images changed"
	else
		wait_gone "$WPID"
		cp -a "$TMP/travel-files/." "$TMP/"
		timeout -k 5 "$CRIU_LIMIT" "$CRIU" restore -d -D "$img" -o restore2.log -v4 -L "$PLUGINS" >/dev/null 2>&1
		row travel-refused - driver - - - - "$(verdict travel "$WPID") after the refusal, check ${tc} s"
	fi
	rm -rf "$img"
}

case $ROBUST in
1) robust_scenarios; travel_scenarios ;;
ipc) ipc_scenarios ;;
travel) travel_scenarios ;;
esac

{
	echo "cudastore GPU suite: $(date -u +%FT%TZ), driver $DRIVER, $NGPU GPU(s), images in $IMGBASE"
	printf '%-34s %7s %-7s %8s %9s %8s %7s  %s\n' scenario size mode "dump s" "restore s" "GPU c/r s" "GB/s" result
	printf '%s\n' "${ROWS[@]}"
	tree_table
} | tee "$OUTFILE"
[ "$FAILS" = 0 ]

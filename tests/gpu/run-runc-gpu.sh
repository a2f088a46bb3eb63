#!/usr/bin/env bash
# run-runc-gpu.sh - runc end to end on an NVIDIA host with the real driver: a stock `runc spec`
# container (busybox-static rootfs) whose init is cuda-workload on the host's GPU, checkpointed
# and restored by runc through CRIU with the cudastore plugin (auto mode: driver-managed on
# drivers without CustomStorage, e.g. 580). Needs only the artifacts of
# scripts/make-gpu-artifacts.sh (criu bundle, plugin, workload, runc, busybox, Debian's loader
# and libc for the rootfs), root, python3 (edits config.json) and the NVIDIA driver.
#
#   run-runc-gpu.sh [--artifacts DIR] [--size 1g] [--out FILE] [--mode auto|driver|custom] [--keep]
#
# Dry run without a GPU: CUDASTORE_LIBCUDA/CUDASTORE_LIBNVML pointing at the driver emulator
# (tests/emu/lib) are used instead of the host's libcuda.
#
# Scenarios, each verifying every byte of the workload's GPU memory (its own pattern check on
# SIGTERM): checkpoint + restore; checkpoint --leave-running (keeps running, no cudastore
# leave-running setting) + restore of the images as a clone under a new id; a tree (init with
# a CPU child and a second CUDA process). The GPU device nodes are given to the container as
# linux.devices (what nvidia-container-toolkit does), the host's libcuda is bind-mounted.
set -uo pipefail
ART=$(cd "$(dirname "$0")" && pwd)
SIZE=1g
OUTFILE=$PWD/runc-gpu-results.txt
KEEP=
MODE=auto
while [ $# -gt 0 ]; do
	case "$1" in
	--artifacts) ART=$2; shift 2 ;;
	--size) SIZE=$2; shift 2 ;;
	--out) OUTFILE=$2; shift 2 ;;
	--keep) KEEP=1; shift ;;
	--mode) MODE=$2; shift 2 ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 2; }
for f in criu/criu plugins/cudastore_plugin.so bin/cuda-workload runc/runc rootfs-base/bin/busybox; do
	[ -e "$ART/$f" ] || { echo "missing $ART/$f: run scripts/make-gpu-artifacts.sh" >&2; exit 2; }
done
command -v python3 >/dev/null || { echo "python3 needed (edits config.json)" >&2; exit 2; }
TMP=$(mktemp -d /tmp/cudastore-runc-gpu.XXXXXX)
RUNC=$ART/runc/runc
IDS=
ROWS=()
FAILS=0
HELPER_FAILED=
log() { echo "[$(date +%T)] $*" >&2; }
row() { ROWS+=("$(printf '%-40s %-8s %8s %9s  %s' "$@")"); log "RESULT: $*"; [[ "$5" == PASS* ]] || FAILS=$((FAILS + 1)); }
now() { date +%s.%N; }
dt() { awk "BEGIN{printf \"%.2f\", $2 - $1}"; }
cleanup() {
	local id
	for id in $IDS; do timeout 30 "$RUNC" delete -f "$id" >/dev/null 2>&1; done
	[ -n "$KEEP" ] && log "kept $TMP" || rm -rf "$TMP"
}
trap cleanup EXIT

# runc finds criu in PATH: the bundle's wrapper first
export PATH=$ART/criu:$PATH
[ "$(command -v criu)" = "$ART/criu/criu" ] || { echo "criu in PATH is not the bundle's" >&2; exit 2; }
criu check >/dev/null 2>&1 || { echo "criu check failed on this host" >&2; exit 2; }
"$RUNC" --version >/dev/null 2>&1 || { echo "the carried runc does not run here (libseccomp.so.2?)" >&2; exit 2; }

LIBCUDA=${CUDASTORE_LIBCUDA:-$(ldconfig -p | awk '/libcuda\.so\.1 .*x86-64/{print $NF; exit}')}
[ -n "$LIBCUDA" ] || LIBCUDA=$(ls /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib64/libcuda.so.1 2>/dev/null | head -n1)
[ -n "$LIBCUDA" ] || { echo "libcuda.so.1 not found on this host" >&2; exit 2; }
LIBCUDA=$(readlink -f "$LIBCUDA")
DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1)
log "driver $DRIVER, libcuda $LIBCUDA, runc $("$RUNC" --version | head -n1), criu $(criu --version | sed -n 's/Version: //p')"

# CRIU locks a container's own network namespace with iptables-restore; a host without it (the
# project's GPU host) cannot checkpoint such a container at all, plugin or not: share the host's
if ! command -v iptables-restore >/dev/null; then
	export DROP_NETNS=1
	log "no iptables-restore on this host: containers share the host's network namespace"
fi

# plugin configuration as a user writes it: CRIU config file named by the annotation, and
# cudastore's own file (mode auto). The plugin folder is copied whole: the helper finds the
# libraries it needs beyond glibc (json-c, protobuf-c) in its lib/ (RPATH $ORIGIN/lib).
cp -a "$ART/plugins" "$TMP/plugins" || { echo "cannot copy $ART/plugins to $TMP/plugins" >&2; exit 2; }
# A helper that cannot start fails every scenario the same way: find out now. Run alone it only
# says that it is not a command (exit 2); a library it cannot load is the loader's exit 127.
"$TMP/plugins/cudastore-helper" </dev/null >/dev/null 2>"$TMP/helper-start.err"
rc=$?
[ $rc = 2 ] || {
	echo "cudastore-helper in $TMP/plugins (copied from $ART/plugins) does not start (exit $rc):" >&2
	sed 's/^/    /' "$TMP/helper-start.err" >&2
	exit 2
}
printf 'libdir %s\n' "$TMP/plugins" >"$TMP/criu-runc.conf"
# the tree scenario's CUDA processes share no GPU memory: allowed on a driver before branch 610
printf 'mode = %s\nold_driver_trees = allow\n' "$MODE" >"$TMP/cudastore.conf"
export CUDASTORE_CONFIG=$TMP/cudastore.conf

# make_bundle NAME [workload args]: stock runc spec + rootfs + GPU devices + host libcuda
make_bundle() {
	local name=$1; shift
	local b=$TMP/$name/bundle
	mkdir -p "$b" "$TMP/$name/cw"
	cp -a "$ART/rootfs-base" "$b/rootfs"
	mkdir -p "$b/rootfs/usr/bin" "$b/rootfs/usr/lib/nvidia" "$b/rootfs/work"
	cp "$ART/bin/cuda-workload" "$b/rootfs/usr/bin/"
	: >"$b/rootfs/usr/lib/nvidia/libcuda.so.1"
	(cd "$b" && "$RUNC" spec) || return 1
	python3 - "$b/config.json" "$TMP/$name/cw" "$TMP/criu-runc.conf" "$LIBCUDA" "$@" <<'PY'
import json, os, stat, sys, glob
path, cw, criu_conf, libcuda, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
c = json.load(open(path))
p = c["process"]
p["terminal"] = False
p["args"] = ["/usr/bin/cuda-workload", "--pidfile", "/work/w.pid", "--ready", "/work/w.ready",
             "--outfile", "/work/w.out", "--log", "/work/w.log"] + args
p["env"] += ["CUDASTORE_LIBCUDA=/usr/lib/nvidia/libcuda.so.1"]
c["mounts"] += [
    {"destination": "/work", "type": "bind", "source": cw, "options": ["rbind", "rw"]},
    {"destination": "/usr/lib/nvidia/libcuda.so.1", "type": "bind", "source": libcuda, "options": ["bind", "ro"]},
]
devs, allow = [], [{"allow": False, "access": "rwm"}]
for n in sorted(glob.glob("/dev/nvidia*")) + sorted(glob.glob("/dev/nvidia-caps/*")):
    st = os.stat(n)
    if not stat.S_ISCHR(st.st_mode):
        continue
    ma, mi = os.major(st.st_rdev), os.minor(st.st_rdev)
    devs.append({"path": n, "type": "c", "major": ma, "minor": mi, "fileMode": 0o666, "uid": 0, "gid": 0})
    allow.append({"allow": True, "type": "c", "major": ma, "minor": mi, "access": "rwm"})
lx = c["linux"]
if os.environ.get("DROP_NETNS"):
    lx["namespaces"] = [n for n in lx["namespaces"] if n["type"] != "network"]
lx["devices"] = lx.get("devices", []) + devs
lx.setdefault("resources", {})["devices"] = allow
c.setdefault("annotations", {})["org.criu.config"] = criu_conf
json.dump(c, open(path, "w"), indent=1)
PY
}

ctr_run() { # ctr_run NAME ID
	local cw=$TMP/$1/cw i
	rm -f "$cw"/w.*
	IDS="$IDS $2"
	(cd "$TMP/$1/bundle" && timeout 60 "$RUNC" run -d "$2" </dev/null >"$TMP/$1/run-$2.out" 2>&1) ||
		{ log "runc run $2: $(cat "$TMP/$1/run-$2.out")"; return 1; }
	for i in $(seq 1800); do [ -e "$cw/w.ready" ] && return 0; sleep 0.1; done
	log "workload in $2 not ready: $(tail -n3 "$cw/w.log" 2>/dev/null)"
	return 1
}
ctr_pid() { "$RUNC" state "$1" 2>/dev/null | sed -n 's/^ *"pid": *\([0-9]*\),*$/\1/p'; }
verdict() { # verdict NAME ID
	local cw=$TMP/$1/cw i
	rm -f "$cw/w.out"
	"$RUNC" kill "$2" TERM >/dev/null 2>&1
	for i in $(seq 3000); do [ -s "$cw/w.out" ] && break; sleep 0.1; done
	head -n1 "$cw/w.out" 2>/dev/null || echo "no verdict"
}
wait_gone() { local i; for i in $(seq 400); do [ -d "/proc/$1" ] || return 0; sleep 0.05; done; return 1; }
why() { # why LOG: criu's reasons, and loudly the one that fails every scenario alike
	local l
	grep -aE 'Error|rror \(|cudastore' "$1" 2>/dev/null | tail -n 8 | sed 's/^/    /' >&2
	l=$(grep -a 'did not start' "$1" 2>/dev/null | head -n1)
	[ -n "$l" ] || return 0
	HELPER_FAILED=${l#*Error: cudastore: }
	log "FATAL: the plugin could not start cudastore-helper: $HELPER_FAILED; criu's log before it:"
	grep -a -B4 'did not start' "$1" | head -n5 | sed 's/^/    /' >&2
}
mode_of() { sed -n 's/.*CUDA process.*; mode \([A-Za-z-]*\).*/\1/p' "$1" 2>/dev/null | head -n1; }

# 1. checkpoint, restore under the same id
scenario_cr() {
	local id=cs-gpu-cr img=$TMP/img-cr t0 t1 t2 v m
	make_bundle cr --size "$SIZE" || { row "runc checkpoint+restore" - - - "FAIL: bundle"; return; }
	ctr_run cr "$id" || { row "runc checkpoint+restore" - - - "FAIL: container did not start"; return; }
	local pid; pid=$(ctr_pid "$id")
	t0=$(now)
	timeout 600 "$RUNC" checkpoint --image-path "$img" --work-path "$img.work" "$id" >"$img.out" 2>&1 ||
		{ row "runc checkpoint+restore" "$(mode_of "$img.work/dump.log")" - - "FAIL: checkpoint: $(tail -n1 "$img.out")"; why "$img.work/dump.log"; return; }
	t1=$(now); m=$(mode_of "$img.work/dump.log")
	wait_gone "$pid"
	(cd "$TMP/cr/bundle" && timeout 600 "$RUNC" restore -d --image-path "$img" --work-path "$img.rwork" "$id" </dev/null >"$img.rout" 2>&1) ||
		{ row "runc checkpoint+restore" "$m" "$(dt "$t0" "$t1")" - "FAIL: restore: $(tail -n1 "$img.rout")"; why "$img.rwork/restore.log"; return; }
	t2=$(now)
	sleep 1
	v=$(verdict cr "$id")
	row "runc checkpoint+restore" "$m" "$(dt "$t0" "$t1")" "$(dt "$t1" "$t2")" "$v"
	timeout 30 "$RUNC" delete -f "$id" >/dev/null 2>&1
}

# 2. checkpoint --leave-running (no cudastore setting), then a clone under a new id
scenario_lr() {
	local id=cs-gpu-lr img=$TMP/img-lr t0 t1 t2 tr v v2 m
	make_bundle lr --size "$SIZE" || { row "runc --leave-running" - - - "FAIL: bundle"; return; }
	ctr_run lr "$id" || { row "runc --leave-running" - - - "FAIL: container did not start"; return; }
	t0=$(now)
	timeout 600 "$RUNC" checkpoint --leave-running --image-path "$img" --work-path "$img.work" "$id" >"$img.out" 2>&1 ||
		{ row "runc --leave-running" "$(mode_of "$img.work/dump.log")" - - "FAIL: checkpoint: $(tail -n1 "$img.out")"; why "$img.work/dump.log"; return; }
	t1=$(now); m=$(mode_of "$img.work/dump.log")
	grep -aq "criu leaves running the dumped tree (read from criu's options" "$img.work/dump.log" ||
		log "warning: the plugin did not read leave-running from criu's options: $(grep -a 'leave' "$img.work/dump.log" | tail -n2)"
	sleep 2
	if [ -n "${DROP_NETNS:-}" ]; then
		# one network namespace for both: libcuda's abstract unix socket in the running original
		# would make the clone's restore fail (EADDRINUSE). Verify and stop the original first.
		v=$(verdict lr "$id")
		row "runc --leave-running: original runs on" "$m" "$(dt "$t0" "$t1")" - "$v"
		timeout 30 "$RUNC" delete -f "$id" >/dev/null 2>&1
	fi
	tr=$(now)
	(cd "$TMP/lr/bundle" && timeout 600 "$RUNC" restore -d --image-path "$img" --work-path "$img.rwork" "$id-clone" </dev/null >"$img.rout" 2>&1)
	local rc=$?
	IDS="$IDS $id-clone"
	t2=$(now)
	if [ -z "${DROP_NETNS:-}" ]; then
		v=$(verdict lr "$id")
		row "runc --leave-running: original runs on" "$m" "$(dt "$t0" "$t1")" - "$v"
	fi
	if [ $rc = 0 ]; then
		sleep 1
		v2=$(verdict lr "$id-clone")
		row "runc restore as clone (new id)" "$m" - "$(dt "$tr" "$t2")" "$v2"
	else
		row "runc restore as clone (new id)" "$m" - - "FAIL: restore: $(tail -n1 "$img.rout")"; why "$img.rwork/restore.log"
	fi
	timeout 30 "$RUNC" delete -f "$id" >/dev/null 2>&1
	timeout 30 "$RUNC" delete -f "$id-clone" >/dev/null 2>&1
}

# 3. init with a CPU child and a second CUDA process
scenario_tree() {
	local id=cs-gpu-tree img=$TMP/img-tree v m n c
	make_bundle tree --size 256m --fork-cuda 1 --fork-cpu 1 || { row "runc tree (2 CUDA + 1 CPU)" - - - "FAIL: bundle"; return; }
	ctr_run tree "$id" || { row "runc tree (2 CUDA + 1 CPU)" - - - "FAIL: container did not start"; return; }
	local t0 t1 t2; t0=$(now)
	timeout 600 "$RUNC" checkpoint --image-path "$img" --work-path "$img.work" "$id" >"$img.out" 2>&1 ||
		{ row "runc tree (2 CUDA + 1 CPU)" - - - "FAIL: checkpoint: $(tail -n1 "$img.out")"; why "$img.work/dump.log"; return; }
	t1=$(now); m=$(mode_of "$img.work/dump.log")
	n=$(grep -ac 'GPU checkpoint done' "$img.work/dump.log")
	sleep 1
	(cd "$TMP/tree/bundle" && timeout 600 "$RUNC" restore -d --image-path "$img" --work-path "$img.rwork" "$id" </dev/null >"$img.rout" 2>&1) ||
		{ row "runc tree (2 CUDA + 1 CPU)" "$m" - - "FAIL: restore: $(tail -n1 "$img.rout")"; why "$img.rwork/restore.log"; return; }
	t2=$(now)
	c=$(grep -ac 'GPU restore done' "$img.rwork/restore.log")
	sleep 1
	v=$(verdict tree "$id")
	[ "$n" = 2 ] && [ "$c" = 2 ] || v="FAIL: $n CUDA processes checkpointed, $c restored (want 2); verdict $v"
	row "runc tree (2 CUDA + 1 CPU)" "$m" "$(dt "$t0" "$t1")" "$(dt "$t1" "$t2")" "$v"
	timeout 30 "$RUNC" delete -f "$id" >/dev/null 2>&1
}

# every scenario needs the helper: once it did not start, the rest would fail the same way
for s in "cr:runc checkpoint+restore" "lr:runc --leave-running" "tree:runc tree (2 CUDA + 1 CPU)"; do
	if [ -n "$HELPER_FAILED" ]; then
		row "${s#*:}" - - - "FAIL: not run, cudastore-helper did not start"
		continue
	fi
	"scenario_${s%%:*}"
done

{
	echo "runc end to end on $(hostname), driver $DRIVER, size $SIZE, $(date -u +%FT%TZ)"
	printf '%-40s %-8s %8s %9s  %s\n' scenario mode "dump s" "restore s" result
	printf '%s\n' "${ROWS[@]}"
	[ -z "$HELPER_FAILED" ] || echo "FAILED: the plugin could not start cudastore-helper: $HELPER_FAILED"
} | tee "$OUTFILE"
[ "$FAILS" = 0 ]

# lib.sh - shared helpers for the end-to-end tests (sourced; TAP output).
# Environment from the test harness: top_srcdir, top_builddir, CRIU, PLUGIN_SO.
set -u

T_N=0
T_FAILED=0
WORK=
PIDS_TO_KILL=

plan() { echo "1..$1"; }
ok() { T_N=$((T_N + 1)); echo "ok $T_N - $*"; }
not_ok() { T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1)); echo "not ok $T_N - $*"; }
diag() { echo "# $*"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
bail() { echo "Bail out! $*"; exit 99; }
check() { # check "description" command...
	local d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
done_testing() { [ "$T_FAILED" = 0 ]; exit $?; }

cleanup() {
	local p
	for p in $PIDS_TO_KILL; do kill -9 "$p" 2>/dev/null; done
	if [ -n "$WORK" ] && [ -z "${KEEP_WORK:-}" ]; then
		umount "$WORK"/small 2>/dev/null
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT

need_criu() {
	[ "$(id -u)" = 0 ] || skip_all "needs root for criu"
	[ -n "${CRIU:-}" ] && [ -x "$CRIU" ] || skip_all "criu not found (run scripts/provide-criu.sh)"
	local why
	why=$("$CRIU" check 2>&1) ||
		skip_all "criu check fails here: $(echo "$why" | grep -m1 -iE 'error|fail' | cut -c1-120)"
}

setup_work() {
	WORK=$(mktemp -d /tmp/cudastore-test.XXXXXX)
	PLUGINDIR=$WORK/plugins
	mkdir -p "$PLUGINDIR"
	cp "$PLUGIN_SO" "$PLUGINDIR/"
	# the plugin runs the helper beside itself: the build with the test hooks (make check builds it)
	[ -x "$top_builddir/cudastore-helper-test" ] || bail "cudastore-helper-test not built (make check builds it)"
	cp "$top_builddir/cudastore-helper-test" "$PLUGINDIR/cudastore-helper"
	# every test pins its own config file: nothing in /etc changes what the suite does
	CONFIG=$WORK/cudastore.conf
	echo "# config of ${0##*/}" >"$CONFIG"
	chmod 600 "$CONFIG"
	export CUDASTORE_CONFIG=$CONFIG
}

# own_mount_namespace: the test starts again in a private copy of the mount namespace it was
# started in, taken now; mounts made outside it later never show up in it, and its own never
# leave it. Container runtimes need that: runc binds every cgroup v1 hierarchy it finds mounted
# anywhere into a new container and names those binds again at checkpoint and restore, so a
# hierarchy mounted for a while beside the test (the cgroup yard of another test's criu restore,
# zdtm's named hierarchies) becomes part of the container at its start and of its checkpoint,
# and is gone at its restore: criu then refuses the images ("No mapping for N mountpoint").
# Called before the test has done anything of its own: what setup_work made is removed here and
# made again by the new start. The namespace the test was started in stays at /proc/$PPID/ns/mnt.
own_mount_namespace() {
	[ -n "${CS_OWN_MOUNT_NS:-}" ] && return 0
	command -v unshare >/dev/null || skip_all "no unshare (util-linux) for a mount namespace of the test's own"
	trap - EXIT
	cleanup
	CS_OWN_MOUNT_NS=1 exec unshare -m --propagation private "$BASH" "$0"
}

# small_dir SIZE: a tmpfs of SIZE (e.g. 64m) mounted at $WORK/small, which cleanup() unmounts;
# the test is skipped where none can be mounted
small_dir() {
	mkdir -p "$WORK/small"
	mount -t tmpfs -o "size=$1" tmpfs "$WORK/small" 2>/dev/null || skip_all "cannot mount a tmpfs"
}

# set_config "key = value"...: this test's config file holds exactly these lines
set_config() {
	printf '%s\n' "# config of ${0##*/}" "$@" >"$CONFIG"
}

# use the driver emulator for both the workload and the plugin (its cudastore-helper)
use_emulator() {
	EMU=$top_builddir/tests/emu/lib
	[ -e "$EMU/libcuda.so.1" ] || bail "driver emulator not built ($EMU/libcuda.so.1)"
	export CUDASTORE_LIBCUDA=$EMU/libcuda.so.1
	export CUDASTORE_LIBNVML=$EMU/libnvidia-ml.so.1
	WORKLOAD=$top_builddir/tests/workload/cuda-workload
}

wait_file() { # wait_file FILE [seconds]
	local i n=$(( ${2:-20} * 10 ))
	for i in $(seq "$n"); do [ -s "$1" ] && return 0; sleep 0.1; done
	return 1
}

wait_gone() { # a killed task is reaped late on these VMs: restore only once /proc/PID is gone
	local i
	for i in $(seq 200); do [ -d "/proc/$1" ] || return 0; sleep 0.05; done
	return 1
}

# alive PID: it exists and is not a zombie. Its status must be read to say so: a zombie reaped
# between the signal check and the read (criu exiting reparents the tree it killed) is gone, not
# alive (on a loaded machine that window opened often enough to fail a test now and then).
alive() { kill -0 "$1" 2>/dev/null && grep -q '^State:[[:space:]]*[^Z[:space:]]' "/proc/$1/status" 2>/dev/null; }

# Where criu's stdout and stderr go, and so those of cudastore-helper, which inherits them: nowhere,
# unless CS_TEST_CRIU_OUTPUT names a directory; then they are appended to DIR/TEST.criu-output.
# test-sanitizers.sh reads them there: GCC's UBSan reports go to stderr whatever log_path says.
criu_output() {
	if [ -n "${CS_TEST_CRIU_OUTPUT:-}" ]; then
		echo "$CS_TEST_CRIU_OUTPUT/${0##*/}.criu-output"
	else
		echo /dev/null
	fi
}

# criu_dump DIR PID [criu options...]   (CRIU_ENV="VAR=value ..." sets criu-only environment)
criu_dump() {
	local dir=$1 pid=$2 rc; shift 2
	mkdir -p "$dir"
	timeout -k 5 "${CRIU_TIMEOUT:-180}" env ${CRIU_ENV:-} "$CRIU" dump -t "$pid" -D "$dir" -o dump.log -v4 -L "$PLUGINDIR" "$@" >>"$(criu_output)" 2>&1
	rc=$?
	[ $rc = 0 ] || criu_errors "dump of $pid" $rc "$dir/dump.log"
	return $rc
}

# criu_errors WHAT RC LOG: criu's error lines as TAP comments, so a failed run explains itself in
# the test's log (a failure that was expected costs a few comment lines)
criu_errors() {
	echo "# criu $1 exited $2; its errors ($3):"
	grep -a -E 'Error \(|cudastore: .*(cannot|fail|refus)' "$3" 2>/dev/null | tail -n 8 | cut -c1-200 |
		sed 's/^/#   /'
}

# criu_restore DIR [criu options...]
criu_restore() {
	local dir=$1 rc; shift
	timeout -k 5 "${CRIU_TIMEOUT:-180}" env ${CRIU_ENV:-} "$CRIU" restore -d -D "$dir" -o restore.log -v4 -L "$PLUGINDIR" "$@" >>"$(criu_output)" 2>&1
	rc=$?
	[ $rc = 0 ] || criu_errors "restore from ${dir##*/}" $rc "$dir/restore.log"
	return $rc
}

# log_has FILE REGEX
log_has() { grep -aEq -- "$2" "$1"; }

# read_verdict OUTFILE: the first line of the verdict written to OUTFILE within 30 s, else
# "no verdict". Remove OUTFILE before asking for the verdict: one already there is from an
# earlier life of the process (the same images restored again and again).
read_verdict() {
	wait_file "$1" 30 || { echo "no verdict"; return; }
	head -n1 "$1"
}

# stop PID with SIGTERM and wait for its outfile verdict
verdict() { # verdict PID OUTFILE -> prints the outfile's first line
	rm -f "$2"
	kill -TERM "$1" 2>/dev/null
	read_verdict "$2"
}

# ---- GPU workload helpers (driver emulator) --------------------------------------------------

# start_workload NAME [workload options...]: daemonized, ready-marker synchronised; sets WPID
start_workload() {
	local name=$1; shift
	rm -f "$WORK/$name.pid" "$WORK/$name.ready" "$WORK/$name.out"
	"$WORKLOAD" --daemon --pidfile "$WORK/$name.pid" --ready "$WORK/$name.ready" \
		--outfile "$WORK/$name.out" "$@" >"$WORK/$name.stdout" 2>>"$WORK/$name.err" </dev/null
	wait_file "$WORK/$name.ready" 60 || { cat "$WORK/$name.err" >&2; bail "workload $name did not get ready"; }
	WPID=$(cat "$WORK/$name.pid")
	PIDS_TO_KILL="$PIDS_TO_KILL $WPID"
}

# start_decoy_tree: a workload (root) whose driver thread never answers (a decoy the emulated
# driver names as its restore thread) and one sound CUDA child; sets WPID and CHILD
start_decoy_tree() {
	start_workload w --size 4m --fork-cuda 1 --decoy-driver-thread
	sleep 0.5
	CHILD=$(cat /proc/"$WPID"/task/*/children | tr ' ' '\n' | grep . | head -n1)
	PIDS_TO_KILL="$PIDS_TO_KILL $CHILD"
}

# timed_dump BOUND_S: criu dump of $WPID into $WORK/img under a BOUND_S timeout; sets rc and t
timed_dump() {
	local t0
	t0=$(date +%s)
	CRIU_TIMEOUT=$1 criu_dump "$WORK/img" "$WPID"
	rc=$?
	t=$(($(date +%s) - t0))
}

manifest_of() { echo "$1/cudastore-$2.img"; } # DIR NSPID
extent_of() { echo "$1/cudastore-$2-gpu$3.ext"; } # DIR NSPID INDEX
mode_of() { stat -c %a "$1"; }
images_sum() { (cd "$1" && sha256sum cudastore-* 2>/dev/null | sort); }

# the process is alive, computing, and verifies all its GPU memory: prints the verdict
check_verdict() { # check_verdict NAME PID DESCRIPTION
	local v
	sleep 0.3
	v=$(verdict "$2" "$WORK/$1.out")
	check "$3 ($v)" [ "$v" = PASS ]
}

# check_watched_resume NAME: after a leave-running dump whose decision was left to watching the
# tasks (criu's options unknown), the helper saw criu let the workload ($WPID, started as NAME,
# images in $WORK/NAME) run, resumed its GPU state, and the workload verifies every byte
check_watched_resume() {
	local name=$1 g=$WORK/$1/cudastore-guardian.log
	wait_file "$g" 20
	for _ in $(seq 100); do log_has "$g" "resumed with its GPU memory|rollback failed" && break; sleep 0.1; done
	check "$name: criu let it run and its GPU state was resumed" \
		log_has "$g" "pid $WPID: resumed with its GPU memory in .* \(criu let it run\)"
	diag "$name: $(grep -ao 'criu let it run [0-9]* ms after' "$g" | head -1); $(grep -ao 'resumed with its GPU memory in [0-9.]* s' "$g")"
	check_verdict "$name" "$WPID" "$name: process runs on and verifies every byte"
}

# leave_running_two_ways: a workload dumped by $CRIU with leave-running from a criu config file
# ($WORK/lr.conf), then another over RPC (criu swrk through $RPC, the plugin directory from
# $WORK/libdir.conf); the test's leave_case NAME RC checks each (NAME config, swrk)
leave_running_two_ways() {
	start_workload config --size 1m
	criu_dump "$WORK/config" "$WPID" --config "$WORK/lr.conf"
	leave_case config $?
	start_workload swrk --size 1m
	mkdir -p "$WORK/swrk"
	timeout -k 5 120 "$RPC" swrk "$CRIU" "$WPID" "$WORK/swrk" --leave-running --config "$WORK/libdir.conf" \
		>/dev/null 2>"$WORK/swrk.rpc"
	leave_case swrk $?
}

# tr_count TRACE API [RESULT]: how many times API appears in the emulator trace (caller side)
tr_count() {
	[ -f "$1" ] || { echo 0; return; }
	if [ -n "${3:-}" ]; then
		awk -v n="$2" -v r="$3" '$3 == n && $4 == r' "$1" | wc -l
	else
		awk -v n="$2" '$3 == n' "$1" | wc -l
	fi
}

# The trace's columns 5 and 6 are each call's begin and end (CLOCK_MONOTONIC ns), column 7 the
# pid the call concerns (docs/testing.md).
# tr_overlap TRACE API N: at least N caller-side calls of API with result 0 were all in flight at
# one moment (some N of them: the latest begin before the earliest end). Says what it found
# otherwise.
tr_overlap() {
	local most
	[ -f "$1" ] || { diag "tr_overlap: no trace $1"; return 1; }
	most=$(awk -v n="$2" '$3 == n && $4 == 0 && NF >= 6 { print $5, 1; print $6, 0 }' "$1" |
		sort -k1,1n -k2,2n |
		awk '$2 == 1 { if (++k > m) m = k } $2 == 0 { k-- } END { print m + 0 }')
	[ "$most" -ge "$3" ] && return 0
	diag "tr_overlap: at most $most of the $(tr_count "$1" "$2" 0) successful $2 calls in flight at once, want $3:"
	awk -v n="$2" '$3 == n && $4 == 0 { if (t0 == "") t0 = $5
		printf "#   tid %s target %s: %.3f .. %.3f s\n", $2, $7, ($5 - t0) / 1e9, ($6 - t0) / 1e9 }' "$1"
	return 1
}

# tr_span TRACE API: seconds from the first begin to the last end of API's calls (for the log)
tr_span() {
	awk -v n="$2" '$3 == n && NF >= 6 { if (b == "" || $5 < b) b = $5; if ($6 > e) e = $6 }
		END { if (b == "") exit 1; printf "%.3f\n", (e - b) / 1e9 }' "$1"
}

# ---- the cudastore command (cli/) ----------------------------------------------------------
CUDASTORE_CMD=${top_builddir:-.}/cudastore
# json_get FILE EXPR: a Python expression over the parsed JSON document d (fails on bad JSON)
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# flip_byte FILE [OFFSET]: xor one byte in place (default: the middle of the file), same size
flip_byte() {
	local f=$1 off=${2:-} b
	[ -n "$off" ] || off=$(( $(stat -c %s "$f") / 2 + 12345 ))
	b=$(dd if="$f" bs=1 skip="$off" count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
	printf "$(printf '\\%03o' $(( (b ^ 0x5a) & 255 )))" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
}

# gone PID...: none of them runs any more (dead, or a zombie waiting to be reaped). A process
# killed a moment ago may still be exiting on a loaded machine (a parallel make check on 2 CPUs
# ran at a load of 13): each gets up to 10 s to end, polled every 50 ms.
gone() {
	local p i
	for p in "$@"; do
		for i in $(seq 200); do alive "$p" || break; sleep 0.05; done
		alive "$p" && return 1
	done
	return 0
}

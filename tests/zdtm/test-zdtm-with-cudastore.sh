#!/bin/bash
# test-zdtm-with-cudastore.sh - CRIU's own zdtm suite with cudastore loaded (docs/testing.md).
#  1. A subset of CRIU's test/zdtm/static (threads, signals and itimers, seccomp, pipes, sockets,
#     mmaps, fds, pid and mount namespaces) through zdtm.py, flavor uns, with the plugin in zdtm's
#     plugin directory (test/plugins: zdtm.py points CRIU_LIBS_DIR there) and active on the driver
#     emulator. Per test: zdtm's verdict, the plugin loaded in dump and restore, active in the dump,
#     no file of its own in the images and no error of its own: the plugin never changes a dump or
#     restore of a process without a GPU.
#  2. cudastore's GPU scenarios as zdtm tests (tests/zdtm/cudastore, installed as
#     zdtm/cudastore), flavor h, criu loading the plugin through the crlib flag.
# Uses the CRIU source tree that scripts/provide-criu.sh builds (CS_CRIU_SRC, default the newest
# /var/cache/cudastore/src/criu-*/build); builds zdtm's library and the tests it runs there.
# SKIP, with the reason, without root, criu, that tree or zdtm's Python modules.
. "$top_srcdir/tests/e2e/lib.sh"

STATIC="pthread00 pthread01 pthread_timers futex
sigaltstack sigpending signalfd00 sigtrap01 pdeath_sig timers posix_timers timerfd
seccomp_filter seccomp_filter_threads seccomp_filter_tsync seccomp_strict seccomp_no_new_privs
seccomp_filter_inheritance
pipe00 pipe01 pipe02 pipe03 fifo fifo_ro unlink_fifo
sockets00 sockets01 sockets02 sockets_spair sockets_dgram socket_listen socket_udp socket_udplite
sk-unix-unconn scm00 sk-unix01 socket_queues
maps00 maps02 maps04 maps05 maps06 mprotect00 shm memfd00 unlink_mmap00
fd fd01 file_shared fdt_shared epoll eventfs00 inotify00 file_locks00 env00 cwd00
pid00 pstree session00 session01 zombie00 mntns_open mntns_link_remap mntns_ghost tempfs"
GPU="cuda-workload cuda-workload-tree"
PY=/usr/bin/python3 # zdtm's modules are Debian's, for the system python (docs/testing.md)
unset MAKEFLAGS MFLAGS MAKELEVEL

need_criu
SRC=${CS_CRIU_SRC:-$(ls -d /var/cache/cudastore/src/criu-*/build 2>/dev/null | sort -V | tail -n1)}
T=$SRC/test
[ -n "$SRC" ] && [ -f "$T/zdtm.py" ] ||
	skip_all "no CRIU source tree with test/zdtm.py (${SRC:-none under /var/cache/cudastore/src}; scripts/provide-criu.sh builds one, or set CS_CRIU_SRC)"
why=$("$PY" -c 'import yaml, google.protobuf' 2>&1) ||
	skip_all "zdtm needs python3-yaml and python3-protobuf for $PY: $(echo "$why" | tail -n1)"
command -v iptables-restore >/dev/null || skip_all "zdtm's namespace flavors need iptables-restore (package iptables)"

# one run at a time in this CRIU tree (other cudastore trees on this machine use it too)
exec 9>"$T/.cudastore-zdtm.lock"
flock -w 300 9 || bail "another cudastore zdtm run has held $T/.cudastore-zdtm.lock for 300 s"

# --- zdtm's library, pycriu's generated modules and the tests we run ----------------------
step() { # step DESCRIPTION LOG command...
	local d=$1 log=$2 start=$SECONDS; shift 2
	if "$@" >"$log" 2>&1; then
		ok "$d ($((SECONDS - start)) s)"
	else
		not_ok "$d failed; last lines of $log:"
		tail -n 20 "$log" | sed 's/^/#   /'
		plan "$T_N"
		exit 1
	fi
}
setup_work
LOGS=$top_builddir/tests/zdtm/logs
rm -rf "$LOGS" && mkdir -p "$LOGS"
[ -f "$SRC/lib/pycriu/rpc_pb2.py" ] ||
	step "pycriu's modules generated (make -C $SRC lib)" "$LOGS/make-lib.log" make -C "$SRC" lib
# shellcheck disable=SC2086
step "zdtm's library and $(echo $STATIC | wc -w) static tests built" "$LOGS/make-tests.log" \
	sh -c 'make -C "$1/zdtm/lib" -j"$2" && shift 2 && make -C "$0/zdtm/static" -j2 "$@"' \
	"$T" "$T" "$(nproc)" $STATIC

# --- the plugin where zdtm's criu finds it, active on the emulator ------------------------
use_emulator
export CUDASTORE_EMU_DEVICES=1
# zdtm's test/ directory is world-writable (its uns flavor runs tests as another user), so the
# helper beside the plugin there is refused, as it must be: the config names one in this test's
# private directory instead
mkdir -p "$WORK/helper" && cp "$top_builddir/cudastore-helper" "$WORK/helper/" ||
	bail "cannot copy cudastore-helper"
printf 'helper = %s\n' "$WORK/helper/cudastore-helper" >"$WORK/cudastore.conf"
export CUDASTORE_CONFIG=$WORK/cudastore.conf
installed=
remove_installed() { rm -rf $installed "$T/dump"; cleanup; }
trap remove_installed EXIT
cp "$PLUGIN_SO" "$T/plugins/" && installed="$T/plugins/$(basename "$PLUGIN_SO")"
if [ -e "$top_builddir/cudastore-helper" ]; then
	cp "$top_builddir/cudastore-helper" "$T/plugins/" && installed="$installed $T/plugins/cudastore-helper"
fi
top_srcdir=$top_srcdir top_builddir=$top_builddir "$top_srcdir/tests/zdtm/install-zdtm-tests.sh" "$T" >/dev/null ||
	bail "cannot install the GPU zdtm tests into $T/zdtm/cudastore"
installed="$installed $T/zdtm/cudastore"

# zdtm NAME FLAVOR TESTS...: one zdtm.py run under a limit of $limit seconds (inside this test's
# own deadline, CS_TEST_TIMEOUT), its output in $LOGS/NAME.log and its report in $LOGS/NAME/
zdtm() {
	local name=$1 flavor=$2 args=() t; shift 2
	for t in "$@"; do args+=(-t "$t"); done
	[ -n "${KEEP_DUMP:-}" ] || rm -rf "$T/dump"
	rm -rf "$LOGS/$name"
	(cd "$T" && PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		timeout -k 10 "$limit" "$top_srcdir/tests/zdtm/reap-orphans.py" \
		"$PY" zdtm.py run "${args[@]}" ${ZDTM_EXTRA:-} -f "$flavor" --keep-going --ignore-taint -k always \
		--criu-bin "$CRIU" --report "$LOGS/$name") >"$LOGS/$name.log" 2>&1
}

# verdict TEST: zdtm's line for it in the report
verdict() { grep -E "^(not )?ok [0-9]+ - $1( |$)" "$LOGS"/*/criu-testreport.tap | head -n1 | cut -d: -f2-; }

plugin_says() { # plugin_says TEST: checks of the plugin in that test's criu logs
	local t=$1 d dlog rlog
	dlog=$(ls "$T"/dump/$t/*/1/dump.log 2>/dev/null | head -n1)
	rlog=$(ls "$T"/dump/$t/*/1/restore.log 2>/dev/null | head -n1)
	[ -n "$dlog" ] && [ -n "$rlog" ] || { echo "no dump.log/restore.log"; return 1; }
	d=$(dirname "$dlog")
	grep -q 'Plugin "cudastore"' "$dlog" || { echo "plugin not loaded by criu dump"; return 1; }
	grep -q 'Plugin "cudastore"' "$rlog" || { echo "plugin not loaded by criu restore"; return 1; }
	grep -q 'cudastore: .*driver CUDA 13040' "$dlog" || { echo "plugin not active in the dump"; return 1; }
	if grep -E 'cudastore: .*(rror|ailed|efus|annot)' "$dlog" "$rlog" | head -n 2 | sed 's/^/#     /' | grep .; then
		echo "plugin errors in the logs"
		return 1
	fi
	echo "$d"
}

# --- 1. the static subset: the plugin leaves CPU-only processes alone -----------------------
# shellcheck disable=SC2086
start=$SECONDS
limit=420
zdtm static uns $(printf 'zdtm/static/%s ' $STATIC)
rc=$?
diag "zdtm run of $(echo $STATIC | wc -w) static tests: exit $rc in $((SECONDS - start)) s (output: $LOGS/static.log)"
npass=0
for t in $STATIC; do
	v=$(verdict "zdtm/static/$t")
	if ! echo "$v" | grep -q '^ok' || echo "$v" | grep -q '# SKIP'; then
		not_ok "zdtm/static/$t with cudastore: zdtm says '${v:-no result}'"
		grep -A12 "Test zdtm/static/$t FAIL" "$LOGS/static.log" | head -n 12 | sed 's/^/#   /'
		continue
	fi
	if ! d=$(plugin_says "zdtm/static/$t"); then
		not_ok "zdtm/static/$t with cudastore: zdtm passed, but: $d"
		continue
	fi
	own=$(ls "$d" | grep -c '^cudastore-')
	if [ "$own" != 0 ]; then
		not_ok "zdtm/static/$t with cudastore: the plugin wrote $own file(s) for a process without a GPU"
		continue
	fi
	npass=$((npass + 1))
	ok "zdtm/static/$t with cudastore loaded and active: PASS, no GPU state, no cudastore files"
done
nstatic=$(echo $STATIC | wc -w)
check "zdtm static subset with cudastore: $npass of $nstatic passed (at least 40 must run)" \
	[ "$npass" = "$nstatic" -a "$npass" -ge 40 ]

# --- 2. the GPU scenarios as zdtm tests ---------------------------------------------------------
start=$SECONDS
limit=120
# shellcheck disable=SC2046
zdtm gpu h $(printf 'zdtm/cudastore/%s ' $GPU)
diag "zdtm run of the GPU tests: exit $? in $((SECONDS - start)) s (output: $LOGS/gpu.log)"
for t in $GPU; do
	v=$(verdict "zdtm/cudastore/$t")
	why=
	if ! echo "$v" | grep -q '^ok' || echo "$v" | grep -q '# SKIP'; then
		why="zdtm says '${v:-no result}'"
	elif ! d=$(plugin_says "zdtm/cudastore/$t"); then
		why=$d
	elif ! ls "$d" | grep -q '^cudastore-.*\.ext$'; then
		why="no GPU extent in the images"
	elif ! grep -q 'cudastore: pid .*GPU checkpoint done' "$d/dump.log"; then
		why="no 'GPU checkpoint done' in dump.log"
	elif ! grep -q 'cudastore: pid .*GPU restore done' "$d/restore.log"; then
		why="no 'GPU restore done' in restore.log"
	fi
	check "zdtm/cudastore/$t: GPU memory dumped, restored and verified by the test under zdtm${why:+: $why}" \
		[ -z "$why" ]
	[ -z "$why" ] || grep -A12 "Test zdtm/cudastore/$t FAIL" "$LOGS/gpu.log" | head -n 12 | sed 's/^/#   /'
done
# --- 3. --freezecg (what container runtimes pass): the freezer stays for CPU-only trees ----------
# transition/thread-bomb keeps creating threads: only the cgroup freezer seizes it in one step.
# The uns flavor: the host flavor cannot read the frozen tasks' rlimits without CAP_SYS_RESOURCE,
# which some CI roots lack. A CUDA tree under --freeze-cgroup (seized thread by thread, the
# plugin's choice) is tests/e2e/test-freeze-cgroup-kept-without-cuda.sh's, the GPU zdtm tests
# having no uns flavor.
# thread-bomb starts ZDTM_THREAD_BOMB threads (1024 by default), each making the next as it
# ends, before it says it is ready: on a 2-CPU machine with other tests running beside it, that
# took longer than zdtm's 30 s start limit, and the bomb left behind by zdtm then sank the retry
# too. 64 threads still come and go all the time, and start in well under a second.
export ZDTM_THREAD_BOMB=64
start=$SECONDS
limit=240
FREEZECG="zdtm/transition/thread-bomb zdtm/static/pipe00 zdtm/static/env00"
# shellcheck disable=SC2086
ZDTM_EXTRA="--freezecg zdtm:f" zdtm freezecg uns $FREEZECG
diag "zdtm run with --freezecg: exit $? in $((SECONDS - start)) s (output: $LOGS/freezecg.log)"
for t in $FREEZECG; do
	v=$(grep -E "^(not )?ok [0-9]+ - $t( |$)" "$LOGS/freezecg/criu-testreport.tap" | head -n1)
	if echo "$v" | grep -q '# flavor unknown'; then
		# zdtm could not even start the test (its own 30 s start-up limit, on a loaded machine):
		# once more, alone; a failure of the dump or restore is never retried
		diag "$t did not start under zdtm ($v); starting it once more"
		pkill -KILL -x "${t##*/}" 2>/dev/null && sleep 1 # what the failed start left running
		KEEP_DUMP=1 ZDTM_EXTRA="--freezecg zdtm:f" zdtm freezecg-again uns "$t"
		v=$(grep -E "^(not )?ok [0-9]+ - $t( |$)" "$LOGS/freezecg-again/criu-testreport.tap" | head -n1)
	fi
	dlog=$(ls "$T"/dump/$t/*/1/dump.log 2>/dev/null | head -n1)
	why=
	want="criu keeps its cgroup freezer"
	case $t in zdtm/cudastore/*) want="seizing: thread by thread: pid [0-9]+ in the freeze cgroup uses the CUDA driver" ;; esac
	if ! echo "$v" | grep -q '^ok' || echo "$v" | grep -q '# SKIP'; then
		why="zdtm says '${v:-no result}'"
	elif [ -z "$dlog" ] || ! grep -Eq "cudastore: $want|cudastore: seizing: $want" "$dlog"; then
		why="dump.log does not say '$want'"
	fi
	check "$t with --freezecg and cudastore${why:+: $why}" [ -z "$why" ]
	[ -z "$why" ] || grep -A12 "Test $t FAIL" "$LOGS/freezecg.log" | head -n 12 | sed 's/^/#   /'
done
plan "$T_N"
done_testing

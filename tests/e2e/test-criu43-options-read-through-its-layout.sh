#!/bin/bash
# CRIU 4.3 (Debian experimental's, with a sid root's libraries: scripts/provide-criu43.sh): the
# plugin reads criu 4.3's own options through the checked-in "table for CRIU 4.3.x" layout, after
# it passed the run-time check. Leave-running from a CRIU config file and over RPC (criu swrk),
# which criu's command line does not show, is read from criu's options: the process runs on with
# every byte of its GPU memory; a plain dump is read as criu killing the tree and copies nothing
# back; a page server asked for over RPC is refused before any lock. A chunked dump with criu
# 4.3's --prev-images-dir ../img1, and one whose RPC request names ../img1 as parent_img, name
# the GPU parent and write at most 1 % of the GPU bytes anew. With criu_options = no,
# leave-running is still found by watching the tasks. Skips when the sid root is not there.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root for criu"
ROOT=$("$top_srcdir/scripts/provide-criu43.sh" --print 2>/dev/null) ||
	skip_all "no CRIU 4.3 root: run scripts/provide-criu43.sh (debootstrap of Debian sid, criu 4.3 from experimental; about 40 s to a few minutes, cached)"
RPC=$top_builddir/tests/e2e/criu-rpc
[ -x "$RPC" ] || bail "tests/e2e/criu-rpc not built"
setup_work; use_emulator

# criu 4.3 with the sid root's loader and libraries, run on this host (provide-criu43.sh says why)
CRIU=$ROOT/opt/cudastore/criu
ver=$("$CRIU" --version | sed -n 's/^Version: *//p')
case "$ver" in 4.3*) ;; *) skip_all "the sid root's criu is '$ver', not 4.3" ;; esac
why=$("$CRIU" check 2>&1) || skip_all "criu 4.3 check fails here: $(echo "$why" | grep -m1 -iE 'error|fail' | cut -c1-120)"
plan 30
set_config "# leave_running unset: the plugin must find out itself"
printf 'libdir %s\n' "$PLUGINDIR" >"$WORK/libdir.conf"
printf 'leave-running\n' >"$WORK/lr.conf"
LAYOUT="criu's options, table for CRIU 4\.3\.x"

# leave_case NAME RC: criu 4.3 let the process run, the plugin read it from criu's options
leave_case() {
	local name=$1 rc=$2 log=$WORK/$1/dump.log
	check "$name: criu 4.3 dump succeeds" [ "$rc" = 0 ]
	check "$name: leave-running read through the 4.3.x layout" \
		log_has "$log" "criu leaves running the dumped tree \(read from $LAYOUT\)"
	check "$name: GPU memory put back in the exit hook" \
		log_has "$log" "pid $WPID: resumed with its GPU memory"
	check_verdict "$name" "$WPID" "$name: process runs on and verifies every byte"
}

leave_running_two_ways

start_workload plain --size 1m
criu_dump "$WORK/plain" "$WPID"; rc=$?
check "plain: criu 4.3 dump succeeds" [ "$rc" = 0 ]
check "plain: read through the 4.3.x layout" \
	log_has "$WORK/plain/dump.log" "criu does not leave running the dumped tree \(read from $LAYOUT\)"
check "plain: criu killed the process" wait_gone "$WPID"
check "plain: nothing resumed" bash -c "! grep -aq 'resumed with its GPU memory' '$WORK/plain/dump.log'"

# a page server asked for over RPC, which only criu's options show: refused in PAUSE, never locked
PORT=$((27000 + $$ % 1000))
mkdir -p "$WORK/ps-target" "$WORK/ps"
"$CRIU" page-server -d -D "$WORK/ps-target" --address 127.0.0.1 --port "$PORT" \
	--pidfile "$WORK/ps.pid" -o "$WORK/ps.log" >/dev/null 2>&1 || bail "criu 4.3 page-server did not start"
wait_file "$WORK/ps.pid" 10 && PIDS_TO_KILL="$PIDS_TO_KILL $(cat "$WORK/ps.pid")"
export CUDASTORE_EMU_TRACE=$WORK/ps.trace
start_workload ps --size 1m
timeout -k 5 120 "$RPC" swrk "$CRIU" "$WPID" "$WORK/ps" --page-server 127.0.0.1 "$PORT" \
	--config "$WORK/libdir.conf" >/dev/null 2>"$WORK/ps.rpc"
check "ps: criu 4.3 dump over RPC with a page server fails" [ $? != 0 ]
check "ps: refused in PAUSE, read through the 4.3.x layout" log_has "$WORK/ps/dump.log" \
	"pid $WPID: criu runs with --page-server, which cudastore cannot serve for a CUDA process: .*read from $LAYOUT\)"
# never_locked TRACE: the emulator traced the driver calls, and no process lock was among them
never_locked() { [ -s "$1" ] && [ "$(tr_count "$1" cuCheckpointProcessLock)" = 0 ]; }
check "ps: the process was never locked" never_locked "$WORK/ps.trace"
check_verdict ps "$WPID" "ps: the process runs on and verifies every byte"
unset CUDASTORE_EMU_TRACE

# chunked dumps: the parent from criu 4.3's --prev-images-dir, on the command line and over RPC
set_config "chunks = yes"
TRACK=
"$CRIU" check --feature mem_dirty_track >/dev/null 2>&1 && TRACK=--track-mem
diag "criu 4.3 memory tracking: ${TRACK:-not available in this kernel}"
start_workload w --size 128m --zero-percent 0
criu_dump "$WORK/img1" "$WPID" --leave-running $TRACK
check "first chunked dump succeeds" [ $? = 0 ]
SIZE=$(chunk_bytes "$WORK/img1")
# without dirty-memory tracking criu cannot check a parent's pages: it dumps its own in full
[ -n "$TRACK" ] || rm -f "$WORK"/img1/pagemap-*.img "$WORK"/img1/pages-*.img

# child_case NAME RC: a child dump of $WORK/img1 whose parent came from criu 4.3's options
child_case() {
	local name=$1 rc=$2 log=$WORK/$1/dump.log new
	check "$name: child dump succeeds" [ "$rc" = 0 ]
	check "$name: --prev-images-dir read through the 4.3.x layout" \
		log_has "$log" "criu's --prev-images-dir: \.\./img1 \(read from $LAYOUT\)"
	check "$name: the log names the GPU parent" log_has "$log" "chunked dump: parent \.\./img1,"
	new=$(new_bytes "$WORK/$name")
	diag "$name: wrote $new new bytes of $(chunk_bytes "$WORK/$name") chunk bytes ($SIZE GPU bytes)"
	check "$name: wrote at most 1 % of the GPU bytes anew" \
		[ "$(chunk_bytes "$WORK/$name")" -ge "$SIZE" -a "$new" -le $((SIZE / 100)) ]
}

criu_dump "$WORK/img2" "$WPID" --leave-running $TRACK --prev-images-dir ../img1
child_case img2 $?

mkdir -p "$WORK/rpcimg"
printf 'libdir %s\n%s\n' "$PLUGINDIR" "${TRACK#--}" >"$WORK/rpc-child.conf"
timeout -k 5 120 "$RPC" swrk "$CRIU" "$WPID" "$WORK/rpcimg" --leave-running --parent ../img1 \
	--config "$WORK/rpc-child.conf" >/dev/null 2>"$WORK/rpcimg.rpc"
child_case rpcimg $?
check_verdict w "$WPID" "the process runs on after three dumps and verifies every byte"
kill -9 "$WPID"; wait_gone "$WPID"

# criu's options unread: leave-running is found by watching the tasks, as for an unknown layout
set_config "criu_options = no"
start_workload watched --size 1m
criu_dump "$WORK/watched" "$WPID" --config "$WORK/lr.conf"; rc=$?
check "watched: criu 4.3 dump succeeds" [ "$rc" = 0 ]
check "watched: criu_options = no leaves the decision to watching the tasks" \
	log_has "$WORK/watched/dump.log" "criu_options=no.*cudastore-helper will watch what criu does"
check_watched_resume watched
done_testing

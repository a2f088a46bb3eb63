#!/bin/bash
# CRIU modes cudastore cannot serve are refused in PAUSE_DEVICES, before any lock, with a message
# saying why and what to do: --page-server (GPU extents would stay behind), --lazy-pages (GPU
# memory cannot be paged in lazily) and --stream (the image streamer bypasses the images
# directory). The CUDA process keeps running, is never locked, and verifies every byte. A process
# without the CUDA driver is not refused (the plugin never changes a dump it has no part in).
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
export CUDASTORE_EMU_TRACE=$WORK/trace
plan 17
PORT=$((27000 + $$ % 1000))

# refused NAME OPTION-TEXT: dump failed, log line, never locked, still running, data intact
refused() {
	local name=$1 opt=$2 rc=$3
	check "$name: criu dump fails" [ "$rc" != 0 ]
	check "$name: refused in PAUSE with the reason" log_has "$WORK/$name/dump.log" \
		"pid $WPID: criu runs with $opt, which cudastore cannot serve for a CUDA process: .*Dump .*without $opt"
	check "$name: the process was never locked" [ "$(tr_count "$WORK/trace" cuCheckpointProcessLock)" = 0 ]
	check_verdict "$name" "$WPID" "$name: the process runs on and verifies every byte"
}

# --page-server: a real page server to send the pages to
mkdir -p "$WORK/ps-target"
"$CRIU" page-server -d -D "$WORK/ps-target" --address 127.0.0.1 --port "$PORT" \
	--pidfile "$WORK/ps.pid" -o "$WORK/ps.log" >/dev/null 2>&1 || bail "criu page-server did not start"
wait_file "$WORK/ps.pid" 10 && PIDS_TO_KILL="$PIDS_TO_KILL $(cat "$WORK/ps.pid")"
start_workload ps --size 1m
criu_dump "$WORK/ps" "$WPID" --page-server --address 127.0.0.1 --port "$PORT"
refused ps --page-server $?

# --lazy-pages: criu dump starts its own page server for the lazy-pages daemon
start_workload lazy --size 1m
CRIU_TIMEOUT=60 criu_dump "$WORK/lazy" "$WPID" --lazy-pages --address 127.0.0.1 --port $((PORT + 1))
refused lazy --lazy-pages $?

# --stream: a stand-in for criu-image-streamer that accepts criu's connection and reads nothing
mkdir -p "$WORK/stream"
python3 - "$WORK/stream/streamer-capture.sock" <<'PY' >/dev/null 2>&1 &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(4)
conns = []
s.settimeout(60)
try:
    while True:
        c, _ = s.accept(); conns.append(c)
except Exception:
    pass
PY
STREAMER=$!
PIDS_TO_KILL="$PIDS_TO_KILL $STREAMER"
wait_file "$WORK/stream/streamer-capture.sock" 10 || true
[ -S "$WORK/stream/streamer-capture.sock" ] || bail "the streamer stand-in did not start"
start_workload stream --size 1m
CRIU_TIMEOUT=60 criu_dump "$WORK/stream" "$WPID" --stream
refused stream --stream $?

# a CPU-only process with --page-server: not ours, not refused (a fresh page server: one serves
# one dump)
mkdir -p "$WORK/ps-cpu"
"$CRIU" page-server -d -D "$WORK/ps-cpu" --address 127.0.0.1 --port $((PORT + 2)) \
	--pidfile "$WORK/ps2.pid" -o "$WORK/ps2.log" >/dev/null 2>&1 || bail "criu page-server did not start"
wait_file "$WORK/ps2.pid" 10 && PIDS_TO_KILL="$PIDS_TO_KILL $(cat "$WORK/ps2.pid")"
# cpu-tree in a session of its own, as test-cpu-tree-survives-dump-restore.sh runs it: a child of
# this shell would share its session and the descriptors the harness left open
mkdir -p "$WORK/cpu-status"
setsid -f "$top_builddir/tests/e2e/cpu-tree" --pidfile "$WORK/cpu.pid" --status "$WORK/cpu-status" \
	--outfile "$WORK/cpu.out" </dev/null >/dev/null 2>&1
wait_file "$WORK/cpu-status/child" 10 || bail "cpu-tree did not start"
SPID=$(cat "$WORK/cpu.pid")
PIDS_TO_KILL="$PIDS_TO_KILL $SPID $(cat "/proc/$SPID/task/$SPID/children" 2>/dev/null)"
criu_dump "$WORK/cpu" "$SPID" --page-server --address 127.0.0.1 --port $((PORT + 2))
check "a process without CUDA dumps with --page-server as before (rc $?)" \
	bash -c "! grep -aq 'cannot serve' '$WORK/cpu/dump.log' && grep -aq 'Dumping finished successfully' '$WORK/cpu/dump.log'"
check "... and no GPU processes were found in it" bash -c "! grep -aq 'CUDA process' '$WORK/cpu/dump.log'"
check "the refusal is not a silent pass: no cudastore images were written by the refused dumps" \
	bash -c "! ls '$WORK'/ps/cudastore-* '$WORK'/lazy/cudastore-* '$WORK'/stream/cudastore-* 2>/dev/null | grep -q ."
check "the refused dumps read criu's options once, at PAUSE: no warning that they cannot be read at exit" \
	bash -c "! grep -aE 'cudastore: .*(cannot be read|does not fit)' '$WORK'/ps/dump.log '$WORK'/lazy/dump.log '$WORK'/stream/dump.log"
check "criu's page server received no GPU extents" bash -c "! ls '$WORK'/ps-target/cudastore-* 2>/dev/null | grep -q ."
done_testing

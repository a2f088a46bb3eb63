#!/bin/bash
# test-emu-criu: the emulator's application state survives a real CRIU dump/restore: a
# driver-managed checkpoint, criu dump, criu restore (same pid and tids), then the restore
# thread is found again and restore + unlock work on the restored process, which verifies
# every byte. No plugin involved: emu-ctl plays cuda-checkpoint before and after CRIU.
set -u
top_builddir=${top_builddir:-.}
W=$top_builddir/tests/workload/cuda-workload
C=$top_builddir/tests/emu/emu-ctl
CRIU=${CRIU:-$(command -v criu || echo /usr/local/sbin/criu)}
export CUDASTORE_LIBCUDA=$top_builddir/tests/emu/lib/libcuda.so.1
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }

if [ "$(id -u)" != 0 ] || [ ! -x "$CRIU" ]; then
	echo "1..0 # SKIP needs root and criu"
	exit 0
fi
dir=$(mktemp -d /tmp/cs-emu-criu.XXXXXX)
P=
cleanup() { [ -n "$P" ] && kill -9 "$P" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"; }
[ -n "${EMU_KEEP:-}" ] || trap cleanup EXIT
mkdir "$dir/img"

# only 0-2 may be open in the app: CRIU refuses files that change under it (our TAP log)
(
	for fd in $(ls /proc/$BASHPID/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done
	exec "$W" --pidfile "$dir/pid" --ready "$dir/ready" --outfile "$dir/out" --log "$dir/log" --size 3m \
		</dev/null >/dev/null 2>&1
) &
for _ in $(seq 500); do [ -e "$dir/ready" ] && break; sleep 0.02; done
P=$(cat "$dir/pid" 2>/dev/null)
ok $([ -n "$P" ] && echo 0 || echo 1) "workload started (pid $P)"
tid=$("$C" tid "$P")
"$C" lock "$P" >/dev/null && "$C" checkpoint "$P" >/dev/null
ok $? "driver-managed checkpoint before the dump"
"$CRIU" dump --shell-job -t "$P" -D "$dir/img" -o dump.log -v4 >/dev/null 2>&1
ok $? "criu dump"
wait 2>/dev/null
"$CRIU" restore --shell-job -D "$dir/img" -o restore.log -v4 >"$dir/criu.err" 2>&1 &
criu_pid=$!
for _ in $(seq 500); do grep -q "Restore finished successfully" "$dir/img/restore.log" 2>/dev/null && break; sleep 0.02; done
ok $(kill -0 "$P" 2>/dev/null && echo 0 || echo 1) "criu restore brought pid $P back"
ok $([ "$("$C" tid "$P")" = "$tid" ] && echo 0 || echo 1) "the restore thread is found again (tid $tid)"
ok $([ "$("$C" state "$P")" = 2 ] && echo 0 || echo 1) "still CHECKPOINTED after CRIU"
"$C" restore "$P" >/dev/null && "$C" unlock "$P" >/dev/null
ok $? "driver-managed restore and unlock of the restored process"
sleep 0.3
kill -TERM "$P"
wait "$criu_pid" 2>/dev/null
P=
ok $([ "$(cat "$dir/out" 2>/dev/null)" = PASS ] && echo 0 || echo 1) "workload verified every byte: $(cat "$dir/out" 2>/dev/null)"
[ "$failed" = 0 ] || tail -5 "$dir/log" "$dir/criu.err" "$dir/img/restore.log" 2>/dev/null | sed "s/^/# /"
echo "1..$n"
exit $failed

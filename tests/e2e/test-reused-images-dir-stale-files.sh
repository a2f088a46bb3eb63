#!/bin/bash
# One images directory, two dumps (containers reuse small ns pids all the time): tree A has CUDA
# processes at ns pids 1 and 2; tree B has CUDA at ns pid 1 and a CPU-only child at ns pid 2.
# A's cudastore-2.* files must not survive B's dump, and restoring B must work. Before, they stayed
# and restoring B killed the tree ("has cudastore images but no CUDA restore thread").
# Then A's files are copied back into B's images (an older checkpoint merged into the directory):
# B's index lists only its own manifests, so the restore still reads only those.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
command -v unshare >/dev/null || skip_all "unshare not installed"
plan 16

# start_ns NAME WORKLOAD-OPTIONS...: the workload as pid 1 of a new pid namespace; sets HOSTPID
start_ns() {
	local name=$1 p; shift
	rm -f "$WORK/$name.ready"
	setsid unshare --pid --fork setsid "$WORKLOAD" --pidfile "$WORK/$name.pid" --ready "$WORK/$name.ready" \
		--outfile "$WORK/$name.out" --log "$WORK/$name.log" "$@" >/dev/null 2>&1 </dev/null &
	wait_file "$WORK/$name.ready" 30 || bail "$name did not start: $(cat "$WORK/$name.log")"
	HOSTPID=
	for p in $(pgrep -f -- "--pidfile $WORK/$name.pid"); do
		grep -q '^NSpid:.*[[:space:]]1$' "/proc/$p/status" && HOSTPID=$p
	done
	[ -n "$HOSTPID" ] || bail "cannot find the namespace init of $name"
	PIDS_TO_KILL="$PIDS_TO_KILL $HOSTPID"
}
nspid_of_child() { awk '/^NSpid:/ { print $NF }' "/proc/$(cat "/proc/$1/task/$1/children" | awk '{print $1}')/status"; }

start_ns a --size 4m --fork-cuda 1
check "tree A: CUDA child at ns pid $(nspid_of_child "$HOSTPID")" [ "$(nspid_of_child "$HOSTPID")" = 2 ]
criu_dump "$WORK/img" "$HOSTPID"
check "tree A dumped" [ $? = 0 ]
cp -a "$WORK/img" "$WORK/imgA"
check "A's files for ns pids 1 and 2" [ -f "$WORK/img/cudastore-1.img" ] && [ -f "$WORK/img/cudastore-2.img" ] &&
	[ -f "$WORK/img/cudastore-2-gpu0.ext" ]
wait_gone "$HOSTPID"

echo "user notes" >"$WORK/img/cudastore-notes.txt"
start_ns b --size 4m --fork-cpu 1
check "tree B: CPU-only child at ns pid $(nspid_of_child "$HOSTPID")" [ "$(nspid_of_child "$HOSTPID")" = 2 ]
criu_dump "$WORK/img" "$HOSTPID"
check "tree B dumped into the same directory" [ $? = 0 ]
check "A's files were removed at init, before criu froze or paused any process" bash -c "
	r=\$(grep -an 'removed [0-9]* cudastore file(s) of an earlier dump' '$WORK/img/dump.log' | head -n1 | cut -d: -f1)
	p=\$(grep -an 'cudastore: pause:' '$WORK/img/dump.log' | head -n1 | cut -d: -f1)
	[ -n \"\$r\" ] && [ -n \"\$p\" ] && [ \"\$r\" -lt \"\$p\" ]"
check "B's dump owns exactly its files: none left for ns pid 2 ($(ls "$WORK/img" | grep cudastore-2 | paste -sd' '))" \
	[ -z "$(ls "$WORK/img" | grep '^cudastore-2[.-]')" ]
check "B's files for ns pid 1 are there" [ -f "$WORK/img/cudastore-1.img" ]
check "a file that is not of the plugin's names is left alone" grep -qx "user notes" "$WORK/img/cudastore-notes.txt"
wait_gone "$HOSTPID"
cp -a "$WORK/img" "$WORK/imgB"
criu_restore "$WORK/img" --pidfile "$WORK/restored.pid"
check "tree B restores" [ $? = 0 ]
NEWPID=$(cat "$WORK/restored.pid" 2>/dev/null)
PIDS_TO_KILL="$PIDS_TO_KILL $NEWPID"
check "its CUDA root got its GPU state back" log_has "$WORK/img/restore.log" "pid $NEWPID: GPU restore done"
check "no process was killed" bash -c "! grep -q 'killing the process' '$WORK/img/restore.log'"
check_verdict b "$NEWPID" "root and CPU child verified their state"

wait_gone "$NEWPID"
cp -a "$WORK"/imgA/cudastore-2* "$WORK/imgB/"
criu_restore "$WORK/imgB" --pidfile "$WORK/restored2.pid"
check "with A's stale files merged back, tree B still restores" [ $? = 0 ]
NEWPID=$(cat "$WORK/restored2.pid" 2>/dev/null)
PIDS_TO_KILL="$PIDS_TO_KILL $NEWPID"
check "the plugin ignored them: not in this dump's index" log_has "$WORK/imgB/restore.log" \
	"ignoring cudastore-2.img: not a file of this dump \(cudastore-index.img does not list ns pid 2\)"
check_verdict b "$NEWPID" "root and CPU child verified their state again"
done_testing

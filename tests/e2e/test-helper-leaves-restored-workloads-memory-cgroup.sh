#!/bin/bash
# A runtime restores by running criu inside the container's memory cgroup. The helper criu
# starts moves into the memory cgroup of criu's caller, so its pinned buffers are not charged to
# the workload's limit, and lowers its OOM score below every ordinary process's. The restored
# workload itself stays where criu put it, and verifies every byte.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
if [ -d /sys/fs/cgroup/memory ] && grep -q ' - cgroup .*memory' /proc/self/mountinfo; then
	MNT=/sys/fs/cgroup/memory; V=v1
	mine=$(sed -n 's/^[0-9]*:[^:]*memory[^:]*://p' /proc/self/cgroup)
else
	MNT=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo); V=v2
	mine=$(sed -n 's/^0:://p' /proc/self/cgroup)
fi
[ -n "$MNT" ] && [ -n "$mine" ] || skip_all "no memory cgroup hierarchy here"
B=$MNT/cudastore-test-$$
mkdir "$B" 2>/dev/null || skip_all "cannot make a memory cgroup under $MNT ($V)"
trap 'kill -9 $(cat "$B/cgroup.procs" 2>/dev/null) 2>/dev/null; sleep 0.3; rmdir "$B" 2>/dev/null; cleanup' EXIT
memcg_of() { # memcg_of PID: its memory cgroup path in this hierarchy
	if [ $V = v1 ]; then sed -n 's/^[0-9]*:[^:]*memory[^:]*://p' "/proc/$1/cgroup"; else sed -n 's/^0:://p' "/proc/$1/cgroup"; fi
}
plan 7
start_workload w --size 16m
criu_dump "$WORK/img" "$WPID"
check "dumped" [ $? = 0 ]
wait_gone "$WPID"
STALL=$WORK/stall
# criu in the workload's cgroup, started by this script (its caller) which is not
CUDASTORE_TEST_STALL=restore CUDASTORE_TEST_STALL_FILE=$STALL \
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" restore -d -D "$3" -o restore.log -v4 -L "$4"' \
	sh "$B" "$CRIU" "$WORK/img" "$PLUGINDIR" >/dev/null 2>&1 &
CPID=$!
wait_file "$STALL" 60 || bail "the restore never reached its GPU phase"
HPID=$(cat "$STALL")
check "criu runs in the workload's memory cgroup ($(memcg_of $CPID))" [ "$(memcg_of $CPID)" = "/${B#$MNT/}" ]
check "the helper is in its caller's memory cgroup ($(memcg_of $HPID)), not the workload's" \
	[ "$(memcg_of $HPID)" = "$mine" ]
if [ $(( 0x$(sed -n 's/^CapEff:\t//p' /proc/self/status) >> 24 & 1 )) = 1 ]; then
	check "the helper's OOM score is below every ordinary process's ($(cat /proc/$HPID/oom_score_adj))" \
		[ "$(cat /proc/$HPID/oom_score_adj)" = -999 ]
else # this machine's root lacks CAP_SYS_RESOURCE: the helper says so
	check "without CAP_SYS_RESOURCE the helper says its OOM score stays" log_has "$WORK/img/restore.log" \
		"the helper's OOM score is left as it is .*lowering it takes CAP_SYS_RESOURCE"
fi
check "the helper said where it went" log_has "$WORK/img/restore.log" \
	"helper moved out of criu's memory cgroup /${B#$MNT/} into $mine"
rm -f "$STALL"
wait "$CPID"
check "criu restore succeeds" [ $? = 0 ]
check_verdict w "$WPID" "the restored workload verified every byte"
done_testing

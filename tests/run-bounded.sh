#!/bin/bash
# run-bounded.sh TEST [ARGS...] - the harness's LOG_COMPILER: runs one test under a deadline of
# CS_TEST_TIMEOUT seconds (default 600). On the deadline it prints, as TAP comments, what the
# test's processes were doing (ps and kernel stacks), kills the test's process group and bails
# out, so a hung test fails with a diagnosis instead of using up CI's time. Exit status and
# output are the test's own otherwise.
limit=${CS_TEST_TIMEOUT:-600}

# the test and everything it starts (unless it calls setsid) in a process group of its own
set -m
"$@" &
test_pid=$!
sleep "$limit" &
timer_pid=$!
set +m
trap 'kill -KILL -- "-$test_pid" "$timer_pid" 2>/dev/null; exit 143' TERM INT HUP

procs() { # every process of the test's group, and any process running one of our binaries
	ps -eo pid=,pgid=,args= | awk -v g="$test_pid" -v top="${top_builddir:-/nonexistent}" \
		'$2 == g || index($0, top) || /criu|cuda-workload|cpu-tree/ { print $1 }' |
		grep -vx -e "$$" -e "$timer_pid"
}

diagnose() {
	echo "# ${1##*/} still running after ${limit}s (CS_TEST_TIMEOUT); its processes:"
	ps -o pid,ppid,pgid,stat,etimes,wchan:24,args -p "$(procs | paste -sd, -)" 2>/dev/null |
		sed 's/^/#   /'
	for p in $(procs); do
		[ -r "/proc/$p/stack" ] || continue
		echo "# kernel stack of $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-60)):"
		head -n 6 "/proc/$p/stack" 2>/dev/null | sed 's/^/#     /'
	done
}

wait -n -p first "$test_pid" "$timer_pid"
rc=$?
if [ "$first" = "$timer_pid" ]; then
	diagnose "$1"
	kill -KILL -- "-$test_pid" 2>/dev/null
	wait "$test_pid" 2>/dev/null
	echo "Bail out! ${1##*/} timed out after ${limit}s"
	exit 99
fi
kill "$timer_pid" 2>/dev/null
wait "$timer_pid" 2>/dev/null
exit "$rc"

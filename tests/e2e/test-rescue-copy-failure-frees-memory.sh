#!/bin/bash
# Writing the extents fails (injected cuMemcpyDtoHAsync fault), then the host copy meant for the
# rollback fails too (injected cuMemcpyDtoH fault): the dump fails and the host memory taken for
# that copy is given back at once. The dump is held in the rollback (every GetState delayed) while
# the test looks for an anonymous mapping of the region's size in the address space of
# cudastore-helper, which makes the copies (its pid from criu's log).
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 4

# 37 MiB buffer + 64 KiB scratch: the driver maps 40 MiB (2 MiB granules); nothing else in the
# helper has a writable anonymous mapping that large: its pinned buffers (anonymous mappings in the
# emulator, which the kernel merges when they lie side by side) are held to one, by pinned_mb = 16
# (three side by side made 48 MiB, seen as a leak)
start_workload w --size 37m --buffers 1 --seed 5
region=$((40 << 20))
CRIU_ENV="CUDASTORE_PINNED_MB=16 CUDASTORE_EMU_FAULTS=cuMemcpyDtoHAsync:1:700,cuMemcpyDtoH:1:700 CUDASTORE_EMU_DELAY=cuCheckpointProcessGetState:1500" \
	criu_dump "$WORK/img" "$WPID" &
DUMPER=$!
anon_rw_at_least() { # anon_rw_at_least PID BYTES: writable anonymous mappings of BYTES or more
	# (the kernel may merge the region with a neighbouring anonymous mapping)
	local range perm off dev inode path n=0
	[ -r "/proc/$1/maps" ] || return 1
	while read -r range perm off dev inode path; do
		if [ -z "$path" ] && [ "${perm:0:2}" = rw ] && [ $((0x${range#*-} - 0x${range%-*})) -ge "$2" ]; then
			n=$((n + 1))
		fi
	done <"/proc/$1/maps"
	echo "$n"
}
seen=0 leaked=0 samples=0
for i in $(seq 600); do
	kill -0 "$DUMPER" 2>/dev/null || break
	if [ "$seen" = 0 ] && grep -q "making a host copy of GPU region 0 failed" "$WORK/img/dump.log" 2>/dev/null; then
		seen=$i
	fi
	# sample from 0.3 s after the failure was logged, while the helper waits in the rollback
	if [ "$seen" != 0 ] && [ $((i - seen)) -ge 3 ]; then
		h=$(sed -nE 's/.*cudastore-helper running as pid ([0-9]+),.*/\1/p' "$WORK/img/dump.log" | tail -n 1)
		n=
		[ -n "$h" ] && n=$(anon_rw_at_least "$h" "$region" 2>/dev/null)
		if [ -n "$n" ]; then
			samples=$((samples + 1))
			[ "$n" -gt 0 ] && leaked=$n
		fi
	fi
	sleep 0.1
done
wait "$DUMPER"; rc=$?
check "dump fails (rc $rc)" [ "$rc" != 0 ]
check "the host copy failed and said so" [ "$seen" != 0 ]
check "the helper was sampled after the failure ($samples samples)" [ "$samples" -ge 2 ]
check "no writable anonymous mapping of $((region >> 20)) MiB or more left in the helper after the failed copy ($leaked found)" [ "$leaked" = 0 ]
done_testing

#!/bin/bash
# A container test is not disturbed by mounts that other work makes beside it: while a runc
# container starts and is checkpointed, a cgroup v1 hierarchy is mounted in the mount namespace
# the test was started in (as the cgroup yard of another test's criu restore mounts every
# hierarchy of its container for a while), and it is unmounted before the restore. runc binds
# every v1 hierarchy it sees mounted into a new container and names those binds again at
# checkpoint and restore, so a test that saw that mount got a checkpoint that criu then refused
# to restore ("No mapping for N mountpoint"). Container tests run in a mount namespace of their
# own (lib.sh's own_mount_namespace): the mount is never seen, the restore succeeds and the
# container verifies every byte of its GPU memory. Both modes.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
. "$top_srcdir/tests/e2e/runc-lib.sh"
need_runc
command -v nsenter >/dev/null || skip_all "no nsenter (util-linux)"
START_NS=/proc/$PPID/ns/mnt # the namespace this test was started in, beside which it runs
beside() { nsenter --mount="$START_NS" "$@"; }
NAME=cs-beside-$$
YARD=$WORK/yard
# mount_beside: a tmpfs with a named cgroup v1 hierarchy in it, in the namespace beside the test
mount_beside() {
	beside sh -c "mkdir -p '$YARD' && mount -t tmpfs cs-yard '$YARD' && mkdir '$YARD/$NAME' &&
		mount -t cgroup -o none,name=$NAME cgroup '$YARD/$NAME'"
}
unmount_beside() { beside sh -c "umount '$YARD/$NAME'; umount '$YARD'"; }
trap 'unmount_beside >/dev/null 2>&1; runc_cleanup' EXIT
sees() { grep -q " - cgroup .*name=$NAME" "/proc/$1/mountinfo"; }

[ "$(readlink /proc/self/ns/mnt)" != "$(readlink "$START_NS")" ] ||
	bail "the test runs in the mount namespace it was started in"
mount_beside || skip_all "cannot mount a named cgroup v1 hierarchy here (cgroup v2 only?)"
unmount_beside
plan 10
check "the test runs in a mount namespace of its own, not in the one it was started in" true
make_bundle c --size 4m
for mode in driver auto; do
	configure_plugin "$mode"
	id=cs-$$-$mode
	mount_beside
	check_mode "$mode" "beside the test, a cgroup v1 hierarchy is mounted while the container starts" \
		sees "$PPID"
	ctr_run c "$id"
	pid=$(ctr_pid "$id")
	ctr_checkpoint c "$id" "$WORK/img-$mode"
	check_mode "$mode" "checkpoint succeeds while it is mounted" [ $? = 0 ]
	unmount_beside
	wait_gone "$pid"
	ctr_restore c "$id" "$WORK/img-$mode"
	check_mode "$mode" "restore succeeds after it is unmounted" [ $? = 0 ]
	ctr_check_verdict "$mode" c "$id" "the restored container verified every byte"
	timeout 20 "$RUNC" delete -f "$id" >/dev/null 2>&1
done
saw_none() { ! grep -q "@ ./sys/fs/cgroup/$NAME " "$WORK"/img-*.work/dump.log && ! sees self; }
check "no checkpoint holds a mount of that hierarchy, and the test never saw it mounted" saw_none
done_testing

#!/bin/bash
# containerd 1.6 through its own CLI, on a containerd of the test's own: `ctr run` of a container
# whose init is a CUDA process (emulator), `ctr containers checkpoint --task --rw` (containerd
# pauses the task, runc checkpoints it with leave-running, containerd resumes it), the task
# killed and the container removed, `ctr containers restore --live --rw` under the same id: the
# restored container verifies every byte of its GPU memory. Once with mode=driver, once in the
# default mode (see tests/e2e/containerd-lib.sh; docs/containers.md, section 5).
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
. "$top_srcdir/tests/e2e/runc-lib.sh"
need_runc
. "$top_srcdir/tests/e2e/containerd-lib.sh"
need_containerd
ctrd_start
plan 29
ctrd_import_image localhost/cudastore-test:1
criu_version=$("$CRIU" --version | sed -n 's/^Version: //p')

# criu_loaded_plugin LOG: the criu that runc ran is the build under test, and it loaded cudastore
criu_loaded_plugin() { log_has "$1" "Version: $criu_version " && log_has "$1" 'Plugin "cudastore"'; }
# thawed_to_seize LOG PID: criu found the container frozen and thawed it for the plugin's seizing
thawed_to_seize() {
	log_has "$1" "cudastore: seizing: thread by thread: pid $2 in the freeze cgroup uses the CUDA driver" &&
		log_has "$1" "unfreezing cgroup for plugin compatibility"
}

for mode in driver auto; do
	configure_plugin "$mode"
	want=$([ "$mode" = driver ] && echo driver-managed || echo CustomStorage)
	id=cs-$$-$mode
	ckpt=localhost/cudastore-checkpoint:$mode
	dump=$WORK/dump-$mode.log
	restore=$WORK/restore-$mode.log
	ctrd_run c "$id" localhost/cudastore-test:1 --size 4m --zero-percent 25
	pid=$(ctrd_pid "$id")
	CTRD_IMAGES="$CTRD_IMAGES $ckpt"
	ctrd_criu "$mode" "$dump" containers checkpoint --task --rw "$id" "$ckpt"
	check_mode "$mode" "ctr containers checkpoint --task succeeds" [ $? = 0 ]
	check_mode "$mode" "criu $criu_version loaded the plugin" criu_loaded_plugin "$dump"
	check_mode "$mode" "the plugin checkpointed the container's init (pid $pid, ns pid 1) in $want mode" \
		log_has "$dump" "pid $pid \(ns pid 1\): CUDA process.*mode $want"
	check_mode "$mode" "containerd had paused the container: criu thawed it to seize it thread by thread" \
		thawed_to_seize "$dump" "$pid"
	check_mode "$mode" "the plugin read from criu that the container is left running" \
		log_has "$dump" "criu leaves running the dumped tree \(read from criu's options"
	check_mode "$mode" "the plugin gave the running container its GPU memory back" \
		log_has "$dump" "pid $pid: resumed with its GPU memory"
	check_mode "$mode" "the container runs on after the checkpoint, same init" ctrd_running "$id" "$pid"
	check_mode "$mode" "the checkpoint image in containerd's store holds criu's images" \
		ctrd_checkpoint_has_criu_images "$ckpt"
	# then the container is lost: its task killed and removed, the container and its snapshot too
	ctrd_rm "$id"
	wait_gone "$pid"
	check_mode "$mode" "the task and the container are gone" ctrd_gone "$id" "$pid"
	ctrd_criu "$mode" "$restore" containers restore --live --rw "$id" "$ckpt"
	check_mode "$mode" "ctr containers restore --live succeeds" [ $? = 0 ]
	check_mode "$mode" "criu $criu_version loaded the plugin for the restore" criu_loaded_plugin "$restore"
	check_mode "$mode" "the plugin restored the GPU state" log_has "$restore" "GPU restore done"
	check_mode "$mode" "the restored task runs" ctrd_running "$id"
	ctrd_check_verdict "$mode" c "$id" "the restored container verified every byte of its GPU memory"
	ctrd_rm "$id"
	ctrd images rm --sync "$ckpt" >/dev/null 2>&1
done
check "containerd stopped: no shim, task or mount of it left" ctrd_stop
done_testing

#!/bin/bash
# runc restore into a container given another device set than at dump: the container's GPU
# device nodes (/dev/nvidia0 and /dev/nvidia1, bind mounts of char nodes 195:N as a device
# plugin gives them) name other physical GPUs at restore, and the restore places the
# checkpointed GPUs onto those, never onto the GPUs of their own UUIDs that the container cannot
# open (the emulated driver, like the real one, fails a restore onto a GPU whose node the
# process's /dev lacks); every byte verified. A 4-GPU emulated host, a workload on 2 GPUs, both
# modes:
#   1. dump with the nodes of minors 0,1 (GPUs U0,U1); restore with the nodes of minors 2,3:
#      U0 -> U2, U1 -> U3 (the same UUIDs are there, but closed to the container);
#   2. the host's GPUs renumbered (CUDASTORE_EMU_MINORS=3,2,1,0: U3 is /dev/nvidia0 now) and the
#      container given minors 0 and 1 again: they are U3 and U2, the GPUs it is restored onto;
#   3. a device map onto a GPU the container has no node for: refused before any process is
#      touched, the reason names the node; runc restore fails.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
. "$top_srcdir/tests/e2e/runc-lib.sh"
need_runc
U=(GPU-de75e700-0000-4000-8000-000000000000 GPU-de75e700-0000-4000-8000-000000000001
	GPU-de75e700-0000-4000-8000-000000000002 GPU-de75e700-0000-4000-8000-000000000003)
EMU_HOST="CUDASTORE_EMU_DEVICES=4 CUDASTORE_EMU_UUIDS=$(IFS=,; echo "${U[*]}")"
export $EMU_HOST
mkdir -p "$WORK/nodes"
for m in 0 1 2 3; do mknod "$WORK/nodes/m$m" c 195 "$m" || skip_all "cannot mknod (needs root)"; done

# give_nodes A B: the container's /dev/nvidia0 and /dev/nvidia1 are the nodes of minors A and B
give_nodes() {
	python3 - "$WORK/c/bundle/config.json" "$WORK/nodes" "$1" "$2" "$EMU_HOST" <<'PY' || bail "cannot edit config.json"
import json, sys
path, nodes, a, b, host = sys.argv[1:]
c = json.load(open(path))
c["mounts"] = [m for m in c["mounts"] if not m["destination"].startswith("/dev/nvidia")]
for n, minor in ((0, a), (1, b)):
    c["mounts"].append({"destination": "/dev/nvidia%d" % n, "type": "bind",
                        "source": "%s/m%s" % (nodes, minor), "options": ["bind", "ro"]})
env = [e for e in c["process"]["env"] if not e.startswith("CUDASTORE_EMU_")]
c["process"]["env"] = env + host.split()
json.dump(c, open(path, "w"), indent=1)
PY
}
# placed LOG A B: the restore's last placement sends U0 onto A and U1 onto B
placed() {
	grep -a "placement: checkpointed GPU ${U[0]} is restored onto" "$1" | tail -n1 | grep -q "onto $2 " &&
		grep -a "placement: checkpointed GPU ${U[1]} is restored onto" "$1" | tail -n1 | grep -q "onto $3 "
}

plan 20
make_bundle c --size 4m --devices 2
for mode in driver auto; do
	configure_plugin "$mode"
	give_nodes 0 1
	id=cs-$$-$mode
	ctr_run c "$id"
	pid=$(ctr_pid "$id")
	ctr_checkpoint c "$id" "$WORK/img-$mode"
	check_mode "$mode" "checkpoint of the container on GPUs U0,U1 (nodes of minors 0,1) succeeds" [ $? = 0 ]
	wait_gone "$pid"

	give_nodes 2 3
	ctr_restore c "$id-a" "$WORK/img-$mode"
	check_mode "$mode" "restore with the nodes of minors 2,3 succeeds" [ $? = 0 ]
	log=$WORK/img-$mode.rwork/restore.log
	check_mode "$mode" "the plugin read the container's GPU device nodes" \
		log_has "$log" "placement: /proc/[0-9]+/root/dev holds the GPU device nodes of minor numbers 2,3: 2 of this host's 4 GPUs"
	check_mode "$mode" "U0 -> U2 and U1 -> U3, not their own closed UUIDs" placed "$log" "${U[2]}" "${U[3]}"
	ctr_check_verdict "$mode" c "$id-a" "the container verified every byte on GPUs U2,U3"
	timeout 20 "$RUNC" delete -f "$id-a" >/dev/null 2>&1

	give_nodes 0 1
	CUDASTORE_EMU_MINORS=3,2,1,0 ctr_restore c "$id-b" "$WORK/img-$mode"
	check_mode "$mode" "restore on the renumbered host (minors 0,1 are U3,U2) succeeds" [ $? = 0 ]
	check_mode "$mode" "U0 -> U2 and U1 -> U3: the GPUs behind the container's minors 0,1" \
		placed "$log" "${U[2]}" "${U[3]}"
	ctr_check_verdict "$mode" c "$id-b" "the container verified every byte after the renumbering"
	timeout 20 "$RUNC" delete -f "$id-b" >/dev/null 2>&1

	give_nodes 2 3
	CUDASTORE_DEVICE_MAP=0=0,1=3 ctr_restore c "$id-c" "$WORK/img-$mode"
	check_mode "$mode" "a map onto GPU 0, which the container has no node for: runc restore fails" [ $? != 0 ]
	check_mode "$mode" "refused before any process is touched, naming the node" bash -c \
		"grep -aq 'which the restored process cannot open: its /dev has no device node of minor 0' '$log' &&
		 grep -aq 'no process was touched' '$log'"
	timeout 20 "$RUNC" delete -f "$id-c" >/dev/null 2>&1
done
done_testing

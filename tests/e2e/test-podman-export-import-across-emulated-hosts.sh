#!/bin/bash
# A Podman checkpoint moved to another host: `podman container checkpoint --export` on emulated
# host A (its own podman storage, runtime and GPUs), `podman container restore --import` of that
# tar on emulated host B (another storage, runtime and GPUs): B's GPUs have other UUIDs, and its
# GPUs 0 and 1 are another product, so the placement (no map) sends A's GPUs 0,1 onto B's GPUs
# 2,3. Every byte of GPU memory verified after the import, in both modes.
#
# Hosts: tests/e2e/podman-hosts.sh.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
. "$top_srcdir/tests/e2e/runc-lib.sh"
need_runc
. "$top_srcdir/tests/e2e/podman-hosts.sh"
plan 10
two_hosts "$HOST_A" "$HOST_B"

for mode in driver auto; do
	configure_plugin "$mode"
	printf 'libcuda = %s\nlibnvml = %s\n' "$CUDASTORE_LIBCUDA" "$CUDASTORE_LIBNVML" >>"$WORK/cudastore.conf"
	on_host a "$HOST_A"
	cid=$(pod_run_workload "$HOST_A" --size 4m --devices 2) ||
		bail "podman container did not start: $(cat "$WORK/pod-run.err")"
	pod container checkpoint --keep --export "$WORK/cp-$mode.tar" "$cid" >"$WORK/cp-$mode.out" 2>&1
	check_mode "$mode" "host A: podman container checkpoint --export succeeds" [ $? = 0 ]
	check_mode "$mode" "host A: the plugin checkpointed the workload on A's GPUs 0,1" \
		log_has "$WORK/storage/vfs-containers/$cid/userdata/dump.log" "GPU checkpoint done"
	pod rm -f "$cid" >/dev/null 2>&1
	on_host b "$HOST_B" # the tar is all that goes over
	pod container restore --keep --import "$WORK/cp-$mode.tar" >"$WORK/rs-$mode.out" 2>&1
	rc=$?
	check_mode "$mode" "host B: podman container restore --import succeeds" [ $rc = 0 ]
	[ $rc = 0 ] || diag "$(tail -n 5 "$WORK/rs-$mode.out")"
	nid=$(pod ps -q --no-trunc | head -n1)
	log=$WORK/storage/vfs-containers/$nid/userdata/restore.log
	check_mode "$mode" "host B: A's GPU 0 placed onto B's GPU 2, GPU 1 onto GPU 3 (no map)" \
		placed_a_onto_b "$log"
	v=$(pod_verdict "$nid")
	check_mode "$mode" "host B: the imported container verified every byte of its GPU memory ($v)" [ "$v" = PASS ]
	pod rm -f -a >/dev/null 2>&1
done
done_testing

#!/bin/bash
# An export of a child dump is whole: on emulated host A a container is checkpointed with
# `podman container checkpoint --leave-running --export` (chunked), then again with that first
# checkpoint (unpacked from its tar) as the parent: the child writes only what changed, yet its
# export carries every chunk it references. Host B imports the child's tar alone, with the
# parent deleted and other GPUs (A's GPUs 0,1 placed onto B's 2,3), and every byte of GPU memory
# is verified. Hosts: tests/e2e/podman-hosts.sh.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
. "$top_srcdir/tests/e2e/runc-lib.sh"
need_runc
. "$top_srcdir/tests/e2e/podman-hosts.sh"
plan 8
two_hosts "$HOST_A" "$HOST_B"
# conf LINES...: cudastore's config on both hosts (the runtime wrapper points criu at it)
conf() {
	configure_plugin auto
	printf '%s\n' "libcuda = $CUDASTORE_LIBCUDA" "libnvml = $CUDASTORE_LIBNVML" "$@" >>"$WORK/cudastore.conf"
}

on_host a "$HOST_A"
conf "chunks = yes"
cid=$(pod_run_workload "$HOST_A" --size 32m --zero-percent 0 --devices 2) ||
	bail "podman container did not start: $(cat "$WORK/pod-run.err")"
ud=$WORK/storage/vfs-containers/$cid/userdata
pod container checkpoint --leave-running --export "$WORK/cp1.tar" "$cid" >"$WORK/cp1.out" 2>&1
check "host A: a chunked checkpoint --leave-running --export succeeds" [ $? = 0 ]
mkdir -p "$WORK/first" && tar -C "$WORK/first" -xf "$WORK/cp1.tar" checkpoint ||
	bail "cannot unpack the first checkpoint's images from its tar"
first=$(chunk_bytes "$WORK/first/checkpoint")
diag "the first export holds $first bytes of chunks"

conf "parent = $WORK/first/checkpoint"
pod container checkpoint --keep --export "$WORK/cp2.tar" "$cid" >"$WORK/cp2.out" 2>&1
check "host A: its child, the first checkpoint as parent, exported" [ $? = 0 ]
check "the child's log names its parent" log_has "$ud/dump.log" "chunked dump: parent $WORK/first/checkpoint"
new=$(new_bytes "$ud/checkpoint")
diag "the child wrote $new new bytes of $(chunk_bytes "$ud/checkpoint") chunk bytes"
check "the child wrote at most the chunk per GPU holding the scratch the workload writes ($new)" [ "$new" -le $((2 * (4 << 20))) ]
mkdir -p "$WORK/second" && tar -C "$WORK/second" -xf "$WORK/cp2.tar" checkpoint ||
	bail "cannot unpack the child's images from its tar"
check "the child's export carries every chunk: as many bytes of chunks as the first's" \
	[ "$(chunk_bytes "$WORK/second/checkpoint")" -ge "$first" ]
pod rm -f "$cid" >/dev/null 2>&1
rm -rf "$WORK/first" "$WORK/second" # the child's tar is all that goes over

on_host b "$HOST_B"
pod container restore --keep --import "$WORK/cp2.tar" >"$WORK/rs.out" 2>&1
rc=$?
check "host B: podman container restore --import of the child succeeds, its parent gone" [ $rc = 0 ]
[ $rc = 0 ] || diag "$(tail -n 5 "$WORK/rs.out")"
nid=$(pod ps -q --no-trunc | head -n1)
log=$WORK/storage/vfs-containers/$nid/userdata/restore.log
check "host B: A's GPU 0 placed onto B's GPU 2, GPU 1 onto GPU 3 (no map)" \
	placed_a_onto_b "$log"
v=$(pod_verdict "$nid")
check "host B: the imported child verified every byte of its GPU memory ($v)" [ "$v" = PASS ]
done_testing

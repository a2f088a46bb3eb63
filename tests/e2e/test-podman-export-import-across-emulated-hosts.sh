#!/bin/bash
# A Podman checkpoint moved to another host: `podman container checkpoint --export` on emulated
# host A (its own podman storage, runtime and GPUs), `podman container restore --import` of that
# tar on emulated host B (another storage, runtime and GPUs): B's GPUs have other UUIDs, and its
# GPUs 0 and 1 are another product, so the placement (no map) sends A's GPUs 0,1 onto B's GPUs
# 2,3. Every byte of GPU memory verified after the import, in both modes.
#
# podman passes criu almost no environment (docs/containers.md, section 4): each host's runtime
# is a wrapper that sets that host's emulated GPUs and cudastore's config file and execs runc.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
. "$top_srcdir/tests/e2e/runc-lib.sh"
need_runc
command -v podman >/dev/null || skip_all "podman not installed"
A=(GPU-a0a0a0a0-0000-4000-8000-000000000000 GPU-a0a0a0a0-0000-4000-8000-000000000001)
B=(GPU-b0b0b0b0-0000-4000-8000-000000000000 GPU-b0b0b0b0-0000-4000-8000-000000000001
	GPU-b0b0b0b0-0000-4000-8000-000000000002 GPU-b0b0b0b0-0000-4000-8000-000000000003)
HOST_A="CUDASTORE_EMU_DEVICES=2 CUDASTORE_EMU_UUIDS=${A[0]},${A[1]} CUDASTORE_EMU_NAMES=NVIDIA-H200"
HOST_B="CUDASTORE_EMU_DEVICES=4 CUDASTORE_EMU_UUIDS=$(IFS=,; echo "${B[*]}")"
HOST_B="$HOST_B CUDASTORE_EMU_NAMES=NVIDIA-A100,NVIDIA-A100,NVIDIA-H200"
plan 10
make_rootfs "$WORK/rootfs"
mkdir -p "$WORK/p/cw"

# on_host NAME ENV...: become host NAME. Like two machines with podman's default paths, both
# hosts use the same storage, run and runtime paths (podman restores an archive's container with
# the paths it was made with, and refuses another runtime path): each switch moves the other
# host's podman storage aside and NAME's into place, and the runtime wrapper sets NAME's
# emulated GPUs and cudastore's config file, then execs runc.
HOST=
on_host() {
	local name=$1; shift
	if [ "$HOST" != "$name" ]; then
		if [ -n "$HOST" ]; then
			mkdir -p "$WORK/$HOST"
			mv "$WORK/storage" "$WORK/run" "$WORK/$HOST/" || bail "cannot move host $HOST's podman storage aside"
		fi
		mkdir -p "$WORK/$name/storage" "$WORK/$name/run"
		mv "$WORK/$name/storage" "$WORK/$name/run" "$WORK/" || bail "cannot move host $name's podman storage in"
		HOST=$name
	fi
	{
		echo '#!/bin/sh'
		echo "export CUDASTORE_CONFIG=$WORK/cudastore.conf $*"
		echo "exec $RUNC \"\$@\""
	} >"$WORK/runc-wrap"
	chmod +x "$WORK/runc-wrap"
}
pod() { # pod podman-arguments..., on the current host
	timeout -k 5 120 podman --root "$WORK/storage" --runroot "$WORK/run" --storage-driver vfs \
		--network-config-dir "$WORK/cni" --runtime "$WORK/runc-wrap" --events-backend none "$@"
}
pod_cleanup() {
	pod rm -f -a >/dev/null 2>&1
	pod rmi -a -f >/dev/null 2>&1
	runc_cleanup
}
trap pod_cleanup EXIT
mkdir -p "$WORK/cni"
# the same image on both hosts, as from one registry: the checkpoint names it by its id
on_host a "$HOST_A"
tar -C "$WORK/rootfs" -c . | pod import - localhost/cudastore-test:1 >/dev/null 2>&1 ||
	bail "podman import on host A failed"
pod save -o "$WORK/image.tar" localhost/cudastore-test:1 >/dev/null 2>&1 || bail "podman save on host A failed"
on_host b "$HOST_B"
pod load -i "$WORK/image.tar" >/dev/null 2>&1 || bail "podman load on host B failed"

for mode in driver auto; do
	configure_plugin "$mode"
	printf 'libcuda = %s\nlibnvml = %s\n' "$CUDASTORE_LIBCUDA" "$CUDASTORE_LIBNVML" >>"$WORK/cudastore.conf"
	rm -f "$WORK"/p/cw/w.*
	on_host a "$HOST_A"
	cid=$(pod run -d --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		--annotation org.criu.config="$WORK/criu-runc.conf" -v "$WORK/p/cw:/work" \
		-e CUDASTORE_LIBCUDA=/usr/lib/cudastore-emu/libcuda.so.1 -e CUDASTORE_EMU_DEVICES=2 \
		-e CUDASTORE_EMU_UUIDS="${A[0]},${A[1]}" -e CUDASTORE_EMU_NAMES=NVIDIA-H200 localhost/cudastore-test:1 \
		/usr/bin/cuda-workload --pidfile /work/w.pid --ready /work/w.ready --outfile /work/w.out \
		--log /work/w.log --size 4m --devices 2 2>"$WORK/run-$mode.err")
	wait_file "$WORK/p/cw/w.ready" 30 || bail "podman container did not start: $(cat "$WORK/run-$mode.err")"
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
	check_mode "$mode" "host B: A's GPU 0 placed onto B's GPU 2, GPU 1 onto GPU 3 (no map)" bash -c \
		"grep -aq 'checkpointed GPU ${A[0]} is restored onto ${B[2]} (GPU 2 here)' '$log' &&
		 grep -aq 'checkpointed GPU ${A[1]} is restored onto ${B[3]} (GPU 3 here)' '$log'"
	sleep 0.3
	rm -f "$WORK/p/cw/w.out"
	pod kill --signal TERM "$nid" >/dev/null 2>&1
	wait_file "$WORK/p/cw/w.out" 30
	v=$(head -n1 "$WORK/p/cw/w.out" 2>/dev/null)
	check_mode "$mode" "host B: the imported container verified every byte of its GPU memory ($v)" [ "$v" = PASS ]
	pod rm -f -a >/dev/null 2>&1
done
done_testing

# podman-hosts.sh - two emulated hosts, A and B, each with its own podman storage, runtime
# environment and emulated GPUs; sourced after lib.sh and runc-lib.sh (need_runc done).
#   A, B, HOST_A, HOST_B: each host's GPU UUIDs and emulator environment
#   two_hosts "$HOST_A" "$HOST_B": the test image on both, host B current
#   on_host NAME ENV...: become host NAME (a or b)
#   pod ARGS...: podman on the current host
#
# Like two machines with podman's default paths, both hosts use the same storage, run and
# runtime paths (podman restores an archive's container with the paths it was made with, and
# refuses another runtime path): each switch moves the other host's podman storage aside and
# NAME's into place, and the runtime wrapper sets NAME's emulated GPUs and cudastore's config
# file, then execs runc. podman passes criu almost no environment (docs/containers.md,
# section 4): the wrapper is how each host's settings reach the plugin.
command -v podman >/dev/null || skip_all "podman not installed"

# Host A has 2 H200s; host B 4 GPUs of other UUIDs, its GPUs 0 and 1 another product (A100), so
# that the placement (no map) sends A's GPUs 0,1 onto B's GPUs 2,3.
A=(GPU-a0a0a0a0-0000-4000-8000-000000000000 GPU-a0a0a0a0-0000-4000-8000-000000000001)
B=(GPU-b0b0b0b0-0000-4000-8000-000000000000 GPU-b0b0b0b0-0000-4000-8000-000000000001
	GPU-b0b0b0b0-0000-4000-8000-000000000002 GPU-b0b0b0b0-0000-4000-8000-000000000003)
HOST_A="CUDASTORE_EMU_DEVICES=2 CUDASTORE_EMU_UUIDS=${A[0]},${A[1]} CUDASTORE_EMU_NAMES=NVIDIA-H200"
HOST_B="CUDASTORE_EMU_DEVICES=4 CUDASTORE_EMU_UUIDS=$(IFS=,; echo "${B[*]}")"
HOST_B="$HOST_B CUDASTORE_EMU_NAMES=NVIDIA-A100,NVIDIA-A100,NVIDIA-H200"

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

# the same image on both hosts, as from one registry: a checkpoint names it by its id
two_hosts() {
	trap pod_cleanup EXIT
	make_rootfs "$WORK/rootfs"
	mkdir -p "$WORK/cni"
	on_host a "$1"
	tar -C "$WORK/rootfs" -c . | pod import - localhost/cudastore-test:1 >/dev/null 2>&1 ||
		bail "podman import on host A failed"
	pod save -o "$WORK/image.tar" localhost/cudastore-test:1 >/dev/null 2>&1 || bail "podman save on host A failed"
	on_host b "$2"
	pod load -i "$WORK/image.tar" >/dev/null 2>&1 || bail "podman load on host B failed"
}

# pod_verdict ID: SIGTERM to the container's workload (its /work is $WORK/p/cw); prints its verdict
pod_verdict() {
	sleep 0.3
	rm -f "$WORK/p/cw/w.out"
	pod kill --signal TERM "$1" >/dev/null 2>&1
	read_verdict "$WORK/p/cw/w.out"
}

# pod_run_workload ENV WORKLOAD-OPTIONS...: on the current host, a container running the workload
# (its /work is $WORK/p/cw) with the emulator environment ENV ("VAR=value ..."); prints its id
# once the workload is ready, else fails (podman's errors in $WORK/pod-run.err)
pod_run_workload() {
	local env=$1 e cid; shift
	local -a flags=(-e CUDASTORE_LIBCUDA=/usr/lib/cudastore-emu/libcuda.so.1)
	for e in $env; do flags+=(-e "$e"); done
	mkdir -p "$WORK/p/cw"
	rm -f "$WORK"/p/cw/w.*
	cid=$(pod run -d --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		--annotation org.criu.config="$WORK/criu-runc.conf" -v "$WORK/p/cw:/work" "${flags[@]}" \
		localhost/cudastore-test:1 /usr/bin/cuda-workload --pidfile /work/w.pid --ready /work/w.ready \
		--outfile /work/w.out --log /work/w.log "$@" 2>"$WORK/pod-run.err")
	wait_file "$WORK/p/cw/w.ready" 30 || return 1
	echo "$cid"
}

# placed_a_onto_b LOG: the restore LOG placed A's GPU 0 onto B's GPU 2 and GPU 1 onto GPU 3
placed_a_onto_b() {
	grep -aq "checkpointed GPU ${A[0]} is restored onto ${B[2]} (GPU 2 here)" "$1" &&
		grep -aq "checkpointed GPU ${A[1]} is restored onto ${B[3]} (GPU 3 here)" "$1"
}

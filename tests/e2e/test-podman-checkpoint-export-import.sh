#!/bin/bash
# podman container checkpoint --export / container restore --import (runtime runc, stock podman
# mounts, plugin loaded through the org.criu.config annotation): the restored container verifies
# every byte of its GPU memory. Also measures whether the extents' zero-chunk holes survive the
# export tar (allocated blocks before and after; reported as diagnostics, see docs/containers.md).
#
# podman passes criu only PATH and XDG_RUNTIME_DIR (docs/containers.md): cudastore's config
# reaches criu the way it would for a user, from a file (/etc/cudastore/cudastore.conf); tests may
# not write /etc, so a runtime wrapper points CUDASTORE_CONFIG at the test's file and execs runc.
# podman keeps its state under the work dir (--root, --runroot, --network-config-dir).
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
. "$top_srcdir/tests/e2e/runc-lib.sh"
need_runc
command -v podman >/dev/null || skip_all "podman not installed"
plan 14
cni_lock_before=$([ -e /etc/cni/net.d/cni.lock ] && echo yes || echo no)
make_rootfs "$WORK/rootfs"
mkdir -p "$WORK/cni" "$WORK/p/cw"
cat >"$WORK/runc-wrap" <<WRAP
#!/bin/sh
export CUDASTORE_CONFIG=$WORK/cudastore.conf
exec $RUNC "\$@"
WRAP
chmod +x "$WORK/runc-wrap"
POD="podman --root $WORK/storage --runroot $WORK/run --storage-driver vfs --network-config-dir $WORK/cni --runtime $WORK/runc-wrap --events-backend none"
pod() { timeout -k 5 120 $POD "$@"; }
pod_cleanup() { pod rm -f -a >/dev/null 2>&1; pod rmi -a -f >/dev/null 2>&1; runc_cleanup; }
trap pod_cleanup EXIT
tar -C "$WORK/rootfs" -c . | pod import - localhost/cudastore-test:1 >/dev/null 2>&1 || bail "podman import failed"

for mode in driver auto; do
	configure_plugin "$mode"
	printf 'libcuda = %s\nlibnvml = %s\n' "$CUDASTORE_LIBCUDA" "$CUDASTORE_LIBNVML" >>"$WORK/cudastore.conf"
	# 1 MiB chunks, so that the workload's zero regions make whole zero chunks (holes)
	printf 'chunk_mb = 1\n' >>"$WORK/cudastore.conf"
	rm -f "$WORK"/p/cw/w.*
	# rlimits lowered to what this VM allows (podman's defaults raise them)
	cid=$(pod run -d --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		--annotation org.criu.config="$WORK/criu-runc.conf" -v "$WORK/p/cw:/work" \
		-e CUDASTORE_LIBCUDA=/usr/lib/cudastore-emu/libcuda.so.1 localhost/cudastore-test:1 \
		/usr/bin/cuda-workload --pidfile /work/w.pid --ready /work/w.ready --outfile /work/w.out \
		--log /work/w.log --size 8m --zero-percent 75 2>"$WORK/run-$mode.err")
	wait_file "$WORK/p/cw/w.ready" 30 || bail "podman container did not start: $(cat "$WORK/run-$mode.err")"
	pod container checkpoint --keep --export "$WORK/cp-$mode.tar" "$cid" >"$WORK/cp-$mode.out" 2>&1
	check_mode "$mode" "podman container checkpoint --export succeeds" [ $? = 0 ]
	ud=$WORK/storage/vfs-containers/$cid/userdata
	check_mode "$mode" "the plugin checkpointed the container's init" log_has "$ud/dump.log" "GPU checkpoint done"
	before=$(cd "$ud/checkpoint" 2>/dev/null && stat -c '%n %s %b' cudastore-*-gpu*.ext 2>/dev/null)
	mkdir -p "$WORK/ext-$mode" # the original's userdata goes with it
	[ -z "$before" ] || cp --sparse=always "$ud"/checkpoint/cudastore-*-gpu*.ext "$WORK/ext-$mode/"
	pod rm -f "$cid" >/dev/null 2>&1
	pod container restore --keep --import "$WORK/cp-$mode.tar" >"$WORK/rs-$mode.out" 2>&1
	check_mode "$mode" "podman container restore --import succeeds" [ $? = 0 ]
	nid=$(pod ps -q --no-trunc | head -n1)
	nud=$WORK/storage/vfs-containers/$nid/userdata
	check_mode "$mode" "the plugin restored the GPU state" log_has "$nud/restore.log" "GPU restore done"
	after=$(cd "$nud/checkpoint" 2>/dev/null && stat -c '%n %s %b' cudastore-*-gpu*.ext 2>/dev/null)
	if [ -n "$before" ]; then
		diag "[$mode] extents before export (name, bytes, 512-byte blocks): $before"
		diag "[$mode] extents after import: $after"
		check_mode "$mode" "the imported extents hold the same bytes" bash -c \
			"cd '$WORK/ext-$mode' && for f in cudastore-*-gpu*.ext; do cmp -s \"\$f\" '$nud/checkpoint/'\"\$f\" || exit 1; done"
	else
		check_mode "$mode" "no extents in $mode mode (the driver keeps GPU memory in the process image)" \
			bash -c "[ '$mode' = driver ]"
	fi
	sleep 0.3
	rm -f "$WORK/p/cw/w.out"
	pod kill --signal TERM "$nid" >/dev/null 2>&1
	v=$(read_verdict "$WORK/p/cw/w.out")
	check_mode "$mode" "the imported container verified every byte of its GPU memory ($v)" [ "$v" = PASS ]
	check_mode "$mode" "nothing written to /etc/cni (podman's network config kept in the work dir)" \
		bash -c "[ '$cni_lock_before' = yes ] || [ ! -e /etc/cni/net.d/cni.lock ]"
	pod rm -f -a >/dev/null 2>&1
done
done_testing

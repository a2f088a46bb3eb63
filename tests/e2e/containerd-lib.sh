# containerd-lib.sh - a containerd of the test's own, driven by containerd's CLI `ctr` (sourced
# after lib.sh and runc-lib.sh; runc-lib.sh's make_rootfs makes the image's one layer).
#
# The daemon: Debian 12's containerd 1.6 started by the test with a config file of its own in the
# work dir (root, state, socket, opt directory there; the CRI plugin off, so no CNI or /etc
# file is read), never a system containerd. Its runc shim (containerd-shim-runc-v2) gets
# containerd's environment and runs runc (go-runc) with it, and runc runs criu from its PATH with
# its whole environment: so criu is the build under test (need_runc puts $CRIU's directory first
# in PATH), and cudastore's config file reaches the plugin through CUDASTORE_CONFIG, as in the
# runc tests. containerd's opt plugin puts its own bin directory ($CTRD/opt/bin, empty) in front.
# CRIU's config file is named by the org.criu.config annotation on `ctr run` (kept in the spec,
# so the restore reads it too): `libdir` loads the plugin, `log-file` puts criu's log where the
# test reads it (the shim removes criu's work directory after a checkpoint, and the restore's is a
# temporary directory of containerd's).
#
# The image: the runc tests' rootfs (busybox-static, the workload, the emulator's libcuda) as the
# one layer of an OCI image written here and loaded with `ctr images import` (no registry).
# `ctr containers restore` takes the image named in the checkpoint, so `ctr run --rootfs` (no
# image) cannot be restored. ctr leaves empty directories in /run/containerd (its FIFOs, the
# shims' sockets, both fixed paths in 1.6): removed at the end when the test made them.

CONTAINERD=${CONTAINERD:-$(command -v containerd || true)}
CTR=${CTR:-$(command -v ctr || true)}
CTRD=
CTRD_PID=
CTRD_IDS=
CTRD_IMAGES=
CTRD_RUN_DIRS=
CTRD_SNAPSHOTTER=

need_containerd() {
	local shim
	[ -n "$CONTAINERD" ] && [ -x "$CONTAINERD" ] ||
		skip_all "containerd not installed (scripts/setup-debian.sh installs Debian's containerd)"
	[ -n "$CTR" ] && [ -x "$CTR" ] || skip_all "ctr not installed (Debian's containerd package has it)"
	shim=$(dirname "$CONTAINERD")/containerd-shim-runc-v2
	[ -x "$shim" ] || skip_all "containerd's runc shim not installed ($shim)"
}

# ctrd ARG...: ctr on the test's containerd (its own namespace)
ctrd() { timeout -k 5 120 "$CTR" -a "$CTRD/containerd.sock" -n cudastore "$@"; }

# ctrd_start: containerd with everything under $WORK/containerd; skips the test when it does not
# answer within 20 s (so before the plan)
ctrd_start() {
	local d i why
	CTRD=$WORK/containerd
	mkdir -p "$CTRD/tmp"
	# the directories in /run that ctr and the shims create, removed at the end if made here
	for d in /run/containerd/s /run/containerd/fifo /run/containerd; do
		[ -e "$d" ] || CTRD_RUN_DIRS="$CTRD_RUN_DIRS $d"
	done
	cat >"$CTRD/config.toml" <<EOF
version = 2
root = "$CTRD/root"
state = "$CTRD/state"
disabled_plugins = ["io.containerd.grpc.v1.cri", "io.containerd.snapshotter.v1.aufs",
	"io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper",
	"io.containerd.snapshotter.v1.zfs"]
[grpc]
  address = "$CTRD/containerd.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$CTRD/opt"
EOF
	# its temporary files (the checkpoint's images on their way in and out) under the work dir
	TMPDIR=$CTRD/tmp "$CONTAINERD" --config "$CTRD/config.toml" --log-level debug \
		>"$CTRD/containerd.log" 2>&1 </dev/null &
	CTRD_PID=$!
	for i in $(seq 200); do
		ctrd version >/dev/null 2>&1 && break
		alive "$CTRD_PID" || break
		sleep 0.1
	done
	if ! ctrd version >/dev/null 2>&1; then
		why=$(grep -a -m1 -iE 'level=(error|fatal)' "$CTRD/containerd.log")
		[ -n "$why" ] || why=$(tail -n1 "$CTRD/containerd.log")
		[ -n "$why" ] || why="no answer on its socket within 20 s"
		skip_all "$CONTAINERD does not start here: ${why:0:160}"
	fi
	# overlayfs, containerd's default, where the work dir's filesystem can hold it
	CTRD_SNAPSHOTTER=$(ctrd plugins ls |
		awk '$1 == "io.containerd.snapshotter.v1" && $2 == "overlayfs" && $4 == "ok" { print $2 }')
	CTRD_SNAPSHOTTER=${CTRD_SNAPSHOTTER:-native}
	diag "containerd $("$CONTAINERD" --version | awk '{print $3}') on $CTRD/containerd.sock" \
		"(pid $CTRD_PID), snapshotter $CTRD_SNAPSHOTTER"
}

# ctrd_import_image REF: the runc tests' rootfs as a one-layer OCI image named REF
ctrd_import_image() {
	[ -d "$WORK/rootfs" ] || make_rootfs "$WORK/rootfs"
	python3 - "$WORK/rootfs" "$WORK/image.tar" "$1" <<'PY' || bail "cannot write the OCI image"
import hashlib, io, json, sys, tarfile
rootfs, out, ref = sys.argv[1:4]
def add(t, name, data):
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), 0o644
    t.addfile(info, io.BytesIO(data))
def blob(t, data):
    d = hashlib.sha256(data).hexdigest()
    add(t, "blobs/sha256/" + d, data)
    return {"digest": "sha256:" + d, "size": len(data)}
layer = io.BytesIO()
with tarfile.open(fileobj=layer, mode="w", format=tarfile.PAX_FORMAT) as l:
    l.add(rootfs, arcname=".")
with tarfile.open(out, "w") as t:
    lb = blob(t, layer.getvalue())
    cb = blob(t, json.dumps({"architecture": "amd64", "os": "linux",
                             "config": {"Env": ["PATH=/usr/bin:/bin"]},
                             "rootfs": {"type": "layers", "diff_ids": [lb["digest"]]}}).encode())
    mb = blob(t, json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                             "config": dict(cb, mediaType="application/vnd.oci.image.config.v1+json"),
                             "layers": [dict(lb, mediaType="application/vnd.oci.image.layer.v1.tar")]}).encode())
    add(t, "oci-layout", b'{"imageLayoutVersion": "1.0.0"}')
    add(t, "index.json", json.dumps({"schemaVersion": 2, "manifests": [dict(
        mb, mediaType="application/vnd.oci.image.manifest.v1+json",
        annotations={"io.containerd.image.name": ref})]}).encode())
PY
	ctrd images import --snapshotter "$CTRD_SNAPSHOTTER" "$WORK/image.tar" >"$WORK/import.out" 2>&1 ||
		bail "ctr images import failed: $(cat "$WORK/import.out")"
	CTRD_IMAGES="$CTRD_IMAGES $1"
}

# as runc-lib.sh's, plus criu's log file (see above): configure_plugin MODE
configure_plugin() {
	printf 'libdir %s\nlog-file %s\n' "$PLUGINDIR" "$WORK/criu.log" >"$WORK/criu-runc.conf"
	printf 'mode = %s\n' "$1" >"$WORK/cudastore.conf"
	export CUDASTORE_CONFIG=$WORK/cudastore.conf
}

# ctrd_criu MODE LOG ARG...: `ctr ARG...` that runs criu (a checkpoint or a restore), timed;
# then criu's log moved to LOG (ctr's output beside it, LOG.ctr), and criu's errors printed when
# ctr failed. Returns ctr's status.
ctrd_criu() {
	local mode=$1 log=$2 t0=$EPOCHREALTIME rc
	shift 2
	ctrd "$@" >"$log.ctr" 2>&1
	rc=$?
	diag "[$mode] ctr $1 $2 took $(awk -v t0="$t0" -v t1="$EPOCHREALTIME" 'BEGIN { printf "%.2f", t1 - t0 }') s"
	mv -f "$WORK/criu.log" "$log" 2>/dev/null || : >"$log"
	[ $rc = 0 ] || criu_errors "run by ctr $1 $2 ($(tail -n1 "$log.ctr"))" $rc "$log"
	return $rc
}

# ctrd_run NAME ID IMAGE [workload options...]: `ctr run -d`, the workload's files in
# $WORK/NAME/cw (the container's /work); waits until the workload is ready. runc is $RUNC, its
# state under the work dir; the cgroup is /ID (runc removes it with the container).
ctrd_run() {
	local name=$1 id=$2 image=$3 cw=$WORK/$1/cw
	shift 3
	mkdir -p "$cw"
	rm -f "$cw"/w.*
	CTRD_IDS="$CTRD_IDS $id"
	ctrd run -d --snapshotter "$CTRD_SNAPSHOTTER" --cgroup "/$id" \
		--runc-binary "$RUNC" --runc-root "$WORK/runc-root" \
		--annotation org.criu.config="$WORK/criu-runc.conf" \
		--mount "type=bind,src=$cw,dst=/work,options=rbind:rw" \
		--env CUDASTORE_LIBCUDA=/usr/lib/cudastore-emu/libcuda.so.1 "$image" "$id" \
		/usr/bin/cuda-workload --pidfile /work/w.pid --ready /work/w.ready --outfile /work/w.out \
		--log /work/w.log "$@" >"$WORK/$name/run-$id.out" 2>&1 </dev/null ||
		bail "ctr run $id failed: $(cat "$WORK/$name/run-$id.out")"
	wait_file "$cw/w.ready" 30 || bail "workload in $id not ready: $(cat "$cw/w.log" 2>/dev/null)"
}

# the task's pid and status (`ctr tasks ls`: TASK PID STATUS)
ctrd_pid() { ctrd tasks ls 2>/dev/null | awk -v id="$1" '$1 == id { print $2 }'; }
ctrd_status() { ctrd tasks ls 2>/dev/null | awk -v id="$1" '$1 == id { print $3 }'; }
ctrd_has_container() { ctrd containers ls -q 2>/dev/null | grep -qx -- "$1"; }
# ctrd_running ID [PID]: the task runs (with that pid)
ctrd_running() { [ "$(ctrd_status "$1")" = RUNNING ] && [ "$(ctrd_pid "$1")" = "${2:-$(ctrd_pid "$1")}" ]; }
# ctrd_gone ID PID: no such task nor container, the process has ended
ctrd_gone() { ! alive "$2" && [ -z "$(ctrd_status "$1")" ] && ! ctrd_has_container "$1"; }
# ctrd_checkpoint_has_criu_images REF: the checkpoint image REF holds criu's images (containerd
# 1.6.20 writes a second checkpoint of a container without them: docs/containers.md, section 5)
ctrd_checkpoint_has_criu_images() {
	local digest
	digest=$(ctrd images ls 2>/dev/null | awk -v r="$1" '$1 == r { print $3 }')
	[ -n "$digest" ] &&
		ctrd content get "$digest" | grep -q 'application/vnd.containerd.container.criu.checkpoint.criu.tar'
}

# ctrd_rm ID: the task killed and removed, then the container with its snapshot
ctrd_rm() {
	ctrd tasks kill -s KILL "$1" >/dev/null 2>&1
	ctrd tasks rm -f "$1" >/dev/null 2>&1
	ctrd containers rm "$1" >/dev/null 2>&1
}

# ctrd_check_verdict MODE NAME ID DESCRIPTION: SIGTERM to the task; its verdict must be PASS
ctrd_check_verdict() {
	local cw=$WORK/$2/cw v
	sleep 0.3
	rm -f "$cw/w.out"
	ctrd tasks kill -s TERM "$3" >/dev/null 2>&1
	v=$(read_verdict "$cw/w.out")
	check_mode "$1" "$4 ($v)" [ "$v" = PASS ]
}

# ctrd_procs: pids of this containerd and of the shims it started (they name its socket or config)
ctrd_procs() {
	[ -n "$CTRD" ] || return 0
	# the pattern from a file: grep's own command line must not hold it
	grep -lsF -f <(echo "$CTRD/") /proc/[0-9]*/cmdline | cut -d/ -f3
}

# ctrd_mounts: mount points under the work dir, deepest first
ctrd_mounts() { awk -v w="$WORK/" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo | sort -r; }

# ctrd_leftovers: this containerd's processes (pid and command) and mounts under the work dir
ctrd_leftovers() {
	local p
	for p in $(ctrd_procs); do
		echo "pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-100)"
	done
	ctrd_mounts | sed 's/^/mount /'
}

# ctrd_stop: every container of the test removed and containerd stopped (SIGTERM); true when
# then, within 5 s, no process (containerd, a shim) nor mount of it is left. Whatever is left is
# named, then killed and unmounted, and containers runc still knows are deleted.
ctrd_stop() {
	local id p i left=
	[ -n "$CTRD" ] || return 0
	if [ -n "$CTRD_PID" ] && alive "$CTRD_PID"; then
		for id in $CTRD_IDS; do ctrd_rm "$id"; done
		for i in $CTRD_IMAGES; do ctrd images rm --sync "$i" >/dev/null 2>&1; done
		kill -TERM "$CTRD_PID" 2>/dev/null
		for i in $(seq 50); do
			left=$(ctrd_leftovers)
			[ -z "$left" ] && break
			sleep 0.1
		done
		[ -z "$left" ] || diag "left after containerd stopped: $(echo "$left" | paste -sd';')"
	fi
	for p in $(ctrd_procs); do kill -KILL "$p" 2>/dev/null; done
	for id in $("$RUNC" --root "$WORK/runc-root/cudastore" list -q 2>/dev/null); do
		timeout 20 "$RUNC" --root "$WORK/runc-root/cudastore" delete -f "$id" >/dev/null 2>&1
	done
	for p in $(ctrd_mounts); do umount -l "$p" 2>/dev/null; done
	for p in $CTRD_RUN_DIRS; do rmdir "$p" 2>/dev/null; done
	CTRD_PID=
	[ -z "$left" ]
}

ctrd_cleanup() { ctrd_stop; runc_cleanup; }
trap ctrd_cleanup EXIT

# runc-lib.sh - container helpers for the runtime end-to-end tests (sourced after lib.sh).
#
# The container: a busybox-static rootfs whose init is the emulator CUDA workload (with the
# emulator's libcuda copied in), the STOCK `runc spec` (its /dev, /proc, /sys, /sys/fs/cgroup
# mounts and namespaces), plus one bind mount for the workload's result files. The plugin is
# configured the way a user would: a runtime CRIU config file named by the `org.criu.config`
# annotation (here in the test's work dir, never /etc) holding `libdir`, and cudastore's own
# config file (CUDASTORE_CONFIG, pinned by the test). runc finds criu in PATH: the tests put
# the directory of $CRIU first and check that runc will run exactly that binary.
#
# Each scenario runs in mode=driver (driver-managed) and in the default mode (auto: CustomStorage
# under the emulator's CUDA 13.4), whose driver calls are all in cudastore-helper, so criu stays
# single-threaded and can setns into the container's mount namespace.

# every container test runs in a mount namespace of its own (lib.sh's own_mount_namespace)
own_mount_namespace
RUNC=${RUNC:-$(command -v runc || true)}
RUNC_IDS=

need_runc() {
	[ -n "$RUNC" ] && [ -x "$RUNC" ] || skip_all "runc not installed (scripts/setup-debian.sh installs it)"
	command -v busybox >/dev/null || skip_all "busybox-static not installed"
	command -v python3 >/dev/null || skip_all "python3 not installed (edits config.json)"
	[ "$(busybox 2>&1 | head -1 | grep -c BusyBox)" = 1 ] || skip_all "busybox does not run"
	ldd "$(command -v busybox)" 2>&1 | grep -q 'not a dynamic' || skip_all "busybox is not static"
	PATH=$(dirname "$CRIU"):$PATH
	export PATH
	[ "$(command -v criu)" = "$CRIU" ] || bail "criu in PATH is $(command -v criu), not $CRIU"
}

runc_cleanup() {
	local id
	for id in $RUNC_IDS; do timeout 20 "$RUNC" delete -f "$id" >/dev/null 2>&1; done
	cleanup 2>/dev/null || true
}
trap runc_cleanup EXIT

# check_mode MODE "description" command...: a check named for the mode it ran in
check_mode() {
	local mode=$1 d=$2; shift 2
	check "[$mode] $d" "$@"
}

# make_rootfs DIR: busybox-static, the workload, the loader and libc it needs, the emulator
make_rootfs() {
	local r=$1 lib a
	mkdir -p "$r"/bin "$r"/usr/bin "$r"/usr/lib/cudastore-emu "$r"/proc "$r"/sys "$r"/dev "$r"/tmp "$r"/work
	cp "$(command -v busybox)" "$r/bin/busybox"
	for a in sh cat sleep ls ps; do ln -sf busybox "$r/bin/$a"; done
	cp "$WORKLOAD" "$r/usr/bin/cuda-workload"
	cp "$EMU/libcuda.so.1" "$EMU/libnvidia-ml.so.1" "$r/usr/lib/cudastore-emu/"
	# the dynamic loader and libraries the workload and the emulator need (ldd)
	for lib in $(ldd "$WORKLOAD" "$EMU/libcuda.so.1" | awk '/=> \//{print $3} /^\t\/lib/{print $1}' | sort -u); do
		mkdir -p "$r$(dirname "$lib")"
		cp -L "$lib" "$r$lib"
	done
}

# make_bundle NAME [workload options...]: $WORK/NAME/{bundle,cw}; the workload writes its
# pid/ready/out/log files into cw (the container's /work)
make_bundle() {
	local name=$1; shift
	local b=$WORK/$name/bundle
	mkdir -p "$b" "$WORK/$name/cw"
	[ -d "$WORK/rootfs" ] || make_rootfs "$WORK/rootfs"
	cp -a "$WORK/rootfs" "$b/rootfs"
	(cd "$b" && "$RUNC" spec) || bail "runc spec failed"
	python3 - "$b/config.json" "$WORK/$name/cw" "$WORK/criu-runc.conf" "$@" <<'PY' || bail "cannot edit config.json"
import json, sys
path, cw, criu_conf, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
c = json.load(open(path))
p = c["process"]
p["terminal"] = False
p["args"] = ["/usr/bin/cuda-workload", "--pidfile", "/work/w.pid", "--ready", "/work/w.ready",
             "--outfile", "/work/w.out", "--log", "/work/w.log"] + args
p["env"] += ["CUDASTORE_LIBCUDA=/usr/lib/cudastore-emu/libcuda.so.1"]
c["mounts"].append({"destination": "/work", "type": "bind", "source": cw, "options": ["rbind", "rw"]})
c.setdefault("annotations", {})["org.criu.config"] = criu_conf
json.dump(c, open(path, "w"), indent=1)
PY
}

# runtime configuration as a user writes it: CRIU's (libdir) and cudastore's (mode)
configure_plugin() { # configure_plugin MODE
	printf 'libdir %s\n' "$PLUGINDIR" >"$WORK/criu-runc.conf"
	printf 'mode = %s\n' "$1" >"$WORK/cudastore.conf"
	export CUDASTORE_CONFIG=$WORK/cudastore.conf
}

# ctr_run NAME ID: start the container detached, wait until the workload is ready
ctr_run() {
	local name=$1 id=$2 cw=$WORK/$1/cw
	rm -f "$cw"/w.*
	RUNC_IDS="$RUNC_IDS $id"
	(cd "$WORK/$name/bundle" && timeout 30 "$RUNC" run -d "$id" </dev/null >"$WORK/$name/run-$id.out" 2>&1) ||
		bail "runc run $id failed: $(cat "$WORK/$name/run-$id.out")"
	wait_file "$cw/w.ready" 30 || bail "workload in $id not ready: $(cat "$cw/w.log" 2>/dev/null)"
}

ctr_pid() { "$RUNC" state "$1" 2>/dev/null | sed -n 's/^ *"pid": *\([0-9]*\),*$/\1/p'; }
ctr_status() { "$RUNC" state "$1" 2>/dev/null | sed -n 's/^ *"status": *"\([a-z]*\)",*$/\1/p'; }

# ctr_checkpoint NAME ID DIR [runc options...]
ctr_checkpoint() {
	local name=$1 id=$2 dir=$3; shift 3
	timeout -k 5 120 "$RUNC" checkpoint --image-path "$dir" --work-path "$dir.work" "$@" "$id" \
		>"$dir.runc.out" 2>&1
}

# ctr_restore NAME ID DIR [runc options...]: runc's status; a failure's reasons as TAP comments
ctr_restore() {
	local name=$1 id=$2 dir=$3 rc; shift 3
	rm -f "$WORK/$name/cw/w.out"
	RUNC_IDS="$RUNC_IDS $id"
	(cd "$WORK/$name/bundle" && timeout -k 5 120 "$RUNC" restore -d --image-path "$dir" \
		--work-path "$dir.rwork" "$@" "$id" </dev/null >"$dir.restore.out" 2>&1)
	rc=$?
	if [ $rc != 0 ]; then
		tail -n 3 "$dir.restore.out" 2>/dev/null | cut -c1-200 | sed "s/^/# runc restore of $id exited $rc: /"
		criu_errors "restore of $id" $rc "$dir.rwork/restore.log"
	fi
	return $rc
}

# ctr_verdict NAME ID: SIGTERM to the container's init; prints its verdict (PASS or FAIL: ...)
ctr_verdict() {
	local cw=$WORK/$1/cw
	rm -f "$cw/w.out"
	"$RUNC" kill "$2" TERM >/dev/null 2>&1
	read_verdict "$cw/w.out"
}

# a GPU memory verdict, after a short run: PASS means every byte verified
ctr_check_verdict() { # ctr_check_verdict MODE NAME ID DESCRIPTION
	local v
	sleep 0.3
	v=$(ctr_verdict "$2" "$3")
	check_mode "$1" "$4 ($v)" [ "$v" = PASS ]
}

#!/bin/bash
# cudastore check on the driver emulator at CUDA 13.4 and 13.0, with a CUDA process running:
# driver version, CustomStorage and the mode auto picks; the process and its GPU memory;
# each option's value and source; criu, the plugin's hooks, a conflicting cuda_plugin.so, a
# missing plugin; a bad config key; an images directory too small. check changes nothing (no
# checkpoint call reaches the driver, the process verifies all its GPU memory afterwards).
# Then driver-managed images (13.0): inspect and verify accept them, as the restore does.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
CS=$CUDASTORE_CMD
export CUDASTORE_CONFIG=$WORK/cudastore.conf
printf '# pinned by the test\nthreads = 4\n' >"$CUDASTORE_CONFIG"
export CUDASTORE_EMU_TRACE=$WORK/trace
plan 34
start_workload w --size 8m --buffers 2
run_check() { # run_check NAME [options...]: JSON in $WORK/NAME.json, exit status in RC
	local name=$1; shift
	"$CS" check --json --criu "$CRIU" "$@" >"$WORK/$name.json" 2>"$WORK/$name.err"
	RC=$?
}
j() { json_get "$WORK/$1.json" "$2"; }

# ---- 13.4
export CUDASTORE_EMU_DRIVER_VERSION=13040
run_check c134 --plugin-dir "$PLUGINDIR" --images-dir "$WORK"
check "13.4: a dump would work (exit $RC)" [ "$RC" = 0 ]
check "13.4: driver 13040, checkpoint API, CustomStorage" \
	[ "$(j c134 "(d['libcuda']['driver_version'], d['libcuda']['checkpoint_api'], d['libcuda']['custom_storage'])")" = "(13040, True, True)" ]
check "13.4: auto picks custom" [ "$(j c134 "(d['mode'], d['libcuda']['auto_mode'], d['dump_mode'])")" = "('auto', 'custom', 'custom')" ]
check "13.4: the emulated libcuda's path" [ "$(j c134 "d['libcuda']['path']")" = "$CUDASTORE_LIBCUDA" ]
check "13.4: one GPU with its UUID and the memory in use" \
	[ "$(j c134 "(len(d['gpus']), d['gpus'][0]['uuid'].startswith('GPU-'), d['gpus'][0]['used_bytes'] >= 16 << 20)")" = "(1, True, True)" ]
check "13.4: the CUDA process with its GPU bytes, running" \
	[ "$(j c134 "[(p['gpu_bytes'] >= 16 << 20, p['state']) for p in d['processes'] if p['pid'] == $WPID]")" = "[(True, 'running')]" ]
check "13.4: threads from the config file's line 2" \
	[ "$(j c134 "d['options']['values']['threads']")" = "{'value': 4, 'source': '$CUDASTORE_CONFIG:2'}" ]
check "13.4: libcuda from the environment, chunk_mb default" \
	[ "$(j c134 "(d['options']['values']['libcuda']['source'], d['options']['values']['chunk_mb'])")" = "('CUDASTORE_LIBCUDA', {'value': 4, 'source': 'default'})" ]
check "13.4: criu 4.x found, our plugin with its hooks, no conflict" \
	[ "$(j c134 "(d['criu']['path'], d['criu']['version'][0], d['criu']['plugin_hooks'] > 0, d['criu']['conflicting_plugin'])")" = "('$CRIU', '4', True, None)" ]
check "13.4: cudastore-helper found beside the plugin" [ "$(j c134 "d['criu']['helper']")" = "$PLUGINDIR/cudastore-helper" ]
check "13.4: the images directory has room" [ "$(j c134 "d['images_dir']['fits']")" = True ]
"$CS" check --criu "$CRIU" --plugin-dir "$PLUGINDIR" >"$WORK/c134.txt" 2>&1
check "13.4: text verdict names the mode" grep -q '^verdict: a dump would work (mode custom)' "$WORK/c134.txt"
check "13.4: text shows each option's source" grep -Eq "threads *= 4 *\($CUDASTORE_CONFIG:2\)" "$WORK/c134.txt"

# ---- 13.0
export CUDASTORE_EMU_DRIVER_VERSION=13000
run_check c130 --plugin-dir "$PLUGINDIR"
check "13.0: a dump would work (exit $RC)" [ "$RC" = 0 ]
check "13.0: no CustomStorage, and why" \
	[ "$(j c130 "(d['libcuda']['driver_version'], d['libcuda']['custom_storage'], '13.4' in d['libcuda']['custom_storage_reason'])")" = "(13000, False, True)" ]
check "13.0: auto picks driver-managed" [ "$(j c130 "d['dump_mode']")" = driver ]
CUDASTORE_MODE=custom run_check c130custom --plugin-dir "$PLUGINDIR"
check "13.0 with mode=custom: a dump would fail (exit $RC)" [ "$RC" = 1 ]
check "13.0 with mode=custom: says why and what to do" \
	[ "$(j c130custom "any('mode = custom' in p and 'mode = auto or driver' in p for p in d['problems'])")" = True ]
check "13.0 with mode=custom: the source is the environment" \
	[ "$(j c130custom "d['options']['values']['mode']['source']")" = CUDASTORE_MODE ]
export CUDASTORE_EMU_DRIVER_VERSION=13040

# ---- plugin directory
mkdir -p "$WORK/conflict"; cp "$PLUGIN_SO" "$WORK/conflict/"; : >"$WORK/conflict/cuda_plugin.so"
run_check conflict --plugin-dir "$WORK/conflict"
check "cuda_plugin.so next to ours: exit 1, named as the conflict" \
	[ "$RC/$(j conflict "d['criu']['conflicting_plugin']")" = "1/$WORK/conflict/cuda_plugin.so" ]
mkdir -p "$WORK/nohelper"; cp "$PLUGIN_SO" "$WORK/nohelper/"
run_check nohelper --plugin-dir "$WORK/nohelper"
check "plugin without cudastore-helper: exit 1, says so" \
	[ "$RC/$(j nohelper "'cudastore-helper is missing' in (d['criu']['plugin_error'] or '')")" = 1/True ]
mkdir -p "$WORK/empty"
run_check noplugin --plugin-dir "$WORK/empty"
check "no plugin in the directory: exit 1, says where to install it" \
	[ "$RC/$(j noplugin "any('is not in criu' in p and '--libdir' in p for p in d['problems'])")" = 1/True ]

# ---- options
printf 'threads = 4\nthreds = 2\n' >"$WORK/bad.conf"
CUDASTORE_CONFIG=$WORK/bad.conf run_check badkey --plugin-dir "$PLUGINDIR"
check "unknown config key: exit 1, file and line named" \
	[ "$RC/$(j badkey "'$WORK/bad.conf:2: unknown option' in d['options']['error']")" = 1/True ]
CUDASTORE_THREDS=2 run_check badenv --plugin-dir "$PLUGINDIR"
check "unknown CUDASTORE_ variable: flagged, and a dump would fail on it (exit 1)" \
	[ "$RC/$(j badenv "d['options']['unknown_environment']")/$(j badenv "'CUDASTORE_THREDS' in d['options']['error']")" = "1/['CUDASTORE_THREDS']/True" ]

# ---- images directory too small
mkdir -p "$WORK/small"
if mount -t tmpfs -o size=4m tmpfs "$WORK/small" 2>/dev/null; then
	run_check small --plugin-dir "$PLUGINDIR" --images-dir "$WORK/small"
	check "4 MiB images directory for 16+ MiB of GPU memory: exit 1, does not fit" \
		[ "$RC/$(j small "d['images_dir']['fits']")" = 1/False ]
	check "the reason names the directory and what to do" \
		[ "$(j small "any('$WORK/small' in p and 'Free space' in p for p in d['problems'])")" = True ]
	umount "$WORK/small"
else
	ok "# SKIP cannot mount a tmpfs"; ok "# SKIP cannot mount a tmpfs"
fi

# ---- check touched nothing
n=0; for api in cuCheckpointProcessLock cuCheckpointProcessCheckpoint cuCheckpointProcessRestore cuCheckpointProcessUnlock; do
	n=$((n + $(tr_count "$WORK/trace" $api)))
done
check "no checkpoint call was made ($n)" [ "$n" = 0 ]
check "the state was only read" [ "$(tr_count "$WORK/trace" cuCheckpointProcessGetState)" -gt 0 ]
check_verdict w "$WPID" "the process verified all its GPU memory after the checks"
wait_gone "$WPID"

# ---- driver-managed images (13.0)
export CUDASTORE_EMU_DRIVER_VERSION=13000
start_workload d --size 4m
criu_dump "$WORK/dimg" "$WPID"
check "13.0: criu dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
"$CS" inspect --json "$WORK/dimg" >"$WORK/dinspect.json"
check "driver-managed images: inspect exits 0, mode driver, no extent" \
	[ "$?/$(json_get "$WORK/dinspect.json" "(d['processes'][0]['mode'], [x['extent'] for x in d['processes'][0]['devices']])")" = "0/('driver', [])" ]
"$CS" verify "$WORK/dimg" >"$WORK/dverify.txt"
check "driver-managed images: verify exits 0, says where the data is" \
	[ "$?/$(grep -c "OK (driver-managed" "$WORK/dverify.txt")" = 0/1 ]
criu_restore "$WORK/dimg"
check "driver-managed images: restore succeeds as verify said" log_has "$WORK/dimg/restore.log" "pid $WPID: GPU restore done"
check_verdict d "$WPID" "every byte verified after the driver-managed restore"
done_testing

# roundtrip.sh - one workload checkpointed and restored through CRIU with the plugin; every
# byte verified by the workload itself afterwards. Parameters (environment):
#   DEVICES (1)  BUFFERS (2)  SIZE (1m, per buffer)  ZERO (0 = zero-percent)  DRIVER (13040)
#   MODE (auto)  EXPECT_MODE (custom|driver)
. "$top_srcdir/tests/e2e/lib.sh"
need_criu
setup_work
use_emulator
: "${DEVICES:=1}" "${BUFFERS:=2}" "${SIZE:=1m}" "${ZERO:=0}" "${DRIVER:=13040}" "${MODE:=auto}"
: "${EXPECT_MODE:=custom}"
export CUDASTORE_EMU_DEVICES=$DEVICES CUDASTORE_EMU_DRIVER_VERSION=$DRIVER CUDASTORE_MODE=$MODE
export CUDASTORE_EMU_MEM_MB=${MEM_MB:-4096}
plan 13

start_workload w --devices "$DEVICES" --buffers "$BUFFERS" --size "$SIZE" --zero-percent "$ZERO"
criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
if [ "$EXPECT_MODE" = custom ]; then
	check "plugin chose CustomStorage" log_has "$WORK/img/dump.log" "pid $WPID .*mode CustomStorage"
else
	check "plugin chose driver-managed and said so" log_has "$WORK/img/dump.log" "pid $WPID .*mode driver-managed"
fi
check "one log line per phase with timing" log_has "$WORK/img/dump.log" "cudastore: pid $WPID: GPU checkpoint done in"
M=$(manifest_of "$WORK/img" "$WPID")
check "manifest written with mode 0600" [ "$(mode_of "$M")" = 600 ]
n=$(ls "$WORK/img" | grep -c '\.ext$')
if [ "$EXPECT_MODE" = custom ]; then
	check "one extent per GPU ($n of $DEVICES), each 0600" \
		bash -c "[ $n = $DEVICES ] && ! stat -c %a '$WORK'/img/*.ext | grep -vqx 600"
else
	check "driver-managed: no extents, GPU memory in CRIU's pages ($n extents)" [ "$n" = 0 ]
fi
check "JSON summary next to the manifest" grep -q '"phases":\[' "$WORK/img/cudastore-$WPID.json"
# each GPU's copy account: a CustomStorage copy gives its threads' time (files and checks, GPU
# waits) within threads x seconds; driver-managed GPU memory is not copied by the engine
S=$WORK/img/cudastore-$WPID.json
if [ "$EXPECT_MODE" = custom ]; then
	check "the summary gives each GPU's copy: threads, and their time in the files and checks and waiting for the GPU" \
		[ "$(json_get "$S" "len(d['devices']) == $DEVICES and all(c['threads'] >= 1 and c['seconds'] > 0 and c['io_seconds'] > 0 and c['gpu_wait_seconds'] >= 0 and c['io_seconds'] + c['gpu_wait_seconds'] <= c['threads'] * c['seconds'] * 1.01 + 0.001 for c in [x['copy'] for x in d['devices']])")" = True ]
else
	check "driver-managed: no engine copy in the summary" [ "$(json_get "$S" "all('copy' not in x for x in d['devices'])")" = True ]
fi
wait_gone "$WPID"
before=$(images_sum "$WORK/img")
criu_restore "$WORK/img"
check "criu restore succeeds" [ $? = 0 ]
check "plugin restored the GPU state" log_has "$WORK/img/restore.log" "cudastore: pid $WPID: GPU restore done"
check "restored process runs" alive "$WPID"
check "restore did not modify the images" [ "$before" = "$(images_sum "$WORK/img")" ]
if [ "$EXPECT_MODE" = custom ] && [ "$ZERO" -gt 0 ]; then
	stored=$("$top_builddir/tests/e2e/cs-manifest-tool" "$M" show | awk '$1=="stored_bytes"{print $2}')
	total=$("$top_builddir/tests/e2e/cs-manifest-tool" "$M" show | awk '$1=="total_bytes"{print $2}')
	alloc=$(du -B1 -c "$WORK"/img/*.ext | tail -n1 | cut -f1)
	check "zero chunks skipped: stored $stored of $total bytes, $alloc allocated on disk" \
		[ "$stored" -lt "$total" ] && [ "$alloc" -le $((stored + DEVICES * 33554432 + 1048576)) ]
else
	ok "zero skipping not exercised here"
fi
check_verdict w "$WPID" "workload verified every byte after restore"
done_testing

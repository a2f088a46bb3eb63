# tree.sh - a tree of NCUDA CUDA processes (the root and NCUDA-1 children) and one CPU-only child,
# dumped and restored through CRIU with the plugin, every process's GPU phase at once.
# Parameters (environment):
#   MODE (custom|driver)  SIZE (4m per buffer, 2 buffers)  NCUDA (4)  RATE (64: the emulated
#   driver's MB/s per process, so that the overlap shows in its trace)  IN_FLIGHT (the
#   custom_in_flight option: 0, every process at once, unless a scenario says otherwise)
#   SCENARIO:
#     roundtrip        every byte verified after the restore; the 4 checkpoint calls and the 4
#                      restore calls overlap; the GPU phase is well under the sum of its processes
#     checkpoint-fails process 3 of 4 fails its checkpoint call: the dump fails, all run on intact
#     copy-fails       process 3 of 4 fails mid-copy (custom): the same
#     complete-fails   process 3 of 4 fails its cuCheckpointOperationComplete (custom): the
#                      dump fails, the 3 others run on intact, process 3 (stuck in
#                      CHECKPOINTING, no way back) is ended with the reason, no file is left
#     double-fault     process 3 fails its checkpoint call, then process 2's rollback unlock
#                      never takes: the dump fails, 1, 3 and 4 run on intact, process 2 is
#                      ended with the reason (never left locked), no file is left
#     criu-killed      criu SIGKILLed during the parallel copy: the guardian brings all back
#     flipped-byte     one byte of process 2's extent flipped (custom): the restore fails in
#                      bounded time and no process of the tree runs
#     by-size          (custom, CHILD_SIZE smaller than SIZE) the copies share the copy threads
#                      and pinned memory by their sizes: the root's copy runs more threads than
#                      each child's, dump and restore, every byte verified; a dump without NVML
#                      (sizes unknown) splits them evenly
#     helper-killed    cudastore-helper SIGKILLed while one process's worker waits at PHASE
#                      (driver: after-checkpoint; custom: after-complete, its extents written)
#                      and the others finish theirs: criu fails the dump in bounded time, a new
#                      helper takes over all NCUDA processes, recovers them at once (their
#                      restore calls in flight together) and every one runs on with every
#                      byte; no file of the failed dump is left
#     lost-mid-copy    (custom) cudastore-helper SIGKILLed while copies are in flight (slow
#                      emulated copies): the processes CHECKPOINTING then (custom_in_flight: 1 by
#                      default, the last child; 0: all 4) are ended with the reason, every other
#                      process runs on with every byte (restored from its extents, or unlocked),
#                      the CPU-only child too, and no file of the failed dump is left
#     by-work          (custom, WL_ARGS giving the root all-zero memory and the children data)
#                      the dump shares by size (the root's copy runs more threads), the restore by
#                      the bytes each reads (the root's, all zero, runs fewer), every byte verified
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/guardian.sh"
need_criu; setup_work; use_emulator
: "${MODE:=custom}" "${SIZE:=4m}" "${NCUDA:=4}" "${RATE:=64}" "${SCENARIO:=roundtrip}" "${CHILD_SIZE:=$SIZE}"
: "${WL_ARGS:=}" "${PHASE:=after-checkpoint}" "${IN_FLIGHT:=0}"
export CUDASTORE_MODE=$MODE CUDASTORE_EMU_RATE_MBPS=$RATE CUDASTORE_CUSTOM_IN_FLIGHT=$IN_FLIGHT
TRACE=$WORK/criu.trace
STALL=$WORK/stall

# the tree: sets KIDS (all children) and CUDA (the CUDA processes, root first, in fork order)
start_tree() {
	local k
	# shellcheck disable=SC2086 # WL_ARGS: more workload options, split on purpose
	start_workload w --size "$SIZE" --child-size "$CHILD_SIZE" --fork-cuda $((NCUDA - 1)) --fork-cpu 1 $WL_ARGS
	sleep 0.5
	KIDS=$(cat /proc/"$WPID"/task/*/children)
	CUDA=$WPID
	for k in $KIDS; do grep -q libcuda "/proc/$k/maps" 2>/dev/null && CUDA="$CUDA $k"; done
	check "the tree has $NCUDA CUDA processes and a CPU-only child ($CUDA | $KIDS)" \
		[ "$(echo $CUDA | wc -w)" = "$NCUDA" ] && [ "$(echo $KIDS | wc -w)" = "$NCUDA" ]
}
nth_cuda() { echo $CUDA | cut -d' ' -f"$1"; }
# others_resumed BUT: every CUDA process but BUT was put back with its GPU memory by the rollback
others_resumed() {
	local p
	for p in $CUDA; do
		[ "$p" = "$1" ] && continue
		grep -aq "pid $p: resumed with its GPU memory .*dump failed" "$WORK/img/dump.log" || return 1
	done
}
tree_gone() { local p; for p in $WPID $KIDS; do wait_gone "$p"; done; }
all_alive() { local p; for p in $WPID $KIDS; do alive "$p" || return 1; done; }

# phase_ratio LOG WHAT: wall / sum of "GPU WHAT phase of N processes" (x1000, an integer)
phase_ratio() {
	sed -n "s/.*GPU $2 phase of [0-9]* processes.*: \([0-9.]*\) s wall, \([0-9.]*\) s summed.*/\1 \2/p" "$1" |
		tail -n1 | awk '$2 > 0 { printf "%d", 1000 * $1 / $2 }'
}

# every CUDA process's summary: its GPU phase, and the batch (processes, wall <= sum)
summaries_ok() {
	local p f
	for p in $CUDA; do
		f=$WORK/img/cudastore-$p.json
		[ "$(json_get "$f" "d['batch']['processes']")" = "$NCUDA" ] || return 1
		[ "$(json_get "$f" "d['gpu_phase']['end']['seconds'] >= d['gpu_phase']['start']['seconds'] > 0")" = True ] &&
			[ "$(json_get "$f" "d['batch']['sum_seconds'] >= d['batch']['wall_seconds'] > 0")" = True ] || return 1
	done
}

# one line per CUDA process: the GPUs its summary names (ordinal:uuid, space-separated)
summary_gpus() {
	local p
	for p in $CUDA; do
		json_get "$WORK/img/cudastore-$p.json" "' '.join('%d:%s' % (x['ordinal'], x['uuid']) for x in d['devices'])"
	done
}

roundtrip() {
	local r each=0
	# a GPU each: a CustomStorage process's images name its GPU (driver-managed ones name none)
	case " $WL_ARGS " in *" --gpu-each "*) [ "$MODE" = custom ] && each=1 ;; esac
	plan $((15 + 2 * each))
	start_tree
	CRIU_ENV="CUDASTORE_EMU_TRACE=$TRACE" criu_dump "$WORK/img" "$WPID"
	check "criu dump succeeds" [ $? = 0 ]
	check "one manifest per CUDA process" [ "$(ls "$WORK/img" | grep -c '^cudastore-[0-9]*\.img$')" = "$NCUDA" ]
	check "every process's checkpoint ran in one GPU phase" log_has "$WORK/img/dump.log" \
		"GPU checkpoint phase of $NCUDA processes, at most $NCUDA at once"
	check "the emulated driver saw the $NCUDA checkpoint calls in flight together" \
		tr_overlap "$TRACE" cuCheckpointProcessCheckpoint "$NCUDA"
	r=$(phase_ratio "$WORK/img/dump.log" checkpoint)
	check "the GPU checkpoint phase took ${r:-?}/1000 of the processes' summed time (<= 600)" \
		[ -n "$r" ] && [ "$r" -le 600 ]
	diag "checkpoint calls spanned $(tr_span "$TRACE" cuCheckpointProcessCheckpoint) s"
	check "each summary gives its process's GPU phase and the batch's wall and sum" summaries_ok
	if [ $each = 1 ]; then
		diag "the processes' GPUs: $(summary_gpus | tr '\n' ' ')"
		check "each process's images name one GPU, its own: ordinals 0 to $((NCUDA - 1)), distinct UUIDs" \
			[ "$(summary_gpus | cut -d: -f1 | tr '\n' ' ')" = "$(seq -s ' ' 0 $((NCUDA - 1))) " ] &&
			[ "$(summary_gpus | cut -d: -f2 | sort -u | wc -l)" = "$NCUDA" ]
	fi
	tree_gone
	rm -f "$TRACE"
	CRIU_ENV="CUDASTORE_EMU_TRACE=$TRACE" criu_restore "$WORK/img"
	check "criu restore succeeds" [ $? = 0 ]
	check "every CUDA process restored" [ "$(grep -c 'GPU restore done' "$WORK/img/restore.log")" = "$NCUDA" ]
	check "every process's restore ran in one GPU phase" log_has "$WORK/img/restore.log" \
		"GPU restore phase of $NCUDA processes, at most $NCUDA at once"
	check "the emulated driver saw the $NCUDA restore calls in flight together" \
		tr_overlap "$TRACE" cuCheckpointProcessRestore "$NCUDA"
	r=$(phase_ratio "$WORK/img/restore.log" restore)
	check "the GPU restore phase took ${r:-?}/1000 of the processes' summed time (<= 600)" \
		[ -n "$r" ] && [ "$r" -le 600 ]
	[ $each = 1 ] &&
		check "the warm-up prepared every GPU the images name" log_has "$WORK/img/restore.log" \
			"warm-up: $NCUDA CustomStorage process\(es\) on $NCUDA GPU\(s\)"
	check "the CPU-only child was left to CRIU and runs" all_alive
	check "the pinned pool was released once" \
		[ "$(grep -c 'pinned pool released' "$WORK/img/restore.log")" -le 1 ]
	check_verdict w "$WPID" "root and children verified every byte"
}

# the dump fails for one process; every process runs on with every byte, none locked
fails_all_run_on() {
	local what=$1 fault=$2 p3
	plan 9
	start_tree
	p3=$(nth_cuda 3)
	CRIU_ENV="CUDASTORE_EMU_FAULTS=${fault/PID/$p3}" criu_dump "$WORK/img" "$WPID"
	check "criu dump fails ($what of pid $p3)" [ $? != 0 ]
	check "the plugin named process 3 ($p3)" log_has "$WORK/img/dump.log" "Error: cudastore: pid $p3: "
	check "the others had been checkpointed at the same time" log_has "$WORK/img/dump.log" \
		"GPU checkpoint phase of $NCUDA processes, at most $NCUDA at once"
	check "the rollback put every other CUDA process back with its GPU memory" others_resumed "$p3"
	check "no half image set is left" [ -z "$(cudastore_images "$WORK/img")" ]
	sleep 0.5
	check "every process of the tree runs on" all_alive
	check "no running GPU check failed meanwhile" bash -c "[ ! -s '$WORK/w.out' ]"
	check_verdict w "$WPID" "root and children verified every byte (none left locked)"
}

# one_ended WHAT N FAULTS WHY: FAULTS (P1..P4: the CUDA processes) leave process N unable to
# run again; it is ended with WHY, every other process runs on with every byte
one_ended() {
	local what=$1 n=$2 f=$3 why=$4 v k p others=
	plan 10
	start_tree
	v=$(nth_cuda "$n")
	for k in $(seq "$NCUDA"); do f=${f//P$k/$(nth_cuda "$k")}; done
	for p in $WPID $KIDS; do [ "$p" = "$v" ] || others="$others $p"; done
	CRIU_ENV="CUDASTORE_EMU_FAULTS=$f" criu_dump "$WORK/img" "$WPID"
	check "criu dump fails ($what)" [ $? != 0 ]
	check "process $n ($v) was ended with the reason" log_has "$WORK/img/dump.log" \
		"pid $v: cannot be resumed after the dump \($why\); ending it so that it does not hang"
	check "the rollback put every other CUDA process back with its GPU memory" others_resumed "$v"
	check "no file of the failed dump is left" [ -z "$(cudastore_images "$WORK/img")" ]
	sleep 0.5
	check "process $n is not left hung" bash -c "! kill -0 $v 2>/dev/null || grep -q '^State:.*Z' /proc/$v/status"
	check "every other process of the tree runs on" bash -c "for p in $others; do kill -0 \$p || exit 1; done"
	check "no running GPU check failed meanwhile" bash -c "[ ! -s '$WORK/w.out' ]"
	# each CUDA child says its verdict on its own (the root's would name the ended child)
	for p in $CUDA; do [ "$p" = "$WPID" ] || [ "$p" = "$v" ] || kill -TERM "$p"; done
	for _ in $(seq 300); do
		k=0; for p in $CUDA; do [ "$p" = "$WPID" ] || [ "$p" = "$v" ] || grep -q "cuda-workload\[$p\]: PASS" "$WORK/w.err" || k=1; done
		[ $k = 0 ] && break; sleep 0.1
	done
	check "every other CUDA child verified every byte" [ $k = 0 ]
	check "the root was resumed with its GPU memory" log_has "$WORK/img/dump.log" \
		"pid $WPID: resumed with its GPU memory .*dump failed"
}

criu_killed() {
	local p
	plan 8
	start_tree
	export CUDASTORE_TEST_STALL=copy-out CUDASTORE_TEST_STALL_FILE=$STALL
	criu_bg dump "$WORK/img"
	kill_criu_at copy-out
	unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
	check "the guardian said what it did" log_has "$WORK/img/cudastore-guardian.log" \
		"criu is gone in the middle of the dump"
	for p in $CUDA; do
		log_has "$WORK/img/cudastore-guardian.log" "pid $p: resumed with its GPU memory .*criu is gone" ||
			diag "pid $p not resumed"
	done
	check "the guardian brought all $NCUDA CUDA processes back" [ "$(grep -ac 'resumed with its GPU memory .*criu is gone' \
		"$WORK/img/cudastore-guardian.log")" = "$NCUDA" ]
	check "no half image set is left ($(cudastore_images "$WORK/img"))" [ -z "$(cudastore_images "$WORK/img")" ]
	sleep 0.5
	check "every process of the tree runs on" all_alive
	check "no running GPU check failed meanwhile" bash -c "[ ! -s '$WORK/w.out' ]"
	check_verdict w "$WPID" "root and children verified every byte"
}

flipped_byte() {
	local p2 t0 rc before
	plan 8
	start_tree
	criu_dump "$WORK/img" "$WPID"
	check "criu dump succeeds" [ $? = 0 ]
	p2=$(nth_cuda 2)
	flip_byte "$(extent_of "$WORK/img" "$p2" 0)"
	tree_gone
	before=$(images_sum "$WORK/img")
	t0=$(date +%s)
	criu_restore "$WORK/img"
	rc=$?
	check "criu restore exits 1 ($rc) within 60 s ($(( $(date +%s) - t0 )) s)" \
		[ "$rc" = 1 ] && [ $(( $(date +%s) - t0 )) -le 60 ]
	check "the plugin refused process 2's chunk" log_has "$WORK/img/restore.log" \
		"pid $p2: copying the images into the GPU failed: restore: checksum mismatch"
	check "and killed every process of the tree" log_has "$WORK/img/restore.log" \
		"killing all $((NCUDA + 1)) processes of the tree so that none runs"
	check "CRIU said Restoring FAILED" log_has "$WORK/img/restore.log" "Restoring FAILED"
	sleep 0.3
	check "nothing of the tree runs ($WPID $KIDS)" gone $WPID $KIDS
	check "the restore did not modify the images" [ "$before" = "$(images_sum "$WORK/img")" ]
}

# region_threads LOG WHAT PID: the copy threads of PID's GPU 0 in its "WHAT region 0" line
region_threads() {
	sed -n "s/.*$2 region 0 (cudastore-$3-gpu0\.ext): .* \([0-9]*\) threads, .*/\1/p" "$1" | tail -n1
}

# root_vs_children LOG WHAT OP: every child's copy ran OP ("-lt", "-eq") the root's threads
root_vs_children() {
	local p t root
	root=$(region_threads "$1" "$2" "$WPID")
	diag "$2: the root's copy ran ${root:-?} threads"
	[ -n "$root" ] || return 1
	for p in $CUDA; do
		[ "$p" = "$WPID" ] && continue
		t=$(region_threads "$1" "$2" "$p")
		diag "$2: pid $p's copy ran ${t:-?} threads"
		[ -n "$t" ] && [ "$t" "$3" "$root" ] || return 1
	done
}

by_size() {
	plan 11
	set_config "chunk_mb = 1"
	start_tree
	# NVML gives the dump its sizes; without it they are unknown, and the split stays even
	CRIU_ENV="CUDASTORE_LIBNVML=/nonexistent/libnvidia-ml.so.1" criu_dump "$WORK/nonvml" "$WPID" --leave-running
	check "criu dump --leave-running without NVML succeeds" [ $? = 0 ]
	check "without NVML nothing was shared by size" bash -c "
		grep -aq 'no NVML' '$WORK/nonvml/dump.log' && ! grep -aq 'by their sizes' '$WORK/nonvml/dump.log'"
	check "without NVML every copy ran as many threads as the root's" \
		root_vs_children "$WORK/nonvml/dump.log" dumped -eq
	criu_dump "$WORK/img" "$WPID"
	check "criu dump succeeds" [ $? = 0 ]
	check "the dump's copies shared the engine by their sizes" log_has "$WORK/img/dump.log" \
		"checkpoint: the $NCUDA copies running at once share the copy threads and pinned memory by their sizes"
	check "the root's copy (the largest) ran more threads than each child's" \
		root_vs_children "$WORK/img/dump.log" dumped -lt
	tree_gone
	criu_restore "$WORK/img"
	check "criu restore succeeds" [ $? = 0 ]
	check "the restore's copies shared the engine by their sizes" log_has "$WORK/img/restore.log" \
		"restore: the $NCUDA copies running at once share the copy threads and pinned memory by their sizes"
	check "the root's copy (the largest) ran more threads than each child's" \
		root_vs_children "$WORK/img/restore.log" restored -lt
	check_verdict w "$WPID" "root and children verified every byte"
}

helper_killed() {
	plan 10
	start_tree
	export CUDASTORE_EMU_TRACE=$TRACE # the recovery's driver calls
	kill_helper_at "$PHASE" 1        # 1 s: the other workers finish theirs meanwhile
	unset CUDASTORE_EMU_TRACE
	check "a new helper took all $NCUDA processes over" log_has "$WORK/img/dump.log" \
		"taking over the $NCUDA CUDA process\(es\) of this dump with a new cudastore-helper"
	check "all $NCUDA were brought back with their GPU memory" \
		[ "$(grep -ac 'running again with its GPU memory after cudastore-helper died' "$WORK/img/dump.log")" = "$NCUDA" ]
	check "the new helper recovered them at once" log_has "$WORK/img/dump.log" \
		"GPU recovery phase of $NCUDA processes, at most $NCUDA at once"
	check "the emulated driver saw the $NCUDA restore calls of the recovery in flight together" \
		tr_overlap "$TRACE" cuCheckpointProcessRestore "$NCUDA"
	check "no file of the failed dump is left ($(cudastore_images "$WORK/img"))" [ -z "$(cudastore_images "$WORK/img")" ]
	sleep 0.5
	check "every process of the tree runs on" all_alive
	check_verdict w "$WPID" "root and children verified every byte"
}

# every copy slowed (300 ms a chunk), the helper killed once the first copy moved
lost_mid_copy() {
	local h i p ended=0 want others=
	plan 9
	start_tree
	CRIU_ENV="CUDASTORE_EMU_DELAY=cuMemcpyDtoHAsync:300"
	mkdir -p "$WORK/img"
	env $CRIU_ENV "$CRIU" dump -t "$WPID" -D "$WORK/img" -o dump.log -v4 -L "$PLUGINDIR" >>"$(criu_output)" 2>&1 &
	CPID=$!
	for i in $(seq 300); do log_has "$WORK/img/dump.log" "GPU region 0: " && break; sleep 0.05; done
	h=$(sed -n 's/.*cudastore-helper running as pid \([0-9]*\).*/\1/p' "$WORK/img/dump.log" | head -n1)
	kill -9 "$h"
	timeout 60 tail --pid="$CPID" -f /dev/null
	wait "$CPID"
	check "criu dump fails ($?) after the helper (pid ${h:-?}) died in the middle of a copy" [ -n "$h" ]
	want=$((IN_FLIGHT == 0 ? NCUDA : IN_FLIGHT))
	for p in $CUDA; do
		if log_has "$WORK/img/dump.log" "pid $p: its GPU memory was held by the cudastore-helper that died"; then
			ended=$((ended + 1))
		else
			others="$others $p"
		fi
	done
	check "the processes CHECKPOINTING when it died ($ended, custom_in_flight $IN_FLIGHT) were ended with the reason" [ "$ended" = "$want" ]
	check "every other CUDA process was brought back ($others)" bash -c "
		for p in $others; do grep -aq \"pid \$p: running again with its GPU memory after cudastore-helper died\" '$WORK/img/dump.log' || exit 1; done"
	check "no file of the failed dump is left ($(cudastore_images "$WORK/img"))" [ -z "$(cudastore_images "$WORK/img")" ]
	sleep 0.5
	if [ "$want" = 1 ]; then
		check "the one ended was the last child, the root runs on" bash -c "alive() { kill -0 \$1 && ! grep -q '^State:.*Z' /proc/\$1/status; }; ! alive $(nth_cuda "$NCUDA") && alive $WPID"
		check "every other process of the tree runs on, the CPU-only child too" bash -c "
			for p in $WPID $KIDS; do [ \$p = $(nth_cuda "$NCUDA") ] && continue; kill -0 \$p || exit 1; done"
		for p in $others; do [ "$p" = "$WPID" ] || kill -TERM "$p"; done
		for _ in $(seq 300); do
			i=0; for p in $others; do [ "$p" = "$WPID" ] || grep -q "cuda-workload\[$p\]: PASS" "$WORK/w.err" || i=1; done
			[ $i = 0 ] && break; sleep 0.1
		done
		check "every other CUDA child verified every byte" [ $i = 0 ]
		check "the root verified every byte of its own" log_has "$WORK/img/dump.log" \
			"pid $WPID: running again with its GPU memory after cudastore-helper died"
	else
		check "the root was among them" bash -c "! kill -0 $WPID 2>/dev/null || grep -q '^State:.*Z' /proc/$WPID/status"
		check "and its descendants were ended with it, the CPU-only child too" bash -c "
			for p in $KIDS; do ! kill -0 \$p 2>/dev/null || grep -q '^State:.*Z' /proc/\$p/status || exit 1; done"
		ok "no verdict from ended processes"
		ok "no verdict from ended processes"
	fi
}

# the root's memory is all zero, each child's all data: a restore's copy costs what it reads
by_work() {
	plan 7
	set_config "chunk_mb = 1"
	start_tree
	criu_dump "$WORK/img" "$WPID"
	check "criu dump succeeds" [ $? = 0 ]
	check "the dump's copies shared the engine by their sizes: the root's (the largest) ran more threads" \
		root_vs_children "$WORK/img/dump.log" dumped -lt
	tree_gone
	criu_restore "$WORK/img"
	check "criu restore succeeds" [ $? = 0 ]
	check "the restore's copies shared the engine" log_has "$WORK/img/restore.log" \
		"restore: the $NCUDA copies running at once share the copy threads and pinned memory"
	check "the root's copy (all zero: nothing to read) ran fewer threads than each child's" \
		root_vs_children "$WORK/img/restore.log" restored -gt
	check_verdict w "$WPID" "root and children verified every byte"
}

case $SCENARIO in
roundtrip) roundtrip ;;
checkpoint-fails) fails_all_run_on "checkpoint call fails" "cuCheckpointProcessCheckpoint@PID:1:999" ;;
complete-fails) one_ended "process 3's Complete fails" 3 "cuCheckpointOperationComplete@P3:1:999" \
	"it is stuck in CHECKPOINTING: cuCheckpointOperationComplete failed, and the driver has no other way out" ;;
double-fault) one_ended "process 3's checkpoint fails, then process 2's unlock" 2 \
	"cuCheckpointProcessCheckpoint@P3:1:999,cuCheckpointProcessUnlock@P2:1+:999" \
	"it stays locked: cuCheckpointProcessUnlock did not take" ;;
copy-fails) # 1 MiB chunks: process 3's second chunk fails on its way out of the GPU
	set_config "chunk_mb = 1"
	fails_all_run_on "copy fails" "cuMemcpyDtoHAsync@PID:2:999" ;;
criu-killed) criu_killed ;;
flipped-byte) flipped_byte ;;
by-size) by_size ;;
by-work) by_work ;;
helper-killed) helper_killed ;;
lost-mid-copy) lost_mid_copy ;;
*) bail "tree.sh: unknown SCENARIO $SCENARIO" ;;
esac
done_testing

#!/bin/bash
# CRIU's own cuda plugin, running the cuda-checkpoint stand-in, dumps and restores an emulated tree of 4 CUDA processes and a CPU child (driver-managed), every byte verified: the GPU suite's comparison harness works
#
# CRIU's plugin is taken from the build tree of the criu under test, where scripts/provide-criu.sh
# builds it (CS_CRIU_CUDA_PLUGIN names another file). It looks for a GPU under
# /proc/driver/nvidia, which the emulator cannot provide: CRIU's own fault injection
# FI_PLUGIN_CUDA_FORCE_ENABLE (CRIU_FAULT=138) skips that one check and nothing else.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu
STANDIN=$top_builddir/tests/gpu/cuda-checkpoint-standin
[ -x "$STANDIN" ] || bail "stand-in not built ($STANDIN): run make check"

# CRIU's cuda_plugin.so built for exactly this criu binary, or nothing
criu_cuda_plugin() {
	local prefix=${CRIU%/sbin/criu} ver build
	if [ -n "${CS_CRIU_CUDA_PLUGIN:-}" ]; then
		echo "$CS_CRIU_CUDA_PLUGIN"
		return
	fi
	ver=$(cat "$prefix/include/criu/.cudastore-criu-version" 2>/dev/null) || return 0
	build=${CUDASTORE_CACHE:-/var/cache/cudastore}/src/criu-$ver/build
	cmp -s "$build/criu/criu" "$CRIU" && echo "$build/plugins/cuda/cuda_plugin.so"
}
CUDA_PLUGIN=$(criu_cuda_plugin)
[ -n "$CUDA_PLUGIN" ] && [ -f "$CUDA_PLUGIN" ] ||
	skip_all "CRIU's cuda_plugin.so not found for $CRIU (${CUDA_PLUGIN:-no build tree of it}): run scripts/provide-criu.sh"

setup_work
use_emulator
PLUGINDIR=$WORK/criu-cuda-plugin # criu_dump/criu_restore load this directory: CRIU's plugin alone
mkdir -p "$PLUGINDIR" "$WORK/path"
cp "$CUDA_PLUGIN" "$PLUGINDIR/"
ln -s "$STANDIN" "$WORK/path/cuda-checkpoint"
export PATH=$WORK/path:$PATH
export CRIU_ENV="CRIU_FAULT=138"
NCUDA=4
plan 12

check "the stand-in's help names --action (what CRIU's plugin checks at init)" \
	bash -c "cuda-checkpoint -h | grep -q -- --action"
start_workload w --size 4m --buffers 1 --fork-cuda $((NCUDA - 1)) --fork-cpu 1
sleep 0.5
KIDS=$(cat /proc/"$WPID"/task/*/children)
CUDA=$WPID
for k in $KIDS; do grep -q libcuda "/proc/$k/maps" 2>/dev/null && CUDA="$CUDA $k"; done
CPU=$(for k in $KIDS; do case " $CUDA " in *" $k "*) ;; *) echo "$k" ;; esac; done)
check "the tree has $NCUDA CUDA processes and a CPU-only child ($CUDA | $CPU)" \
	[ "$(echo $CUDA | wc -w) $(echo $CPU | wc -w)" = "$NCUDA 1" ]
check "the stand-in says the root is running" [ "$(cuda-checkpoint --get-state --pid "$WPID")" = running ]
check "the stand-in fails for the CPU-only child, as NVIDIA's tool does" \
	bash -c "! cuda-checkpoint --get-restore-tid --pid $CPU >/dev/null 2>&1"

criu_dump "$WORK/img" "$WPID"
check "criu dump with CRIU's cuda plugin succeeds" [ $? = 0 ]
check "CRIU's plugin locked and checkpointed the $NCUDA CUDA processes" \
	[ "$(grep -ac 'cuda_plugin: pausing devices on pid' "$WORK/img/dump.log") $(grep -ac \
		'cuda_plugin: Checkpointing CUDA devices on pid' "$WORK/img/dump.log")" = "$NCUDA $NCUDA" ]
check "cudastore took no part" bash -c "! grep -aq 'cudastore:' '$WORK/img/dump.log'"
tree_gone=1
for p in $WPID $KIDS; do wait_gone "$p" || tree_gone=0; done
check "every process of the dumped tree is gone" [ $tree_gone = 1 ]

criu_restore "$WORK/img"
check "criu restore with CRIU's cuda plugin succeeds" [ $? = 0 ]
check "CRIU's plugin restored and unlocked the $NCUDA CUDA processes" \
	[ "$(grep -ac 'cuda_plugin: resuming devices on pid' "$WORK/img/restore.log")" = "$NCUDA" ]
all=1
for p in $WPID $KIDS; do alive "$p" || all=0; done
check "every process of the tree runs" [ $all = 1 ]
check_verdict w "$WPID" "root and children verified every byte"
[ "$T_FAILED" = 0 ] || grep -a 'Error' "$WORK/img/"*.log 2>/dev/null | tail -n 8 | sed 's/^/# /'
done_testing

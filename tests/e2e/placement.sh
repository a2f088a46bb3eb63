# placement.sh - a tree of 4 CUDA processes, one per GPU, dumped on GPUs 0-3 of 8 emulated GPUs,
# restored wherever the placement says: every process verifies every byte and the restore log
# names each GPU's placement.
#   MODE (custom|driver)
#   onto all 24 orderings of GPUs 4-7 (an ordinal map each); onto a host that lists GPUs 0-3 in
#   reverse (no map: each GPU back on its own UUID, under another ordinal); onto a host where
#   GPUs 0-3 are gone (no map: the same ordinals of the 4 others); and a tree that saw its GPUs
#   reversed through CUDA_VISIBLE_DEVICES=3,2,1,0, restored with GPUs 0-3 gone.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
: "${MODE:=custom}"
export CUDASTORE_MODE=$MODE CUDASTORE_EMU_DEVICES=8
U=()
for i in 0 1 2 3 4 5 6 7; do U[i]=GPU-5eed0000-0000-4000-8000-00000000000$i; done
export CUDASTORE_EMU_UUIDS=$(IFS=,; echo "${U[*]}")

start_tree() { # start_tree [ENV=VALUE...]: the root on GPU 0, child k on GPU k; sets CUDA
	WL_ENV=("$@")
	start_workload_env w --size 1m --fork-cuda 3 --gpu-each
	sleep 0.3
	CUDA="$WPID $(cat /proc/"$WPID"/task/*/children)"
}
# start_workload with extra environment for the workload only
start_workload_env() {
	local name=$1; shift
	rm -f "$WORK/$name.pid" "$WORK/$name.ready" "$WORK/$name.out"
	env "${WL_ENV[@]}" "$WORKLOAD" --daemon --pidfile "$WORK/$name.pid" --ready "$WORK/$name.ready" \
		--outfile "$WORK/$name.out" "$@" >"$WORK/$name.stdout" 2>>"$WORK/$name.err" </dev/null
	wait_file "$WORK/$name.ready" 60 || { cat "$WORK/$name.err" >&2; bail "workload $name did not get ready"; }
	WPID=$(cat "$WORK/$name.pid")
	PIDS_TO_KILL="$PIDS_TO_KILL $WPID"
}
tree_gone() { local p; for p in $CUDA; do wait_gone "$p" || return 1; done; }

# placed DIR FROM... TO...: the restore log names each checkpointed GPU FROM[i] onto TO[i]
placed() {
	local dir=$1 i; shift
	local -a from=("${@:1:4}") to=("${@:5:4}")
	for i in 0 1 2 3; do
		log_has "$dir/restore.log" "placement: checkpointed GPU ${from[i]} is restored onto ${to[i]} " || {
			diag "no placement ${from[i]} -> ${to[i]} in $dir/restore.log"
			return 1
		}
	done
}

# restore_onto WHAT DIR ENV MAP TO...: restore with emulator ENV and device map MAP; the 4 GPUs
# dumped (U0-U3) placed onto TO..., every byte verified, the tree gone after
restore_onto() {
	local what=$1 dir=$2 env=$3 map=$4; shift 4
	rm -f "$dir/restore.log"
	CRIU_ENV="$env${map:+ CUDASTORE_DEVICE_MAP=$map}" criu_restore "$dir"
	check "$what: restored, each GPU where the placement says" placed "$dir" "${U[@]:0:4}" "$@"
	check_verdict w "$WPID" "$what: all 4 processes verified every byte"
	tree_gone
}

permutations() { # every ordering of 4 5 6 7, one per line
	local a b c d
	for a in 4 5 6 7; do for b in 4 5 6 7; do for c in 4 5 6 7; do for d in 4 5 6 7; do
		[ "$(printf '%s\n' $a $b $c $d | sort -u | wc -l)" = 4 ] && echo "$a $b $c $d"
	done; done; done; done
}

plan $((2 + 24 * 2 + 2 * 2 + 2 + 2 + 1))
start_tree
criu_dump "$WORK/img" "$WPID"
check "$MODE dump of the tree on GPUs 0-3 succeeds" [ $? = 0 ]
check "each manifest records its process's GPU" [ "$(grep -c 'GPU checkpoint done' "$WORK/img/dump.log")" = 4 ]
tree_gone
while read -r a b c d; do
	restore_onto "onto GPUs $a $b $c $d" "$WORK/img" "" "0=$a,1=$b,2=$c,3=$d" "${U[a]}" "${U[b]}" "${U[c]}" "${U[d]}"
done < <(permutations)

REV=$(IFS=,; echo "${U[3]},${U[2]},${U[1]},${U[0]},${U[*]:4}")
restore_onto "a host listing GPUs 0-3 in reverse, no map" "$WORK/img" "CUDASTORE_EMU_UUIDS=$REV" "" \
	"${U[0]}" "${U[1]}" "${U[2]}" "${U[3]}"
GONE=$(IFS=,; echo "${U[*]:4}")
restore_onto "GPUs 0-3 gone, no map" "$WORK/img" "CUDASTORE_EMU_DEVICES=4 CUDASTORE_EMU_UUIDS=$GONE" "" \
	"${U[4]}" "${U[5]}" "${U[6]}" "${U[7]}"
check "the log says why: the same ordinal, product and memory" \
	log_has "$WORK/img/restore.log" "placement: .* \(GPU 0 here\): the same ordinal"

# the tree saw its GPUs reversed: its process ordinal k is GPU 3-k
start_tree CUDA_VISIBLE_DEVICES=3,2,1,0
criu_dump "$WORK/rev" "$WPID"
check "$MODE dump of a tree started with CUDA_VISIBLE_DEVICES=3,2,1,0 succeeds" [ $? = 0 ]
check "its images record the ordinal each process saw" bash -c \
	"'$top_builddir/cudastore' inspect '$WORK/rev' | grep -q 'ordinal 3 on its host, 0 to the process'"
tree_gone
restore_onto "reversed view, GPUs 0-3 gone, no map" "$WORK/rev" "CUDASTORE_EMU_DEVICES=4 CUDASTORE_EMU_UUIDS=$GONE" "" \
	"${U[4]}" "${U[5]}" "${U[6]}" "${U[7]}"
done_testing

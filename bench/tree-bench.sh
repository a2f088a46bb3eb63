#!/usr/bin/env bash
# tree-bench.sh - the GPU phase of a process tree, every CUDA process at once against one after
# another (the parallel option: 0 against 1), through real criu dump and restore. A tree of NCUDA
# CUDA processes (the root and NCUDA-1 children, each with SIZE of GPU memory) and one CPU-only
# child is dumped and restored RUNS times each way, alternating; every byte is verified by the
# workload after each restore. Prints each run and the medians: whole criu dump and restore, the
# GPU checkpoint and restore phases (the plugin's "GPU ... phase of N processes" line: wall, and
# the sum of the processes' own times), and the at-once wall against the one-by-one wall beside
# the limit it is compared with (--limit-checkpoint, --limit-restore).
#
#   bench/tree-bench.sh [--real] [--mode custom|driver] [--ncuda 4] [--size 1g] [--runs 3]
#                       [--rate MBPS] [--images DIR] [--limit-checkpoint 0.4] [--limit-restore 0.4]
#                       [--criu PATH] [--plugins DIR] [--workload PATH] [--emu DIR]
#
# The driver emulator by default, with CUDASTORE_EMU_RATE_MBPS (--rate, default 1800: about what
# driver 580's own driver-managed copy moves per process, docs/results/gpu-runs.md) as its
# per-process driver rate; --real: the machine's libcuda (driver 580: driver-managed). Root only.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
REAL=0 MODE=custom NCUDA=4 SIZE=1g RUNS=3 RATE=1800 IMGS=/dev/shm/cudastore-tree-bench
LIMC=0.4 LIMR=0.4
CRIU=${CRIU:-/usr/local/sbin/criu}
PLUGINS= WORKLOAD=$top/tests/workload/cuda-workload EMU=$top/tests/emu/lib
usage() {
	sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-2}"
}
while [ $# -gt 0 ]; do
	case "$1" in
	--real) REAL=1; shift; continue ;;
	-h | --help) usage 0 ;;
	--mode) MODE=$2 ;; --ncuda) NCUDA=$2 ;; --size) SIZE=$2 ;; --runs) RUNS=$2 ;; --rate) RATE=$2 ;;
	--images) IMGS=$2 ;; --limit-checkpoint) LIMC=$2 ;; --limit-restore) LIMR=$2 ;;
	--criu) CRIU=$2 ;; --plugins) PLUGINS=$2 ;; --workload) WORKLOAD=$2 ;; --emu) EMU=$2 ;;
	*) echo "$0: unknown argument $1" >&2; usage ;;
	esac
	shift 2
done
abs() { [ -z "$1" ] || readlink -f "$1"; } # criu changes directory: every path absolute
CRIU=$(abs "$CRIU") PLUGINS=$(abs "$PLUGINS") WORKLOAD=$(abs "$WORKLOAD") EMU=$(abs "$EMU")
TMP=$(mktemp -d /tmp/cudastore-tree-bench.XXXXXX)
TREE=
trap 'for p in $TREE; do kill -9 "$p" 2>/dev/null; done; rm -rf "$TMP" "$IMGS"' EXIT
. "$here/bench-setup.sh"
[ -n "$EMU" ] && export CUDASTORE_EMU_RATE_MBPS=$RATE
# the phase of every process at once is what it measures (custom_in_flight bounds CustomStorage
# dumps to one process at a time by default); its processes share no GPU memory, so a driver
# before branch 610 may dump the tree
export CUDASTORE_CONFIG=$TMP/cs.conf CUDASTORE_MODE=$MODE CUDASTORE_CUSTOM_IN_FLIGHT=0 \
	CUDASTORE_OLD_DRIVER_TREES=allow
# the bench runs its workloads as a subreaper's children: a killed tree must be reaped before restore
python3 -c 'import ctypes; ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)' 2>/dev/null

wait_gone() { for i in $(seq 600); do [ -d "/proc/$1" ] || return 0; sleep 0.05; done; return 1; }
median() { sort -g | awk '{v[NR]=$1} END {if (!NR) print "-"; else if (NR % 2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }
now() { date +%s.%N; }
# phase LOG WHAT: "wall sum" of the plugin's GPU phase line
phase() { sed -n "s/.*GPU $2 phase of [0-9]* processes.*: \([0-9.]*\) s wall, \([0-9.]*\) s summed.*/\1 \2/p" "$1" | tail -n1; }

# the last error of a criu log, in one word-safe line
last_error() { grep -a -E 'Error|cudastore: .*(fail|cannot)' "$1" | grep -v RLIMIT_NOFILE | tail -n1 | cut -c1-120 | tr ' ' '_'; }

start_tree() {
	rm -f "$TMP"/w.*
	"$WORKLOAD" --daemon --pidfile "$TMP/w.pid" --ready "$TMP/w.ready" --outfile "$TMP/w.out" \
		--size "$SIZE" --buffers 1 --fork-cuda $((NCUDA - 1)) --fork-cpu 1 >/dev/null 2>"$TMP/w.err" </dev/null
	for i in $(seq 3000); do [ -e "$TMP/w.ready" ] && break; sleep 0.1; done
	[ -e "$TMP/w.ready" ] || { echo "workload did not start: $(tail -n2 "$TMP/w.err")" >&2; exit 1; }
	WPID=$(cat "$TMP/w.pid")
	sleep 0.5
	TREE="$WPID $(cat /proc/"$WPID"/task/*/children)"
}

# one_run PARALLEL: prints "dump_s restore_s ckpt_wall ckpt_sum rest_wall rest_sum verdict"
one_run() {
	local img=$IMGS/p$1 t0 t1 t2 rc v p
	printf 'parallel = %s\n' "$1" >"$TMP/cs.conf"
	chmod 600 "$TMP/cs.conf"
	rm -rf "$img" && mkdir -p "$img"
	start_tree
	t0=$(now)
	"$CRIU" dump -t "$WPID" -D "$img" -o dump.log -v4 -L "$PLUGINS" >/dev/null 2>&1
	rc=$?
	t1=$(now)
	[ $rc = 0 ] || { echo "- - - - - - FAIL:dump($(last_error "$img/dump.log"))"; return; }
	for p in $TREE; do wait_gone "$p"; done
	t2=$(now)
	"$CRIU" restore -d -D "$img" -o restore.log -v4 -L "$PLUGINS" >/dev/null 2>&1
	rc=$?
	v="FAIL:restore($(last_error "$img/restore.log"))"
	if [ $rc = 0 ]; then
		kill -TERM "$WPID"
		for i in $(seq 3000); do [ -s "$TMP/w.out" ] && break; sleep 0.1; done
		v=$(head -n1 "$TMP/w.out" 2>/dev/null)
	fi
	echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}') $(awk -v a="$t2" -v b="$(now)" 'BEGIN{printf "%.3f", b-a}')" \
		"$(phase "$img/dump.log" checkpoint) $(phase "$img/restore.log" restore) ${v:-none}"
	for p in $TREE; do kill -9 "$p" 2>/dev/null; done
	for p in $TREE; do wait_gone "$p"; done
	rm -rf "$img"
}

echo "# tree-bench: $NCUDA CUDA processes x $SIZE + 1 CPU child, mode $MODE, $RUNS runs each way;" \
	"$([ -n "$EMU" ] && echo "driver emulator at $RATE MB/s per process" || echo "this machine's libcuda"); $(nproc) CPUs"
echo "# parallel  dump_s  restore_s  ckpt_wall  ckpt_sum  rest_wall  rest_sum  verdict"
for r in $(seq "$RUNS"); do
	for par in 1 0; do
		line=$(one_run $par)
		echo "$par $line" >>"$TMP/rows"
		printf '%-9s %s\n' "$par" "$line"
	done
done
col() { awk -v p="$1" -v c="$2" '$1 == p && $8 == "PASS" { print $c }' "$TMP/rows" | median; }
bad=$(awk '$8 != "PASS"' "$TMP/rows" | wc -l)
for par in 1 0; do
	echo "median parallel=$par: dump $(col $par 2) s, restore $(col $par 3) s, GPU checkpoint $(col $par 4) s" \
		"(processes' sum $(col $par 5) s), GPU restore $(col $par 6) s (sum $(col $par 7) s)"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0 && a != "-") printf "%.2f", a / b; else print "-" }'; }
rc_=$(ratio "$(col 0 4)" "$(col 1 4)")
rr_=$(ratio "$(col 0 6)" "$(col 1 6)")
met() { awk -v r="$1" -v l="$2" 'BEGIN{ print (r != "-" && r <= l) ? "met" : "MISSED" }'; }
echo "GPU checkpoint phase, all at once / one by one: $rc_ (limit <= $LIMC): $(met "$rc_" "$LIMC")"
echo "GPU restore phase, all at once / one by one: $rr_ (limit <= $LIMR): $(met "$rr_" "$LIMR")"
echo "whole criu dump, all at once / one by one: $(ratio "$(col 0 2)" "$(col 1 2)"); whole criu restore: $(ratio "$(col 0 3)" "$(col 1 3)")"
echo "runs not verified: $bad"
[ "$bad" = 0 ]

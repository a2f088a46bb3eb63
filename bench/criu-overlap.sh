#!/usr/bin/env bash
# criu-overlap.sh - the whole `criu restore` wall time with and without what the plugin does at
# POST_FORKING (CRIU >= 4.2; docs/design.md "Restore that overlaps CRIU"): the prefetch
# (--compare prefetch, the default; warm-up on both ways) or the warm-up (--compare warmup: cuInit,
# GPU contexts, pinned buffers; prefetch off both ways). One workload with GPU buffers and host
# memory is dumped once, then restored RUNS times each way (alternating), killed after each
# restore. Prints each run and the medians: criu restore wall time, the GPU phase
# (RESUME_DEVICES_LATE, "GPU restore done in"), the bytes the prefetch read, and the share of the
# restore the overlap hides. --drop: drop the page cache before every restore (images on a disk:
# the extents then really come from the device). The driver emulator by default; --real: the
# machine's libcuda (on a driver without CustomStorage the dump is driver-managed).
#
#   bench/criu-overlap.sh [--compare prefetch|warmup] [--real] [--size 512m] [--buffers 2] [--host-mb 1024]
#                         [--runs 5] [--images DIR] [--drop] [--criu PATH] [--plugins DIR] [--workload PATH]
#                         [--emu DIR] [--out FILE]
#
# Defaults fit a build tree (make; criu at $CRIU or /usr/local/sbin/criu); the GPU artifacts
# (scripts/make-gpu-artifacts.sh) carry the same tools, see bench/run-gpu-bench.sh. Root only.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
SIZE=512m BUFFERS=2 HOSTMB=1024 RUNS=5 IMGS=/dev/shm/cudastore-overlap OUT= DROP=0 WHAT=prefetch REAL=0
CRIU=${CRIU:-/usr/local/sbin/criu}
PLUGINS= WORKLOAD=$top/tests/workload/cuda-workload EMU=$top/tests/emu/lib
while [ $# -gt 0 ]; do
	case "$1" in
	--drop) DROP=1; shift; continue ;;
	--real) REAL=1; shift; continue ;;
	--compare) WHAT=$2; case $WHAT in prefetch | warmup) ;; *) echo "$0: --compare prefetch or warmup" >&2; exit 2 ;; esac ;;
	--size) SIZE=$2 ;; --buffers) BUFFERS=$2 ;; --host-mb) HOSTMB=$2 ;; --runs) RUNS=$2 ;;
	--images) IMGS=$2 ;; --criu) CRIU=$2 ;; --plugins) PLUGINS=$2 ;; --workload) WORKLOAD=$2 ;;
	--emu) EMU=$2 ;; --out) OUT=$2 ;;
	*) echo "usage: $0 [--compare prefetch|warmup] [--real] [--size S] [--buffers N] [--host-mb N] [--runs N] [--images DIR] [--criu PATH] [--plugins DIR] [--workload PATH] [--emu DIR] [--out FILE]" >&2; exit 2 ;;
	esac
	shift 2
done
TMP=$(mktemp -d /tmp/cudastore-overlap.XXXXXX)
WPID=
trap '[ -n "$WPID" ] && kill -9 "$WPID" 2>/dev/null; rm -rf "$TMP" "$IMGS"' EXIT
. "$here/bench-setup.sh"
printf '# cudastore settings of this measurement (defaults otherwise)\n' >"$TMP/cs.conf"
export CUDASTORE_CONFIG=$TMP/cs.conf

now() { date +%s.%N; }
wait_gone() { for i in $(seq 400); do [ -d "/proc/$1" ] || return 0; sleep 0.05; done; return 1; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }

rm -rf "$IMGS" && mkdir -p "$IMGS/img" || exit 1
"$WORKLOAD" --daemon --pidfile "$TMP/w.pid" --ready "$TMP/w.ready" --outfile "$TMP/w.out" \
	--size "$SIZE" --buffers "$BUFFERS" --host-mb "$HOSTMB" --log /dev/null >/dev/null 2>"$TMP/w.err" </dev/null ||
	{ echo "workload did not start: $(tail -n2 "$TMP/w.err")" >&2; exit 1; }
for i in $(seq 1200); do [ -e "$TMP/w.ready" ] && break; sleep 0.1; done
[ -e "$TMP/w.ready" ] || { echo "workload did not start: $(tail -n2 "$TMP/w.err")" >&2; exit 1; }
WPID=$(cat "$TMP/w.pid")
t0=$(now)
"$CRIU" dump -t "$WPID" -D "$IMGS/img" -o dump.log -v4 -L "$PLUGINS" >/dev/null 2>&1 ||
	{ echo "criu dump failed: $(grep -m3 -E 'Error|cudastore' "$IMGS/img/dump.log")" >&2; exit 1; }
echo "# $(date -u +%FT%TZ) criu-overlap, $WHAT on/off: $BUFFERS x $SIZE GPU buffers ($([ -n "$EMU" ] && echo emulated || echo "real GPU, $(grep -m1 -o 'mode [a-zA-Z-]*' "$IMGS/img/dump.log")")), $HOSTMB MiB host memory," \
	"images in $IMGS ($(du -sh "$IMGS/img" | cut -f1); page cache dropped before restores: $([ $DROP = 1 ] && echo yes || echo no)), dump $(awk "BEGIN{printf \"%.2f\", $(now) - $t0}") s"
wait_gone "$WPID"

declare -A WALL GPU PF
fails=0
restore_once() { # restore_once on|off RUN
	local mode=$1 run=$2 t1 t2 log=$IMGS/img/restore-$1-$2.log v
	[ "$DROP" = 1 ] && { sync; echo 3 >/proc/sys/vm/drop_caches; }
	t1=$(now)
	local on=$([ "$mode" = on ] && echo yes || echo no)
	CUDASTORE_PREFETCH=$([ "$WHAT" = prefetch ] && echo "$on" || echo no) \
		CUDASTORE_WARMUP=$([ "$WHAT" = warmup ] && echo "$on" || echo yes) \
		"$CRIU" restore -d -D "$IMGS/img" -o "restore-$mode-$run.log" -v4 -L "$PLUGINS" >/dev/null 2>&1
	local rc=$?
	t2=$(now)
	if [ $rc != 0 ] || ! grep -q "pid $WPID: GPU restore done" "$log"; then
		echo "run $run $WHAT=$mode: restore FAILED: $(grep -m2 -E 'Error' "$log")"
		fails=$((fails + 1))
		kill -9 "$WPID" 2>/dev/null
		wait_gone "$WPID"
		return
	fi
	WALL[$mode]+="$(awk "BEGIN{printf \"%.3f\", $t2 - $t1}") "
	GPU[$mode]+="$(sed -n "s/.*pid $WPID: GPU restore done in \([0-9.]*\) s.*/\1/p" "$log" | head -n1) "
	PF[$mode]+="$(sed -n 's/.*prefetch: \([0-9]*\) bytes read and verified.*/\1/p' "$log" | head -n1) "
	sleep 0.2
	kill -TERM "$WPID" 2>/dev/null # the workload verifies every GPU and host byte, then exits
	for i in $(seq 600); do [ -s "$TMP/w.out" ] && break; sleep 0.1; done
	v=$(head -n1 "$TMP/w.out" 2>/dev/null)
	rm -f "$TMP/w.out"
	[ "$v" = PASS ] || { echo "run $run $WHAT=$mode: workload verdict: ${v:-none}"; fails=$((fails + 1)); }
	kill -9 "$WPID" 2>/dev/null
	wait_gone "$WPID"
	echo "run $run $WHAT=$mode: criu restore $(echo "${WALL[$mode]}" | awk '{print $NF}') s, GPU phase" \
		"$(echo "${GPU[$mode]}" | awk '{print $NF}') s, prefetched $(echo "${PF[$mode]:-} -" | awk '{print $(NF-1)}') bytes, verified $v"
}
for run in $(seq "$RUNS"); do
	if [ $((run % 2)) = 1 ]; then restore_once on "$run"; restore_once off "$run"
	else restore_once off "$run"; restore_once on "$run"; fi
done
won=$(echo "${WALL[on]:-}" | tr ' ' '\n' | grep . | median)
woff=$(echo "${WALL[off]:-}" | tr ' ' '\n' | grep . | median)
gon=$(echo "${GPU[on]:-}" | tr ' ' '\n' | grep . | median)
goff=$(echo "${GPU[off]:-}" | tr ' ' '\n' | grep . | median)
pf=$(echo "${PF[on]:-}" | tr ' ' '\n' | grep . | median)
summary=$(awk -v what="$WHAT" -v won="${won:-0}" -v woff="${woff:-0}" -v gon="${gon:-0}" -v goff="${goff:-0}" -v pf="${pf:-0}" -v runs="$RUNS" 'BEGIN {
	printf "median of %d runs: criu restore %.3f s without the %s, %.3f s with it (%.1f %% less); ", runs, woff, what, won, (woff > 0 ? 100 * (woff - won) / woff : 0);
	printf "GPU phase %.3f s -> %.3f s (%.1f %% of it hidden); prefetched %.0f bytes\n", goff, gon, (goff > 0 ? 100 * (goff - gon) / goff : 0), pf }')
echo "$summary"
printf '{"bench":"criu-overlap","compare":"%s","real_gpu":%s,"images":"%s","dropped":%s,"size":"%s","buffers":%s,"host_mb":%s,"runs":%s,"restore_off_s":%s,"restore_on_s":%s,"gpu_off_s":%s,"gpu_on_s":%s,"prefetched_bytes":%s,"failures":%s}\n' \
	"$WHAT" "$REAL" "$IMGS" "$DROP" "$SIZE" "$BUFFERS" "$HOSTMB" "$RUNS" "${woff:-0}" "${won:-0}" "${goff:-0}" "${gon:-0}" "${pf:-0}" "$fails"
[ -n "$OUT" ] && { echo "$summary" >>"$OUT"; }
[ "$fails" = 0 ]

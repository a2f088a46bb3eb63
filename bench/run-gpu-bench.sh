#!/bin/sh
# run-gpu-bench.sh - run cs-bench on a GPU host for /dev/shm and a disk directory; keep the output.
#
#   bench/run-gpu-bench.sh [-o OUTDIR] [-d DISKDIR] [-- extra cs-bench options]
#
# Defaults: OUTDIR=./bench-results-<host>-<date>, DISKDIR=/var/tmp/cs-bench. Sizes default to
# 1G,8G,32G; pass e.g. "-- --sizes 1G,8G" to shorten a run. Needs root for dropping the page
# cache between dump and restore on the disk directory (the tables say whether it was done).
# Each run's stdout (table + JSON lines) and stderr go to OUTDIR/<name>.out / .err; the JSON
# lines of all runs are collected in OUTDIR/results.jsonl.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bench=${CS_BENCH:-$here/cs-bench}
out=./bench-results-$(hostname -s 2>/dev/null || echo host)-$(date +%Y%m%d-%H%M%S)
disk=/var/tmp/cs-bench
while getopts o:d: opt; do
	case $opt in
	o) out=$OPTARG ;;
	d) disk=$OPTARG ;;
	*) echo "usage: $0 [-o OUTDIR] [-d DISKDIR] [-- cs-bench options]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -x "$bench" ] || { echo "$0: $bench not found (build with make, or set CS_BENCH)" >&2; exit 2; }
mkdir -p "$out" "$disk" || exit 1
shm=/dev/shm/cs-bench.$$
mkdir -p "$shm" || exit 1

{
	echo "# $(date -u +%FT%TZ) $(uname -srm)"
	nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,memory.total \
		--format=csv,noheader 2>/dev/null || echo "# nvidia-smi not available"
	df -h "$disk" /dev/shm 2>/dev/null
	nproc; free -g
} >"$out/host.txt" 2>&1

rc=0
run() {
	name=$1
	shift
	echo "== $name: $bench $*"
	"$bench" "$@" >"$out/$name.out" 2>"$out/$name.err"
	r=$?
	cat "$out/$name.out"
	[ $r = 0 ] || { echo "$name: exit $r (see $out/$name.err)"; [ $rc = 0 ] && rc=$r; }
}
run shm --dir "$shm" "$@"
run disk --dir "$disk" "$@"
rm -rf "$shm"
grep -h '^{' "$out"/*.out >"$out/results.jsonl" 2>/dev/null
echo "results in $out"
exit $rc

#!/usr/bin/env bash
# run-hash-bench.sh - chunk ids (sha256-tree-4k) computed on an NVIDIA GPU: bin/cs-bench --hash
# over --size bytes of device memory (default 32g), in --chunk chunks (default 4m, the copy
# engine's), beside the GPU's device-to-device copy rate and the CPU's rate for the same bytes,
# all measured in the same run; the ids are checked against the CPU's. Needs only the artifacts
# of scripts/make-gpu-artifacts.sh (bin/cs-bench and its libraries under plugins/lib) and the
# NVIDIA driver; root is not needed. Prints, and writes into --out:
#   gpu hash: X GB/s (device copy Y GB/s, CPU Z GB/s); ids match the CPU's: yes
# Exit: cs-bench's (0: the ids match; 1: a failure or a difference; 77: no GPU).
# --chunked: bin/cs-bench --chunked instead (dense memory of --size, into --dir, default
# /dev/shm/cs-bench-chunked, removed afterwards; it needs twice --size free there): the first
# chunked dump beside the extent dump, its child's bytes moved and written, the restores; prints
#   chunked dump: A GB/s (extent dump E GB/s): R of it (target >= 0.9)  (and two more lines)
#
#   run-hash-bench.sh [--artifacts DIR] [--size 32g] [--chunk 4m] [--out FILE] [--chunked [--dir DIR]]
set -uo pipefail
ART=$(cd "$(dirname "$0")" && pwd)
SIZE=32g
CHUNK=4m
OUTFILE=$PWD/hash-results.txt
CHUNKED=
DIR=/dev/shm/cs-bench-chunked
while [ $# -gt 0 ]; do
	case "$1" in
	--artifacts) ART=$2; shift 2 ;;
	--size) SIZE=$2; shift 2 ;;
	--chunk) CHUNK=$2; shift 2 ;;
	--out) OUTFILE=$2; shift 2 ;;
	--chunked) CHUNKED=1; shift ;;
	--dir) DIR=$2; shift 2 ;;
	-h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run-hash-bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
	esac
done
bench=$ART/bin/cs-bench
[ -x "$bench" ] || { echo "run-hash-bench: no $bench (make the artifacts: scripts/make-gpu-artifacts.sh)" >&2; exit 2; }
{
	echo "# run-hash-bench $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
	command -v nvidia-smi >/dev/null &&
		nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | sed 's/^/# gpu: /'
	echo "# cpu: $(nproc) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
} | tee "$OUTFILE"
set -o pipefail
if [ -n "$CHUNKED" ]; then
	"$bench" --chunked --sizes "$SIZE" --chunk "$CHUNK" --kinds dense --dir "$DIR" 2>&1 | tee -a "$OUTFILE"
	rc=${PIPESTATUS[0]}
	rmdir "$DIR" 2>/dev/null
else
	"$bench" --hash --size "$SIZE" --chunk "$CHUNK" 2>&1 | tee -a "$OUTFILE"
	rc=${PIPESTATUS[0]}
fi
echo "# cs-bench exit $rc; written to $OUTFILE"
exit "$rc"

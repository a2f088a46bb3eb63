#!/bin/sh
# cuda-zdtm.sh - cudastore's GPU scenarios as zdtm tests. Each test is a link to this script,
# named for its scenario; zdtm.py starts it as "NAME --pidfile=P --outfile=O" (the Makefile).
# zdtm's protocol, as cuda-workload implements it: the launching process returns once the test
# runs detached and has written its pid to P; on SIGTERM the test verifies every byte of its
# GPU memory and writes PASS or FAIL: ... to O. CUDA comes from the usual libcuda.so.1, or from
# CUDASTORE_LIBCUDA (the driver emulator in cudastore's CI); criu loads the plugin from lib/
# (desc flag crlib).
here=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$0")
pidfile= outfile=
for a in "$@"; do
	case "$a" in
	--pidfile=*) pidfile=${a#--pidfile=} ;;
	--outfile=*) outfile=${a#--outfile=} ;;
	esac
done
[ -n "$pidfile" ] && [ -n "$outfile" ] || { echo "$name: usage: $name --pidfile=F --outfile=F" >&2; exit 2; }
case "$pidfile" in /*) ;; *) pidfile=$PWD/$pidfile ;; esac
case "$outfile" in /*) ;; *) outfile=$PWD/$outfile ;; esac
case "$name" in
cuda-workload) args="--buffers 2 --size 4m" ;;                      # one process, 8 MiB of GPU memory
cuda-workload-tree) args="--buffers 2 --size 2m --zero-percent 50 --fork-cuda 1 --fork-cpu 1" ;;
*) echo "$name: unknown scenario" >&2; exit 2 ;;
esac
rm -f "$outfile"
# shellcheck disable=SC2086
exec "$here/bin/cuda-workload" --daemon --pidfile "$pidfile" --outfile "$outfile" \
	--log "$here/$name.log" $args

#!/bin/bash
# cudastore verify on an 8 KiB images directory that claims 8 GPUs of 256 MiB (sparse extents,
# every chunk to be read): its memory stays within one device's buffers (the pinned bound, 256 MiB
# by default) plus a constant, whatever number of devices the images claim. Before, it read every
# device at once with its own buffers: 1.1 GB here, 9.5 GB for 64 devices in 1 GiB chunks.
. "$top_srcdir/tests/e2e/lib.sh"
setup_work
CS=$CUDASTORE_CMD
TOOL=$top_builddir/tests/cli/cs-sparse-images
command -v /usr/bin/time >/dev/null || skip_all "/usr/bin/time (GNU time) not installed: cannot measure the peak RSS"
export CUDASTORE_CONFIG=$WORK/cudastore.conf
: >"$CUDASTORE_CONFIG"
plan 3
mkdir -p "$WORK/img"
"$TOOL" "$WORK/img" 7 8 $((256 << 20)) $((256 << 20)) || bail "cs-sparse-images failed"
check "the images take a few KiB on disk ($(du -sk "$WORK/img" | cut -f1) KiB) and claim 2 GiB" \
	[ "$(du -sk "$WORK/img" | cut -f1)" -le 64 ]
/usr/bin/time -f '%M' -o "$WORK/rss" "$CS" verify "$WORK/img" >"$WORK/out" 2>&1
rc=$?
check "verify reads them all and accepts them (exit $rc)" grep -q '^verify: OK' "$WORK/out"
rss=$(tail -n1 "$WORK/rss")
check "verify's peak RSS ${rss} KiB is one device's buffers (256 MiB) and a constant: under 400 MiB" \
	[ "$rss" -lt $((400 << 10)) ]
done_testing

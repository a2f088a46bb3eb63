#!/bin/bash
# cudastore verify -v says what it did to each device's extent: "verified region N (FILE)", N the
# region number the restore gives that device, not "restored region 0" for every device of an
# offline check that restores nothing.
. "$top_srcdir/tests/e2e/lib.sh"
setup_work
CS=$CUDASTORE_CMD
TOOL=$top_builddir/tests/cli/cs-sparse-images
export CUDASTORE_CONFIG=$WORK/empty.conf
: >"$CUDASTORE_CONFIG"
plan 3
mkdir -p "$WORK/img"
"$TOOL" "$WORK/img" 7 2 $((1 << 20)) $((2 << 20)) index || bail "cs-sparse-images failed"
"$CS" verify -v "$WORK/img" >"$WORK/out" 2>"$WORK/err"
check "verify -v exits 0 ($?)" grep -q '^verify: OK' "$WORK/out"
check "each device's note: verified region 0 and 1, with its extent" \
	bash -c "grep -q '^cudastore: verified region 0 (cudastore-7-gpu0.ext): 2097152 bytes' '$WORK/err' &&
		grep -q '^cudastore: verified region 1 (cudastore-7-gpu1.ext): 2097152 bytes' '$WORK/err'"
check "nothing said to be restored" bash -c "! grep -q 'restored' '$WORK/err'"
done_testing

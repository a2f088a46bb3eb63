#!/bin/bash
# The cudastore-helper that make install ships has no test hook: it names none of the
# CUDASTORE_TEST_* variables that steer the test build (cudastore-helper-test), which has them and
# is never installed.
. "$top_srcdir/tests/e2e/lib.sh"
command -v strings >/dev/null || skip_all "needs strings (binutils)"
plan 4
WORK=$(mktemp -d /tmp/cs-install-helper.XXXXXX)
make -C "$top_builddir" install-pkglibexecPROGRAMS DESTDIR="$WORK/dest" >"$WORK/log" 2>&1 ||
	{ tail -n 5 "$WORK/log" | sed 's/^/# /'; bail "make install-pkglibexecPROGRAMS failed"; }
helper=$(find "$WORK/dest" -name cudastore-helper -type f)
check "make install ships cudastore-helper (${helper#$WORK/dest})" [ -n "$helper" ] && [ -x "$helper" ]
hooks=$(strings "$helper" | grep -oE 'CUDASTORE_TEST_[A-Z_]+' | sort -u | tr '\n' ' ')
check "the installed helper reads no CUDASTORE_TEST_* variable (found: ${hooks:-none})" [ -z "$hooks" ]
check "the test build has the hooks" sh -c "strings '$top_builddir/cudastore-helper-test' | grep -q CUDASTORE_TEST_STALL_FILE"
check "the test build is not installed" [ -z "$(find "$WORK/dest" -name 'cudastore-helper-test*')" ]
done_testing

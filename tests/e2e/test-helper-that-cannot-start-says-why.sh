#!/bin/bash
# A cudastore-helper that cannot start (a library it needs is missing: the dynamic loader says so
# on stderr before the program runs, and exits): criu's log holds the loader's own message and
# names the helper, instead of "it exited; see its message above" with nothing above; the dump
# fails and the workload runs on untouched.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
command -v cc >/dev/null || skip_all "no C compiler to build a helper with a missing library"
plan 4
# a program that needs libcs-missing-$$.so, which is gone by the time it runs
lib=libcs-missing-$$.so
echo 'int cs_missing(void) { return 0; }' | cc -shared -fPIC -x c - -o "$WORK/$lib" || bail "cc failed"
echo 'int cs_missing(void); int main(void) { return cs_missing(); }' |
	cc -x c - -o "$PLUGINDIR/cudastore-helper" -L"$WORK" -l:"$lib" || bail "cc failed"
rm -f "$WORK/$lib"
start_workload w --size 4m
criu_dump "$WORK/img" "$WPID"
check "criu dump fails" [ $? != 0 ]
check "criu's log holds the loader's message" log_has "$WORK/img/dump.log" \
	"cudastore-helper said: .*$lib: cannot open shared object file"
check "and says the helper did not start" log_has "$WORK/img/dump.log" "cudastore-helper \(.*\) did not start"
check_verdict w "$WPID" "the workload runs on untouched"
done_testing

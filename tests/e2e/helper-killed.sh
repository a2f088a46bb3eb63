# helper-killed.sh - cudastore-helper SIGKILLed at one phase of a dump: criu fails the dump in
# bounded time, a new helper takes the process over, and the process either runs on with every
# byte of its GPU memory, or (its GPU memory was mapped into the dead helper) is ended with the
# reason; never left hung. No file of the failed dump is left. Parameters (environment):
#   PHASE (a test stall: after-lock, copy-out, after-complete, after-checkpoint)
#   MODE (custom|driver)  EXPECT (runs|ended)
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/guardian.sh"
need_criu; setup_work; use_emulator
STALL=$WORK/stall
: "${MODE:=custom}" "${EXPECT:=runs}"
export CUDASTORE_MODE=$MODE
plan 7
start_workload w --size 16m
kill_helper_at "$PHASE"
check "a new helper took the process over" log_has "$WORK/img/dump.log" \
	"taking over the 1 CUDA process\(es\) of this dump with a new cudastore-helper"
sleep 0.5
if [ "$EXPECT" = runs ]; then
	check "the process was brought back" log_has "$WORK/img/dump.log" \
		"pid $WPID: running again with its GPU memory after cudastore-helper died"
	check "it runs on" alive "$WPID"
	check_verdict w "$WPID" "it verified every byte of its GPU memory"
else
	check "the log says its GPU memory is lost and why" log_has "$WORK/img/dump.log" \
		"pid $WPID: its GPU memory was held by the cudastore-helper that died .*killing it"
	check "it is not left hung: it was ended" gone "$WPID"
	ok "no verdict from an ended process"
fi
check "no file of the failed dump is left ($(cudastore_images "$WORK/img"))" [ -z "$(cudastore_images "$WORK/img")" ]
done_testing

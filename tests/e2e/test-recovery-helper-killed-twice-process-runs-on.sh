#!/bin/bash
# cudastore-helper is SIGKILLed after the lock, and then the recovery's helper is killed too,
# twice, each time in the middle of its work: criu starts another one each time, the third brings
# the process back with every byte, and nothing says its driver does not answer (it always did:
# only the helpers died). A third death of a recovery's helper in a row would end it, with that
# reason.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/guardian.sh"
need_criu; setup_work; use_emulator
STALL=$WORK/stall
plan 7
start_workload w --size 16m
# every helper of this dump stalls once: the dump's at after-lock, each recovery's at recover
export CUDASTORE_TEST_STALL=after-lock,recover CUDASTORE_TEST_STALL_FILE=$STALL
t0=$(date +%s)
criu_bg dump "$WORK/img"
killed=
for n in 1 2 3 4; do
	wait_file "$STALL" 60 || bail "helper $n never stalled"
	h=$(cat "$STALL")
	rm -f "$STALL"
	[ "$n" = 4 ] && break # the third recovery helper is let go on
	kill -9 "$h"
	killed="$killed $h"
done
unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
timeout 60 tail --pid="$CPID" -f /dev/null
wait "$CPID"
rc=$?
check "criu dump fails ($rc) in bounded time ($(($(date +%s) - t0)) s)" test "$rc" != 0 -a $(($(date +%s) - t0)) -le 60
check "the dump's helper and two recovery helpers were killed ($killed)" test "$(echo $killed | wc -w)" = 3
check "the process was brought back" log_has "$WORK/img/dump.log" \
	"pid $WPID: running again with its GPU memory after cudastore-helper died"
check "nothing says its driver does not answer" bash -c "! grep -aq 'did not answer\|does not answer' '$WORK/img/dump.log'"
sleep 0.5
check "it runs on" alive "$WPID"
check_verdict w "$WPID" "it verified every byte of its GPU memory"
check "no file of the failed dump is left ($(cudastore_images "$WORK/img"))" [ -z "$(cudastore_images "$WORK/img")" ]
done_testing

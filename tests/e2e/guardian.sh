# guardian.sh - SIGKILL criu at one phase of a GPU dump or restore and check what
# cudastore-helper's guardian leaves behind (sourced by test-guardian-*.sh after lib.sh).

# criu_bg dump|restore DIR [args]: criu in the background with the test stall armed; sets CPID
criu_bg() {
	local op=$1 dir=$2; shift 2
	mkdir -p "$dir"
	if [ "$op" = dump ]; then
		"$CRIU" dump -t "$WPID" -D "$dir" -o dump.log -v4 -L "$PLUGINDIR" "$@" >>"$(criu_output)" 2>&1 &
	else
		"$CRIU" restore -d -D "$dir" -o restore.log -v4 -L "$PLUGINDIR" "$@" >>"$(criu_output)" 2>&1 &
	fi
	CPID=$!
}

# kill_helper_at PHASE [SETTLE_S]: criu dumps in the background; SETTLE_S seconds after the helper
# reached PHASE (other workers finish theirs meanwhile) SIGKILL the helper and wait for criu.
# Checks that the dump fails in bounded time and that criu said the helper is gone (2 checks);
# sets HPID
kill_helper_at() {
	local phase=$1 settle=${2:-0} t0 rc
	export CUDASTORE_TEST_STALL=$phase CUDASTORE_TEST_STALL_FILE=$STALL
	t0=$(date +%s)
	criu_bg dump "$WORK/img"
	wait_file "$STALL" 60 || bail "the helper never reached $phase"
	unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
	sleep "$settle"
	HPID=$(cat "$STALL")
	kill -9 "$HPID"
	timeout 60 tail --pid="$CPID" -f /dev/null
	wait "$CPID"
	rc=$?
	check "criu dump fails ($rc) in bounded time ($(($(date +%s) - t0)) s) after the helper died at $phase" \
		[ "$rc" != 0 ] && [ $(($(date +%s) - t0)) -le 60 ]
	check "criu said the helper is gone" log_has "$WORK/img/dump.log" "cudastore-helper \(pid $HPID\) is gone during"
}

# kill_criu_at PHASE: wait for the helper to reach PHASE, SIGKILL criu there, wait for the
# helper to finish its guardian work; sets HPID
kill_criu_at() {
	local i
	wait_file "$STALL" 60 || { kill -9 "$CPID"; bail "criu never reached phase $1"; }
	HPID=$(cat "$STALL")
	kill -9 "$CPID"
	wait "$CPID" 2>/dev/null
	for i in $(seq 600); do [ -d "/proc/$HPID" ] || break; sleep 0.1; done
	check "cudastore-helper (pid $HPID) finished its work and exited after criu died at $1" \
		[ ! -d "/proc/$HPID" ]
}

cudastore_images() { (cd "$1" && ls cudastore-*.img cudastore-*.ext 2>/dev/null | tr '\n' ' '); }

# guardian_dump PHASE KEEP: criu killed at PHASE of a dump; KEEP=yes: the images must be complete
guardian_dump() {
	local phase=$1 keep=$2 imgs
	start_workload w --size 48m --zero-percent 10
	export CUDASTORE_TEST_STALL=$phase CUDASTORE_TEST_STALL_FILE=$STALL
	criu_bg dump "$WORK/img"
	kill_criu_at "$phase"
	unset CUDASTORE_TEST_STALL CUDASTORE_TEST_STALL_FILE
	check "the guardian said what it did" log_has "$WORK/img/cudastore-guardian.log" \
		"criu is gone in the middle of the dump"
	check "the guardian log is private (0600)" [ "$(mode_of "$WORK/img/cudastore-guardian.log")" = 600 ]
	check "the workload was put back to running with its GPU memory" log_has \
		"$WORK/img/cudastore-guardian.log" "pid $WPID: resumed with its GPU memory .*criu is gone"
	sleep 0.5
	check "the workload keeps running" alive "$WPID"
	check "its running GPU checks never failed" bash -c "[ ! -s '$WORK/w.out' ]"
	imgs=$(cudastore_images "$WORK/img")
	if [ "$keep" = yes ]; then
		check "the dump had finished: its GPU images are complete ($imgs)" \
			[ -s "$(manifest_of "$WORK/img" "$WPID")" ] && [ -s "$(extent_of "$WORK/img" "$WPID" 0)" ]
	else
		check "no half image set is left (found: ${imgs:-none})" [ -z "$imgs" ]
	fi
	check_verdict w "$WPID" "the workload verified every byte of its GPU memory"
	wait_gone "$WPID"
	if [ "$keep" = yes ]; then
		criu_restore "$WORK/img"
		check "the kept images restore" [ $? = 0 ]
		check_verdict w "$WPID" "the restored workload verified every byte"
	fi
}

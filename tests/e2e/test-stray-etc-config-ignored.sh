#!/bin/bash
# Tests pin their own config (lib.sh: CUDASTORE_CONFIG=$WORK/cudastore.conf): a stray, broken
# config file at the plugin's default path (CS_DEFAULT_CONFIG: SYSCONFDIR/cudastore/cudastore.conf,
# e.g. /etc/cudastore/cudastore.conf) changes nothing. The test runs in a private mount namespace
# whose SYSCONFDIR is a tmpfs copy of the real one plus that file, so nothing is ever written to
# the real one. A control run with CUDASTORE_CONFIG empty proves the stray file would change the
# outcome.
DEFCONF=${CS_DEFAULT_CONFIG:-/etc/cudastore/cudastore.conf}
ETC=$(dirname "$(dirname "$DEFCONF")")
if [ "${1:-}" != inner ]; then
	[ -d "$ETC" ] || { echo "1..0 # SKIP the configured sysconfdir $ETC does not exist"; exit 0; }
	[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root (mount namespace, criu)"; exit 0; }
	command -v unshare >/dev/null || { echo "1..0 # SKIP unshare not installed"; exit 0; }
	exec unshare -m --propagation private bash "$0" inner
fi
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 9
mkdir "$WORK/etc"
{ mount -t tmpfs -o mode=0755 cs-test-etc "$WORK/etc" && cp -a "$ETC/." "$WORK/etc/" &&
	mkdir -p "$WORK/etc/cudastore" && echo "mode = fastest" >"$WORK/etc/cudastore/cudastore.conf" &&
	mount --move "$WORK/etc" "$ETC"; } || bail "cannot put a private $ETC in place"
check "a broken $DEFCONF is in place, in this mount namespace only" \
	grep -qx "mode = fastest" "$DEFCONF"
start_workload w --size 4m
CRIU_ENV="CUDASTORE_CONFIG=" criu_dump "$WORK/control" "$WPID"
check "control: with no config pinned, the stray file fails criu dump" [ $? != 0 ]
check "control: the plugin names the stray file" \
	log_has "$WORK/control/dump.log" "bad configuration: $DEFCONF:1: mode: 'fastest'"
check "control: the workload runs on, untouched" alive "$WPID"
criu_dump "$WORK/img" "$WPID"
check "with the test's own config criu dump succeeds" [ $? = 0 ]
check "the plugin read the test's config file, not $DEFCONF" \
	log_has "$WORK/img/dump.log" "mode auto \(defaults \+ $CONFIG"
wait_gone "$WPID"
criu_restore "$WORK/img"
check "criu restore succeeds" [ $? = 0 ]
check "the GPU state was restored" log_has "$WORK/img/restore.log" "pid $WPID: GPU restore done"
check_verdict w "$WPID" "every byte verified"
done_testing

#!/bin/bash
# CRIU 4.3 (Debian experimental's, with a sid root's libraries: scripts/provide-criu43.sh), whose option
# layout the plugin does not know: leave-running from a CRIU config file and over RPC (criu swrk)
# is found by watching the tasks, and the process runs on with every byte of its GPU memory; a
# plain dump (criu kills the tree) copies nothing back. Skips when the sid root is not there.
. "$top_srcdir/tests/e2e/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root for criu"
ROOT=$("$top_srcdir/scripts/provide-criu43.sh" --print 2>/dev/null) ||
	skip_all "no CRIU 4.3 root: run scripts/provide-criu43.sh (debootstrap of Debian sid, criu 4.3 from experimental; about 40 s to a few minutes, cached)"
RPC=$top_builddir/tests/e2e/criu-rpc
[ -x "$RPC" ] || bail "tests/e2e/criu-rpc not built"
setup_work; use_emulator

# criu 4.3 with the sid root's loader and libraries, run on this host (provide-criu43.sh says why)
CRIU=$ROOT/opt/cudastore/criu
ver=$("$CRIU" --version | sed -n 's/^Version: *//p')
case "$ver" in 4.3*) ;; *) skip_all "the sid root's criu is '$ver', not 4.3" ;; esac
why=$("$CRIU" check 2>&1) || skip_all "criu 4.3 check fails here: $(echo "$why" | grep -m1 -iE 'error|fail' | cut -c1-120)"
plan 11
set_config "# leave_running unset: the plugin must find out itself"
printf 'libdir %s\n' "$PLUGINDIR" >"$WORK/libdir.conf"
printf 'leave-running\n' >"$WORK/lr.conf"

leave_case() {
	local name=$1 rc=$2
	check "$name: criu 4.3 dump succeeds" [ "$rc" = 0 ]
	check "$name: 4.3's options are not read; the tasks are watched" \
		log_has "$WORK/$name/dump.log" "no layout of criu 4.3.*cudastore-helper will watch what criu does"
	check_watched_resume "$name"
}

start_workload config --size 1m
criu_dump "$WORK/config" "$WPID" --config "$WORK/lr.conf"; leave_case config $?

start_workload swrk --size 1m
mkdir -p "$WORK/swrk"
timeout -k 5 120 "$RPC" swrk "$CRIU" "$WPID" "$WORK/swrk" --leave-running --config "$WORK/libdir.conf" >/dev/null 2>"$WORK/swrk.rpc"
leave_case swrk $?

start_workload plain --size 1m
criu_dump "$WORK/plain" "$WPID"; rc=$?
check "plain: criu 4.3 dump succeeds" [ "$rc" = 0 ]
check "plain: criu killed the process" wait_gone "$WPID"
sleep 0.5
check "plain: nothing resumed" [ ! -e "$WORK/plain/cudastore-guardian.log" ]
done_testing

#!/bin/bash
# Images with GPU state name the plugin in CRIU's inventory: restoring them without the plugin is
# refused by CRIU itself ("Missing required plugin") instead of resuming a process without its GPU
# memory; with the plugin the same images restore.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 5
start_workload w --size 4m
criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
mkdir -p "$WORK/noplugins"
env ${CRIU_ENV:-} "$CRIU" restore -d -D "$WORK/img" -o restore-noplugin.log -v4 -L "$WORK/noplugins" >/dev/null 2>&1
check "restore without the plugin fails" [ $? != 0 ]
check "CRIU names the missing plugin" log_has "$WORK/img/restore-noplugin.log" "Missing required plugin.*cudastore|cudastore.*required"
wait_gone "$WPID"
criu_restore "$WORK/img"
check "restore with the plugin succeeds" log_has "$WORK/img/restore.log" "pid $WPID: GPU restore done"
check_verdict w "$WPID" "every byte verified"
done_testing

#!/bin/bash
# A container whose init forks a CPU-only child and a second CUDA process before it initialises
# CUDA: runc checkpoint stops all three; runc restore brings them back, each CUDA process with
# its own GPU images; the init verifies every byte of its GPU memory and collects the children's
# verdicts (every byte of the second CUDA process too).
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
. "$top_srcdir/tests/e2e/runc-lib.sh"
need_runc
plan 12
make_bundle t --size 2m --fork-cuda 1 --fork-cpu 1
for mode in driver auto; do
	configure_plugin "$mode"
	id=cs-$$-$mode
	ctr_run t "$id"
	sleep 0.5
	pid=$(ctr_pid "$id")
	kids=$(cat /proc/"$pid"/task/*/children 2>/dev/null)
	check_mode "$mode" "the container's init has 2 children ($kids)" [ "$(echo $kids | wc -w)" = 2 ]
	ctr_checkpoint t "$id" "$WORK/img-$mode"
	check_mode "$mode" "runc checkpoint succeeds" [ $? = 0 ]
	n=$(grep -ac 'GPU checkpoint done' "$WORK/img-$mode.work/dump.log" 2>/dev/null)
	check_mode "$mode" "both CUDA processes checkpointed, the CPU child passed over ($n)" [ "$n" = 2 ]
	for p in $pid $kids; do wait_gone "$p"; done
	ctr_restore t "$id" "$WORK/img-$mode"
	check_mode "$mode" "runc restore succeeds" [ $? = 0 ]
	c=$(grep -ac 'GPU restore done' "$WORK/img-$mode.rwork/restore.log" 2>/dev/null)
	check_mode "$mode" "both CUDA processes restored ($c)" [ "$c" = 2 ]
	ctr_check_verdict "$mode" t "$id" "init and both children verified every byte"
	timeout 20 "$RUNC" delete -f "$id" >/dev/null 2>&1
done
done_testing

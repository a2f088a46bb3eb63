#!/bin/bash
# A child dump needs free space only for what changed: 96 MiB of GPU memory, its first chunked
# dump into a 176 MiB directory leaves less free than the process's GPU memory, and the child of
# it still dumps (a check of the full size before the lock refused it). Once every byte changed
# (the workload fills its buffers anew), the child's new bytes do not fit: refused once its chunk
# ids are hashed, before any copy, with the process running on with its new memory, the parent
# intact and nothing of the child left behind.
. "$top_srcdir/tests/e2e/lib.sh"
. "$top_srcdir/tests/e2e/chunks-lib.sh"
need_criu; setup_work; use_emulator
small_dir 176m
plan 11
start_workload w --size 48m --buffers 2 --zero-percent 0
set_config "chunks = yes"
criu_dump "$WORK/small/img1" "$WPID" --leave-running
check "the first chunked dump (96 MiB) fits" [ $? = 0 ]
free_mb=$(($(stat -f -c '%a * %S' "$WORK/small") >> 20))
diag "free after it: $free_mb MiB"
check "less is free now than the process's 96 MiB of GPU memory ($free_mb MiB)" [ "$free_mb" -lt 96 ]

set_config "parent = ../img1"
criu_dump "$WORK/small/img2" "$WPID" --leave-running
check "its child dumps all the same" [ $? = 0 ]
check "the log says the child's space is checked once its chunk ids are hashed" \
	log_has "$WORK/small/img2/dump.log" "pid $WPID: a dump with a parent writes only what changed"
new=$(new_bytes "$WORK/small/img2")
check "the child wrote at most the one chunk holding the scratch the workload writes ($new)" [ "$new" -le $((4 << 20)) ]

kill -USR1 "$WPID"
wait_file "$WORK/w.ready.refill" 30 || bail "the workload did not fill its buffers anew"
before=$(tree_sum "$WORK/small/img2")
set_config "parent = ../img2"
criu_dump "$WORK/small/img3" "$WPID" --leave-running
check "a child whose every byte changed is refused" [ $? != 0 ]
check "the refusal gives the new bytes, the free space, and that the process runs on" log_has \
	"$WORK/small/img3/dump.log" \
	"pid $WPID: [0-9.]+ GiB of its [0-9.]+ GiB of GPU memory are new since the parent dump but the images directory has only [0-9.]+ GiB free; nothing was written and the process runs on"
check "no chunk of it was written" bash -c "[ -z \"\$(find '$WORK/small/img3' -path '*cudastore-chunks/*' -type f)\" ]"
check "its parent is as it was" [ "$before" = "$(tree_sum "$WORK/small/img2")" ]
sleep 0.3
check "the process runs on" alive "$WPID"
check_verdict w "$WPID" "it verified every byte of its new memory"
done_testing

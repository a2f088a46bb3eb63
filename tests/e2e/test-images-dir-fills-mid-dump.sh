#!/bin/bash
# The images directory fills up during the dump anyway (space check off, small tmpfs): the dump
# fails, the plugin keeps a host copy, and the process runs on with its GPU memory intact.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
small_dir 24m
plan 6
start_workload w --size 32m --buffers 1 --seed 3
CRIU_ENV="CUDASTORE_SPACE_CHECK=no" criu_dump "$WORK/small/img" "$WPID"
check "criu dump fails" [ $? != 0 ]
check "the write failure is reported" log_has "$WORK/small/img/dump.log" "writing GPU memory to the images failed"
check "a host copy kept the data" log_has "$WORK/small/img/dump.log" "kept a .* MiB host copy of its GPU memory"
check "the process was resumed with its GPU memory" log_has "$WORK/small/img/dump.log" "pid $WPID: resumed with its GPU memory"
check "the process runs" alive "$WPID"
check_verdict w "$WPID" "every byte intact after the failed dump"
done_testing

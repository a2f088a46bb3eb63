#!/bin/bash
# runc: checkpoint and restore of a stock container whose init is a CUDA process, both modes
RUNTIME=runc . "$top_srcdir/tests/e2e/runtime-checkpoint-restore.sh"

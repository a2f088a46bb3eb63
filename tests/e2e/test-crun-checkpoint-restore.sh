#!/bin/bash
# crun: checkpoint and restore of a stock container whose init is a CUDA process, both modes
RUNTIME=crun . "$top_srcdir/tests/e2e/runtime-checkpoint-restore.sh"

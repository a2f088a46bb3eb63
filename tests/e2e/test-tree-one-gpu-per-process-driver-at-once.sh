#!/bin/bash
# Driver-managed tree of 4 CUDA processes with a GPU each (one worker per GPU, on 4 emulated GPUs): checkpointed and restored at once, every byte verified
export CUDASTORE_EMU_DEVICES=4
MODE=driver SIZE=4m WL_ARGS="--gpu-each" SCENARIO=roundtrip . "$top_srcdir/tests/e2e/tree.sh"

#!/bin/bash
# CustomStorage tree of 4 CUDA processes with a GPU each (a server with one worker per GPU, on 4 emulated GPUs): dumped and restored at once, every byte verified, each process's images name its own GPU
export CUDASTORE_EMU_DEVICES=4
MODE=custom SIZE=4m WL_ARGS="--gpu-each" SCENARIO=roundtrip . "$top_srcdir/tests/e2e/tree.sh"

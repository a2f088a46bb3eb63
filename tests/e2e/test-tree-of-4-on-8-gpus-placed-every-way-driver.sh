#!/bin/bash
# Driver-managed tree of 4 on 8 GPUs placed every way: 24 orderings of GPUs 4-7, a reversed host, GPUs 0-3 gone, a reversed CUDA_VISIBLE_DEVICES; every byte verified
MODE=driver . "$top_srcdir/tests/e2e/placement.sh"

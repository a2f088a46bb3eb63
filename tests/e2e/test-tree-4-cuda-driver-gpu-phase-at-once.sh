#!/bin/bash
# driver-managed: a tree of 4 CUDA processes and a CPU child; the 4 checkpoints and the 4 restores run at once, every byte verified
MODE=driver SCENARIO=roundtrip . "$top_srcdir/tests/e2e/tree.sh"

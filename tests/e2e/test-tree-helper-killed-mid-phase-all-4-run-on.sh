#!/bin/bash
# Driver-managed tree of 4 CUDA processes: cudastore-helper SIGKILLed in the GPU phase (one process checkpointed and waiting, the others done): the dump fails in bounded time, a new helper brings all 4 back, every byte verified
MODE=driver SIZE=4m SCENARIO=helper-killed . "$top_srcdir/tests/e2e/tree.sh"

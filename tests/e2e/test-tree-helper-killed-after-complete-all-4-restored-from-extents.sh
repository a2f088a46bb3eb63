#!/bin/bash
# CustomStorage tree of 4 CUDA processes: cudastore-helper SIGKILLed once their copies are complete (one process held there): the dump fails in bounded time, a new helper brings all 4 back from their extents, every byte verified
MODE=custom SIZE=4m PHASE=after-complete SCENARIO=helper-killed . "$top_srcdir/tests/e2e/tree.sh"

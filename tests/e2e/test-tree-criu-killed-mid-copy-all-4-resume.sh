#!/bin/bash
# criu SIGKILLed during the parallel copy of 4 processes: the guardian brings all 4 back with their GPU memory
MODE=custom SCENARIO=criu-killed . "$top_srcdir/tests/e2e/tree.sh"

#!/bin/bash
# cudastore-helper killed while a CustomStorage tree's copies are in flight: with the default custom_in_flight (1), only the one process CHECKPOINTING then (the last child: leaves go first) is ended; the root, the other CUDA processes and the CPU-only child run on with every byte (all 4 were ended when every copy ran at once)
MODE=custom SIZE=16m IN_FLIGHT=1 SCENARIO=lost-mid-copy . "$top_srcdir/tests/e2e/tree.sh"

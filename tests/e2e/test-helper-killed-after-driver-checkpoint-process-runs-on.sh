#!/bin/bash
# cudastore-helper SIGKILLed at after-checkpoint (driver): the dump fails in bounded time and a new helper takes the process over (it runs on with every byte)
PHASE=after-checkpoint MODE=driver EXPECT=runs . "$top_srcdir/tests/e2e/helper-killed.sh"

#!/bin/bash
# cudastore-helper SIGKILLed at copy-out (custom): the dump fails in bounded time and a new helper takes the process over (it is ended with the reason, not left hung)
PHASE=copy-out MODE=custom EXPECT=ended . "$top_srcdir/tests/e2e/helper-killed.sh"

#!/bin/bash
# cudastore-helper SIGKILLed at after-lock (custom): the dump fails in bounded time and a new helper takes the process over (it runs on with every byte)
PHASE=after-lock MODE=custom EXPECT=runs . "$top_srcdir/tests/e2e/helper-killed.sh"

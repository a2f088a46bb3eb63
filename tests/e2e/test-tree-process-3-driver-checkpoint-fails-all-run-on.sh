#!/bin/bash
# driver-managed, process 3 of 4 fails its checkpoint call: the dump fails and all 4 run on, none locked
MODE=driver SCENARIO=checkpoint-fails . "$top_srcdir/tests/e2e/tree.sh"

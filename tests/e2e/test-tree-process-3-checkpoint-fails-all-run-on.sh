#!/bin/bash
# process 3 of 4 fails its checkpoint call: the dump fails and all 4 run on with their GPU memory, none locked
MODE=custom SCENARIO=checkpoint-fails . "$top_srcdir/tests/e2e/tree.sh"

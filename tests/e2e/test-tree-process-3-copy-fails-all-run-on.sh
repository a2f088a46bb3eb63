#!/bin/bash
# process 3 of 4 fails mid-copy: the dump fails and all 4 run on with their GPU memory, none locked
MODE=custom SCENARIO=copy-fails . "$top_srcdir/tests/e2e/tree.sh"

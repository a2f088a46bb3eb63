#!/bin/bash
# one flipped byte in process 2 of 4: the restore fails in bounded time and no process of the tree runs
MODE=custom SCENARIO=flipped-byte . "$top_srcdir/tests/e2e/tree.sh"

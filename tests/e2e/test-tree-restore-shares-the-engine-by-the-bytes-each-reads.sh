#!/bin/bash
# CustomStorage: a 32 MiB root whose memory is all zero and three 8 MiB children full of data: the dump shares the copy threads by size, the restore by the bytes each copy reads (the root's, nothing to read, runs fewer threads than each child's), every byte verified
MODE=custom SIZE=16m CHILD_SIZE=4m WL_ARGS="--zero-percent 100 --child-zero-percent 0" SCENARIO=by-work . "$top_srcdir/tests/e2e/tree.sh"

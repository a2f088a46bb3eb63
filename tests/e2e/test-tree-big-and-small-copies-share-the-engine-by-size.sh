#!/bin/bash
# CustomStorage: a 32 MiB root and three 8 MiB children checkpointed and restored at once share the copy threads and pinned memory by their sizes (evenly when NVML cannot give the dump their sizes), every byte verified
MODE=custom SIZE=16m CHILD_SIZE=4m SCENARIO=by-size . "$top_srcdir/tests/e2e/tree.sh"

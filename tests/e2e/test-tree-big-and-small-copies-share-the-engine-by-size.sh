#!/bin/bash
# CustomStorage: a 32 MiB root and three 2 MiB children checkpointed and restored at once share the copy threads and pinned memory by their sizes, every byte verified
MODE=custom SIZE=16m CHILD_SIZE=1m SCENARIO=by-size . "$top_srcdir/tests/e2e/tree.sh"

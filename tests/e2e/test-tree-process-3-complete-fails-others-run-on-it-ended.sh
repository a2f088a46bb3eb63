#!/bin/bash
# process 3 of 4 fails its cuCheckpointOperationComplete: the dump fails, the 3 others run on with their GPU memory, process 3 (stuck in CHECKPOINTING) is ended with the reason instead of hanging, and no file of the dump is left
MODE=custom SCENARIO=complete-fails . "$top_srcdir/tests/e2e/tree.sh"

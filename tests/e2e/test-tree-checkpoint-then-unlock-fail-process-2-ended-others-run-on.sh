#!/bin/bash
# process 3 of 4 fails its checkpoint call, then process 2's rollback unlock never takes: the dump fails, the others run on with their GPU memory, process 2 is ended with the reason instead of staying locked, and no file of the dump is left
MODE=custom SCENARIO=double-fault . "$top_srcdir/tests/e2e/tree.sh"

#!/bin/bash
# crun: checkpoint --leave-running keeps the container running; the images restore as a clone
RUNTIME=crun . "$top_srcdir/tests/e2e/runtime-leave-running.sh"

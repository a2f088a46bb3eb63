#!/bin/bash
# CustomStorage, 4 GPUs (driver entries shuffled): each extent lands on its own GPU
DEVICES=4 SIZE=4m . "$top_srcdir/tests/e2e/roundtrip.sh"

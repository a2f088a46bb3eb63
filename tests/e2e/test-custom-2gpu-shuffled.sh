#!/bin/bash
# CustomStorage, 2 GPUs (driver entries shuffled): each extent lands on its own GPU
DEVICES=2 SIZE=8m . "$top_srcdir/tests/e2e/roundtrip.sh"

#!/bin/bash
# CustomStorage, 1 GPU, 2 x 1 MiB buffers: dump, restore, every byte verified
DEVICES=1 SIZE=1m . "$top_srcdir/tests/e2e/roundtrip.sh"

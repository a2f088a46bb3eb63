#!/bin/bash
# CustomStorage, 1 GPU, 1 GiB in one buffer: dump, restore, every byte verified
DEVICES=1 BUFFERS=1 SIZE=1g . "$top_srcdir/tests/e2e/roundtrip.sh"

#!/bin/bash
# CustomStorage, 1 GPU, 2 x 64 MiB, 75% zeros: zero chunks skipped on disk, restore byte-exact
DEVICES=1 SIZE=64m ZERO=75 . "$top_srcdir/tests/e2e/roundtrip.sh"

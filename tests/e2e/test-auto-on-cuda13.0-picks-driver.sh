#!/bin/bash
# auto mode on an emulated CUDA 13.0 driver picks driver-managed and says so
DRIVER=13000 EXPECT_MODE=driver SIZE=8m . "$top_srcdir/tests/e2e/roundtrip.sh"

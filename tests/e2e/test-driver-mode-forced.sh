#!/bin/bash
# mode=driver on a 13.4 driver: driver-managed checkpoint through CRIU pages, restore verified
MODE=driver EXPECT_MODE=driver SIZE=8m . "$top_srcdir/tests/e2e/roundtrip.sh"

// SPDX-License-Identifier: MIT
/* test_hooks_none.c - the installed cudastore-helper: no test hook does anything (test_hooks.h) */
#include "test_hooks.h"

void cs_test_stall(const char *phase)
{
	(void)phase;
}

bool cs_test_prefetch_complete(void)
{
	return false;
}

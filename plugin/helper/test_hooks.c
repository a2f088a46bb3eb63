// SPDX-License-Identifier: MIT
/* test_hooks.c - the table of test hooks registered at run time, none by default (test_hooks.h) */
#include <stddef.h>

#include "test_hooks.h"

static const struct cs_test_hooks *hooks;

void cs_test_hooks_install(const struct cs_test_hooks *h)
{
	hooks = h;
}

void cs_test_stall(const char *phase)
{
	if (hooks && hooks->stall)
		hooks->stall(phase);
}

bool cs_test_prefetch_complete(void)
{
	return hooks && hooks->prefetch_complete && hooks->prefetch_complete();
}

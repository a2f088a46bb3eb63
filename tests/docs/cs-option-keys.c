// SPDX-License-Identifier: MIT
/* cs-option-keys - print every key of the plugin's option table, one a line (for doc tests) */
#include <stdio.h>

#include "options.h"

int main(void)
{
	unsigned i;

	for (i = 0; i < CS_OPTION_COUNT; i++)
		printf("%s\n", cs_option_key(i));
	return 0;
}

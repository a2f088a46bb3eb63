// SPDX-License-Identifier: MIT
/* facts.c - the facts a restore host must match (see facts.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"

unsigned cs_facts_branch(const char *driver_version)
{
	unsigned long v;
	char *end;

	if (!driver_version || *driver_version < '0' || *driver_version > '9')
		return 0;
	v = strtoul(driver_version, &end, 10);
	return (*end == '.' || !*end) && v < 100000 ? (unsigned)v : 0;
}

int cs_facts_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);

		if (x != y)
			return x < y ? -1 : 1;
		a += *a == '.';
		b += *b == '.';
		if ((*a && (*a < '0' || *a > '9')) || (*b && (*b < '0' || *b > '9')))
			return strcmp(a, b); /* not a version past here: compare the rest as text */
	}
	return 0;
}

int cs_facts_check_string(const char *what, const char *s, size_t max, char *err, size_t errlen)
{
	size_t n = strnlen(s, max);

	if (n >= max) {
		snprintf(err, errlen, "%s is %zu bytes or longer, the limit is %zu", what, n, max - 1);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e) {
			snprintf(err, errlen, "%s holds byte 0x%02x at %zu: only printable ASCII is allowed",
				 what, (unsigned char)s[i], i);
			return -EINVAL;
		}
	return 0;
}

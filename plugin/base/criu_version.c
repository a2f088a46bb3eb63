// SPDX-License-Identifier: MIT
/* criu_version.c - `criu --version`, run and read (criu_version.h) */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "criu_version.h"
#include "run_capture.h"

int cs_criu_version(const char *exe, char *ver, size_t len)
{
	char *const argv[] = { "criu", "--version", NULL };
	struct cs_run r;
	char out[1024], *v;
	int ret;

	if (len)
		ver[0] = '\0';
	ret = cs_run_capture(exe, argv, 0, CS_CRIU_VERSION_TIMEOUT_MS, out, sizeof(out), &r);
	if (ret)
		return ret == -ETIMEDOUT ? ret : -ENOENT;
	v = strstr(out, "Version: ");
	if (!v || !len)
		return -ENOENT;
	v += strlen("Version: ");
	v[strcspn(v, " \t\r\n")] = '\0';
	if (!*v)
		return -ENOENT;
	snprintf(ver, len, "%s", v);
	return 0;
}

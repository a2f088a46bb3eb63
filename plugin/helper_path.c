// SPDX-License-Identifier: MIT
/* helper_path.c - find cudastore-helper (see helper_path.h) */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "helper_path.h"

int cs_helper_path(const struct cs_options *o, const char *plugin_so, char *path, size_t len, char *err,
		   size_t errlen)
{
	char beside[PATH_MAX] = "";
	const char *slash = plugin_so ? strrchr(plugin_so, '/') : NULL;

	if (o->helper[0]) {
		snprintf(path, len, "%s", o->helper);
		if (access(path, X_OK) == 0)
			return 0;
		snprintf(err, errlen, "helper %s (from the helper option) is not executable: %s", path,
			 strerror(errno));
		return -ENOENT;
	}
	if (slash) {
		snprintf(beside, sizeof(beside), "%.*s/%s", (int)(slash - plugin_so), plugin_so,
			 CS_HELPER_NAME);
		if (access(beside, X_OK) == 0) {
			snprintf(path, len, "%s", beside);
			return 0;
		}
	}
	snprintf(path, len, "%s", CS_HELPER_PATH);
	if (access(path, X_OK) == 0)
		return 0;
	snprintf(err, errlen,
		 "%s not found (looked beside the plugin%s%s and at %s); install cudastore completely "
		 "(make install) or set helper = PATH in cudastore.conf",
		 CS_HELPER_NAME, beside[0] ? ": " : "", beside, CS_HELPER_PATH);
	return -ENOENT;
}

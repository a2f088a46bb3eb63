/* SPDX-License-Identifier: MIT */
/*
 * helper_path.h - where cudastore-helper is: the helper option, else beside the plugin .so,
 * else the installed $(pkglibexecdir)/cudastore-helper. The plugin (helper_link.c) and
 * `cudastore check` look it up the same way.
 */
#ifndef CUDASTORE_HELPER_PATH_H
#define CUDASTORE_HELPER_PATH_H

#include <stddef.h>

#include "options.h"

#define CS_HELPER_NAME "cudastore-helper"

/* plugin_so: the plugin's path (NULL: unknown). 0, or -ENOENT with a message in err. */
int cs_helper_path(const struct cs_options *o, const char *plugin_so, char *path, size_t len, char *err,
		   size_t errlen);

#endif /* CUDASTORE_HELPER_PATH_H */

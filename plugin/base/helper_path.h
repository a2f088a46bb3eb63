/* SPDX-License-Identifier: MIT */
/*
 * helper_path.h - which cudastore-helper root runs, and with what environment.
 *
 * The helper is the helper option's, else the one beside the plugin .so, else the installed
 * $(pkglibexecdir)/cudastore-helper; the first one that exists must pass cs_trust_path()
 * (trust.h), or none is run. The plugin (helper_link.c) and `cudastore check` look it up the same
 * way.
 *
 * Its environment is not criu's: the options reach it in INIT, so it gets a fixed PATH and only
 * the variables that test builds read (the driver emulator's CUDASTORE_EMU_*, the test helper's
 * CUDASTORE_TEST_*, the sanitizers' *SAN_OPTIONS). No LD_LIBRARY_PATH or LD_PRELOAD: a bare
 * libcuda name is found in the system's library directories only.
 */
#ifndef CUDASTORE_HELPER_PATH_H
#define CUDASTORE_HELPER_PATH_H

#include <stddef.h>

#include "options.h"

#define CS_HELPER_NAME	   "cudastore-helper"
#define CS_HELPER_ENV_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/*
 * plugin_so: the plugin's path (NULL: unknown). 0 with the resolved path of the helper in path,
 * or -ENOENT (none found), -EPERM (the one found may not be run as root: trust.h) or -errno,
 * with a message in err.
 */
int cs_helper_path(const struct cs_options *o, const char *plugin_so, char *path, size_t len, char *err,
		   size_t errlen);
/*
 * The helper's environment: a NULL-terminated array for execve, pointing into environ (valid
 * while environ is not changed); free() the array only. NULL when out of memory.
 */
char **cs_helper_env(void);

#endif /* CUDASTORE_HELPER_PATH_H */

/* SPDX-License-Identifier: MIT */
/*
 * trust.h - may root execute or load this file?
 *
 * Whoever can change a file that root runs (cudastore-helper) or loads (libcuda, NVML), or the
 * directory it is in, or any directory above that one, can run code as root. Such a file passes
 * only when nobody but root (or the caller) can change any step of its path:
 *   - it is a regular file, owned by root or by the caller, not writable by group or others;
 *   - every directory from / down to it is owned by root or by the caller and not writable by
 *     group or others, unless it has the sticky bit (/tmp: nobody can remove or rename an entry
 *     of another owner there);
 *   - every symbolic link on the way is owned by root or by the caller, and its target is walked
 *     by the same rules, its own directories included.
 * Since nobody else can change a step, the resolved path stays what was checked: the caller
 * executes or loads the resolved path. The config file gets the same owner and mode rule
 * (options.c).
 */
#ifndef CUDASTORE_TRUST_H
#define CUDASTORE_TRUST_H

#include <stddef.h>

#define CS_TRUST_LINKS_MAX 40 /* symbolic links followed on one path, as the kernel does */

/*
 * Check the absolute path, named what in messages ("libcuda", "helper (from the helper option)").
 * On 0, resolved (len bytes, PATH_MAX is enough) holds the path with every link resolved. Else
 * -EPERM (a step others can change), -EINVAL (relative, or not a regular file) or -errno, with a
 * message in err naming the step and what to do.
 */
int cs_trust_path(const char *path, const char *what, char *resolved, size_t len, char *err, size_t errlen);

#endif /* CUDASTORE_TRUST_H */

/* SPDX-License-Identifier: MIT */
/* criu_version.h - which criu a binary is, as `criu --version` says */
#ifndef CUDASTORE_CRIU_VERSION_H
#define CUDASTORE_CRIU_VERSION_H

#include <stddef.h>

/*
 * Runs `exe --version` (argv[0] "criu", stderr to /dev/null) and copies the word after its
 * "Version: " ("4.2.1") into ver. 0; -ENOENT when it printed no version (not criu, or it could
 * not run); -errno when no pipe or child could be made. The child is waited for; a caller that
 * reaps every child itself (criu) may have taken it first, which is harmless.
 */
int cs_criu_version(const char *exe, char *ver, size_t len);

#endif /* CUDASTORE_CRIU_VERSION_H */

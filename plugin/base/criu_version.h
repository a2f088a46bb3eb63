/* SPDX-License-Identifier: MIT */
/* criu_version.h - which criu a binary is, as `criu --version` says */
#ifndef CUDASTORE_CRIU_VERSION_H
#define CUDASTORE_CRIU_VERSION_H

#include <stddef.h>

/* how long `criu --version` may take before it is killed */
#define CS_CRIU_VERSION_TIMEOUT_MS 10000u

/*
 * Runs `exe --version` (argv[0] "criu", stderr to /dev/null; run_capture.h) and copies the word
 * after its "Version: " ("4.2.1") into ver. 0; -ENOENT when it printed no version (not criu, or
 * it could not be run: no such file, no pipe or child); -ETIMEDOUT when it ran past
 * CS_CRIU_VERSION_TIMEOUT_MS (it is killed). The child is waited for; a caller that reaps every
 * child itself (criu) may have taken it first, which is harmless.
 */
int cs_criu_version(const char *exe, char *ver, size_t len);

#endif /* CUDASTORE_CRIU_VERSION_H */

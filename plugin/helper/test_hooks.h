/* SPDX-License-Identifier: MIT */
/*
 * test_hooks.h - points where the end-to-end tests steer cudastore-helper.
 *
 * Two builds of the same helper differ only in the file that defines these: the installed
 * cudastore-helper links test_hooks_none.c (every hook does nothing and no CUDASTORE_TEST_*
 * variable is read), and cudastore-helper-test, built for make check only, links test_hooks.c.
 */
#ifndef CUDASTORE_TEST_HOOKS_H
#define CUDASTORE_TEST_HOOKS_H

#include <stdbool.h>

/*
 * When CUDASTORE_TEST_STALL names this phase, write our pid to CUDASTORE_TEST_STALL_FILE (created,
 * never an existing file or a link) and wait (at most 60 s) until criu is gone or the file is
 * removed, so a test can look at criu then, or SIGKILL it at exactly that point. Phases:
 * init, after-lock, copy-out, after-complete, after-checkpoint (driver-managed), exit-hook, restore,
 * recover (a one-process recovery, its restore thread running). CUDASTORE_TEST_STALL may name
 * several phases, comma-separated: a helper stalls at the first of them it reaches, once.
 */
void cs_test_stall(const char *phase);
/* CUDASTORE_TEST_PREFETCH_COMPLETE: the restore waits for the whole prefetch (exact counts). */
bool cs_test_prefetch_complete(void);

#endif /* CUDASTORE_TEST_HOOKS_H */

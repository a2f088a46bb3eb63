/* SPDX-License-Identifier: MIT */
/*
 * test_hooks.h - points where the end-to-end tests steer cudastore-helper, through a table of
 * hooks registered at run time.
 *
 * The library calls cs_test_stall() and cs_test_prefetch_complete() at fixed points; they do
 * nothing (false) unless a table was installed. Only cudastore-helper-test, built for make
 * check and never installed, compiles the table that reads the CUDASTORE_TEST_* variables
 * (test_hooks_env.c) and installs it at start-up; the installed cudastore-helper has no such code
 * and installs none, nor do the unit tests that link the library.
 */
#ifndef CUDASTORE_TEST_HOOKS_H
#define CUDASTORE_TEST_HOOKS_H

#include <stdbool.h>

struct cs_test_hooks {
	/*
	 * When CUDASTORE_TEST_STALL names this phase, write our pid to CUDASTORE_TEST_STALL_FILE
	 * (created, never an existing file or a link) and wait (at most 60 s) until criu is gone or the
	 * file is removed, so a test can look at criu then, or SIGKILL it at exactly that point.
	 * Phases: init, after-lock, copy-out, after-complete, after-checkpoint (driver-managed),
	 * exit-hook, restore, recover (a one-process recovery, its restore thread running).
	 * CUDASTORE_TEST_STALL may name several phases, comma-separated: a helper stalls at the
	 * first of them it reaches, once.
	 */
	void (*stall)(const char *phase);
	/* CUDASTORE_TEST_PREFETCH_COMPLETE: the restore waits for the whole prefetch (exact counts). */
	bool (*prefetch_complete)(void);
};

/* hooks from now on (it must stay valid); NULL: none. */
void cs_test_hooks_install(const struct cs_test_hooks *hooks);

void cs_test_stall(const char *phase);
bool cs_test_prefetch_complete(void);

#endif /* CUDASTORE_TEST_HOOKS_H */

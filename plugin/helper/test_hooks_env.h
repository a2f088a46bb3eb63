/* SPDX-License-Identifier: MIT */
/*
 * test_hooks_env.h - the test hooks of cudastore-helper-test (make check only, never installed):
 * test_hooks.h's table, steered by the CUDASTORE_TEST_* variables.
 */
#ifndef CUDASTORE_TEST_HOOKS_ENV_H
#define CUDASTORE_TEST_HOOKS_ENV_H

#include "test_hooks.h"

extern const struct cs_test_hooks cs_test_hooks_env;

#endif /* CUDASTORE_TEST_HOOKS_ENV_H */

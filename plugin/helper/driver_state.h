/* SPDX-License-Identifier: MIT */
/*
 * driver_state.h - the driver's CUDA state of a process, checked after a checkpoint call.
 */
#ifndef CUDASTORE_DRIVER_STATE_H
#define CUDASTORE_DRIVER_STATE_H

#include "context.h"

/* Read the target's state once; -EPROTO with a message naming both states if it is not want. */
int cs_driver_expect_state(struct cs_ctx *ctx, pid_t pid, CUprocessState want, const char *after);

#endif /* CUDASTORE_DRIVER_STATE_H */

// SPDX-License-Identifier: MIT
/* driver_state.c - the driver's CUDA state of a process, checked after a call (see driver_state.h) */
#include <errno.h>

#include "driver_state.h"
#include "log.h"

int cs_driver_expect_state(struct cs_ctx *ctx, pid_t pid, CUprocessState want, const char *after)
{
	CUprocessState st = CU_PROCESS_STATE_FAILED;
	CUresult res;

	res = ctx->cuda.CheckpointProcessGetState(pid, &st);
	if (res == CUDA_SUCCESS && st == want)
		return 0;
	if (res != CUDA_SUCCESS)
		cs_err("pid %d: cannot read its CUDA state after %s: %s", pid, after,
		       cs_cuda_errname(&ctx->cuda, res));
	else
		cs_err("pid %d: CUDA state is %s after %s, expected %s", pid, cs_cuda_state_name(st), after,
		       cs_cuda_state_name(want));
	return -EPROTO;
}

// SPDX-License-Identifier: MIT
/* context.c - the tracked-process table */
#include <string.h>

#include "context.h"

struct cs_proc *cs_ctx_find(struct cs_ctx *ctx, pid_t pid)
{
	unsigned i;

	for (i = 0; i < ctx->nproc; i++)
		if (ctx->proc[i].pid == pid)
			return &ctx->proc[i];
	return NULL;
}

struct cs_proc *cs_ctx_add(struct cs_ctx *ctx, pid_t pid)
{
	struct cs_proc *p;

	if (ctx->nproc == CS_MAX_PROCS)
		return NULL;
	p = &ctx->proc[ctx->nproc++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ns_pid = pid;
	return p;
}

// SPDX-License-Identifier: MIT
/*
 * libcshelper.a links and runs without cudastore-helper's own files (helper_main.c,
 * criu_link.c, test_hooks_env.c): this program takes the address of every request the helper
 * serves (so the linker pulls dump.c, restore.c, recover.c, batch.c, prefetch.c, warmup.c and
 * what they call from the library) and runs a batch and a rollback on the fake driver. With
 * no criu door registered, restore-thread calls succeed doing nothing and criu is never gone;
 * with no test hooks registered, a stall named in CUDASTORE_TEST_STALL does not stall.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "criu_door.h"
#include "dump.h"
#include "fake-cuda.h"
#include "helper-unit.h"
#include "prefetch.h"
#include "recover.h"
#include "restore.h"
#include "rollback.h"
#include "tap.h"
#include "test_hooks.h"
#include "warmup.h"

/* every request of the helper, so that each object comes from the library */
static void *const requests[] = {
	(void *)cs_dump_pause,	    (void *)cs_dump_checkpoint, (void *)cs_dump_finish,
	(void *)cs_restore_process, (void *)cs_recover,		(void *)cs_prefetch_begin,
	(void *)cs_warmup_begin,    (void *)cs_batch_run,
};

static int mark(struct cs_ctx *ctx, struct cs_proc *p, void *arg)
{
	(void)ctx;
	(void)p;
	__atomic_fetch_add((unsigned *)arg, 1, __ATOMIC_SEQ_CST);
	return 0;
}

int main(void)
{
	struct cs_proc *procs[2];
	struct cs_batch b = { .what = "test", .procs = procs, .n = 2, .fn = mark };
	struct cs_criu_rt rt;
	struct timespec t0, t1;
	unsigned ran = 0, i;
	struct cs_ctx *ctx;
	pid_t kid;
	int ret;

	tap_plan(7);
	for (i = 0; i < sizeof(requests) / sizeof(requests[0]); i++)
		if (!requests[i])
			tap_bail("request %u has no address", i);
	hu_log_capture();
	ctx = hu_ctx(CS_STAGE_DUMP);
	if (!ctx)
		tap_bail("no memory for a context");

	tap_ok(cs_criu_rt_run(&rt, 4242) == 0 && rt.running && cs_criu_rt_stop(&rt) == 0 && !rt.running,
	       "no criu attached: letting a restore thread run and stopping it succeed doing nothing");
	tap_ok(!cs_criu_gone(), "no criu attached: criu is never gone");

	procs[0] = cs_ctx_add(ctx, 4000001); /* above any pid in use: only the fake knows them */
	procs[1] = cs_ctx_add(ctx, 4000002);
	b.arg = &ran;
	ret = cs_batch_run(ctx, &b);
	tap_ok(ret == 0 && ran == 2 && !procs[0]->batch.result && !procs[1]->batch.result,
	       "a batch of 2 processes runs each one's fn without criu (%u ran)", ran);

	kid = hu_child();
	if (kid < 0)
		tap_bail("fork failed");
	ctx->nproc = 0;
	procs[0] = cs_ctx_add(ctx, kid);
	procs[0]->dump.phase = CS_PHASE_LOCKED;
	procs[0]->dump.initial_state = CU_PROCESS_STATE_RUNNING;
	fake_proc_set(kid, CU_PROCESS_STATE_LOCKED);
	cs_dump_finish(ctx, -1, false, -1);
	tap_ok(fake_proc_state(kid) == CU_PROCESS_STATE_RUNNING && procs[0]->dump.phase == CS_PHASE_RESUMED,
	       "a failed dump's rollback unlocks the process it locked");
	tap_ok(hu_logged("resumed with its GPU memory") && hu_logged("(dump failed)"),
	       "the rollback's line reaches the registered log sink and names the failed dump");
	tap_ok(!hu_reap_killed(kid), "the resumed process was not ended");

	setenv("CUDASTORE_TEST_STALL", "init", 1);
	setenv("CUDASTORE_TEST_STALL_FILE", "/nonexistent-dir/stall", 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cs_test_stall("init");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	tap_ok(!cs_test_prefetch_complete() && t1.tv_sec - t0.tv_sec < 2,
	       "no test hooks registered: CUDASTORE_TEST_STALL=init does not stall, no prefetch switch");
	hu_ctx_free(ctx);
	return tap_done();
}

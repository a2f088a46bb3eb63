// SPDX-License-Identifier: MIT
/*
 * The rollback of a dump (dump.c, cs_dump_finish), a table of cases on the fake driver, each
 * process a child of this test that stands for a target. A case gives each process's state as
 * PAUSE found it, how far the dump got with it (its phase, whether the driver's checkpoint was
 * called), its driver state now, the dump's result and criu's leave-running decision, and a
 * driver fault injected (once, or from then on). Expected, per process: whether the rollback
 * touched it (its restore thread let run through the criu door), its driver state and phase
 * afterwards, whether it was ended (SIGKILL, so it cannot hang in its next CUDA call), and words
 * of the log line that gives the reason or the resume.
 */
#include <errno.h>
#include <string.h>

#include "fake-cuda.h"
#include "helper-unit.h"
#include "rollback.h"
#include "tap.h"

#define MAXP	3
#define RUN	CU_PROCESS_STATE_RUNNING
#define LCK	CU_PROCESS_STATE_LOCKED
#define CKD	CU_PROCESS_STATE_CHECKPOINTED
#define CKG	CU_PROCESS_STATE_CHECKPOINTING
#define BAD	CU_PROCESS_STATE_FAILED
#define NOFAULT FAKE_NCALLS

struct rb_proc {
	CUprocessState found; /* as PAUSE found it */
	enum cs_proc_phase phase;
	bool ckpt_called;
	CUprocessState now; /* the fake driver's state when the rollback starts */
	/* expected */
	bool touched;
	CUprocessState end;
	enum cs_proc_phase end_phase;
	bool ended;
};

struct rb_case {
	const char *name;
	int ret;	    /* the dump's result */
	bool leave_running; /* criu's decision */
	bool criu_gone;
	enum fake_call fault;
	bool fault_always; /* every call of that kind fails, else only the first */
	unsigned n;
	struct rb_proc p[MAXP];
	const char *words; /* in the log */
};

static const struct rb_case cases[] = {
	{ "a dump that succeeded without --leave-running touches nothing",
	  0,
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { RUN, CS_PHASE_CHECKPOINTED, true, CKD, false, CKD, CS_PHASE_CHECKPOINTED, false } },
	  NULL },
	{ "failed dump: a process it locked is unlocked",
	  -1,
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { RUN, CS_PHASE_LOCKED, false, LCK, true, RUN, CS_PHASE_RESUMED, false } },
	  "(dump failed)" },
	{ "--leave-running: a checkpointed process is restored and unlocked",
	  0,
	  true,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { RUN, CS_PHASE_CHECKPOINTED, true, CKD, true, RUN, CS_PHASE_RESUMED, false } },
	  "(--leave-running)" },
	{ "a process found LOCKED is restored but left LOCKED, as found",
	  -1,
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { LCK, CS_PHASE_CHECKPOINTED, true, CKD, true, LCK, CS_PHASE_RESUMED, false } },
	  "resumed" },
	{ "criu gone: the reason says so",
	  -1,
	  false,
	  true,
	  NOFAULT,
	  false,
	  1,
	  { { RUN, CS_PHASE_LOCKED, false, LCK, true, RUN, CS_PHASE_RESUMED, false } },
	  "(criu is gone)" },
	{ "a lock that failed on a running process is checked: still running, nothing to do",
	  -1,
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { RUN, CS_PHASE_FAILED, false, RUN, true, RUN, CS_PHASE_RESUMED, false } },
	  NULL },
	{ "a process only found, or found LOCKED and failed, is not touched",
	  -1,
	  false,
	  false,
	  NOFAULT,
	  false,
	  2,
	  { { RUN, CS_PHASE_FOUND, false, RUN, false, RUN, CS_PHASE_FOUND, false },
	    { LCK, CS_PHASE_FAILED, false, LCK, false, LCK, CS_PHASE_FAILED, false } },
	  NULL },
	{ "a driver restore that fails once is tried again",
	  -1,
	  false,
	  false,
	  FAKE_CKPT_RESTORE,
	  false,
	  1,
	  { { RUN, CS_PHASE_CHECKPOINTED, true, CKD, true, RUN, CS_PHASE_RESUMED, false } },
	  "trying again (2 of 3)" },
	{ "a driver restore that keeps failing: ended, its GPU memory could not be put back",
	  -1,
	  false,
	  false,
	  FAKE_CKPT_RESTORE,
	  true,
	  1,
	  { { RUN, CS_PHASE_CHECKPOINTED, true, CKD, true, CKD, CS_PHASE_CHECKPOINTED, true } },
	  "its GPU memory could not be put back" },
	{ "an unlock that fails once is tried again",
	  -1,
	  false,
	  false,
	  FAKE_CKPT_UNLOCK,
	  false,
	  1,
	  { { RUN, CS_PHASE_LOCKED, false, LCK, true, RUN, CS_PHASE_RESUMED, false } },
	  "resumed" },
	{ "an unlock that never takes: ended, it stays locked",
	  -1,
	  false,
	  false,
	  FAKE_CKPT_UNLOCK,
	  true,
	  1,
	  { { RUN, CS_PHASE_LOCKED, false, LCK, true, LCK, CS_PHASE_LOCKED, true } },
	  "it stays locked: cuCheckpointProcessUnlock did not take" },
	{ "a state that cannot be read: ended",
	  -1,
	  false,
	  false,
	  FAKE_CKPT_STATE,
	  true,
	  1,
	  { { RUN, CS_PHASE_LOCKED, false, LCK, true, LCK, CS_PHASE_LOCKED, true } },
	  "its CUDA state cannot be read" },
	{ "stuck in CHECKPOINTING: ended, with the reason",
	  -1,
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { RUN, CS_PHASE_FAILED, true, CKG, true, CKG, CS_PHASE_FAILED, true } },
	  "its GPU memory could be neither saved nor kept" },
	{ "a state it cannot run in (FAILED): ended",
	  -1,
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { RUN, CS_PHASE_FAILED, true, BAD, true, BAD, CS_PHASE_FAILED, true } },
	  "its CUDA state is not one it can run in" },
	{ "--leave-running, one process ended: its images restore it",
	  0,
	  true,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { RUN, CS_PHASE_FAILED, true, CKG, true, CKG, CS_PHASE_FAILED, true } },
	  "The images of this dump are complete" },
	{ "a tree: the stuck one is ended, the others run on",
	  -1,
	  false,
	  false,
	  NOFAULT,
	  false,
	  3,
	  { { RUN, CS_PHASE_CHECKPOINTED, true, CKD, true, RUN, CS_PHASE_RESUMED, false },
	    { RUN, CS_PHASE_FAILED, true, CKG, true, CKG, CS_PHASE_FAILED, true },
	    { RUN, CS_PHASE_LOCKED, false, LCK, true, RUN, CS_PHASE_RESUMED, false } },
	  "cannot be resumed after the dump" },
};

static const char *state_name(CUprocessState s)
{
	static const char *names[] = { "RUNNING", "LOCKED",	   "CHECKPOINTED",
				       "FAILED",  "CHECKPOINTING", "RESTORING" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static bool check_case(const struct rb_case *c, char *got, size_t len)
{
	struct cs_ctx *ctx = hu_ctx(CS_STAGE_DUMP);
	struct hu_door door = { .fail_tid = -1 };
	pid_t pid[MAXP];
	bool ok = true;
	unsigned i;

	if (!ctx)
		tap_bail("no memory for a context");
	for (i = 0; i < c->n; i++) {
		struct cs_proc *p;

		pid[i] = hu_child();
		if (pid[i] < 0)
			tap_bail("fork failed");
		p = cs_ctx_add(ctx, pid[i]);
		p->restore_tid = pid[i];
		p->mode = CS_MODE_DRIVER;
		p->dump.initial_state = c->p[i].found;
		p->dump.phase = c->p[i].phase;
		p->dump.checkpoint_called = c->p[i].ckpt_called;
		fake_proc_set(pid[i], c->p[i].now);
	}
	door.gone = c->criu_gone;
	hu_door_install(&door);
	hu_log_clear();
	if (c->fault != NOFAULT)
		(c->fault_always ? fake_fail_from : fake_fail_at)(c->fault, 1, CUDA_ERROR_UNKNOWN);
	cs_dump_finish(ctx, c->ret, c->leave_running, -1);
	if (c->fault != NOFAULT)
		fake_fail_at(c->fault, 0, CUDA_SUCCESS);
	hu_door_install(NULL);
	got[0] = '\0';
	for (i = 0; i < c->n; i++) {
		const struct rb_proc *e = &c->p[i];
		bool touched = hu_door_count(&door, 'r', pid[i]) == 1;
		CUprocessState end = fake_proc_state(pid[i]);
		enum cs_proc_phase phase = ctx->proc[i].dump.phase;
		bool ended = hu_reap_killed(pid[i]);
		size_t at = strlen(got);

		snprintf(got + at, len - at, "%sp%u %s%s phase %d%s", i ? "; " : "", i,
			 touched ? "touched " : "", state_name(end), phase, ended ? " ended" : "");
		ok = ok && touched == e->touched && end == e->end && phase == e->end_phase &&
		     ended == e->ended && ctx->proc[i].dump.left == e->ended;
	}
	if (c->words && !hu_logged(c->words)) {
		snprintf(got + strlen(got), len - strlen(got), "; no \"%s\" in the log", c->words);
		ok = false;
	}
	hu_ctx_free(ctx);
	return ok;
}

int main(void)
{
	unsigned i, n = sizeof(cases) / sizeof(cases[0]);
	char got[512];

	hu_log_capture();
	tap_plan((int)n);
	for (i = 0; i < n; i++) {
		bool ok = check_case(&cases[i], got, sizeof(got));

		tap_ok(ok, "%s (%s)", cases[i].name, got);
	}
	return tap_done();
}

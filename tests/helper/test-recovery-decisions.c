// SPDX-License-Identifier: MIT
/*
 * A fresh helper's recovery of a dump whose helper died (recover.c, cs_recover), a table of
 * cases on the fake driver, each process a child of this test that stands for a target. A case
 * gives each process's driver state as the dead helper left it (or none: no CUDA process),
 * whether criu can let its restore thread run, a driver fault, whether criu gathers the
 * processes into one batch, and whether the dump had succeeded (its images kept). Expected,
 * per process: touched (its restore thread let run), its driver state afterwards, whether it was
 * ended (SIGKILL, with the reason in the log), and in a gathered recovery the RECOVERED notes
 * criu hears (under way, then its fate); and whether the failed dump's files were removed.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-cuda.h"
#include "helper-unit.h"
#include "recover.h"
#include "tap.h"
#include "unit.h"

#define MAXP	3
#define RUN	CU_PROCESS_STATE_RUNNING
#define LCK	CU_PROCESS_STATE_LOCKED
#define CKD	CU_PROCESS_STATE_CHECKPOINTED
#define CKG	CU_PROCESS_STATE_CHECKPOINTING
#define RST	CU_PROCESS_STATE_RESTORING
#define NONE	((CUprocessState)-1) /* not a CUDA process: the driver does not know it */
#define NOFAULT FAKE_NCALLS

struct rc_proc {
	CUprocessState now; /* as the dead helper left it */
	bool held;	    /* criu cannot let its restore thread run */
	/* expected */
	bool touched;
	CUprocessState end;
	bool ended;
};

struct rc_case {
	const char *name;
	bool gather, keep;
	enum fake_call fault;
	bool fault_always;
	unsigned n;
	struct rc_proc p[MAXP];
	const char *words; /* in the log */
};

static const struct rc_case cases[] = {
	{ "RUNNING: nothing to undo",
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { RUN, false, true, RUN, false } },
	  NULL },
	{ "LOCKED: unlocked",
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { LCK, false, true, RUN, false } },
	  "running again with its GPU memory" },
	{ "CHECKPOINTED without a manifest: restored from the driver's copy, unlocked",
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { CKD, false, true, RUN, false } },
	  "restoring it from the driver's own copy" },
	{ "CHECKPOINTING: the GPU memory went with the dead helper, ended",
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { CKG, false, true, CKG, true } },
	  "CHECKPOINTING or RESTORING" },
	{ "RESTORING: ended",
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { RST, false, true, RST, true } },
	  "cannot be got back" },
	{ "not a CUDA process: not touched",
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { NONE, false, false, NONE, false } },
	  NULL },
	{ "its restore thread cannot be let run: ended",
	  false,
	  false,
	  NOFAULT,
	  false,
	  1,
	  { { LCK, true, false, LCK, true } },
	  "its CUDA restore thread cannot be let run" },
	{ "its state cannot be read: ended",
	  false,
	  false,
	  FAKE_CKPT_STATE,
	  true,
	  1,
	  { { LCK, false, true, LCK, true } },
	  "its CUDA state cannot be read" },
	{ "a driver restore that fails: ended, its GPU memory could not be put back",
	  false,
	  false,
	  FAKE_CKPT_RESTORE,
	  true,
	  1,
	  { { CKD, false, true, CKD, true } },
	  "could not be put back" },
	{ "LOCKED, an unlock that never takes: ended, not left locked to hang",
	  false,
	  false,
	  FAKE_CKPT_UNLOCK,
	  true,
	  1,
	  { { LCK, false, true, LCK, true } },
	  "it stays locked" },
	{ "gathered, an unlock that never takes: ended, criu hears its fate",
	  true,
	  false,
	  FAKE_CKPT_UNLOCK,
	  true,
	  1,
	  { { CKD, false, true, LCK, true } },
	  "it stays locked" },
	{ "gathered: each process its own fate, at once",
	  true,
	  false,
	  NOFAULT,
	  false,
	  3,
	  { { LCK, false, true, RUN, false },
	    { CKD, false, true, RUN, false },
	    { CKG, false, true, CKG, true } },
	  "GPU recovery phase of 3 processes" },
	{ "gathered: a held restore thread ends only its process",
	  true,
	  false,
	  NOFAULT,
	  false,
	  2,
	  { { LCK, true, false, LCK, true }, { LCK, false, true, RUN, false } },
	  "its CUDA restore thread cannot be let run" },
	{ "gathered, the dump had succeeded: its images are kept",
	  true,
	  true,
	  NOFAULT,
	  false,
	  1,
	  { { LCK, false, true, RUN, false } },
	  NULL },
	{ "one at a time, the dump had succeeded: its images are kept",
	  false,
	  true,
	  NOFAULT,
	  false,
	  1,
	  { { CKD, false, true, RUN, false } },
	  NULL },
};

static const char *planted[] = { "cudastore-999990.img", "cudastore-999990-gpu0.ext", "cudastore-index.img" };

static void plant(int dirfd)
{
	for (unsigned i = 0; i < sizeof(planted) / sizeof(planted[0]); i++) {
		int fd = openat(dirfd, planted[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (fd < 0)
			tap_bail("cannot create %s", planted[i]);
		close(fd);
	}
	close(openat(dirfd, "criu-dump.log", O_WRONLY | O_CREAT | O_TRUNC, 0600));
}

/* how many planted files of ours are left; criu's own file must be there */
static int files_left(int dirfd)
{
	struct stat st;
	int n = 0;

	for (unsigned i = 0; i < sizeof(planted) / sizeof(planted[0]); i++)
		n += !fstatat(dirfd, planted[i], &st, 0);
	return fstatat(dirfd, "criu-dump.log", &st, 0) ? -1 : n;
}

/* criu let tid run, once */
static bool let_run(const struct hu_door *d, pid_t tid)
{
	unsigned i, n = 0;

	for (i = 0; i < d->n; i++)
		n += d->calls[i].what == 'r' && d->calls[i].id == tid && !d->calls[i].ret;
	return n == 1;
}

static bool check_notes(const struct hu_door *d, pid_t pid, bool ran, bool ended)
{
	int first = 0, last = 0;
	unsigned i, n = 0;

	for (i = 0; i < d->n; i++)
		if (d->calls[i].what == 'n' && d->calls[i].id == pid) {
			if (!n++)
				first = d->calls[i].ret;
			last = d->calls[i].ret;
		}
	if (!ran)
		return n == 0;
	return n == 2 && first == -EINPROGRESS && (ended ? last != 0 : last == 0);
}

static bool check_case(const struct rc_case *c, char *got, size_t len)
{
	struct cs_ctx *ctx = hu_ctx(CS_STAGE_DUMP);
	struct hu_door door = { .fail_tid = -1, .fail_ret = -ESRCH };
	unsigned flags = (c->gather ? CS_RECOVER_GATHER : 0) | (c->keep ? CS_RECOVER_KEEP : 0);
	char path[256];
	int dirfd = unit_tmpdir(path, sizeof(path)), left;
	pid_t pid[MAXP];
	bool ok = true;
	unsigned i;

	if (!ctx)
		tap_bail("no memory for a context");
	plant(dirfd);
	for (i = 0; i < c->n; i++) {
		pid[i] = hu_child();
		if (pid[i] < 0)
			tap_bail("fork failed");
		if (c->p[i].now != NONE)
			fake_proc_set(pid[i], c->p[i].now);
		if (c->p[i].held)
			door.fail_tid = pid[i]; /* the fake's restore thread is the process */
	}
	hu_door_install(&door);
	hu_log_clear();
	if (c->fault != NOFAULT)
		(c->fault_always ? fake_fail_from : fake_fail_at)(c->fault, 1, CUDA_ERROR_UNKNOWN);
	for (i = 0; i < c->n; i++)
		cs_recover(ctx, pid[i], flags & CS_RECOVER_GATHER, dirfd);
	cs_recover(ctx, 0, flags, dirfd);
	if (c->fault != NOFAULT)
		fake_fail_at(c->fault, 0, CUDA_SUCCESS);
	hu_door_install(NULL);
	got[0] = '\0';
	for (i = 0; i < c->n; i++) {
		const struct rc_proc *e = &c->p[i];
		bool touched = let_run(&door, pid[i]);
		CUprocessState end = c->p[i].now == NONE ? NONE : fake_proc_state(pid[i]);
		bool ended = hu_reap_killed(pid[i]);
		bool notes = check_notes(&door, pid[i], c->gather && touched, ended);
		size_t at = strlen(got);

		snprintf(got + at, len - at, "%sp%u %sstate %d%s%s", i ? "; " : "", i,
			 touched ? "touched " : "", (int)end, ended ? " ended" : "",
			 notes ? "" : " wrong notes");
		ok = ok && touched == e->touched && end == e->end && ended == e->ended && notes;
	}
	left = files_left(dirfd);
	snprintf(got + strlen(got), len - strlen(got), "; %d file(s) of ours left", left);
	ok = ok && left == (c->keep ? 3 : 0);
	if (c->words && !hu_logged(c->words)) {
		snprintf(got + strlen(got), len - strlen(got), "; no \"%s\" in the log", c->words);
		ok = false;
	}
	close(dirfd);
	unit_rmtree(path);
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

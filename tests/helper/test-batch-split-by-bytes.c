// SPDX-License-Identifier: MIT
/*
 * The batch's split of the copy budget (batch.c), a table of cases: processes with the bytes
 * their copy will move, the parallel option, the batch's limit, a process whose restore thread
 * criu cannot let run; expected: how many copies share the budget (sharers) and each copy's
 * part in 1/1024 while it runs (0: the even 1/sharers), which processes ran, what the batch
 * answered, and that no share outlives the batch. Parts are in proportion to the bytes only
 * when every process runs at once, every copy's size is known and at least two copies run.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "batch.h"
#include "helper-unit.h"
#include "tap.h"

#define GiB  (1ULL << 30)
#define MAXP 4
#define UNK  CS_COPY_UNKNOWN

struct split_case {
	const char *name;
	unsigned n;
	uint64_t bytes[MAXP];
	unsigned parallel, limit;
	int held; /* index of the process whose restore thread cannot be let run, or -1 */
	/* expected */
	unsigned sharers;
	unsigned part[MAXP]; /* during its fn; a held process never runs */
	unsigned width;
	int ret;
};

static const struct split_case cases[] = {
	{ "3:1 bytes, all at once: parts 768 and 256",
	  2,
	  { 3 * GiB, 1 * GiB },
	  0,
	  0,
	  -1,
	  2,
	  { 768, 256 },
	  2,
	  0 },
	{ "equal bytes: equal parts", 3, { GiB, GiB, GiB }, 0, 0, -1, 3, { 341, 341, 341 }, 3, 0 },
	{ "one copy of unknown size: even split for all", 2, { 3 * GiB, UNK }, 0, 0, -1, 2, { 0, 0 }, 2, 0 },
	{ "a process that copies nothing gets no part",
	  3,
	  { 3 * GiB, 0, GiB },
	  0,
	  0,
	  -1,
	  3,
	  { 768, 0, 256 },
	  3,
	  0 },
	{ "a lone copy: even split", 2, { 5 * GiB, 0 }, 0, 0, -1, 2, { 0, 0 }, 2, 0 },
	{ "parallel = 2 for 3 processes: even split among 2",
	  3,
	  { 3 * GiB, GiB, GiB },
	  2,
	  0,
	  -1,
	  2,
	  { 0, 0, 0 },
	  2,
	  0 },
	{ "batch limit 1: one at a time, each copy alone", 2, { 3 * GiB, GiB }, 0, 1, -1, 1, { 0, 0 }, 1, 0 },
	{ "parallel = 1: one at a time", 3, { GiB, 2 * GiB, GiB }, 1, 0, -1, 1, { 0, 0, 0 }, 1, 0 },
	{ "a tiny copy beside a huge one still gets a part",
	  2,
	  { 4096 * GiB, 1 },
	  0,
	  0,
	  -1,
	  2,
	  { 1023, 1 },
	  2,
	  0 },
	{ "held restore thread: its process does not run, the rest split by bytes",
	  3,
	  { GiB, 3 * GiB, GiB },
	  0,
	  0,
	  0,
	  3,
	  { 0, 768, 256 },
	  3,
	  -ESRCH },
	{ "held restore thread of the only other copy: a lone copy",
	  2,
	  { GiB, 3 * GiB },
	  0,
	  0,
	  1,
	  2,
	  { 0, 0 },
	  2,
	  -ESRCH },
};

/* what each process's fn saw of its share */
struct seen {
	unsigned sharers[MAXP], part[MAXP];
	unsigned ran[MAXP];
};

static int record(struct cs_ctx *ctx, struct cs_proc *p, void *arg)
{
	struct seen *s = arg;
	unsigned i = (unsigned)(p - ctx->proc);

	s->sharers[i] = p->batch.sharers;
	s->part[i] = p->batch.copy_part;
	s->ran[i]++;
	return 0;
}

static bool check_case(const struct split_case *c, char *why, size_t len)
{
	struct cs_ctx *ctx = hu_ctx(CS_STAGE_DUMP);
	struct cs_proc *procs[MAXP];
	struct hu_door door = { .fail_tid = -1, .fail_ret = -ESRCH };
	struct seen s;
	struct cs_batch b = {
		.what = "test", .procs = procs, .n = c->n, .fn = record, .arg = &s, .limit = c->limit
	};
	bool ok = true;
	unsigned i;
	int ret;

	if (!ctx)
		tap_bail("no memory for a context");
	memset(&s, 0, sizeof(s));
	ctx->opt.parallel = c->parallel;
	for (i = 0; i < c->n; i++) {
		procs[i] = cs_ctx_add(ctx, 4000000 + (pid_t)i);
		procs[i]->restore_tid = 4100000 + (pid_t)i;
		procs[i]->batch.copy_bytes = c->bytes[i];
	}
	if (c->held >= 0)
		door.fail_tid = 4100000 + c->held;
	hu_door_install(&door);
	ret = cs_batch_run(ctx, &b);
	hu_door_install(NULL);
	snprintf(why, len, "ret %d width %u", ret, b.width);
	ok = ret == c->ret && b.width == c->width;
	for (i = 0; i < c->n; i++) {
		bool held = (int)i == c->held;
		size_t at = strlen(why);

		snprintf(why + at, len - at, "; p%u ran %u sharers %u part %u", i, s.ran[i], s.sharers[i],
			 s.part[i]);
		if (held)
			ok = ok && !s.ran[i] && procs[i]->batch.result == c->ret;
		else
			ok = ok && s.ran[i] == 1 && s.sharers[i] == c->sharers && s.part[i] == c->part[i];
		ok = ok && !procs[i]->batch.sharers && !procs[i]->batch.copy_part; /* none outlives it */
		/* every restore thread let run was stopped again, the held one never */
		ok = ok && hu_door_count(&door, 's', procs[i]->restore_tid) == (held ? 0u : 1u);
	}
	hu_ctx_free(ctx);
	return ok;
}

int main(void)
{
	unsigned i, n = sizeof(cases) / sizeof(cases[0]);
	char why[512];

	hu_log_capture();
	tap_plan((int)n);
	for (i = 0; i < n; i++) {
		bool ok = check_case(&cases[i], why, sizeof(why));

		tap_ok(ok, "%s (%s)", cases[i].name, why);
	}
	return tap_done();
}

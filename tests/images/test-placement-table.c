// SPDX-License-Identifier: MIT
/*
 * Where a restore sends each checkpointed GPU (placement.h), from a table of scenarios: the
 * same GPUs, other UUIDs under the same ordinals, a host of 8 whose first 4 are another product,
 * every reason a GPU cannot take one (another product, capability, memory size, MIG, too little
 * free), fewer GPUs than checkpointed, a choice the search must take back, explicit maps by UUID
 * and by ordinal (and each way a map is wrong), and images without facts.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "placement.h"

#define GiB (1ull << 30)

static struct cs_gpu_facts gpu(int tag, int ordinal, const char *name, unsigned cc, uint64_t total,
			       uint64_t free)
{
	struct cs_gpu_facts g;

	memset(&g, 0, sizeof(g));
	g.uuid.bytes[0] = (char)tag;
	snprintf(g.name, sizeof(g.name), "%s", name);
	g.cc_major = cc / 10;
	g.cc_minor = cc % 10;
	g.total_memory = total;
	g.free_memory = free;
	g.ordinal = ordinal;
	g.process_ordinal = -1;
	return g;
}

static struct cs_place_want want(int tag, int ordinal, uint64_t used)
{
	struct cs_place_want w = { .has_facts = true };

	w.facts = gpu(tag, ordinal, "NVIDIA H200", 90, 141 * GiB, 0);
	w.facts.used_bytes = used;
	return w;
}

struct scenario {
	const char *what;
	unsigned nwant, nhost, nmap;
	struct cs_place_want w[4];
	struct cs_gpu_facts h[8];
	struct cs_device_pair map[4];
	int ret;
	int dest[4];	   /* when ret is 0 */
	const char *words; /* in how[0] (ret 0) or in why */
};

static struct cs_gpu_facts h200(int tag, int ordinal, uint64_t free)
{
	return gpu(tag, ordinal, "NVIDIA H200", 90, 141 * GiB, free);
}

/* a GPU the restored process has no device node for (its minor is its ordinal + 10) */
static struct cs_gpu_facts closed(struct cs_gpu_facts g)
{
	g.minor = g.ordinal + 10;
	g.closed = true;
	return g;
}

static void run(const struct scenario *s)
{
	char how[CS_MAX_DEVICES][CS_PLACE_HOW_MAX] = { { 0 } }, why[2048] = "";
	int dest[CS_MAX_DEVICES] = { 0 }, ret;
	bool same = true;

	ret = cs_place(s->w, s->nwant, s->h, s->nhost, s->map, s->nmap, dest, how, why, sizeof(why));
	for (unsigned i = 0; !ret && i < s->nwant; i++)
		same = same && dest[i] == s->dest[i];
	tap_ok(ret == s->ret && (ret ? !!strstr(why, s->words) : same && !!strstr(how[0], s->words)),
	       "%s: %d, got %d %d %d %d (%s)", s->what, ret, dest[0], dest[1], dest[2], dest[3],
	       ret ? why : how[0]);
}

int main(void)
{
	struct scenario t[] = {
		{ "the same GPUs",
		  2,
		  2,
		  0,
		  { want(1, 0, GiB), want(2, 1, GiB) },
		  { h200(1, 0, 100 * GiB), h200(2, 1, 100 * GiB) },
		  {},
		  0,
		  { 0, 1 },
		  "the same GPU" },
		{ "other UUIDs under the same ordinals",
		  2,
		  2,
		  0,
		  { want(1, 0, GiB), want(2, 1, GiB) },
		  { h200(7, 0, 100 * GiB), h200(8, 1, 100 * GiB) },
		  {},
		  0,
		  { 0, 1 },
		  "the same ordinal" },
		{ "4 of 8, the first 4 another product: the most free first",
		  2,
		  8,
		  0,
		  { want(1, 0, GiB), want(2, 1, GiB) },
		  { gpu(10, 0, "NVIDIA A100", 80, 80 * GiB, 80 * GiB),
		    gpu(11, 1, "NVIDIA A100", 80, 80 * GiB, 80 * GiB),
		    gpu(12, 2, "NVIDIA A100", 80, 80 * GiB, 80 * GiB),
		    gpu(13, 3, "NVIDIA A100", 80, 80 * GiB, 80 * GiB), h200(14, 4, 50 * GiB),
		    h200(15, 5, 140 * GiB), h200(16, 6, 90 * GiB), h200(17, 7, 60 * GiB) },
		  {},
		  0,
		  { 5, 6 },
		  "the most of those left" },
		{ "another product only",
		  1,
		  1,
		  0,
		  { want(1, 0, GiB) },
		  { gpu(9, 0, "NVIDIA A100", 90, 141 * GiB, 140 * GiB) },
		  {},
		  -ENODEV,
		  {},
		  "another product (NVIDIA A100)" },
		{ "another compute capability",
		  1,
		  1,
		  0,
		  { want(1, 0, GiB) },
		  { gpu(9, 0, "NVIDIA H200", 100, 141 * GiB, 140 * GiB) },
		  {},
		  -ENODEV,
		  {},
		  "compute capability 10.0" },
		{ "less memory",
		  1,
		  1,
		  0,
		  { want(1, 0, GiB) },
		  { gpu(9, 0, "NVIDIA H200", 90, 80 * GiB, 80 * GiB) },
		  {},
		  -ENODEV,
		  {},
		  "80.0 GiB of memory" },
		{ "MIG on",
		  1,
		  1,
		  0,
		  { want(1, 0, GiB) },
		  { [0] = { .name = "NVIDIA H200",
			    .cc_major = 9,
			    .total_memory = 141 * GiB,
			    .free_memory = 140 * GiB,
			    .mig = true } },
		  {},
		  -ENODEV,
		  {},
		  "MIG mode on" },
		{ "one GPU full, another free",
		  1,
		  2,
		  0,
		  { want(1, 0, 10 * GiB) },
		  { h200(1, 0, 2 * GiB), h200(9, 1, 100 * GiB) },
		  {},
		  0,
		  { 1 },
		  "most of those left" },
		{ "the only GPU full",
		  1,
		  1,
		  0,
		  { want(1, 0, 10 * GiB) },
		  { h200(1, 0, 2 * GiB) },
		  {},
		  -ENODEV,
		  {},
		  "2.0 GiB free, 10.0 GiB needed" },
		{ "fewer GPUs than checkpointed",
		  2,
		  1,
		  0,
		  { want(1, 0, GiB), want(2, 1, GiB) },
		  { h200(1, 0, 100 * GiB) },
		  {},
		  -ENODEV,
		  {},
		  "the other checkpointed GPUs need it" },
		{ "a choice taken back",
		  2,
		  2,
		  0,
		  { want(1, 5, GiB), want(2, 6, 10 * GiB) },
		  { h200(8, 0, 20 * GiB), h200(9, 1, 5 * GiB) },
		  {},
		  0,
		  { 1, 0 },
		  "" },
		{ "a map by UUID",
		  1,
		  2,
		  1,
		  { want(1, 0, GiB) },
		  { h200(1, 0, 100 * GiB), h200(9, 1, 100 * GiB) },
		  { { .from = { .bytes = { 1 } }, .to = { .bytes = { 9 } } } },
		  0,
		  { 1 },
		  "device_map" },
		{ "a map by ordinal",
		  2,
		  4,
		  2,
		  { want(1, 0, GiB), want(2, 1, GiB) },
		  { h200(5, 0, 9 * GiB), h200(6, 1, 9 * GiB), h200(7, 2, 9 * GiB), h200(8, 3, 9 * GiB) },
		  { { .by_ordinal = true, .from_ordinal = 0, .to_ordinal = 3 },
		    { .by_ordinal = true, .from_ordinal = 1, .to_ordinal = 2 } },
		  0,
		  { 3, 2 },
		  "device_map" },
		{ "a map missing a GPU",
		  2,
		  2,
		  1,
		  { want(1, 0, GiB), want(2, 1, GiB) },
		  { h200(1, 0, 9 * GiB), h200(2, 1, 9 * GiB) },
		  { { .by_ordinal = true, .from_ordinal = 0, .to_ordinal = 1 } },
		  -EINVAL,
		  {},
		  "does not name" },
		{ "a map to an ordinal out of range",
		  1,
		  2,
		  1,
		  { want(1, 0, GiB) },
		  { h200(1, 0, 9 * GiB), h200(2, 1, 9 * GiB) },
		  { { .by_ordinal = true, .from_ordinal = 0, .to_ordinal = 7 } },
		  -ENODEV,
		  {},
		  "does not have" },
		{ "a map to an unknown GPU",
		  1,
		  1,
		  1,
		  { want(1, 0, GiB) },
		  { h200(1, 0, 9 * GiB) },
		  { { .from = { .bytes = { 1 } }, .to = { .bytes = { 42 } } } },
		  -ENODEV,
		  {},
		  "not visible here" },
		{ "a map doubling a GPU",
		  2,
		  2,
		  2,
		  { want(1, 0, GiB), want(2, 1, GiB) },
		  { h200(1, 0, 9 * GiB), h200(2, 1, 9 * GiB) },
		  { { .by_ordinal = true, .from_ordinal = 0, .to_ordinal = 1 },
		    { .by_ordinal = true, .from_ordinal = 1, .to_ordinal = 1 } },
		  -EINVAL,
		  {},
		  "two checkpointed GPUs" },
		{ "a map to another product",
		  1,
		  1,
		  1,
		  { want(1, 0, GiB) },
		  { gpu(9, 0, "NVIDIA A100", 80, 80 * GiB, 80 * GiB) },
		  { { .by_ordinal = true, .from_ordinal = 0, .to_ordinal = 0 } },
		  -ENODEV,
		  {},
		  "another product" },
		{ "no facts: a visible UUID",
		  1,
		  2,
		  0,
		  { { .facts = { .uuid = { .bytes = { 2 } }, .ordinal = 0 } } },
		  { h200(1, 0, 9 * GiB), h200(2, 1, 9 * GiB) },
		  {},
		  0,
		  { 1 },
		  "the same UUID" },
		{ "no facts: one GPU not visible goes by its ordinal",
		  1,
		  2,
		  0,
		  { { .facts = { .uuid = { .bytes = { 3 } }, .ordinal = 1 } } },
		  { h200(1, 0, 9 * GiB), h200(2, 1, 9 * GiB) },
		  {},
		  0,
		  { 1 },
		  "its ordinal" },
		{ "no facts: two GPUs not visible",
		  2,
		  2,
		  0,
		  { { .facts = { .uuid = { .bytes = { 3 } } } },
		    { .facts = { .uuid = { .bytes = { 4 } }, .ordinal = 1 } } },
		  { h200(1, 0, 9 * GiB), h200(2, 1, 9 * GiB) },
		  {},
		  -ENODEV,
		  {},
		  "set device_map" },
		{ "the container opens GPUs 5 and 6 of 8: the same UUIDs and ordinals are closed",
		  2,
		  8,
		  0,
		  { want(1, 0, GiB), want(2, 1, GiB) },
		  { closed(h200(1, 0, 140 * GiB)), closed(h200(2, 1, 140 * GiB)),
		    closed(h200(3, 2, 140 * GiB)), closed(h200(4, 3, 140 * GiB)),
		    closed(h200(5, 4, 140 * GiB)), h200(6, 5, 100 * GiB), h200(7, 6, 90 * GiB),
		    closed(h200(8, 7, 140 * GiB)) },
		  {},
		  0,
		  { 5, 6 },
		  "the most of those left" },
		{ "the container opens GPUs 3 and 1 (reordered): the same UUIDs, wherever they are",
		  2,
		  4,
		  0,
		  { want(4, 0, GiB), want(2, 1, GiB) },
		  { closed(h200(1, 0, 140 * GiB)), h200(2, 1, 100 * GiB), closed(h200(3, 2, 140 * GiB)),
		    h200(4, 3, 100 * GiB) },
		  {},
		  0,
		  { 3, 1 },
		  "the same GPU" },
		{ "the container opens one GPU, two checkpointed",
		  2,
		  2,
		  0,
		  { want(1, 0, GiB), want(2, 1, GiB) },
		  { h200(1, 0, 100 * GiB), closed(h200(2, 1, 100 * GiB)) },
		  {},
		  -ENODEV,
		  {},
		  "GPU 1 (GPU-02000000-0000-0000-0000-000000000000): no device node in the restored "
		  "process's /dev (minor 11)" },
		{ "a map by ordinal onto a GPU the container cannot open",
		  1,
		  2,
		  1,
		  { want(1, 0, GiB) },
		  { h200(1, 0, 9 * GiB), closed(h200(2, 1, 9 * GiB)) },
		  { { .by_ordinal = true, .from_ordinal = 0, .to_ordinal = 1 } },
		  -ENODEV,
		  {},
		  "to GPU 1, which the restored process cannot open: its /dev has no device node of "
		  "minor 11" },
		{ "a map by UUID onto a GPU the container cannot open",
		  1,
		  2,
		  1,
		  { want(1, 0, GiB) },
		  { h200(1, 0, 9 * GiB), closed(h200(9, 1, 9 * GiB)) },
		  { { .from = { .bytes = { 1 } }, .to = { .bytes = { 9 } } } },
		  -ENODEV,
		  {},
		  "cannot open" },
		{ "a map onto the GPUs the container opens",
		  1,
		  2,
		  1,
		  { want(1, 0, GiB) },
		  { closed(h200(1, 0, 9 * GiB)), h200(9, 1, 9 * GiB) },
		  { { .by_ordinal = true, .from_ordinal = 0, .to_ordinal = 1 } },
		  0,
		  { 1 },
		  "device_map" },
		{ "no facts: its own UUID closed, its ordinal's GPU open",
		  1,
		  2,
		  0,
		  { { .facts = { .uuid = { .bytes = { 1 } }, .ordinal = 1 } } },
		  { closed(h200(1, 0, 9 * GiB)), h200(2, 1, 9 * GiB) },
		  {},
		  0,
		  { 1 },
		  "its ordinal" },
		{ "no facts: its ordinal's GPU closed, the first open one",
		  1,
		  3,
		  0,
		  { { .facts = { .uuid = { .bytes = { 7 } }, .ordinal = 0 } } },
		  { closed(h200(1, 0, 9 * GiB)), closed(h200(2, 1, 9 * GiB)), h200(3, 2, 9 * GiB) },
		  {},
		  0,
		  { 2 },
		  "the first it can open" },
		{ "no facts: no GPU open",
		  1,
		  1,
		  0,
		  { { .facts = { .uuid = { .bytes = { 7 } }, .ordinal = 0 } } },
		  { closed(h200(1, 0, 9 * GiB)) },
		  {},
		  -ENODEV,
		  {},
		  "no GPU the restored process can open" },
	};

	tap_plan((int)(sizeof(t) / sizeof(t[0])));
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		run(&t[i]);
	return tap_done();
}

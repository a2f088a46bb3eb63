// SPDX-License-Identifier: MIT
/*
 * Restore device planning (devices.c, cs_dev_plan_restore), a table of cases beyond
 * test-device-plan-restore: the checkpointed GPUs (a UUID tag and the dumping host's ordinal),
 * the GPUs visible here, the device map (UUID or ordinal pairs); expected: the answer, where
 * each checkpointed GPU goes, and for a refusal the words of its message.
 */
#include <errno.h>
#include <string.h>

#include "devices.h"
#include "tap.h"

#define MAXD 4

struct pair {
	bool by_ordinal;
	int from, to; /* tags, or ordinals when by_ordinal */
};

struct plan_case {
	const char *name;
	unsigned ndev;
	int dev[MAXD]; /* tags of the checkpointed GPUs */
	int ord[MAXD]; /* their ordinals on the dumping host */
	int nvis;
	int vis[MAXD]; /* tags of the visible GPUs, by ordinal */
	unsigned nmap;
	struct pair map[MAXD];
	/* expected */
	int ret;
	int dest[MAXD];	   /* tags */
	const char *words; /* in the message of a refusal */
};

static const struct plan_case cases[] = {
	{ "no checkpointed GPU: nothing to plan",
	  0,
	  { 0 },
	  { 0 },
	  1,
	  { 0xb0 },
	  0,
	  { { 0 } },
	  0,
	  { 0 },
	  NULL },
	{ "three present GPUs keep their UUIDs whatever the order",
	  3,
	  { 0xa0, 0xa1, 0xa2 },
	  { 0, 1, 2 },
	  3,
	  { 0xa2, 0xa0, 0xa1 },
	  0,
	  { { 0 } },
	  0,
	  { 0xa0, 0xa1, 0xa2 },
	  NULL },
	{ "two of three present, one missing, no map: refused",
	  3,
	  { 0xa0, 0xa1, 0xa2 },
	  { 0, 1, 2 },
	  3,
	  { 0xa0, 0xa1, 0xb2 },
	  0,
	  { { 0 } },
	  -ENODEV,
	  { 0 },
	  "used 3 GPUs" },
	{ "a single present GPU stays itself though its ordinal moved",
	  1,
	  { 0xa1 },
	  { 0 },
	  2,
	  { 0xb0, 0xa1 },
	  0,
	  { { 0 } },
	  0,
	  { 0xa1 },
	  NULL },
	{ "a single missing GPU with a negative ordinal goes to GPU 0",
	  1,
	  { 0xa0 },
	  { -1 },
	  2,
	  { 0xb0, 0xb1 },
	  0,
	  { { 0 } },
	  0,
	  { 0xb0 },
	  NULL },
	{ "a map overrides present GPUs: swapped",
	  2,
	  { 0xa0, 0xa1 },
	  { 0, 1 },
	  2,
	  { 0xa0, 0xa1 },
	  2,
	  { { false, 0xa0, 0xa1 }, { false, 0xa1, 0xa0 } },
	  0,
	  { 0xa1, 0xa0 },
	  NULL },
	{ "pairs for GPUs not checkpointed are ignored",
	  1,
	  { 0xa0 },
	  { 0 },
	  2,
	  { 0xb0, 0xb1 },
	  3,
	  { { false, 0xc0, 0xb0 }, { false, 0xa0, 0xb1 }, { false, 0xc1, 0xb0 } },
	  0,
	  { 0xb1 },
	  NULL },
	{ "the first pair naming a GPU wins",
	  1,
	  { 0xa0 },
	  { 0 },
	  2,
	  { 0xb0, 0xb1 },
	  2,
	  { { false, 0xa0, 0xb1 }, { false, 0xa0, 0xb0 } },
	  0,
	  { 0xb1 },
	  NULL },
	{ "UUID and ordinal pairs mixed",
	  2,
	  { 0xa0, 0xa1 },
	  { 0, 1 },
	  3,
	  { 0xb0, 0xb1, 0xb2 },
	  2,
	  { { true, 1, 0 }, { false, 0xa0, 0xb2 } },
	  0,
	  { 0xb2, 0xb0 },
	  NULL },
	{ "an ordinal pair names the dumping host's ordinal, not the list position",
	  2,
	  { 0xa0, 0xa1 },
	  { 3, 2 },
	  2,
	  { 0xb0, 0xb1 },
	  2,
	  { { true, 2, 0 }, { true, 3, 1 } },
	  0,
	  { 0xb1, 0xb0 },
	  NULL },
	{ "two ordinal pairs onto one GPU: refused",
	  2,
	  { 0xa0, 0xa1 },
	  { 0, 1 },
	  2,
	  { 0xb0, 0xb1 },
	  2,
	  { { true, 0, 1 }, { true, 1, 1 } },
	  -ENODEV,
	  { 0 },
	  "two checkpointed GPUs" },
	{ "an ordinal map without its checkpointed ordinal: refused",
	  2,
	  { 0xa0, 0xa1 },
	  { 0, 1 },
	  2,
	  { 0xb0, 0xb1 },
	  2,
	  { { true, 0, 1 }, { true, 5, 0 } },
	  -ENODEV,
	  { 0 },
	  "(ordinal 1)" },
	{ "a UUID map and no GPU visible: refused",
	  1,
	  { 0xa0 },
	  { 0 },
	  0,
	  { 0 },
	  1,
	  { { false, 0xa0, 0xb0 } },
	  -ENODEV,
	  { 0 },
	  "not visible here" },
	{ "an ordinal map and no GPU visible: refused",
	  1,
	  { 0xa0 },
	  { 0 },
	  0,
	  { 0 },
	  1,
	  { { true, 0, 0 } },
	  -ENODEV,
	  { 0 },
	  "only 0 GPUs are visible" },
};

static CUuuid U(int tag)
{
	CUuuid u;

	memset(&u, 0, sizeof(u));
	u.bytes[0] = (char)tag;
	return u;
}

static bool check_case(const struct plan_case *c, char *err, size_t len)
{
	struct cs_device_pair map[MAXD];
	CUuuid vis[MAXD], dest[CS_MAX_DEVICES];
	struct cs_manifest m;
	unsigned i;
	int ret;

	memset(&m, 0, sizeof(m));
	memset(map, 0, sizeof(map));
	err[0] = '\0';
	m.ndev = c->ndev;
	for (i = 0; i < c->ndev; i++) {
		m.dev[i].uuid = U(c->dev[i]);
		m.dev[i].ordinal = c->ord[i];
	}
	for (i = 0; i < (unsigned)c->nvis; i++)
		vis[i] = U(c->vis[i]);
	for (i = 0; i < c->nmap; i++) {
		map[i].by_ordinal = c->map[i].by_ordinal;
		if (c->map[i].by_ordinal) {
			map[i].from_ordinal = c->map[i].from;
			map[i].to_ordinal = c->map[i].to;
		} else {
			map[i].from = U(c->map[i].from);
			map[i].to = U(c->map[i].to);
		}
	}
	ret = cs_dev_plan_restore(&m, map, c->nmap, vis, c->nvis, dest, err, len);
	if (ret != c->ret)
		return false;
	if (ret)
		return c->words && strstr(err, c->words);
	for (i = 0; i < c->ndev; i++)
		if (memcmp(&dest[i], &(CUuuid){ .bytes = { (char)c->dest[i] } }, sizeof(CUuuid)))
			return false;
	return true;
}

int main(void)
{
	unsigned i, n = sizeof(cases) / sizeof(cases[0]);
	char err[512];

	tap_plan((int)n);
	for (i = 0; i < n; i++) {
		bool ok = check_case(&cases[i], err, sizeof(err));

		tap_ok(ok, "%s%s%s", cases[i].name, err[0] ? ": " : "", err);
	}
	return tap_done();
}

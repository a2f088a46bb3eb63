// SPDX-License-Identifier: MIT
/* placement.c - where a restore sends each checkpointed GPU (see placement.h) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "placement.h"
#include "cuda_ops.h"

/* "141.0 GiB", "512.0 MiB": a size as a person reads it (b: a buffer of SIZE_TEXT) */
#define SIZE_TEXT 24
static const char *size_text(uint64_t bytes, char *b)
{
	if (bytes >= (1ull << 30))
		snprintf(b, SIZE_TEXT, "%.1f GiB", (double)bytes / 1073741824.0);
	else
		snprintf(b, SIZE_TEXT, "%.1f MiB", (double)bytes / 1048576.0);
	return b;
}

static int fail(int err, char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int fail(int err, char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return err;
}

static bool same_uuid(const CUuuid *a, const CUuuid *b)
{
	return !memcmp(a, b, sizeof(*a));
}

/* why h cannot take w's GPU (false), or true; w without facts fits anywhere its UUID rules allow */
static bool fits(const struct cs_place_want *w, const struct cs_gpu_facts *h, char *why, size_t len)
{
	const struct cs_gpu_facts *f = &w->facts;
	char a[SIZE_TEXT], b[SIZE_TEXT];

	if (h->closed)
		return fail(0, why, len, "no device node in the restored process's /dev (minor %d)",
			    h->minor),
		       false;
	if (!w->has_facts)
		return true;
	if (strcmp(f->name, h->name))
		return fail(0, why, len, "another product (%s)", h->name), false;
	if (f->cc_major != h->cc_major || f->cc_minor != h->cc_minor)
		return fail(0, why, len, "compute capability %u.%u", h->cc_major, h->cc_minor), false;
	if (f->total_memory != h->total_memory)
		return fail(0, why, len, "%s of memory", size_text(h->total_memory, a)), false;
	if (h->mig)
		return fail(0, why, len, "MIG mode on"), false;
	if (f->used_bytes > h->free_memory)
		return fail(0, why, len, "%s free, %s needed", size_text(h->free_memory, a),
			    size_text(f->used_bytes, b)),
		       false;
	return true;
}

static void name_want(const struct cs_place_want *w, char *out, size_t len)
{
	char u[CS_UUID_STRLEN], a[SIZE_TEXT], b[SIZE_TEXT];

	cs_uuid_format(&w->facts.uuid, u);
	if (w->has_facts)
		snprintf(out, len, "checkpointed GPU %s (%s, compute capability %u.%u, %s, %s used)", u,
			 w->facts.name, w->facts.cc_major, w->facts.cc_minor,
			 size_text(w->facts.total_memory, a), size_text(w->facts.used_bytes, b));
	else
		snprintf(out, len, "checkpointed GPU %s", u);
}

/* ---- an explicit map ------------------------------------------------------------------------- */

static int map_target(const struct cs_device_pair *p, const struct cs_gpu_facts *host, unsigned nhost)
{
	for (unsigned h = 0; h < nhost; h++)
		if (p->by_ordinal ? host[h].ordinal == p->to_ordinal : same_uuid(&host[h].uuid, &p->to))
			return (int)h;
	return -1;
}

static const struct cs_device_pair *map_pair(const struct cs_place_want *w, const struct cs_device_pair *map,
					     unsigned nmap)
{
	for (unsigned k = 0; k < nmap; k++)
		if (map[k].by_ordinal ? map[k].from_ordinal == w->facts.ordinal
				      : same_uuid(&map[k].from, &w->facts.uuid))
			return &map[k];
	return NULL;
}

static int place_by_map(const struct cs_place_want *want, unsigned nwant, const struct cs_gpu_facts *host,
			unsigned nhost, const struct cs_device_pair *map, unsigned nmap, int *dest,
			char (*how)[CS_PLACE_HOW_MAX], char *why, size_t len)
{
	char w[256], u[CS_UUID_STRLEN], no[160];
	const struct cs_device_pair *p;

	for (unsigned i = 0; i < nwant; i++) {
		name_want(&want[i], w, sizeof(w));
		p = map_pair(&want[i], map, nmap);
		if (!p)
			return fail(
			    -EINVAL, why, len,
			    "device_map does not name %s: the driver needs every checkpointed GPU in the map",
			    w);
		dest[i] = map_target(p, host, nhost);
		if (dest[i] < 0 && p->by_ordinal)
			return fail(-ENODEV, why, len,
				    "device_map sends %s to GPU %d, which this host does not have", w,
				    p->to_ordinal);
		cs_uuid_format(&p->to, u);
		if (dest[i] < 0)
			return fail(-ENODEV, why, len, "device_map sends %s to %s, which is not visible here",
				    w, u);
		for (unsigned j = 0; j < i; j++)
			if (dest[j] == dest[i])
				return fail(-EINVAL, why, len,
					    "device_map sends two checkpointed GPUs to GPU %d",
					    host[dest[i]].ordinal);
		if (host[dest[i]].closed)
			return fail(-ENODEV, why, len,
				    "device_map sends %s to GPU %d, which the restored process cannot open: "
				    "its /dev has no device node of minor %d (/dev/nvidia%d on this host); "
				    "give the container that GPU or map onto one it has",
				    w, host[dest[i]].ordinal, host[dest[i]].minor, host[dest[i]].minor);
		if (!fits(&want[i], &host[dest[i]], no, sizeof(no)))
			return fail(-ENODEV, why, len, "device_map sends %s to GPU %d, which has %s", w,
				    host[dest[i]].ordinal, no);
		snprintf(how[i], CS_PLACE_HOW_MAX, "device_map");
	}
	return 0;
}

/* ---- images without facts (format < 1.4): their UUIDs only --------------------------------- */

/* the first GPU the restored process can open, or -1 */
static int first_open(const struct cs_gpu_facts *host, unsigned nhost)
{
	for (unsigned h = 0; h < nhost; h++)
		if (!host[h].closed)
			return (int)h;
	return -1;
}

static int place_by_uuid(const struct cs_place_want *want, unsigned nwant, const struct cs_gpu_facts *host,
			 unsigned nhost, int *dest, char (*how)[CS_PLACE_HOW_MAX], char *why, size_t len)
{
	char w[256];
	int ord;

	for (unsigned i = 0; i < nwant; i++) {
		dest[i] = -1;
		for (unsigned h = 0; h < nhost && dest[i] < 0; h++)
			if (same_uuid(&host[h].uuid, &want[i].facts.uuid) && !host[h].closed)
				dest[i] = (int)h;
		if (dest[i] >= 0) {
			snprintf(how[i], CS_PLACE_HOW_MAX, "the same UUID (images without GPU facts)");
			continue;
		}
		name_want(&want[i], w, sizeof(w));
		if (nwant != 1)
			return fail(
			    -ENODEV, why, len,
			    "%s is not visible here and the images (format before 1.4) hold no facts to "
			    "match another GPU by: set device_map (OLD=NEW UUIDs or ordinals)",
			    w);
		if (!nhost)
			return fail(-ENODEV, why, len, "no GPU visible to restore %s onto", w);
		ord = want[i].facts.ordinal;
		dest[i] =
		    ord >= 0 && (unsigned)ord < nhost && !host[ord].closed ? ord : first_open(host, nhost);
		if (dest[i] < 0)
			return fail(-ENODEV, why, len,
				    "no GPU the restored process can open to restore %s onto", w);
		snprintf(how[i], CS_PLACE_HOW_MAX,
			 "GPU %d, its ordinal or the first it can open (images without GPU facts)", dest[i]);
	}
	return 0;
}

/* ---- automatic: same product, capability and memory --------------------------------------- */

struct search {
	const struct cs_place_want *want;
	unsigned nwant;
	const struct cs_gpu_facts *host;
	unsigned nhost;
	int *dest;
	bool used[CS_MAX_DEVICES];
	unsigned steps;
};

/* how much w prefers h: its own GPU 2, its ordinal 1, any other 0 */
static int kinship(const struct cs_place_want *w, const struct cs_gpu_facts *h)
{
	return same_uuid(&h->uuid, &w->facts.uuid) ? 2 : h->ordinal == w->facts.ordinal;
}

/* y goes before x for w: closer kin, else more free memory */
static bool before(const struct cs_place_want *w, const struct cs_gpu_facts *y, const struct cs_gpu_facts *x)
{
	int kx = kinship(w, x), ky = kinship(w, y);

	return ky > kx || (ky == kx && y->free_memory > x->free_memory);
}

/* want i's candidates, best first: the same UUID, the same ordinal, then by free memory */
static unsigned candidates(const struct search *s, unsigned i, int *order)
{
	const struct cs_place_want *w = &s->want[i];
	unsigned n = 0, a, b;
	char no[160];

	for (unsigned h = 0; h < s->nhost; h++)
		if (fits(w, &s->host[h], no, sizeof(no)))
			order[n++] = (int)h;
	for (a = 1; a < n; a++) /* insertion sort by preference: n is at most 64 */
		for (b = a; b > 0 && before(w, &s->host[order[b]], &s->host[order[b - 1]]); b--) {
			int t = order[b - 1];

			order[b - 1] = order[b];
			order[b] = t;
		}
	return n;
}

static bool assign(struct search *s, unsigned i)
{
	int order[CS_MAX_DEVICES];
	unsigned n;

	if (i == s->nwant)
		return true;
	if (++s->steps > 100000) /* 64 identical GPUs at most: far below; a bound all the same */
		return false;
	n = candidates(s, i, order);
	for (unsigned k = 0; k < n; k++) {
		if (s->used[order[k]])
			continue;
		s->used[order[k]] = true;
		s->dest[i] = order[k];
		if (assign(s, i + 1))
			return true;
		s->used[order[k]] = false;
	}
	return false;
}

/* why want i has no place: each GPU of the host and what it lacks (or who took it) */
static int no_place(const struct search *s, char *why, size_t len)
{
	char w[256], no[160], u[CS_UUID_STRLEN];
	size_t n;
	unsigned i;

	for (i = 0; i < s->nwant; i++) { /* the first GPU with no candidate at all, else the first */
		int order[CS_MAX_DEVICES];

		if (!candidates(s, i, order))
			break;
	}
	if (i == s->nwant)
		i = 0;
	name_want(&s->want[i], w, sizeof(w));
	n = (size_t)snprintf(why, len, "%s has no place here:", w);
	if (!s->nhost && n < len)
		snprintf(why + n, len - n, " no GPU is visible");
	for (unsigned h = 0; h < s->nhost && n < len; h++) {
		cs_uuid_format(&s->host[h].uuid, u);
		if (fits(&s->want[i], &s->host[h], no, sizeof(no)))
			snprintf(no, sizeof(no), "it would fit, but the other checkpointed GPUs need it");
		n += (size_t)snprintf(why + n, len - n, "%s GPU %d (%s): %s", h ? ";" : "",
				      s->host[h].ordinal, u, no);
	}
	return -ENODEV;
}

static void say_how(const struct search *s, char (*how)[CS_PLACE_HOW_MAX])
{
	char a[SIZE_TEXT];

	for (unsigned i = 0; i < s->nwant; i++) {
		const struct cs_gpu_facts *h = &s->host[s->dest[i]];
		const struct cs_place_want *w = &s->want[i];

		if (same_uuid(&h->uuid, &w->facts.uuid))
			snprintf(how[i], CS_PLACE_HOW_MAX, "the same GPU (UUID)");
		else if (h->ordinal == w->facts.ordinal)
			snprintf(how[i], CS_PLACE_HOW_MAX,
				 "the same ordinal, same product, compute capability and memory");
		else
			snprintf(how[i], CS_PLACE_HOW_MAX,
				 "the same product, compute capability and memory, %s free (the most of "
				 "those left)",
				 size_text(h->free_memory, a));
	}
}

int cs_place(const struct cs_place_want *want, unsigned nwant, const struct cs_gpu_facts *host,
	     unsigned nhost, const struct cs_device_pair *map, unsigned nmap, int *dest,
	     char (*how)[CS_PLACE_HOW_MAX], char *why, size_t whylen)
{
	struct search s = { .want = want, .nwant = nwant, .host = host, .nhost = nhost, .dest = dest };
	bool facts = nwant > 0;

	if (nwant > CS_MAX_DEVICES || nhost > CS_MAX_DEVICES)
		return fail(-EINVAL, why, whylen, "more than %d GPUs", CS_MAX_DEVICES);
	if (nmap)
		return place_by_map(want, nwant, host, nhost, map, nmap, dest, how, why, whylen);
	for (unsigned i = 0; i < nwant; i++)
		facts = facts && want[i].has_facts;
	if (!facts)
		return place_by_uuid(want, nwant, host, nhost, dest, how, why, whylen);
	if (!assign(&s, 0))
		return no_place(&s, why, whylen);
	say_how(&s, how);
	return 0;
}

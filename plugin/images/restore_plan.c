// SPDX-License-Identifier: MIT
/* restore_plan.c - can this host restore these images, and onto which GPUs (see restore_plan.h) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "restore_plan.h"

static void add_line(char (*list)[CS_PLAN_REASON_MAX], unsigned *n, unsigned max, size_t len, const char *s)
{
	for (unsigned i = 0; i < *n; i++)
		if (!strncmp(list[i], s, len - 1))
			return; /* every process of a tree breaks a host rule the same way: say it once */
	if (*n < max)
		snprintf(list[(*n)++], len, "%s", s);
}

static void reason(struct cs_restore_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason(struct cs_restore_plan *p, const char *fmt, ...)
{
	char s[CS_PLAN_REASON_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	add_line(p->reason, &p->nreason, CS_PLAN_REASONS, CS_PLAN_REASON_MAX, s);
}

static void note(struct cs_restore_plan *p, const char *s)
{
	for (unsigned i = 0; i < p->nnote; i++)
		if (!strcmp(p->note[i], s))
			return;
	if (p->nnote < CS_PLAN_NOTES)
		snprintf(p->note[p->nnote++], CS_PLAN_NOTE_MAX, "%s", s);
}

/* ---- the host rules ----------------------------------------------------------------------- */

static void judge_driver(const struct cs_manifest *m, const struct cs_restore_host *h,
			 struct cs_restore_plan *p)
{
	const struct cs_host_facts *img = &m->host, *here = &h->host;

	if (m->mode == CS_MODE_CUSTOM && h->cuda_version && !h->custom_storage)
		reason(p,
		       "the images were made with CUDA CustomStorage, which this driver (CUDA %d.%d) lacks: "
		       "restore them on a host with a CUDA 13.4 (R615+) driver",
		       h->cuda_version / 1000, h->cuda_version % 1000 / 10);
	if (h->cuda_version && m->driver_version > h->cuda_version)
		reason(p,
		       "the images were dumped with a CUDA %d.%d driver and this one offers CUDA %d.%d: a "
		       "restore needs the same CUDA driver API or a later one",
		       m->driver_version / 1000, m->driver_version % 1000 / 10, h->cuda_version / 1000,
		       h->cuda_version % 1000 / 10);
	if (!img->known || !here->known || !img->branch || !here->branch)
		return;
	if (img->branch != here->branch)
		reason(p,
		       "the images come from driver %s (branch %u) and this host runs %s (branch %u): a "
		       "restore needs the same driver branch, at the images' version or later",
		       img->driver_version, img->branch, here->driver_version, here->branch);
	else if (cs_facts_version_cmp(here->driver_version, img->driver_version) < 0)
		reason(p,
		       "this host's driver %s is older than the images' %s: a restore needs %s or a later "
		       "driver of branch %u",
		       here->driver_version, img->driver_version, img->driver_version, img->branch);
}

static void judge_host(const struct cs_manifest *m, const struct cs_restore_host *h,
		       struct cs_restore_plan *p)
{
	if (!m->host.known)
		note(p, "the images (format before 1.4) record neither their host nor their GPUs' "
			"product and memory: only their UUIDs and CUDA version are judged");
	if (m->host.known && h->host.known && m->host.arch[0] && h->host.arch[0] &&
	    strcmp(m->host.arch, h->host.arch))
		reason(p,
		       "the images come from a %s host and this one is %s: GPU state restores only on "
		       "the CPU architecture it was dumped on",
		       m->host.arch, h->host.arch);
	judge_driver(m, h, p);
	if (m->host.known && h->host.known && !strcmp(m->host.driver_version, h->host.driver_version) &&
	    m->host.libcuda_id[0] && h->host.libcuda_id[0] && strcmp(m->host.libcuda_id, h->host.libcuda_id))
		note(p, "the driver library here is another build of the images' driver version");
}

/* ---- the GPUs to place: every distinct checkpointed GPU of the tree ------------------------ */

static int want_index(struct cs_restore_plan *p, const CUuuid *u)
{
	for (unsigned i = 0; i < p->n; i++)
		if (!memcmp(&p->want[i].facts.uuid, u, sizeof(*u)))
			return (int)i;
	if (p->n == CS_MAX_DEVICES)
		return -1;
	memset(&p->want[p->n], 0, sizeof(p->want[p->n]));
	p->want[p->n].facts.uuid = *u;
	p->want[p->n].facts.ordinal = -1;
	p->want[p->n].facts.process_ordinal = -1;
	return (int)p->n++;
}

/* m's GPUs into the plan: its facts (format 1.4), else the UUIDs of its extents */
static int gather(const struct cs_manifest *m, struct cs_restore_plan *p)
{
	struct cs_place_want *w;
	unsigned i;
	int k;

	for (i = 0; i < m->ngpu; i++) {
		k = want_index(p, &m->gpu[i].uuid);
		if (k < 0)
			return -E2BIG;
		w = &p->want[k];
		if (!w->has_facts) {
			w->facts = m->gpu[i];
			w->facts.used_bytes = 0;
			w->has_facts = true;
		}
		w->facts.used_bytes += m->gpu[i].used_bytes; /* processes sharing it: all of theirs */
	}
	for (i = 0; !m->ngpu && i < m->ndev; i++) {
		k = want_index(p, &m->dev[i].uuid);
		if (k < 0)
			return -E2BIG;
		if (p->want[k].facts.ordinal < 0)
			p->want[k].facts.ordinal = m->dev[i].ordinal;
	}
	return 0;
}

static void say_no_driver(const struct cs_restore_host *h, struct cs_restore_plan *p)
{
	reason(p, "no usable NVIDIA driver here (%s): a restore needs one",
	       h->driver_error[0] ? h->driver_error : "cuInit failed");
}

int cs_restore_plan(const struct cs_manifest *const *m, unsigned nm, const struct cs_restore_host *h,
		    const struct cs_device_pair *map, unsigned nmap, struct cs_restore_plan *p)
{
	char why[CS_PLAN_REASON_MAX];
	int ret;

	memset(p, 0, sizeof(*p));
	if (!h->cuda_version)
		say_no_driver(h, p);
	for (unsigned i = 0; i < nm; i++) {
		judge_host(m[i], h, p);
		if (gather(m[i], p))
			reason(p, "the images' processes used more than %d GPUs", CS_MAX_DEVICES);
	}
	if (!h->cuda_version)
		return -ENODEV; /* no GPU to place on: that is the reason */
	ret = 0;
	if (p->n) /* placed even when a host rule failed: every reason is listed */
		ret = cs_place(p->want, p->n, h->gpu, h->ngpu, map, nmap, p->dest, p->how, why, sizeof(why));
	else if (nm)
		note(p, "the images record no GPUs (driver-managed, format before 1.4): the driver "
			"restores onto the GPUs with their UUIDs");
	if (ret)
		reason(p, "%s", why);
	if (p->nreason > (ret ? 1u : 0u))
		return -EPROTONOSUPPORT; /* a host rule failed */
	return ret;
}

int cs_restore_plan_dest(const struct cs_restore_plan *p, const struct cs_restore_host *h, const CUuuid *uuid,
			 CUuuid *dest)
{
	for (unsigned i = 0; i < p->n; i++)
		if (!memcmp(&p->want[i].facts.uuid, uuid, sizeof(*uuid))) {
			*dest = h->gpu[p->dest[i]].uuid;
			return 0;
		}
	return -ENOENT;
}

// SPDX-License-Identifier: MIT
/* restore_place.c - where a restore puts each checkpointed GPU (see restore_place.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_view.h"
#include "gpu_probe.h"
#include "imgset.h"
#include "log.h"
#include "restore_place.h"

/* this host: the driver, every visible GPU with its free memory now (NVML, when there is one) */
static void probe_host(struct cs_ctx *ctx, struct cs_restore_host *h)
{
	struct cs_nvml_ops nv, *nvp = NULL;
	char err[256];

	if (!cs_nvml_load(&nv, ctx->opt.libnvml[0] ? ctx->opt.libnvml : NULL, err, sizeof(err))) {
		if (nv.Init() == NVML_SUCCESS)
			nvp = &nv;
		else
			cs_nvml_unload(&nv);
	}
	if (!nvp)
		cs_warn("no NVML here (%s): GPUs are placed without their free memory or MIG mode", err);
	cs_probe_restore_host(&ctx->cuda, nvp, h);
	if (nvp) {
		nvp->Shutdown();
		cs_nvml_unload(nvp);
	}
}

/*
 * Only the GPUs the restored processes can open: those whose device node the /dev of pid (a
 * restored process, its root in place) holds. Nothing read (pid's /dev unreadable): false, every
 * GPU stays a candidate. true: h's GPUs marked.
 */
static bool restrict_to_view(pid_t pid, struct cs_restore_host *h)
{
	struct cs_device_view *v = calloc(1, sizeof(*v));
	char note[CS_VIEW_NOTE_MAX];
	int ret;

	if (!v) {
		cs_warn("placement: no memory to read pid %d's /dev: every GPU is a candidate", pid);
		return false;
	}
	ret = cs_devview_of_pid(pid, v);
	if (ret)
		cs_warn("placement: cannot read pid %d's /dev (%s): the GPUs are placed without knowing "
			"which ones the restored processes can open",
			pid, strerror(-ret));
	else
		cs_view_restrict(h, v, note, sizeof(note));
	if (!ret)
		cs_info("placement: %s", note);
	free(v);
	return !ret;
}

/* the manifests to place: every one the index lists, else the tree's */
static unsigned gather(struct cs_ctx *ctx, int dirfd, struct cs_proc *const *procs, unsigned n,
		       struct cs_manifest *own, const struct cs_manifest **out)
{
	const struct cs_imgset *set = &ctx->restore.set;
	char err[512];
	unsigned k = 0;

	if (cs_imgset_indexed(set)) {
		for (unsigned i = 0; i < set->ix.x.n && k < CS_MAX_PROCS; i++)
			if (!cs_imgset_read(set, dirfd, set->ix.x.ns_pid[i], &own[k], err, sizeof(err)))
				out[k] = &own[k], k++;
			else /* the restore says why, for that process */
				cs_manifest_free(&own[k]);
		return k;
	}
	for (unsigned i = 0; i < n && k < CS_MAX_PROCS; i++)
		if (procs[i]->m)
			out[k++] = procs[i]->m;
	return k;
}

static void say(const struct cs_placement *pl)
{
	const struct cs_restore_plan *p = &pl->plan;
	char a[CS_UUID_STRLEN], b[CS_UUID_STRLEN];

	for (unsigned i = 0; i < p->nnote; i++)
		cs_info("placement: %s", p->note[i]);
	if (pl->result) {
		for (unsigned i = 0; i < p->nreason; i++)
			cs_err("this host cannot restore these images: %s", p->reason[i]);
		cs_err("no process was touched; `cudastore check --images DIR` tells the same before a "
		       "restore");
		return;
	}
	for (unsigned i = 0; i < p->n; i++) {
		const struct cs_gpu_facts *h = &pl->host.gpu[p->dest[i]];

		cs_uuid_format(&p->want[i].facts.uuid, a);
		cs_uuid_format(&h->uuid, b);
		cs_info("placement: checkpointed GPU %s is restored onto %s (GPU %d here): %s", a, b,
			h->ordinal, p->how[i]);
	}
}

/* the plan for the manifests of dirfd (or of procs) on pl->host, said in the log */
static int plan(struct cs_ctx *ctx, struct cs_placement *pl, int dirfd, struct cs_proc *const *procs,
		unsigned n)
{
	const struct cs_manifest **ms = calloc(CS_MAX_PROCS, sizeof(*ms));
	struct cs_manifest *own = calloc(CS_MAX_PROCS, sizeof(*own));
	unsigned k;

	if (!ms || !own) {
		free(ms);
		free(own);
		cs_err("no memory to place the restore's GPUs");
		return -ENOMEM;
	}
	k = gather(ctx, dirfd, procs, n, own, ms);
	pl->result = cs_restore_plan(ms, k, &pl->host, ctx->opt.device_map, ctx->opt.ndevice_map, &pl->plan);
	say(pl);
	for (unsigned i = 0; i < CS_MAX_PROCS; i++)
		cs_manifest_free(&own[i]);
	free(own);
	free(ms);
	return pl->result;
}

/* a GPU the accepted plan sends something to is closed to the restored processes */
static bool plan_uses_closed(const struct cs_placement *pl)
{
	for (unsigned i = 0; !pl->result && i < pl->plan.n; i++)
		if (pl->host.gpu[pl->plan.dest[i]].closed)
			return true;
	return false;
}

/*
 * The warm-up placed before any restored process had its root (criu sets it up later than
 * POST_FORKING): now that one has, read its /dev, and place again when the plan uses a GPU it
 * cannot open. A plan that failed stays failed (fewer GPUs cannot help).
 */
static int review(struct cs_ctx *ctx, struct cs_placement *pl, int dirfd, struct cs_proc *const *procs,
		  unsigned n)
{
	pl->viewed = true;
	if (!restrict_to_view(procs[0]->pid, &pl->host) || !plan_uses_closed(pl))
		return pl->result;
	cs_info("placement: the warm-up's placement uses GPUs the restored processes cannot open; "
		"placed again");
	return plan(ctx, pl, dirfd, procs, n);
}

int cs_place_restore(struct cs_ctx *ctx, int dirfd, struct cs_proc *const *procs, unsigned n)
{
	struct cs_placement *pl = ctx->restore.place;

	if (pl)
		return pl->viewed || !n ? pl->result : review(ctx, pl, dirfd, procs, n);
	pl = calloc(1, sizeof(*pl));
	if (!pl) {
		cs_err("no memory to place the restore's GPUs");
		return -ENOMEM;
	}
	probe_host(ctx, &pl->host);
	if (n) { /* a restored process, its root in place: its /dev says which GPUs it can open */
		restrict_to_view(procs[0]->pid, &pl->host);
		pl->viewed = true;
	}
	ctx->restore.place = pl;
	return plan(ctx, pl, dirfd, procs, n);
}

int cs_place_dest(const struct cs_ctx *ctx, const CUuuid *from, CUuuid *to)
{
	const struct cs_placement *pl = ctx->restore.place;

	if (!pl || pl->result)
		return -ENOENT;
	return cs_restore_plan_dest(&pl->plan, &pl->host, from, to);
}

unsigned cs_place_pairs(const struct cs_ctx *ctx, pid_t pid, const struct cs_manifest *m,
			CUcheckpointGpuPair *pairs)
{
	bool moved = false;
	unsigned i;

	for (i = 0; i < m->ngpu; i++) {
		pairs[i].oldUuid = m->gpu[i].uuid;
		if (cs_place_dest(ctx, &m->gpu[i].uuid, &pairs[i].newUuid)) {
			cs_warn("pid %d: no placement for its GPUs; the driver restores onto the same ones",
				pid);
			return 0;
		}
		moved |= !!memcmp(&pairs[i].oldUuid, &pairs[i].newUuid, sizeof(CUuuid));
	}
	return moved ? m->ngpu : 0;
}

void cs_place_free(struct cs_ctx *ctx)
{
	free(ctx->restore.place);
	ctx->restore.place = NULL;
}

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
#include "restore_view.h"

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

/* only the GPUs the restored processes can open: those whose device node their /dev holds */
static void restrict_to_view(struct cs_ctx *ctx, struct cs_proc *const *procs, unsigned n,
			     struct cs_restore_host *h)
{
	struct cs_device_view *v = calloc(1, sizeof(*v));
	char note[CS_VIEW_NOTE_MAX];

	if (!v) {
		cs_warn("placement: no memory to read the restored processes' /dev: every GPU is a "
			"candidate");
		return;
	}
	if (!cs_restore_view(ctx->criu_pid, n ? procs[0]->pid : 0, v)) {
		cs_view_restrict(h, v, note, sizeof(note));
		cs_info("placement: %s", note);
	}
	free(v);
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

int cs_place_restore(struct cs_ctx *ctx, int dirfd, struct cs_proc *const *procs, unsigned n)
{
	const struct cs_manifest **ms = NULL;
	struct cs_manifest *own = NULL;
	struct cs_placement *pl;
	unsigned k = 0;

	if (ctx->restore.place)
		return ctx->restore.place->result;
	pl = calloc(1, sizeof(*pl));
	ms = calloc(CS_MAX_PROCS, sizeof(*ms));
	own = calloc(CS_MAX_PROCS, sizeof(*own));
	if (!pl || !ms || !own) {
		free(pl);
		free(ms);
		free(own);
		cs_err("no memory to place the restore's GPUs");
		return -ENOMEM;
	}
	probe_host(ctx, &pl->host);
	restrict_to_view(ctx, procs, n, &pl->host);
	k = gather(ctx, dirfd, procs, n, own, ms);
	pl->result = cs_restore_plan(ms, k, &pl->host, ctx->opt.device_map, ctx->opt.ndevice_map, &pl->plan);
	ctx->restore.place = pl;
	say(pl);
	for (unsigned i = 0; i < CS_MAX_PROCS; i++)
		cs_manifest_free(&own[i]);
	free(own);
	free(ms);
	return pl->result;
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

// SPDX-License-Identifier: MIT
/* dump_facts.c - what a dump records of the host and each process's GPUs (see dump_facts.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_facts.h"
#include "dump_plan.h"
#include "gpu_probe.h"
#include "log.h"
#include "procfs.h"

static void probe_host(struct cs_ctx *ctx, pid_t pid)
{
	struct cs_dump_facts *f = &ctx->dump.facts;
	const struct cs_nvml_ops *nv = cs_dump_plan_nvml(ctx, pid);
	int i;

	f->probed = true;
	cs_probe_host(&ctx->cuda, nv, &f->host);
	if (cs_dev_init(&ctx->gpus)) { /* it said why */
		cs_warn("pid %d: the images will not record this host's GPUs (no cuInit)", pid);
		return;
	}
	for (i = 0; i < ctx->gpus.ndev && f->ngpu < CS_MAX_DEVICES; i++)
		if (!cs_probe_gpu(&ctx->cuda, nv, i, &f->gpu[f->ngpu]))
			f->ngpu++;
	cs_debug("pid %d: host facts: driver %s (branch %u), %s, %s, %u GPU(s)", pid,
		 f->host.driver_version[0] ? f->host.driver_version : "unknown", f->host.branch,
		 f->host.libcuda_id[0] ? f->host.libcuda_id : "libcuda id unknown", f->host.arch, f->ngpu);
}

void cs_dump_facts_probe(struct cs_ctx *ctx, struct cs_proc *p)
{
	char order[32];
	int ret;

	if (!ctx->dump.facts.probed)
		probe_host(ctx, p->pid);
	ret = cs_procfs_environ(p->pid, "CUDA_VISIBLE_DEVICES", p->dump.visible, sizeof(p->dump.visible));
	p->dump.has_visible = !ret;
	if (ret == -ENAMETOOLONG)
		cs_warn("pid %d: its CUDA_VISIBLE_DEVICES is longer than %zu bytes: not recorded", p->pid,
			sizeof(p->dump.visible) - 1);
	if (ret)
		p->dump.visible[0] = '\0';
	p->dump.pci_order = !cs_procfs_environ(p->pid, "CUDA_DEVICE_ORDER", order, sizeof(order)) &&
			    !strcmp(order, "PCI_BUS_ID");
}

/* ---- the ordinal the process saw each GPU as ------------------------------------------- */

static int by_bus_id(const void *a, const void *b, void *host)
{
	const struct cs_gpu_facts *g = host;

	return strcmp(g[*(const int *)a].bus_id, g[*(const int *)b].bus_id);
}

/* the host's GPUs (indexes into f->gpu) in the order the process enumerates all of them */
static void all_in_order(const struct cs_dump_facts *f, bool pci_order, int *order)
{
	for (unsigned i = 0; i < f->ngpu; i++)
		order[i] = (int)i;
	if (pci_order)
		qsort_r(order, f->ngpu, sizeof(*order), by_bus_id, (void *)f->gpu);
}

/* one CUDA_VISIBLE_DEVICES entry: an index into the enumeration, or a (prefix of a) GPU UUID */
static int entry_gpu(const struct cs_dump_facts *f, const int *order, const char *e)
{
	char u[CS_UUID_STRLEN], *end;
	unsigned long k;

	if (*e >= '0' && *e <= '9') {
		k = strtoul(e, &end, 10);
		return !*end && k < f->ngpu ? order[k] : -1;
	}
	if (strncmp(e, "GPU-", 4) || strlen(e) < 5)
		return -1; /* MIG-... or not a device: CUDA stops at it */
	for (unsigned i = 0; i < f->ngpu; i++) {
		cs_uuid_format(&f->gpu[i].uuid, u);
		if (!strncasecmp(u, e, strlen(e)))
			return (int)i;
	}
	return -1;
}

/* seen[i]: the ordinal the process saw host GPU i as, -1 for a GPU it did not see */
static void process_ordinals(const struct cs_dump_facts *f, const struct cs_proc *p, int *seen)
{
	char list[CS_FACT_VISIBLE_MAX], *save = NULL, *e;
	int order[CS_MAX_DEVICES], k = 0, g;

	all_in_order(f, p->dump.pci_order, order);
	for (unsigned i = 0; i < f->ngpu; i++)
		seen[i] = -1;
	if (!p->dump.has_visible) {
		for (unsigned i = 0; i < f->ngpu; i++)
			seen[order[i]] = (int)i;
		return;
	}
	snprintf(list, sizeof(list), "%s", p->dump.visible);
	for (e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		g = entry_gpu(f, order, e);
		if (g < 0)
			return; /* CUDA enumerates the entries before the first it cannot use */
		if (seen[g] < 0)
			seen[g] = k++;
	}
}

/* ---- the manifest's facts ------------------------------------------------------------ */

static int host_gpu(const struct cs_dump_facts *f, const CUuuid *u)
{
	for (unsigned i = 0; i < f->ngpu; i++)
		if (!memcmp(&f->gpu[i].uuid, u, sizeof(*u)))
			return (int)i;
	return -1;
}

/* the GPU with UUID u into m's facts, with used bytes of the process's memory on it */
static void add_gpu(const struct cs_dump_facts *f, const int *seen, const CUuuid *u, uint64_t used,
		    struct cs_manifest *m)
{
	int h = host_gpu(f, u);

	if (h < 0 || m->ngpu >= CS_MAX_DEVICES)
		return;
	m->gpu[m->ngpu] = f->gpu[h];
	m->gpu[m->ngpu].free_memory = 0; /* the restore host's, never recorded */
	m->gpu[m->ngpu].process_ordinal = seen[h];
	m->gpu[m->ngpu].used_bytes = used;
	m->ngpu++;
}

static uint64_t nvml_used(const struct cs_proc *p, const CUuuid *u)
{
	for (unsigned i = 0; i < p->dump.ndev_plan; i++)
		if (!memcmp(&p->dump.dev_plan[i], u, sizeof(*u)))
			return p->dump.used_plan[i];
	return 0;
}

void cs_dump_facts_fill(const struct cs_ctx *ctx, const struct cs_proc *p, struct cs_manifest *m)
{
	const struct cs_dump_facts *f = &ctx->dump.facts;
	int seen[CS_MAX_DEVICES];
	uint64_t used;
	unsigned i;

	if (!f->probed)
		return; /* not seen at PAUSE (found checkpointed by the driver): nothing known */
	m->host = f->host;
	m->host.has_visible = p->dump.has_visible;
	snprintf(m->host.visible_devices, sizeof(m->host.visible_devices), "%s", p->dump.visible);
	process_ordinals(f, p, seen);
	m->ngpu = 0;
	if (m->mode == CS_MODE_CUSTOM) {
		for (i = 0; i < m->ndev; i++) {
			used = nvml_used(p, &m->dev[i].uuid);
			add_gpu(f, seen, &m->dev[i].uuid, used > m->dev[i].size ? used : m->dev[i].size, m);
		}
		return;
	}
	for (i = 0; i < p->dump.ndev_plan; i++)
		add_gpu(f, seen, &p->dump.dev_plan[i], p->dump.used_plan[i], m);
}

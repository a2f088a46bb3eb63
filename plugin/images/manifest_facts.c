// SPDX-License-Identifier: MIT
/* manifest_facts.c - the manifest's host facts and their protobuf message (see manifest_facts.h) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest_facts.h"

struct cs_facts_pb {
	CsGpu gpu[CS_MAX_DEVICES];
	CsGpu *gpup[CS_MAX_DEVICES];
	CsHost host;
};

static void gpu_to_pb(const struct cs_gpu_facts *g, CsGpu *pg)
{
	cs_gpu__init(pg);
	pg->has_uuid = pg->has_cc_major = pg->has_cc_minor = pg->has_total_memory = 1;
	pg->has_mig = pg->has_ordinal = pg->has_process_ordinal = pg->has_used_bytes = 1;
	pg->uuid.len = sizeof(g->uuid.bytes);
	pg->uuid.data = (uint8_t *)g->uuid.bytes;
	pg->name = (char *)g->name;
	pg->cc_major = g->cc_major;
	pg->cc_minor = g->cc_minor;
	pg->total_memory = g->total_memory;
	pg->pci_bus_id = (char *)g->bus_id;
	pg->mig = g->mig;
	pg->ordinal = g->ordinal;
	pg->process_ordinal = g->process_ordinal;
	pg->used_bytes = g->used_bytes;
}

struct cs_facts_pb *cs_facts_to_pb(const struct cs_manifest *m, CsManifest *pm)
{
	struct cs_facts_pb *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	for (unsigned i = 0; i < m->ngpu && i < CS_MAX_DEVICES; i++) {
		gpu_to_pb(&m->gpu[i], &f->gpu[i]);
		f->gpup[i] = &f->gpu[i];
	}
	pm->n_gpus = m->ngpu;
	pm->gpus = f->gpup;
	if (!m->host.known)
		return f;
	cs_host__init(&f->host);
	f->host.driver_version = (char *)m->host.driver_version;
	f->host.has_driver_branch = 1;
	f->host.driver_branch = m->host.branch;
	f->host.libcuda_id = (char *)m->host.libcuda_id;
	f->host.arch = (char *)m->host.arch;
	if (m->host.has_visible)
		f->host.visible_devices = (char *)m->host.visible_devices;
	pm->host = &f->host;
	return f;
}

void cs_facts_pb_free(struct cs_facts_pb *f)
{
	free(f);
}

static int bad(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int check_gpu(const CsGpu *g, size_t i, char *err, size_t errlen)
{
	char what[48];

	if (!g->has_uuid || g->uuid.len != sizeof(((CUuuid *)0)->bytes))
		return bad(err, errlen, "manifest gpus[%zu].uuid is missing or not %zu bytes", i,
			   sizeof(((CUuuid *)0)->bytes));
	if (!g->name || !g->pci_bus_id || !g->has_cc_major || !g->has_total_memory || !g->has_ordinal)
		return bad(err, errlen,
			   "manifest gpus[%zu] lacks its name, bus id, compute capability, "
			   "memory or ordinal",
			   i);
	snprintf(what, sizeof(what), "manifest gpus[%zu].name", i);
	if (cs_facts_check_string(what, g->name, CS_FACT_NAME_MAX, err, errlen))
		return -EINVAL;
	snprintf(what, sizeof(what), "manifest gpus[%zu].pci_bus_id", i);
	if (cs_facts_check_string(what, g->pci_bus_id, CS_FACT_BUS_MAX, err, errlen))
		return -EINVAL;
	if (g->cc_major > 99 || g->cc_minor > 99 || g->total_memory > CS_MAX_DEVICE_BYTES ||
	    g->used_bytes > CS_MAX_DEVICE_BYTES)
		return bad(err, errlen,
			   "manifest gpus[%zu]: compute capability %u.%u or memory %llu bytes out of range",
			   i, g->cc_major, g->cc_minor, (unsigned long long)g->total_memory);
	if (g->ordinal < 0 || g->ordinal >= CS_MAX_DEVICES || g->process_ordinal < -1 ||
	    g->process_ordinal >= CS_MAX_DEVICES)
		return bad(err, errlen, "manifest gpus[%zu]: ordinal %d or process_ordinal %d out of range",
			   i, g->ordinal, g->process_ordinal);
	return 0;
}

static int check_host(const CsHost *h, char *err, size_t errlen)
{
	if (!h->driver_version || !h->libcuda_id || !h->arch || !h->has_driver_branch)
		return bad(err, errlen, "manifest host lacks its driver version, branch, libcuda or arch");
	if (cs_facts_check_string("manifest host.driver_version", h->driver_version, CS_FACT_DRIVER_MAX, err,
				  errlen) ||
	    cs_facts_check_string("manifest host.libcuda_id", h->libcuda_id, CS_FACT_LIBCUDA_MAX, err,
				  errlen) ||
	    cs_facts_check_string("manifest host.arch", h->arch, CS_FACT_ARCH_MAX, err, errlen) ||
	    (h->visible_devices && cs_facts_check_string("manifest host.visible_devices", h->visible_devices,
							 CS_FACT_VISIBLE_MAX, err, errlen)))
		return -EINVAL;
	if (h->driver_branch != cs_facts_branch(h->driver_version))
		return bad(err, errlen, "manifest host.driver_branch is %u, its driver version '%s' says %u",
			   h->driver_branch, h->driver_version, cs_facts_branch(h->driver_version));
	return 0;
}

static bool listed(const CsManifest *pm, const ProtobufCBinaryData *uuid)
{
	for (size_t i = 0; i < pm->n_gpus; i++)
		if (pm->gpus[i]->uuid.len == uuid->len &&
		    !memcmp(pm->gpus[i]->uuid.data, uuid->data, uuid->len))
			return true;
	return false;
}

int cs_facts_check_pb(const CsManifest *pm, char *err, size_t errlen)
{
	if (pm->n_gpus > CS_MAX_DEVICES)
		return bad(err, errlen, "manifest has %zu gpus, the limit is %d", pm->n_gpus, CS_MAX_DEVICES);
	for (size_t i = 0; i < pm->n_gpus; i++) {
		if (check_gpu(pm->gpus[i], i, err, errlen))
			return -EINVAL;
		for (size_t j = 0; j < i; j++)
			if (!memcmp(pm->gpus[j]->uuid.data, pm->gpus[i]->uuid.data, pm->gpus[i]->uuid.len))
				return bad(err, errlen, "manifest gpus[%zu] and gpus[%zu] are one GPU", j, i);
	}
	if (pm->host && check_host(pm->host, err, errlen))
		return -EINVAL;
	/* a manifest that records its GPUs records each GPU its extents came from */
	for (size_t i = 0; pm->n_gpus && i < pm->n_devices; i++)
		if (!listed(pm, &pm->devices[i]->uuid))
			return bad(err, errlen, "manifest devices[%zu]'s GPU is not among its gpus", i);
	return 0;
}

void cs_facts_from_pb(const CsManifest *pm, struct cs_manifest *m)
{
	m->ngpu = (unsigned)pm->n_gpus;
	for (size_t i = 0; i < pm->n_gpus; i++) {
		const CsGpu *pg = pm->gpus[i];
		struct cs_gpu_facts *g = &m->gpu[i];

		memcpy(g->uuid.bytes, pg->uuid.data, sizeof(g->uuid.bytes));
		snprintf(g->name, sizeof(g->name), "%s", pg->name);
		g->cc_major = pg->cc_major;
		g->cc_minor = pg->cc_minor;
		g->total_memory = pg->total_memory;
		snprintf(g->bus_id, sizeof(g->bus_id), "%s", pg->pci_bus_id);
		g->mig = pg->has_mig && pg->mig;
		g->ordinal = pg->ordinal;
		g->process_ordinal = pg->has_process_ordinal ? pg->process_ordinal : -1;
		g->used_bytes = pg->used_bytes;
	}
	if (!pm->host)
		return;
	m->host.known = true;
	snprintf(m->host.driver_version, sizeof(m->host.driver_version), "%s", pm->host->driver_version);
	m->host.branch = pm->host->driver_branch;
	snprintf(m->host.libcuda_id, sizeof(m->host.libcuda_id), "%s", pm->host->libcuda_id);
	snprintf(m->host.arch, sizeof(m->host.arch), "%s", pm->host->arch);
	m->host.has_visible = pm->host->visible_devices != NULL;
	if (m->host.has_visible)
		snprintf(m->host.visible_devices, sizeof(m->host.visible_devices), "%s",
			 pm->host->visible_devices);
}

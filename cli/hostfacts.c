// SPDX-License-Identifier: MIT
/* hostfacts.c - a manifest's host and GPU facts (format 1.4), as text and as JSON (see cli.h) */
#include <stdio.h>

#include "cli.h"
#include "manifest.h"

#define GIB(b) ((double)(b) / 1073741824.0)

void cli_facts_text(const struct cs_manifest *m)
{
	const struct cs_host_facts *h = &m->host;
	char u[CS_UUID_STRLEN], a[32];

	if (!h->known) {
		cli_line("  host:           not recorded (format %u.%u; from 1.4 on the images record it)",
			 m->format_major, m->format_minor);
		return;
	}
	cli_line("  host:           driver %s (branch %u), %s, libcuda %s",
		 h->driver_version[0] ? h->driver_version : "unknown", h->branch,
		 h->arch[0] ? h->arch : "unknown architecture", h->libcuda_id[0] ? h->libcuda_id : "unknown");
	if (h->has_visible)
		cli_line("  visible:        CUDA_VISIBLE_DEVICES=%s", h->visible_devices);
	for (unsigned i = 0; i < m->ngpu; i++) {
		const struct cs_gpu_facts *g = &m->gpu[i];

		cs_uuid_format(&g->uuid, u);
		cli_line("  GPU %u:          %s, %s, compute capability %u.%u, %.1f GiB, bus %s%s", i, u,
			 g->name, g->cc_major, g->cc_minor, GIB(g->total_memory),
			 g->bus_id[0] ? g->bus_id : "unknown", g->mig ? ", MIG on" : "");
		if (g->process_ordinal >= 0)
			snprintf(a, sizeof(a), "%d", g->process_ordinal);
		else
			snprintf(a, sizeof(a), "unknown");
		cli_line("    ordinal %d on its host, %s to the process; %.2f GiB of it used", g->ordinal, a,
			 GIB(g->used_bytes));
	}
	if (!m->ngpu)
		cli_line("  GPUs:           not recorded (NVML listed none for the process)");
}

void cli_facts_json(json_object *p, const struct cs_manifest *m)
{
	const struct cs_host_facts *h = &m->host;
	char u[CS_UUID_STRLEN];
	json_object *o, *arr, *g;

	if (!h->known) {
		cli_jnull(p, "host");
		cli_jnull(p, "gpus");
		return;
	}
	o = cli_jobj(p, "host");
	cli_jstr(o, "driver_version", h->driver_version[0] ? h->driver_version : NULL);
	cli_jint(o, "driver_branch", h->branch);
	cli_jstr(o, "libcuda_id", h->libcuda_id[0] ? h->libcuda_id : NULL);
	cli_jstr(o, "arch", h->arch[0] ? h->arch : NULL);
	cli_jstr(o, "cuda_visible_devices", h->has_visible ? h->visible_devices : NULL);
	arr = cli_jarr(p, "gpus");
	for (unsigned i = 0; i < m->ngpu; i++) {
		const struct cs_gpu_facts *f = &m->gpu[i];

		g = cli_jobj(arr, NULL);
		cs_uuid_format(&f->uuid, u);
		cli_jstr(g, "uuid", u);
		cli_jstr(g, "name", f->name);
		cli_jint(g, "cc_major", f->cc_major);
		cli_jint(g, "cc_minor", f->cc_minor);
		cli_ju64(g, "total_memory", f->total_memory);
		cli_jstr(g, "pci_bus_id", f->bus_id[0] ? f->bus_id : NULL);
		cli_jbool(g, "mig", f->mig);
		cli_jint(g, "ordinal", f->ordinal);
		if (f->process_ordinal >= 0)
			cli_jint(g, "process_ordinal", f->process_ordinal);
		else
			cli_jnull(g, "process_ordinal");
		cli_ju64(g, "used_bytes", f->used_bytes);
	}
}

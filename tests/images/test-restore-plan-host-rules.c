// SPDX-License-Identifier: MIT
/*
 * Can a host restore these images (restore_plan.h), from a table of hosts: the same host, a newer
 * driver of the branch, an older one, another branch, an older CUDA driver API, another CPU
 * architecture, no CustomStorage, no driver at all, every reason at once, a tree whose processes
 * share a GPU (their memory added up), images without facts (judged by UUID, with a note), and
 * driver-managed images that record no GPU.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../tap.h"
#include "restore_plan.h"

#define GiB (1ull << 30)

static struct cs_gpu_facts h200(int tag, int ordinal, uint64_t free, uint64_t used)
{
	struct cs_gpu_facts g;

	memset(&g, 0, sizeof(g));
	g.uuid.bytes[0] = (char)tag;
	snprintf(g.name, sizeof(g.name), "NVIDIA H200");
	g.cc_major = 9;
	g.total_memory = 141 * GiB;
	g.free_memory = free;
	g.used_bytes = used;
	g.ordinal = ordinal;
	g.process_ordinal = -1;
	return g;
}

static void host_facts(struct cs_host_facts *f, const char *driver, const char *arch)
{
	memset(f, 0, sizeof(*f));
	f->known = true;
	snprintf(f->driver_version, sizeof(f->driver_version), "%s", driver);
	f->branch = cs_facts_branch(driver);
	snprintf(f->arch, sizeof(f->arch), "%s", arch);
	snprintf(f->libcuda_id, sizeof(f->libcuda_id), "build-id:00aa");
}

/* a process that used GPUs tags[0..n) with used bytes each, dumped on driver 580.159.04 */
static void image(struct cs_manifest *m, enum cs_mode mode, const int *tags, unsigned n, uint64_t used)
{
	memset(m, 0, sizeof(*m));
	m->format_major = 1;
	m->format_minor = 4;
	m->mode = mode;
	m->driver_version = 13000;
	host_facts(&m->host, "580.159.04", "x86_64");
	m->ngpu = n;
	for (unsigned i = 0; i < n; i++)
		m->gpu[i] = h200(tags[i], tags[i] - 0xa0, 0, used);
	if (mode != CS_MODE_CUSTOM)
		return;
	m->ndev = n;
	for (unsigned i = 0; i < n; i++) {
		m->dev[i].uuid = m->gpu[i].uuid;
		m->dev[i].ordinal = m->gpu[i].ordinal;
	}
}

/* a host with n H200s tagged 0xa0.., each with free bytes free, driver driver */
static void host(struct cs_restore_host *h, unsigned n, uint64_t free, const char *driver, int cuda)
{
	memset(h, 0, sizeof(*h));
	host_facts(&h->host, driver, "x86_64");
	h->cuda_version = cuda;
	h->custom_storage = cuda >= 13040;
	h->ngpu = n;
	for (unsigned i = 0; i < n; i++)
		h->gpu[i] = h200(0xa0 + (int)i, (int)i, free, 0);
}

static bool has(const struct cs_restore_plan *p, const char *words)
{
	for (unsigned i = 0; i < p->nreason; i++)
		if (strstr(p->reason[i], words))
			return true;
	return false;
}

static bool noted(const struct cs_restore_plan *p, const char *words)
{
	for (unsigned i = 0; i < p->nnote; i++)
		if (strstr(p->note[i], words))
			return true;
	return false;
}

static const struct cs_manifest *one[1];

static int plan1(const struct cs_manifest *m, const struct cs_restore_host *h, struct cs_restore_plan *p)
{
	one[0] = m;
	return cs_restore_plan(one, 1, h, NULL, 0, p);
}

static void host_rules(void)
{
	static const int g01[] = { 0xa0, 0xa1 };
	struct cs_restore_plan p;
	struct cs_restore_host h;
	struct cs_manifest m;
	int r;

	image(&m, CS_MODE_DRIVER, g01, 2, 10 * GiB);
	host(&h, 2, 100 * GiB, "580.159.04", 13000);
	r = plan1(&m, &h, &p);
	tap_ok(r == 0 && p.n == 2 && p.dest[0] == 0 && p.dest[1] == 1 && !p.nreason,
	       "the same host: yes, each GPU onto itself (%s)", p.how[0]);
	host(&h, 2, 100 * GiB, "580.172.08", 13000);
	r = plan1(&m, &h, &p);
	tap_ok(r == 0, "a newer driver of the same branch: yes");
	host(&h, 2, 100 * GiB, "580.65.06", 13000);
	r = plan1(&m, &h, &p);
	tap_ok(r == -EPROTONOSUPPORT && has(&p, "older than the images' 580.159.04"),
	       "an older driver of the branch: no, %s", p.reason[0]);
	host(&h, 2, 100 * GiB, "590.44.01", 13010);
	r = plan1(&m, &h, &p);
	tap_ok(r == -EPROTONOSUPPORT && has(&p, "same driver branch"), "another branch: no, %s", p.reason[0]);
	host(&h, 2, 100 * GiB, "580.159.04", 12080);
	r = plan1(&m, &h, &p);
	tap_ok(r == -EPROTONOSUPPORT && has(&p, "CUDA 13.0 driver and this one offers CUDA 12.8"),
	       "an older CUDA driver API: no, %s", p.reason[0]);
	host(&h, 2, 100 * GiB, "580.159.04", 13000);
	snprintf(h.host.arch, sizeof(h.host.arch), "aarch64");
	r = plan1(&m, &h, &p);
	tap_ok(r == -EPROTONOSUPPORT && has(&p, "x86_64 host and this one is aarch64"),
	       "another CPU architecture: no, %s", p.reason[0]);
	host(&h, 2, 100 * GiB, "580.159.04", 0);
	snprintf(h.driver_error, sizeof(h.driver_error), "cuInit: CUDA_ERROR_NO_DEVICE");
	h.ngpu = 0;
	r = plan1(&m, &h, &p);
	tap_ok(r == -ENODEV && has(&p, "no usable NVIDIA driver here (cuInit: CUDA_ERROR_NO_DEVICE)"),
	       "no driver: no, %s", p.reason[0]);

	image(&m, CS_MODE_CUSTOM, g01, 2, 10 * GiB);
	host(&h, 2, 100 * GiB, "580.159.04", 13000);
	r = plan1(&m, &h, &p);
	tap_ok(r == -EPROTONOSUPPORT && has(&p, "CustomStorage, which this driver (CUDA 13.0) lacks"),
	       "CustomStorage images on a driver without it: no, %s", p.reason[0]);
	host(&h, 2, 100 * GiB, "570.10", 12080);
	snprintf(h.host.arch, sizeof(h.host.arch), "aarch64");
	r = plan1(&m, &h, &p);
	tap_ok(r == -EPROTONOSUPPORT && p.nreason == 4,
	       "every reason at once: %u of 4 (arch, CustomStorage, CUDA, branch)", p.nreason);
	h.gpu[0].mig = h.gpu[1].mig = true;
	r = plan1(&m, &h, &p);
	tap_ok(r == -EPROTONOSUPPORT && p.nreason == 5 && has(&p, "MIG mode on"),
	       "... and the GPUs' own: %u of 5, the placement's too", p.nreason);
	host(&h, 2, 100 * GiB, "580.159.04", 13040);
	snprintf(h.host.libcuda_id, sizeof(h.host.libcuda_id), "build-id:00bb");
	r = plan1(&m, &h, &p);
	tap_ok(r == 0 && noted(&p, "another build"),
	       "another build of the same driver version: yes, with a note (%s)", p.note[0]);
}

static void gpus(void)
{
	static const int g0[] = { 0xa0 }, g01[] = { 0xa0, 0xa1 };
	const struct cs_manifest *tree[3];
	struct cs_manifest a, b, c;
	struct cs_restore_plan p;
	struct cs_restore_host h;
	CUuuid d;
	int r;

	/* two processes on GPU 0 (30 GiB each), one on GPUs 0 and 1: GPU 0 needs 70 GiB */
	image(&a, CS_MODE_CUSTOM, g0, 1, 30 * GiB);
	image(&b, CS_MODE_CUSTOM, g0, 1, 30 * GiB);
	image(&c, CS_MODE_CUSTOM, g01, 2, 10 * GiB);
	tree[0] = &a, tree[1] = &b, tree[2] = &c;
	host(&h, 2, 100 * GiB, "580.159.04", 13040);
	r = cs_restore_plan(tree, 3, &h, NULL, 0, &p);
	tap_ok(r == 0 && p.n == 2 && p.want[0].facts.used_bytes == 70 * GiB,
	       "a tree: its GPUs placed once, their memory added up (%.0f GiB on GPU 0)",
	       p.want[0].facts.used_bytes / (double)GiB);
	h.gpu[0].free_memory = 60 * GiB; /* enough for each process, not for the three */
	h.gpu[1].free_memory = 100 * GiB;
	r = cs_restore_plan(tree, 3, &h, NULL, 0, &p);
	tap_ok(r == 0 && p.dest[0] == 1 && p.dest[1] == 0,
	       "the tree's 70 GiB move to the GPU that has them, the other GPU takes the rest");
	tap_ok(cs_restore_plan_dest(&p, &h, &a.gpu[0].uuid, &d) == 0 &&
		   !memcmp(&d, &h.gpu[1].uuid, sizeof(d)),
	       "every process of the tree finds its GPU's destination");
	h.gpu[1].free_memory = 60 * GiB;
	r = cs_restore_plan(tree, 3, &h, NULL, 0, &p);
	tap_ok(r == -ENODEV && has(&p, "70.0 GiB needed"), "no GPU with room for the tree's GPU 0: no, %s",
	       p.reason[0]);

	/* images without facts (format 1.3): judged by their UUIDs */
	image(&a, CS_MODE_CUSTOM, g01, 2, 10 * GiB);
	a.ngpu = 0;
	memset(&a.host, 0, sizeof(a.host));
	host(&h, 2, 100 * GiB, "580.159.04", 13040);
	r = plan1(&a, &h, &p);
	tap_ok(r == 0 && noted(&p, "format before 1.4") && strstr(p.how[0], "the same UUID"),
	       "images without facts, GPUs present: yes by UUID (%s)", p.how[0]);
	h.gpu[0].uuid.bytes[0] = 0x70;
	r = plan1(&a, &h, &p);
	tap_ok(r == -ENODEV && has(&p, "hold no facts"), "images without facts, a GPU gone: no, %s",
	       p.reason[0]);
	image(&a, CS_MODE_DRIVER, g01, 2, 10 * GiB);
	a.ngpu = 0;
	r = plan1(&a, &h, &p);
	tap_ok(r == 0 && p.n == 0 && noted(&p, "record no GPUs"),
	       "driver-managed images that record no GPU: yes, the driver decides (%s)", p.note[0]);
}

int main(void)
{
	tap_plan(18);
	host_rules();
	gpus();
	return tap_done();
}

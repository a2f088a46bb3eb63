// SPDX-License-Identifier: MIT
/*
 * The manifest's host facts (format 1.4): GPUs and host written are read back as they were,
 * a manifest without them (older images) reads as having none, and every malformed fact is
 * refused, naming the field: a name with a control byte or too long, two entries for one GPU,
 * an extent whose GPU is not listed, a branch its driver version contradicts, a compute
 * capability out of range, a host without its driver version.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "facts.h"
#include "manifest.h"
#include "../tap.h"
#include "unit.h"

static void add_facts(struct cs_manifest *m)
{
	m->ngpu = m->ndev;
	for (unsigned i = 0; i < m->ndev; i++) {
		struct cs_gpu_facts *g = &m->gpu[i];

		memset(g, 0, sizeof(*g));
		g->uuid = m->dev[i].uuid;
		snprintf(g->name, sizeof(g->name), "NVIDIA H200");
		g->cc_major = 9;
		g->total_memory = 150754820096ull;
		snprintf(g->bus_id, sizeof(g->bus_id), "0000:%02x:00.0", 6 + i);
		g->mig = i == 1;
		g->ordinal = (int32_t)i;
		g->process_ordinal = (int32_t)(m->ndev - 1 - i);
	}
	m->host.known = true;
	snprintf(m->host.driver_version, sizeof(m->host.driver_version), "580.159.04");
	m->host.branch = 580;
	snprintf(m->host.libcuda_id, sizeof(m->host.libcuda_id), "build-id:0123456789abcdef");
	snprintf(m->host.arch, sizeof(m->host.arch), "x86_64");
	m->host.has_visible = true;
	snprintf(m->host.visible_devices, sizeof(m->host.visible_devices), "1,0");
}

/* encode m, decode it into out: 0 or the decoder's -errno with why in err */
static int roundtrip(struct cs_manifest *m, struct cs_manifest *out, char *err, size_t n)
{
	void *buf = NULL;
	size_t len = 0;
	int ret = cs_manifest_encode(m, &buf, &len);

	if (!ret)
		ret = cs_manifest_decode(buf, len, out, err, n);
	free(buf);
	return ret;
}

/* encode m after breaking it with fn, and expect the decoder to refuse it naming what */
static void refused(const char *what, void (*fn)(struct cs_manifest *), const char *words)
{
	struct cs_manifest *m = calloc(1, sizeof(*m)), *out = calloc(1, sizeof(*out));
	char err[512] = "";
	int ret;

	unit_sample(m, 2);
	add_facts(m);
	fn(m);
	ret = roundtrip(m, out, err, sizeof(err));
	tap_ok(ret == -EINVAL && strstr(err, words), "%s is refused (%s)", what, err);
	cs_manifest_free(m);
	cs_manifest_free(out);
	free(m);
	free(out);
}

static void ctl_name(struct cs_manifest *m)
{
	m->gpu[0].name[3] = '\n';
}
static void dup_gpu(struct cs_manifest *m)
{
	m->gpu[1].uuid = m->gpu[0].uuid;
}
static void unlisted(struct cs_manifest *m)
{
	m->dev[1].uuid.bytes[0] ^= 1;
	m->gpu[1].uuid = m->dev[1].uuid;
	m->gpu[1].uuid.bytes[1] ^= 1;
}
static void branch(struct cs_manifest *m)
{
	m->host.branch = 615;
}
static void cc(struct cs_manifest *m)
{
	m->gpu[0].cc_major = 120;
}
static void no_driver(struct cs_manifest *m)
{
	m->host.driver_version[0] = '\0';
	m->host.branch = 0;
	m->host.arch[0] = 0x01;
}

int main(void)
{
	struct cs_manifest *m = calloc(1, sizeof(*m)), *out = calloc(1, sizeof(*out));
	char err[512] = "";
	bool same = true;

	tap_plan(10);
	unit_sample(m, 2);
	add_facts(m);
	tap_ok(!roundtrip(m, out, err, sizeof(err)), "a manifest with its host facts decodes (%s)", err);
	tap_ok(out->format_minor == 4, "it says format 1.%u", out->format_minor);
	for (unsigned i = 0; i < m->ngpu; i++) {
		out->gpu[i].free_memory = m->gpu[i].free_memory;
		same = same && !memcmp(&out->gpu[i], &m->gpu[i], sizeof(m->gpu[i]));
	}
	tap_ok(out->ngpu == 2 && same && !memcmp(&out->host, &m->host, sizeof(m->host)),
	       "every GPU fact and host fact reads back as written");
	cs_manifest_free(out);
	memset(out, 0, sizeof(*out));
	m->ngpu = 0;
	m->host.known = false;
	tap_ok(!roundtrip(m, out, err, sizeof(err)) && !out->ngpu && !out->host.known,
	       "a manifest without them (older images) reads as having none (%s)", err);
	refused("a GPU name with a control byte", ctl_name, "gpus[0].name holds byte 0x0a");
	refused("two entries for one GPU", dup_gpu, "are one GPU");
	refused("an extent whose GPU is not listed", unlisted, "devices[1]'s GPU is not among its gpus");
	refused("a branch its driver version contradicts", branch, "driver_branch is 615");
	refused("a compute capability out of range", cc, "compute capability 120.0");
	refused("a host with a bad arch and no driver", no_driver, "manifest host");
	cs_manifest_free(m);
	cs_manifest_free(out);
	free(m);
	free(out);
	return tap_done();
}

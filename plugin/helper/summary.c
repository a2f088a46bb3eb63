// SPDX-License-Identifier: MIT
/*
 * summary.c - the JSON summary (format in docs/image-format.md), built with json-c so every
 * string is escaped and every number is valid JSON: a non-finite double is written as null,
 * and a 64-bit instant as seconds + nanoseconds, which any JSON reader holds exactly.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "imgdir.h"
#include "log.h"
#include "summary.h"

/* json_object_object_add fails only without memory; *ok remembers it */
static void put(json_object *o, const char *key, json_object *v, bool *ok)
{
	if (!v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		*ok = false;
	}
}

static json_object *num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : json_object_new_null();
}

static json_object *u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

static json_object *instant(uint64_t ns, bool *ok)
{
	json_object *o = json_object_new_object();

	if (!o) {
		*ok = false;
		return NULL;
	}
	put(o, "seconds", u64(ns / 1000000000ull), ok);
	put(o, "nanoseconds", u64(ns % 1000000000ull), ok);
	return o;
}

static json_object *phases_json(const struct cs_phase_timer *st, bool *ok)
{
	json_object *a = json_object_new_array(), *ph;
	unsigned i;

	for (i = 0; a && i < st->n; i++) {
		ph = json_object_new_object();
		if (!ph || json_object_array_add(a, ph)) {
			json_object_put(ph);
			*ok = false;
			break;
		}
		put(ph, "name", json_object_new_string(st->phase[i].name ? st->phase[i].name : "?"), ok);
		put(ph, "seconds", num(st->phase[i].seconds), ok);
		put(ph, "bytes", u64(st->phase[i].bytes), ok);
	}
	return a;
}

/* "copy": {"seconds", "threads", "io_seconds", "gpu_wait_seconds"} of one GPU's engine copy */
static json_object *copy_json(const struct cs_copy_account *c, bool *ok)
{
	json_object *o = json_object_new_object();

	if (!o) {
		*ok = false;
		return NULL;
	}
	put(o, "seconds", num(c->seconds), ok);
	put(o, "threads", json_object_new_int64(c->threads), ok);
	put(o, "io_seconds", num(c->io_seconds), ok);
	put(o, "gpu_wait_seconds", num(c->gpu_wait_seconds), ok);
	return o;
}

static json_object *devices_json(const struct cs_proc *p, const struct cs_manifest *m, bool *ok)
{
	json_object *a = json_object_new_array(), *d;
	char uuid[CS_UUID_STRLEN];
	unsigned i;

	for (i = 0; a && i < m->ndev; i++) {
		d = json_object_new_object();
		if (!d || json_object_array_add(a, d)) {
			json_object_put(d);
			*ok = false;
			break;
		}
		cs_uuid_format(&m->dev[i].uuid, uuid);
		put(d, "uuid", json_object_new_string(uuid), ok);
		put(d, "ordinal", json_object_new_int(m->dev[i].ordinal), ok);
		put(d, "bytes", u64(m->dev[i].size), ok);
		put(d, "stored_bytes", u64(m->dev[i].stored_bytes), ok);
		put(d, "extent", json_object_new_string(m->dev[i].extent), ok);
		if (p->dump.copy[i].threads)
			put(d, "copy", copy_json(&p->dump.copy[i], ok), ok);
	}
	return a;
}

/* the optional objects: only those whose fields are set */
static void timing_json(json_object *o, const struct cs_summary_timing *t, bool *ok)
{
	json_object *g, *b;

	if (!t)
		return;
	if (t->gpu_start_ns || t->gpu_end_ns) {
		g = json_object_new_object();
		put(o, "gpu_phase", g, ok);
		if (g && t->gpu_start_ns)
			put(g, "start", instant(t->gpu_start_ns, ok), ok);
		if (g && t->gpu_end_ns)
			put(g, "end", instant(t->gpu_end_ns, ok), ok);
	}
	if (t->batch_procs) {
		b = json_object_new_object();
		put(o, "batch", b, ok);
		if (!b)
			return;
		put(b, "processes", json_object_new_int64(t->batch_procs), ok);
		if (t->batch_wall_s)
			put(b, "wall_seconds", num(t->batch_wall_s), ok);
		if (t->batch_sum_s)
			put(b, "sum_seconds", num(t->batch_sum_s), ok);
	}
}

static json_object *summary_json(const struct cs_proc *p, const struct cs_manifest *m,
				 const struct cs_phase_timer *st, const struct cs_summary_timing *t, bool *ok)
{
	json_object *o = json_object_new_object();

	if (!o) {
		*ok = false;
		return NULL;
	}
	put(o, "schema", json_object_new_int(CS_SUMMARY_SCHEMA), ok);
	put(o, "pid", json_object_new_int(p->pid), ok);
	put(o, "ns_pid", json_object_new_int(p->ns_pid), ok);
	put(o, "mode", json_object_new_string(m->mode == CS_MODE_CUSTOM ? "custom" : "driver"), ok);
	put(o, "driver_version", json_object_new_int(m->driver_version), ok);
	put(o, "total_bytes", u64(m->total_bytes), ok);
	put(o, "stored_bytes", u64(m->stored_bytes), ok);
	put(o, "seconds", num(cs_phase_timer_total(st)), ok);
	put(o, "phases", phases_json(st, ok), ok);
	put(o, "devices", devices_json(p, m, ok), ok);
	timing_json(o, t, ok);
	return o;
}

void cs_summary_write_timed(int dirfd, const struct cs_proc *p, const struct cs_manifest *m,
			    const struct cs_phase_timer *st, const struct cs_summary_timing *t)
{
	char name[CS_NAME_MAX], *buf;
	const char *text;
	size_t len;
	bool ok = true;
	json_object *o = summary_json(p, m, st, t, &ok);
	int ret = -ENOMEM;

	cs_name_summary(name, p->ns_pid);
	text =
	    o && ok
		? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
		: NULL;
	len = text ? strlen(text) : 0;
	buf = text ? malloc(len + 1) : NULL;
	if (buf) {
		/* the file ends with a newline, written in the same atomic replace */
		memcpy(buf, text, len);
		buf[len] = '\n';
		ret = cs_imgdir_write_atomic(dirfd, name, buf, len + 1);
		free(buf);
	}
	if (ret)
		cs_warn("pid %d: cannot write %s: %s (the dump itself is complete)", p->pid, name,
			strerror(-ret));
	json_object_put(o);
}

void cs_summary_write(int dirfd, const struct cs_proc *p, const struct cs_manifest *m,
		      const struct cs_phase_timer *st)
{
	cs_summary_write_timed(dirfd, p, m, st, NULL);
}

// SPDX-License-Identifier: MIT
/* summary.c - the JSON summary (format in docs/image-format.md) */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "imgdir.h"
#include "log.h"
#include "summary.h"

struct sbuf {
	char buf[16384];
	size_t len;
};

static void put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len >= sizeof(b->buf))
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, sizeof(b->buf) - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n;
}

void cs_summary_write(int dirfd, const struct cs_proc *p, const struct cs_manifest *m,
		      const struct cs_stats *st)
{
	char name[CS_NAME_MAX], uuid[CS_UUID_STRLEN];
	struct sbuf b = { .len = 0 };
	double total = cs_stats_total(st);
	unsigned i;
	int ret;

	put(&b, "{\"pid\":%d,\"ns_pid\":%d,\"mode\":\"%s\",\"driver_version\":%d,", p->pid, p->ns_pid,
	    m->mode == CS_MODE_CUSTOM ? "custom" : "driver", m->driver_version);
	put(&b, "\"total_bytes\":%llu,\"stored_bytes\":%llu,\"seconds\":%.6f,\"phases\":[",
	    (unsigned long long)m->total_bytes, (unsigned long long)m->stored_bytes, total);
	for (i = 0; i < st->n; i++)
		put(&b, "%s{\"name\":\"%s\",\"seconds\":%.6f,\"bytes\":%llu}", i ? "," : "",
		    st->phase[i].name, st->phase[i].seconds, (unsigned long long)st->phase[i].bytes);
	put(&b, "],\"devices\":[");
	for (i = 0; i < m->ndev; i++) {
		cs_uuid_format(&m->dev[i].uuid, uuid);
		put(&b,
		    "%s{\"uuid\":\"%s\",\"ordinal\":%d,\"bytes\":%llu,\"stored_bytes\":%llu,\"extent\":\"%"
		    "s\"}",
		    i ? "," : "", uuid, m->dev[i].ordinal, (unsigned long long)m->dev[i].size,
		    (unsigned long long)m->dev[i].stored_bytes, m->dev[i].extent);
	}
	put(&b, "]}\n");
	if (b.len >= sizeof(b.buf)) {
		cs_warn("pid %d: summary too long, not written", p->pid);
		return;
	}
	cs_name_summary(name, p->ns_pid);
	ret = cs_imgdir_write_atomic(dirfd, name, b.buf, b.len);
	if (ret)
		cs_warn("pid %d: cannot write %s: %s", p->pid, name, strerror(-ret));
}

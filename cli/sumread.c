// SPDX-License-Identifier: MIT
/*
 * sumread.c - the helper's summary file (cudastore-<nspid>.json, plugin/helper/summary.c) read
 * back with json-c, whatever its layout (one line or pretty-printed). A file that is not a
 * summary is reported as such, never shown as timings.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "imgdir.h"

/* the summary's own schema this reader knows (CS_SUMMARY_SCHEMA of the helper's summary.c), not
 * the command's output schema (CLI_SCHEMA) */
#define SUMMARY_SCHEMA 1

#define SUMMARY_MAX   (1 << 20)
#define SUMMARY_DEPTH 64 /* json-c's parser refuses deeper nesting; a summary has 3 levels */

static json_object *parse(const char *buf, size_t len, const char *name, char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new_ex(SUMMARY_DEPTH);
	enum json_tokener_error e;
	json_object *o;

	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, buf, (int)len);
	e = json_tokener_get_error(tok);
	if (!o || e != json_tokener_success)
		snprintf(err, errlen, "%s is not valid JSON (%s at byte %zu)", name,
			 e == json_tokener_continue ? "unexpected end" : json_tokener_error_desc(e),
			 json_tokener_get_parse_end(tok));
	else if (json_tokener_get_parse_end(tok) < len &&
		 strspn(buf + json_tokener_get_parse_end(tok), " \t\r\n") !=
		     len - json_tokener_get_parse_end(tok))
		snprintf(err, errlen, "%s has data after its JSON object (byte %zu)", name,
			 json_tokener_get_parse_end(tok));
	else
		err[0] = '\0';
	json_tokener_free(tok);
	if (err[0]) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* a number field: its value, NaN when absent or null; false when it is of another type */
static bool number(json_object *o, const char *key, double *v)
{
	json_object *x;

	*v = NAN;
	if (!json_object_object_get_ex(o, key, &x) || !x)
		return true;
	if (!json_object_is_type(x, json_type_double) && !json_object_is_type(x, json_type_int))
		return false;
	*v = json_object_get_double(x);
	return true;
}

static int phases(json_object *o, struct cli_summary *s, const char *name, char *err, size_t errlen)
{
	json_object *a, *ph, *n, *b;
	size_t i, len;

	if (!json_object_object_get_ex(o, "phases", &a))
		return 0;
	if (!json_object_is_type(a, json_type_array))
		goto bad;
	len = json_object_array_length(a);
	for (i = 0; i < len && s->nphases < CLI_MAX_PHASES; i++) {
		ph = json_object_array_get_idx(a, i);
		if (!json_object_is_type(ph, json_type_object) ||
		    !json_object_object_get_ex(ph, "name", &n) || !json_object_is_type(n, json_type_string) ||
		    !number(ph, "seconds", &s->phase[s->nphases].seconds))
			goto bad;
		snprintf(s->phase[s->nphases].name, sizeof(s->phase[0].name), "%s",
			 json_object_get_string(n));
		s->phase[s->nphases].bytes =
		    json_object_object_get_ex(ph, "bytes", &b) ? json_object_get_uint64(b) : 0;
		s->nphases++;
	}
	return 0;
bad:
	snprintf(err, errlen, "%s: \"phases\" is not a list of {\"name\", \"seconds\", \"bytes\"}", name);
	return -EBADMSG;
}

static json_object *optional(json_object *o, const char *key)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x) || !json_object_is_type(x, json_type_object))
		return NULL;
	return json_object_get(x);
}

/* devices[i].copy, optional: one that is missing or not well formed is left out, never an error */
static void copies(json_object *o, struct cli_summary *s)
{
	json_object *a, *c, *t;
	size_t i, len;

	if (!json_object_object_get_ex(o, "devices", &a) || !json_object_is_type(a, json_type_array))
		return;
	len = json_object_array_length(a);
	for (i = 0; i < len && i < CLI_MAX_COPIES; i++) {
		struct cli_copy *k = &s->copy[i];

		if (!json_object_object_get_ex(json_object_array_get_idx(a, i), "copy", &c) ||
		    !json_object_is_type(c, json_type_object) || !json_object_object_get_ex(c, "threads", &t) ||
		    !json_object_is_type(t, json_type_int) || json_object_get_int64(t) < 1 ||
		    json_object_get_int64(t) > 4096 || !number(c, "seconds", &k->seconds) ||
		    !number(c, "io_seconds", &k->io_seconds) || !number(c, "gpu_wait_seconds", &k->gpu_wait_seconds))
			continue;
		k->threads = (unsigned)json_object_get_int64(t);
		k->present = true;
	}
}

static int decode(json_object *o, struct cli_summary *s, const char *name, char *err, size_t errlen)
{
	json_object *v;

	if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "%s is not a JSON object", name);
		return -EBADMSG;
	}
	/* files of plugins before the schema field have none: the same layout as schema 1 */
	if (json_object_object_get_ex(o, "schema", &v) &&
	    (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) > SUMMARY_SCHEMA)) {
		snprintf(err, errlen, "%s has schema %s; this cudastore reads schema %d: use a newer one",
			 name, json_object_get_string(v), SUMMARY_SCHEMA);
		return -EBADMSG;
	}
	if (!number(o, "seconds", &s->seconds)) {
		snprintf(err, errlen, "%s: \"seconds\" is not a number", name);
		return -EBADMSG;
	}
	if (phases(o, s, name, err, errlen))
		return -EBADMSG;
	s->batch = optional(o, "batch");
	s->gpu_phase = optional(o, "gpu_phase");
	copies(o, s);
	return 0;
}

int cli_summary_read(int dirfd, int nspid, struct cli_summary *s, char *err, size_t errlen)
{
	char name[CS_NAME_MAX];
	json_object *o;
	size_t len;
	void *raw;
	int ret;

	memset(s, 0, sizeof(*s));
	s->seconds = NAN;
	err[0] = '\0';
	cs_name_summary(name, nspid);
	ret = cs_imgdir_read_all(dirfd, name, SUMMARY_MAX, &raw, &len);
	if (ret == -ENOENT)
		return ret;
	if (ret) {
		snprintf(err, errlen, "cannot read %s: %s", name, strerror(-ret));
		return -EBADMSG;
	}
	o = parse(raw, len, name, err, errlen);
	free(raw);
	if (!o)
		return -EBADMSG;
	ret = decode(o, s, name, err, errlen);
	json_object_put(o);
	if (ret)
		cli_summary_free(s);
	return ret;
}

void cli_summary_free(struct cli_summary *s)
{
	json_object_put(s->batch);
	json_object_put(s->gpu_phase);
	s->batch = s->gpu_phase = NULL;
}

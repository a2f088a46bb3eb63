// SPDX-License-Identifier: MIT
/*
 * json.c - the cudastore command's JSON, built with json-c.
 *
 * Every object starts with "schema" (CLI_SCHEMA, documented in cudastore(1)); a change that can
 * break a reader raises it. Strings go out as UTF-8: valid sequences as they are, any byte that
 * is not valid UTF-8 (a path is only bytes) as U+FFFD, so the output always parses. A double that
 * is not finite is null. Under --json a failure before the result is printed becomes
 * {"schema", "command", "ok": false, "exit_code", "error"} on stdout (cli_json_error_if_silent),
 * with the exit code unchanged; the message is also on stderr.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "manifest.h"
#include "strsafe.h"

bool cli_json;

/* s with every invalid byte replaced by U+FFFD (malloc'ed), or NULL without memory */
static char *utf8_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), n;
	char *out = malloc(left * 3 + 1), *o = out;
	unsigned cp;

	if (!out)
		return NULL;
	while (*p) {
		n = cs_utf8_seq(p, left, &cp);
		left -= n ? n : 1;
		if (n) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	*o = '\0';
	return out;
}

static void add(json_object *parent, const char *key, json_object *v)
{
	if (!parent) {
		json_object_put(v);
		return;
	}
	if (json_object_is_type(parent, json_type_array)) {
		if (json_object_array_add(parent, v))
			json_object_put(v);
	} else if (json_object_object_add(parent, key, v)) {
		json_object_put(v);
	}
}

json_object *cli_jreport(const char *sub)
{
	json_object *o = json_object_new_object();

	cli_jint(o, "schema", CLI_SCHEMA);
	cli_jstr(o, "command", sub);
	return o;
}

json_object *cli_jobj(json_object *parent, const char *key)
{
	json_object *o = json_object_new_object();

	add(parent, key, o);
	return parent ? o : NULL;
}

json_object *cli_jarr(json_object *parent, const char *key)
{
	json_object *a = json_object_new_array();

	add(parent, key, a);
	return parent ? a : NULL;
}

void cli_jstr(json_object *parent, const char *key, const char *v)
{
	char *clean;

	if (!v) {
		add(parent, key, NULL);
		return;
	}
	clean = utf8_clean(v);
	add(parent, key, clean ? json_object_new_string(clean) : NULL);
	free(clean);
}

void cli_jint(json_object *parent, const char *key, long long v)
{
	add(parent, key, json_object_new_int64(v));
}

void cli_ju64(json_object *parent, const char *key, uint64_t v)
{
	add(parent, key, json_object_new_uint64(v));
}

void cli_jdbl(json_object *parent, const char *key, double v)
{
	add(parent, key, isfinite(v) ? json_object_new_double(v) : NULL);
}

void cli_jbool(json_object *parent, const char *key, bool v)
{
	add(parent, key, json_object_new_boolean(v));
}

void cli_jnull(json_object *parent, const char *key)
{
	add(parent, key, NULL);
}

void cli_jtime(json_object *parent, const char *key, uint64_t unix_ns)
{
	json_object *o = cli_jobj(parent, key);
	time_t t = (time_t)(unix_ns / 1000000000ull);
	char utc[32];
	struct tm tm;

	cli_ju64(o, "seconds", unix_ns / 1000000000ull);
	cli_ju64(o, "nanoseconds", unix_ns % 1000000000ull);
	if (gmtime_r(&t, &tm) && strftime(utc, sizeof(utc), "%Y-%m-%dT%H:%M:%SZ", &tm))
		cli_jstr(o, "utc", utc);
}

json_object *cli_jdevice(json_object *arr, const struct cs_manifest_dev *d)
{
	json_object *o = cli_jobj(arr, NULL);
	char u[CS_UUID_STRLEN];
	uint64_t c, z = 0;

	for (c = 0; c < d->nchunks; c++)
		z += d->zero[c] != 0;
	cs_uuid_format(&d->uuid, u);
	cli_jstr(o, "uuid", u);
	cli_jint(o, "ordinal", d->ordinal);
	cli_ju64(o, "size", d->size);
	cli_ju64(o, "stored_bytes", d->stored_bytes);
	cli_ju64(o, "chunk_size", d->chunk_size);
	cli_ju64(o, "nchunks", d->nchunks);
	cli_ju64(o, "zero_chunks", z);
	cli_jstr(o, "extent", d->extent);
	cli_jint(o, "stripes", d->nstripes ? d->nstripes : 1);
	return o;
}

void cli_jprint(json_object *o)
{
	const char *s =
	    o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
	      : NULL;

	if (s) {
		fputs(s, stdout);
		fputc('\n', stdout);
	} else {
		fprintf(stderr, "cudastore: out of memory building the JSON output\n");
	}
	fflush(stdout);
	cli_said_json();
	json_object_put(o);
}

/* usage's text, as usage(f, CLI_OK) prints it (malloc'ed), or NULL without memory */
static char *usage_text(int (*usage)(FILE *f, int rc))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&text, &len);
	if (f) {
		usage(f, CLI_OK);
		fclose(f);
	}
	return text;
}

/* --help of sub: usage's text, or its JSON object with the n names (names NULL: no "commands") */
static int help(const char *sub, int (*usage)(FILE *f, int rc), const char *const *names, size_t n)
{
	json_object *o, *a;
	char *text;

	if (!cli_json)
		return usage(stdout, CLI_OK);
	text = usage_text(usage);
	o = cli_jreport(sub);
	cli_jbool(o, "ok", true);
	cli_jint(o, "exit_code", CLI_OK);
	cli_jstr(o, "help", text ? text : "");
	if (names) {
		a = cli_jarr(o, "commands");
		for (size_t i = 0; i < n; i++)
			cli_jstr(a, NULL, names[i]);
	}
	cli_jprint(o);
	free(text);
	return CLI_OK;
}

int cli_help(const char *sub, int (*usage)(FILE *f, int rc))
{
	return help(sub, usage, NULL, 0);
}

int cli_help_commands(int (*usage)(FILE *f, int rc), const char *const *names, size_t n)
{
	return help("help", usage, names, n);
}

void cli_json_error_if_silent(const char *sub, int rc)
{
	json_object *o;

	if (!cli_json || cli_json_said() || rc == CLI_OK)
		return;
	o = cli_jreport(sub);
	cli_jbool(o, "ok", false);
	cli_jint(o, "exit_code", rc);
	cli_jstr(o, "error", cli_first_error()[0] ? cli_first_error() : "failed (see stderr)");
	cli_jprint(o);
}

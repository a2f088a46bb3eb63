// SPDX-License-Identifier: MIT
/*
 * options.c - defaults, config file and CUDASTORE_* environment into struct cs_options.
 *
 * Everything that can make an option unusable is found here, at init, before criu touches a
 * process (docs/usage.md, "Validation"): a bad value, a combination the copy engine cannot run
 * (cs_options_check), a CUDASTORE_* variable the plugin does not know (a typo would otherwise be
 * ignored silently), and a config file that is not a regular file owned by root and writable by
 * root only (it names the libraries criu loads).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "cuda_ops.h"
#include "options.h"

#ifndef CS_DEFAULT_CONFIG
#define CS_DEFAULT_CONFIG "/etc/cudastore/cudastore.conf"
#endif

extern char **environ;

/* set by cs_options_load_traced for the duration of one load (the cudastore command) */
static cs_options_trace_fn trace_fn;
static void *trace_arg;

static void trace(const char *key, const char *value, const char *where)
{
	if (trace_fn)
		trace_fn(trace_arg, key, value, where);
}

static int parse_u64(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || end == v || *end || x < min || x > max)
		return -EINVAL;
	*out = x;
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on"))
		*out = true;
	else if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcasecmp(v, "off"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

int cs_tristate_parse(const char *v, enum cs_tristate *out)
{
	bool b;

	if (!strcasecmp(v, "auto")) {
		*out = CS_AUTO;
		return 0;
	}
	if (parse_bool(v, &b))
		return -EINVAL;
	*out = b ? CS_YES : CS_NO;
	return 0;
}

/* an ordinal of device_map: digits only, below CS_MAX_DEVICES; -1 when it is not one */
static int map_ordinal(const char *s)
{
	char *end;
	long v;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return -1;
	v = strtol(s, &end, 10);
	return v < CS_MAX_DEVICES ? (int)v : -2;
}

/* one "OLD=NEW" pair: two UUIDs, or two ordinals */
static int parse_pair(struct cs_device_pair *p, char *tok, char *eq, char *err, size_t len)
{
	*eq = '\0';
	p->from_ordinal = map_ordinal(tok);
	p->to_ordinal = map_ordinal(eq + 1);
	if (p->from_ordinal == -2 || p->to_ordinal == -2)
		return cs_fail(-EINVAL, err, len, "device_map: ordinal in '%s=%s' is not below %d", tok,
			       eq + 1, CS_MAX_DEVICES);
	if (p->from_ordinal >= 0 && p->to_ordinal >= 0) {
		p->by_ordinal = true;
		return 0;
	}
	if (cs_uuid_parse(tok, &p->from) || cs_uuid_parse(eq + 1, &p->to))
		return cs_fail(-EINVAL, err, len,
			       "device_map: '%s=%s' is neither two GPU UUIDs "
			       "(GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx) nor two ordinals",
			       tok, eq + 1);
	return 0;
}

/* "auto" or empty (placed by the restore), "GPU-a=GPU-b,GPU-c=GPU-d", or "0=3,1=2" */
static int parse_device_map(struct cs_options *o, const char *v, char *err, size_t len)
{
	char buf[4096], *save = NULL, *tok;

	if (strlen(v) >= sizeof(buf))
		return cs_fail(-EINVAL, err, len, "device_map: value too long");
	snprintf(buf, sizeof(buf), "%s", v);
	o->ndevice_map = 0;
	if (!strcmp(buf, "auto"))
		return 0;
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		char *eq = strchr(tok, '=');
		struct cs_device_pair *p;

		if (o->ndevice_map == CS_MAX_DEVICES)
			return cs_fail(-EINVAL, err, len, "device_map: more than %d pairs", CS_MAX_DEVICES);
		p = &o->device_map[o->ndevice_map];
		memset(p, 0, sizeof(*p));
		if (!eq)
			return cs_fail(-EINVAL, err, len,
				       "device_map: '%s' is not OLD=NEW (UUIDs or ordinals)", tok);
		if (parse_pair(p, tok, eq, err, len))
			return -EINVAL;
		for (unsigned k = 0; k < o->ndevice_map; k++)
			if (o->device_map[k].by_ordinal == p->by_ordinal &&
			    (p->by_ordinal ? o->device_map[k].from_ordinal == p->from_ordinal
					   : !memcmp(&o->device_map[k].from, &p->from, sizeof(p->from))))
				return cs_fail(-EINVAL, err, len, "device_map: '%s' is mapped twice", tok);
		o->ndevice_map++;
	}
	return 0;
}

static int set_mode(struct cs_options *o, const char *v)
{
	if (!strcasecmp(v, "auto"))
		o->mode = CS_OPT_MODE_AUTO;
	else if (!strcasecmp(v, "custom"))
		o->mode = CS_OPT_MODE_CUSTOM;
	else if (!strcasecmp(v, "driver"))
		o->mode = CS_OPT_MODE_DRIVER;
	else
		return -EINVAL;
	return 0;
}

/* A path is kept whole or refused: a cut one would name another file. */
static int set_path(char *dst, size_t size, const char *key, const char *v, char *err, size_t len)
{
	if (strlen(v) >= size)
		return cs_fail(-EINVAL, err, len,
			       "%s: the path is %zu bytes long, at most %zu are allowed: use a shorter one",
			       key, strlen(v), size - 1);
	snprintf(dst, size, "%s", v);
	return 0;
}

/* An absolute path, or a bare name the loader finds in the system's library directories. */
static int set_library(char *dst, size_t size, const char *key, const char *v, char *err, size_t len)
{
	if (strchr(v, '/') && v[0] != '/')
		return cs_fail(-EINVAL, err, len,
			       "%s: '%s' is a relative path: give an absolute path, or a bare name such as "
			       "%s for the system's library directories",
			       key, v, !strcmp(key, "libcuda") ? "libcuda.so.1" : "libnvidia-ml.so.1");
	return set_path(dst, size, key, v, err, len);
}

/* The keys whose value is a path: 0 or -EINVAL when key is one of them, else -ENOENT. */
static int set_path_key(struct cs_options *o, const char *key, const char *v, char *err, size_t len)
{
	if (!strcmp(key, "libcuda"))
		return set_library(o->libcuda, sizeof(o->libcuda), key, v, err, len);
	if (!strcmp(key, "libnvml"))
		return set_library(o->libnvml, sizeof(o->libnvml), key, v, err, len);
	if (!strcmp(key, "helper")) {
		if (v[0] != '/')
			return cs_fail(-EINVAL, err, len, "helper: '%s' is not an absolute path", v);
		return set_path(o->helper, sizeof(o->helper), key, v, err, len);
	}
	if (!strcmp(key, "parent"))
		return set_path(o->parent, sizeof(o->parent), key, v, err, len);
	if (!strcmp(key, "chunk_store"))
		return set_path(o->chunk_store, sizeof(o->chunk_store), key, v, err, len);
	return -ENOENT;
}

int cs_options_set(struct cs_options *o, const char *key, const char *v, char *err, size_t len)
{
	uint64_t x;
	int ret;

	ret = set_path_key(o, key, v, err, len);
	if (ret != -ENOENT)
		return ret;
	if (!strcmp(key, "mode")) {
		if (set_mode(o, v))
			return cs_fail(-EINVAL, err, len, "mode: '%s' is not auto, custom or driver", v);
	} else if (!strcmp(key, "chunks")) {
		if (parse_bool(v, &o->chunks))
			return cs_fail(-EINVAL, err, len, "chunks: '%s' is not yes or no", v);
	} else if (!strcmp(key, "chunk_mb")) {
		if (parse_u64(v, 1, CS_CHUNK_MAX >> 20, &x) || (x & (x - 1)))
			return cs_fail(-EINVAL, err, len, "chunk_mb: '%s' is not a power of two in 1..%u", v,
				       CS_CHUNK_MAX >> 20);
		o->chunk_size = (uint32_t)(x << 20);
	} else if (!strcmp(key, "threads")) {
		if (parse_u64(v, 1, 32, &x))
			return cs_fail(-EINVAL, err, len, "threads: '%s' is not in 1..32", v);
		o->threads = (unsigned)x;
	} else if (!strcmp(key, "pinned_mb")) {
		if (parse_u64(v, 1, 16384, &x))
			return cs_fail(-EINVAL, err, len, "pinned_mb: '%s' is not in 1..16384", v);
		o->pinned_max = x << 20;
	} else if (!strcmp(key, "direct_io")) {
		if (parse_bool(v, &o->direct_io))
			return cs_fail(-EINVAL, err, len, "direct_io: '%s' is not yes or no", v);
	} else if (!strcmp(key, "tmpfs_map")) {
		if (parse_bool(v, &o->tmpfs_map))
			return cs_fail(-EINVAL, err, len, "tmpfs_map: '%s' is not yes or no", v);
	} else if (!strcmp(key, "tmpfs_readback")) {
		if (parse_bool(v, &o->tmpfs_readback))
			return cs_fail(-EINVAL, err, len, "tmpfs_readback: '%s' is not yes or no", v);
	} else if (!strcmp(key, "tmpfs_restore_map")) {
		if (cs_tristate_parse(v, &o->tmpfs_restore_map))
			return cs_fail(-EINVAL, err, len, "tmpfs_restore_map: '%s' is not auto, yes or no",
				       v);
	} else if (!strcmp(key, "stripes")) {
		if (parse_u64(v, 0, CS_MAX_STRIPES, &x))
			return cs_fail(-EINVAL, err, len, "stripes: '%s' is not in 0..%u (0 = auto)", v,
				       CS_MAX_STRIPES);
		o->stripes = (unsigned)x;
	} else if (!strcmp(key, "prefetch")) {
		if (cs_tristate_parse(v, &o->prefetch))
			return cs_fail(-EINVAL, err, len, "prefetch: '%s' is not auto, yes or no", v);
	} else if (!strcmp(key, "prefetch_mb")) {
		if (parse_u64(v, 0, 1u << 22, &x))
			return cs_fail(-EINVAL, err, len, "prefetch_mb: '%s' is not in 0..4194304", v);
		o->prefetch_max = x << 20;
	} else if (!strcmp(key, "warmup")) {
		if (parse_bool(v, &o->warmup))
			return cs_fail(-EINVAL, err, len, "warmup: '%s' is not yes or no", v);
	} else if (!strcmp(key, "skip_zero")) {
		if (parse_bool(v, &o->skip_zero))
			return cs_fail(-EINVAL, err, len, "skip_zero: '%s' is not yes or no", v);
	} else if (!strcmp(key, "space_check")) {
		if (parse_bool(v, &o->space_check))
			return cs_fail(-EINVAL, err, len, "space_check: '%s' is not yes or no", v);
	} else if (!strcmp(key, "rescue")) {
		if (cs_tristate_parse(v, &o->rescue))
			return cs_fail(-EINVAL, err, len, "rescue: '%s' is not auto, yes or no", v);
	} else if (!strcmp(key, "leave_running")) {
		if (cs_tristate_parse(v, &o->leave_running))
			return cs_fail(-EINVAL, err, len, "leave_running: '%s' is not auto, yes or no", v);
	} else if (!strcmp(key, "criu_options")) {
		if (cs_tristate_parse(v, &o->criu_options))
			return cs_fail(-EINVAL, err, len, "criu_options: '%s' is not auto, yes or no", v);
	} else if (!strcmp(key, "lock_timeout_ms")) {
		if (parse_u64(v, 0, 3600000, &x))
			return cs_fail(-EINVAL, err, len, "lock_timeout_ms: '%s' is not in 0..3600000", v);
		o->lock_timeout_ms = (unsigned)x;
	} else if (!strcmp(key, "op_timeout_s")) {
		if (parse_u64(v, 0, 86400, &x))
			return cs_fail(-EINVAL, err, len,
				       "op_timeout_s: '%s' is not in 0..86400 (0 = no limit)", v);
		o->op_timeout_s = (unsigned)x;
	} else if (!strcmp(key, "custom_in_flight")) {
		if (parse_u64(v, 0, CS_PARALLEL_MAX, &x))
			return cs_fail(
			    -EINVAL, err, len,
			    "custom_in_flight: '%s' is not in 0..%u (0 = as many as parallel allows)", v,
			    CS_PARALLEL_MAX);
		o->custom_in_flight = (unsigned)x;
	} else if (!strcmp(key, "old_driver_trees")) {
		if (!strcmp(v, "refuse") || !strcmp(v, "allow"))
			o->old_driver_trees = !strcmp(v, "allow");
		else
			return cs_fail(-EINVAL, err, len, "old_driver_trees: '%s' is not refuse or allow", v);
	} else if (!strcmp(key, "parallel")) {
		if (parse_u64(v, 0, CS_PARALLEL_MAX, &x))
			return cs_fail(
			    -EINVAL, err, len,
			    "parallel: '%s' is not in 0..%u (0 = every process of the tree at once, "
			    "at most %u)",
			    v, CS_PARALLEL_MAX, CS_PARALLEL_AUTO);
		o->parallel = (unsigned)x;
	} else if (!strcmp(key, "device_map")) {
		return parse_device_map(o, v, err, len);
	} else {
		return cs_fail(-EINVAL, err, len, "unknown option '%s' (see docs/usage.md)", key);
	}
	return 0;
}

static void defaults(struct cs_options *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = CS_OPT_MODE_AUTO;
	o->chunk_size = CS_ENGINE_CHUNK_DEF;
	o->threads = CS_ENGINE_THREADS_DEF;
	o->pinned_max = CS_ENGINE_PINNED_DEF;
	o->direct_io = true;
	o->tmpfs_map = false;
	o->tmpfs_readback = false;	/* dumps ~0.8x, the first restore after them ~1.6x (usage.md) */
	o->tmpfs_restore_map = CS_AUTO; /* a first read through a mapping: ~2x (usage.md) */
	o->stripes = 0;
	o->prefetch = CS_NO; /* no whole restore measured faster with it (performance.md) */
	o->prefetch_max = CS_PREFETCH_MAX_DEF;
	o->warmup = true;
	o->skip_zero = true;
	o->space_check = true;
	o->rescue = CS_AUTO;
	o->leave_running = CS_AUTO;
	o->op_timeout_s = CS_OP_TIMEOUT_DEF;
	o->custom_in_flight = 1;
	o->criu_options = CS_AUTO;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* The file decides which libraries criu (root) loads: root's own regular file, writable by root only. */
static int check_file(FILE *f, const char *path, char *err, size_t len)
{
	struct stat st;

	if (fstat(fileno(f), &st))
		return cs_fail(-EINVAL, err, len, "cannot stat config file %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return cs_fail(
		    -EINVAL, err, len,
		    "config file %s is not a regular file (mode %06o): name a file in CUDASTORE_CONFIG", path,
		    (unsigned)st.st_mode);
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return cs_fail(-EINVAL, err, len,
			       "config file %s is owned by uid %u, not root; it decides which libraries criu "
			       "loads: chown root %s",
			       path, (unsigned)st.st_uid, path);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return cs_fail(-EINVAL, err, len,
			       "config file %s is group- or world-writable (mode %04o); it decides which "
			       "libraries criu loads: chmod go-w %s",
			       path, (unsigned)st.st_mode & 07777, path);
	return 0;
}

static void note_file_key(struct cs_options *o, const char *key)
{
	if (!strcmp(key, "chunk_mb"))
		o->from_file |= CS_OPT_FROM_FILE_CHUNK;
	else if (!strcmp(key, "pinned_mb"))
		o->from_file |= CS_OPT_FROM_FILE_PINNED;
	else if (!strcmp(key, "threads"))
		o->from_file |= CS_OPT_FROM_FILE_THREADS;
}

static bool key_known(const char *key);
static const char *key_guess(const char *key);

/* text as one more line of buf (size bytes); false when it does not fit whole (nothing added) */
static bool add_line(char *buf, size_t size, const char *text)
{
	size_t off = strlen(buf), n = strlen(text) + (off ? 1 : 0);

	if (off + n >= size)
		return false;
	snprintf(buf + off, size - off, "%s%s", off ? "\n" : "", text);
	return true;
}

/* "threads" again at a later line: the last value wins, and the caller tells the operator */
static void note_duplicate(struct cs_options *o, const char *path, const char *key, int lineno, int first)
{
	char line[sizeof(o->warnings)];

	snprintf(line, sizeof(line), "%s:%d: '%s' set again (first at line %d); the last value wins", path,
		 lineno, key, first);
	if (!add_line(o->warnings, sizeof(o->warnings), line))
		o->warnings_dropped++;
}

/*
 * A value is taken as it is, up to the end of the line: no quotes, no comment after it ('#' only
 * starts a comment at the beginning of a line). Both are refused rather than read into the value.
 */
static int check_value(const char *v, const char *path, int lineno, char *err, size_t len)
{
	const char *hash = strchr(v, '#');
	size_t n = strlen(v);

	if (hash && (hash == v || isspace((unsigned char)hash[-1])))
		return cs_fail(-EINVAL, err, len,
			       "%s:%d: a comment after a value is not allowed ('#' starts a comment only "
			       "at the beginning of a line): put it on a line of its own",
			       path, lineno);
	if (n && (v[0] == '"' || v[0] == '\'' || v[n - 1] == '"' || v[n - 1] == '\''))
		return cs_fail(-EINVAL, err, len,
			       "%s:%d: quotes are not allowed: write the value as it is (key = value)", path,
			       lineno);
	return 0;
}

static int parse_line(struct cs_options *o, char *s, const char *path, int lineno, int *first_line, char *err,
		      size_t len)
{
	char msg[512], *eq = strchr(s, '='), *key, *val;
	const char *guess;
	unsigned i;

	if (!eq)
		return cs_fail(-EINVAL, err, len, "%s:%d: expected 'key = value'", path, lineno);
	*eq = '\0';
	key = trim(s);
	val = trim(eq + 1);
	if (!key_known(key)) {
		guess = key_guess(key);
		return cs_fail(-EINVAL, err, len,
			       "%s:%d: unknown option '%s'%s%s%s (the keys are in "
			       "cudastore.conf(5))",
			       path, lineno, key, guess ? " (did you mean '" : "", guess ? guess : "",
			       guess ? "'?)" : "");
	}
	if (check_value(val, path, lineno, err, len))
		return -EINVAL;
	if (cs_options_set(o, key, val, msg, sizeof(msg)))
		return cs_fail(-EINVAL, err, len, "%s:%d: %s", path, lineno, msg);
	for (i = 0; i < CS_OPTION_COUNT; i++) {
		if (strcmp(cs_option_key(i), key))
			continue;
		if (first_line[i])
			note_duplicate(o, path, key, lineno, first_line[i]);
		else
			first_line[i] = lineno;
	}
	snprintf(msg, sizeof(msg), "%s:%d", path, lineno);
	trace(key, val, msg);
	note_file_key(o, key);
	return 0;
}

static int load_file(struct cs_options *o, const char *path, bool must_exist, char *err, size_t len)
{
	int first_line[CS_OPTION_COUNT] = { 0 };
	char line[4352];
	FILE *f = fopen(path, "re");
	int lineno = 0, ret = 0;

	if (!f) {
		if (!must_exist && errno == ENOENT)
			return 0;
		return cs_fail(-EINVAL, err, len, "cannot read config file %s: %s", path, strerror(errno));
	}
	ret = check_file(f, path, err, len);
	while (!ret && fgets(line, sizeof(line), f)) {
		char *s = trim(line);

		lineno++;
		if (!*s || *s == '#')
			continue;
		ret = parse_line(o, s, path, lineno, first_line, err, len);
	}
	if (!ret && ferror(f))
		ret = cs_fail(-EINVAL, err, len, "cannot read config file %s: %s", path, strerror(errno));
	fclose(f);
	if (!ret) {
		snprintf(o->source, sizeof(o->source), "defaults + %s", path);
		snprintf(o->config_path, sizeof(o->config_path), "%s", path);
	}
	return ret;
}

static const struct {
	const char *env, *key;
} env_keys[] = {
	{ "CUDASTORE_MODE", "mode" },
	{ CS_LIBCUDA_ENV, "libcuda" },
	{ CS_LIBNVML_ENV, "libnvml" },
	{ "CUDASTORE_HELPER", "helper" },
	{ "CUDASTORE_CHUNK_MB", "chunk_mb" },
	{ "CUDASTORE_THREADS", "threads" },
	{ "CUDASTORE_PINNED_MB", "pinned_mb" },
	{ "CUDASTORE_DIRECT_IO", "direct_io" },
	{ "CUDASTORE_TMPFS_MAP", "tmpfs_map" },
	{ "CUDASTORE_TMPFS_READBACK", "tmpfs_readback" },
	{ "CUDASTORE_TMPFS_RESTORE_MAP", "tmpfs_restore_map" },
	{ "CUDASTORE_STRIPES", "stripes" },
	{ "CUDASTORE_PREFETCH", "prefetch" },
	{ "CUDASTORE_PREFETCH_MB", "prefetch_mb" },
	{ "CUDASTORE_WARMUP", "warmup" },
	{ "CUDASTORE_SKIP_ZERO", "skip_zero" },
	{ "CUDASTORE_SPACE_CHECK", "space_check" },
	{ "CUDASTORE_RESCUE", "rescue" },
	{ "CUDASTORE_LEAVE_RUNNING", "leave_running" },
	{ "CUDASTORE_CRIU_OPTIONS", "criu_options" },
	{ "CUDASTORE_LOCK_TIMEOUT_MS", "lock_timeout_ms" },
	{ "CUDASTORE_PARALLEL", "parallel" },
	{ "CUDASTORE_OP_TIMEOUT_S", "op_timeout_s" },
	{ "CUDASTORE_OLD_DRIVER_TREES", "old_driver_trees" },
	{ "CUDASTORE_CUSTOM_IN_FLIGHT", "custom_in_flight" },
	{ "CUDASTORE_DEVICE_MAP", "device_map" },
	{ "CUDASTORE_CHUNKS", "chunks" },
	{ "CUDASTORE_PARENT", "parent" },
	{ "CUDASTORE_CHUNK_STORE", "chunk_store" },
};

/*
 * CUDASTORE_* variables that are not options but are legitimately set around criu: the config
 * file's name, the driver emulator's settings (read by the emulated libcuda that cudastore-helper
 * loads during make check), and those of the build and test scripts (docs/usage.md,
 * "ENVIRONMENT").
 */
static const char *const env_allowed[] = {
	"CUDASTORE_CONFIG", /* this file: the config file */
	"CUDASTORE_CACHE",  /* scripts/provide-*.sh, setup-debian.sh: source and build cache */
	"CUDASTORE_CMD",    /* tests of the cudastore command: the binary under test */
};
static const char *const env_allowed_prefix[] = {
	"CUDASTORE_EMU_",  /* tests/emu: the driver emulator (docs/testing.md) */
	"CUDASTORE_TEST_", /* test-only settings, e.g. CUDASTORE_TEST_LOGLEVEL (tests/log-stderr.c) */
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(NELEM(env_keys) == CS_OPTION_COUNT, "CS_OPTION_COUNT counts env_keys");

const char *cs_option_key(unsigned i)
{
	return i < NELEM(env_keys) ? env_keys[i].key : NULL;
}

static bool key_known(const char *key)
{
	size_t i;

	for (i = 0; i < NELEM(env_keys); i++)
		if (!strcmp(env_keys[i].key, key))
			return true;
	return false;
}

/* edit distance of two short strings (insert, delete, replace), capped at 9 */
static unsigned distance(const char *a, const char *b)
{
	unsigned row[33], i, j, diag, up, na = (unsigned)strlen(a), nb = (unsigned)strlen(b);

	if (na > 32 || nb > 32)
		return 9;
	for (j = 0; j <= nb; j++)
		row[j] = j;
	for (i = 1; i <= na; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= nb; j++) {
			up = row[j];
			row[j] = diag + (tolower((unsigned char)a[i - 1]) != b[j - 1]);
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[nb] > 9 ? 9 : row[nb];
}

/* the key that key most likely misspells (at most 2 edits, or the same letters in other case), or NULL */
static const char *key_guess(const char *key)
{
	unsigned i, d, best = 3;
	const char *guess = NULL;

	for (i = 0; i < NELEM(env_keys); i++) {
		d = distance(key, env_keys[i].key);
		if (d < best) {
			best = d;
			guess = env_keys[i].key;
		}
	}
	return guess;
}

const char *cs_tristate_name(enum cs_tristate t)
{
	return t == CS_AUTO ? "auto" : t == CS_YES ? "yes" : "no";
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static void format_device_map(const struct cs_options *o, char *buf, size_t len)
{
	char a[CS_UUID_STRLEN], b[CS_UUID_STRLEN];
	size_t off = 0;

	snprintf(buf, len, "auto");
	for (unsigned i = 0; i < o->ndevice_map && off + 2 * CS_UUID_STRLEN + 2 < len; i++) {
		const struct cs_device_pair *p = &o->device_map[i];

		if (p->by_ordinal) {
			off += (size_t)snprintf(buf + off, len - off, "%s%d=%d", i ? "," : "",
						p->from_ordinal, p->to_ordinal);
			continue;
		}
		cs_uuid_format(&p->from, a);
		cs_uuid_format(&p->to, b);
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", i ? "," : "", a, b);
	}
}

int cs_option_format(const struct cs_options *o, const char *key, char *buf, size_t len)
{
	if (!strcmp(key, "mode"))
		snprintf(buf, len, "%s", cs_opt_mode_name(o->mode));
	else if (!strcmp(key, "libcuda"))
		snprintf(buf, len, "%s", o->libcuda[0] ? o->libcuda : "libcuda.so.1");
	else if (!strcmp(key, "libnvml"))
		snprintf(buf, len, "%s", o->libnvml[0] ? o->libnvml : "libnvidia-ml.so.1");
	else if (!strcmp(key, "helper"))
		snprintf(buf, len, "%s", o->helper[0] ? o->helper : "(beside the plugin, else installed)");
	else if (!strcmp(key, "chunk_mb"))
		snprintf(buf, len, "%u", o->chunk_size >> 20);
	else if (!strcmp(key, "threads"))
		snprintf(buf, len, "%u", o->threads);
	else if (!strcmp(key, "pinned_mb"))
		snprintf(buf, len, "%llu", (unsigned long long)(o->pinned_max >> 20));
	else if (!strcmp(key, "direct_io"))
		snprintf(buf, len, "%s", yes_no(o->direct_io));
	else if (!strcmp(key, "tmpfs_map"))
		snprintf(buf, len, "%s", yes_no(o->tmpfs_map));
	else if (!strcmp(key, "tmpfs_readback"))
		snprintf(buf, len, "%s", yes_no(o->tmpfs_readback));
	else if (!strcmp(key, "tmpfs_restore_map"))
		snprintf(buf, len, "%s", cs_tristate_name(o->tmpfs_restore_map));
	else if (!strcmp(key, "stripes"))
		snprintf(buf, len, "%u%s", o->stripes, o->stripes ? "" : " (auto)");
	else if (!strcmp(key, "prefetch"))
		snprintf(buf, len, "%s", cs_tristate_name(o->prefetch));
	else if (!strcmp(key, "prefetch_mb"))
		snprintf(buf, len, "%llu", (unsigned long long)(o->prefetch_max >> 20));
	else if (!strcmp(key, "warmup"))
		snprintf(buf, len, "%s", yes_no(o->warmup));
	else if (!strcmp(key, "skip_zero"))
		snprintf(buf, len, "%s", yes_no(o->skip_zero));
	else if (!strcmp(key, "space_check"))
		snprintf(buf, len, "%s", yes_no(o->space_check));
	else if (!strcmp(key, "rescue"))
		snprintf(buf, len, "%s", cs_tristate_name(o->rescue));
	else if (!strcmp(key, "leave_running"))
		snprintf(buf, len, "%s", cs_tristate_name(o->leave_running));
	else if (!strcmp(key, "criu_options"))
		snprintf(buf, len, "%s", cs_tristate_name(o->criu_options));
	else if (!strcmp(key, "lock_timeout_ms"))
		snprintf(buf, len, "%u", o->lock_timeout_ms);
	else if (!strcmp(key, "op_timeout_s"))
		snprintf(buf, len, "%u", o->op_timeout_s);
	else if (!strcmp(key, "parallel"))
		snprintf(buf, len, "%u", o->parallel);
	else if (!strcmp(key, "custom_in_flight"))
		snprintf(buf, len, "%u%s", o->custom_in_flight, o->custom_in_flight ? "" : " (as parallel)");
	else if (!strcmp(key, "old_driver_trees"))
		snprintf(buf, len, "%s", o->old_driver_trees ? "allow" : "refuse");
	else if (!strcmp(key, "device_map"))
		format_device_map(o, buf, len);
	else if (!strcmp(key, "chunks"))
		snprintf(buf, len, "%s", yes_no(cs_opt_chunked(o)));
	else if (!strcmp(key, "parent"))
		snprintf(buf, len, "%s", o->parent[0] ? o->parent : "(none)");
	else if (!strcmp(key, "chunk_store"))
		snprintf(buf, len, "%s", o->chunk_store[0] ? o->chunk_store : "(none)");
	else
		return -ENOENT;
	return 0;
}

bool cs_opt_chunked(const struct cs_options *o)
{
	return o->chunks || o->parent[0] || o->chunk_store[0];
}

bool cs_options_env_known(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < NELEM(env_keys); i++)
		if (strlen(env_keys[i].env) == n && !strncmp(name, env_keys[i].env, n))
			return true;
	for (i = 0; i < NELEM(env_allowed); i++)
		if (strlen(env_allowed[i]) == n && !strncmp(name, env_allowed[i], n))
			return true;
	for (i = 0; i < NELEM(env_allowed_prefix); i++)
		if (n > strlen(env_allowed_prefix[i]) &&
		    !strncmp(name, env_allowed_prefix[i], strlen(env_allowed_prefix[i])))
			return true;
	return false;
}

/* the option variable that name most likely misspells (shares all but two characters), or NULL */
static const char *env_guess(const char *name, size_t n)
{
	size_t i, k, m;

	for (i = 0; i < NELEM(env_keys); i++) {
		const char *e = env_keys[i].env;

		m = strlen(e);
		for (k = 0; k < n && k < m && name[k] == e[k]; k++)
			;
		if (k + 2 >= (n > m ? n : m))
			return e;
	}
	return NULL;
}

/* A CUDASTORE_* variable that is neither an option nor allowed is a mistake: refuse it. */
static int check_env_names(char *err, size_t len)
{
	char **e;

	for (e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
		const char *guess;

		if (strncmp(*e, "CUDASTORE_", strlen("CUDASTORE_")) || cs_options_env_known(*e, n))
			continue;
		guess = env_guess(*e, n);
		return cs_fail(
		    -EINVAL, err, len,
		    "unknown environment variable %.*s%s%s%s (the CUDASTORE_* variables are listed "
		    "in docs/usage.md): unset it",
		    (int)n, *e, guess ? " (did you mean " : "", guess ? guess : "", guess ? "?)" : "");
	}
	return 0;
}

static const char *origin(const struct cs_options *o, const char *env, unsigned file_bit, char *buf,
			  size_t len)
{
	if (getenv(env))
		snprintf(buf, len, "%s", env);
	else if (o->from_file & file_bit)
		snprintf(buf, len, "%s", o->config_path);
	else
		snprintf(buf, len, "default");
	return buf;
}

/* one end of a device_map pair (the source, or the destination), as the user wrote it */
static const char *pair_end(const struct cs_device_pair *p, bool from, char *buf)
{
	if (p->by_ordinal)
		snprintf(buf, CS_UUID_STRLEN, "%d", from ? p->from_ordinal : p->to_ordinal);
	else
		cs_uuid_format(from ? &p->from : &p->to, buf);
	return buf;
}

static bool same_end(const struct cs_device_pair *p, const struct cs_device_pair *q, bool from)
{
	if (p->by_ordinal)
		return from ? p->from_ordinal == q->from_ordinal : p->to_ordinal == q->to_ordinal;
	return !memcmp(from ? &p->from : &p->to, from ? &q->from : &q->to, sizeof(CUuuid));
}

int cs_options_check(const struct cs_options *o, char *err, size_t len)
{
	char a[320], b[320], u1[CS_UUID_STRLEN], u2[CS_UUID_STRLEN];
	unsigned i, j;

	/* the copy engine needs one chunk buffer of pinned memory at least (cs_engine_opts_check) */
	if (o->pinned_max < o->chunk_size)
		return cs_fail(-EINVAL, err, len,
			       "pinned_mb %llu (%s) is less than one chunk, chunk_mb %u (%s): the copy "
			       "engine needs one chunk of pinned memory per GPU. Raise pinned_mb or lower "
			       "chunk_mb",
			       (unsigned long long)(o->pinned_max >> 20),
			       origin(o, "CUDASTORE_PINNED_MB", CS_OPT_FROM_FILE_PINNED, a, sizeof(a)),
			       o->chunk_size >> 20,
			       origin(o, "CUDASTORE_CHUNK_MB", CS_OPT_FROM_FILE_CHUNK, b, sizeof(b)));
	for (i = 0; i < o->ndevice_map; i++) {
		if (o->device_map[i].by_ordinal != o->device_map[0].by_ordinal)
			return cs_fail(-EINVAL, err, len,
				       "device_map mixes UUID pairs and ordinal pairs: write every pair "
				       "the same way");
		for (j = 0; j < i; j++) {
			if (same_end(&o->device_map[i], &o->device_map[j], true))
				return cs_fail(-EINVAL, err, len,
					       "device_map names GPU %s twice as a source: give one "
					       "destination per checkpointed GPU",
					       pair_end(&o->device_map[i], true, u1));
			if (same_end(&o->device_map[i], &o->device_map[j], false))
				return cs_fail(-EINVAL, err, len,
					       "device_map sends GPU %s and GPU %s both to GPU %s: each GPU "
					       "can take one",
					       pair_end(&o->device_map[j], true, u2),
					       pair_end(&o->device_map[i], true, a),
					       pair_end(&o->device_map[i], false, u1));
		}
	}
	return 0;
}

/* Not an error: the engine runs as many copy threads as the pinned bound has chunk buffers. */
static void note_copy_threads_capped(struct cs_options *o)
{
	uint64_t bufs = o->pinned_max / o->chunk_size;

	if (bufs < o->threads)
		snprintf(o->notes, sizeof(o->notes),
			 "pinned_mb %llu holds %llu chunk buffer(s) of %u MiB: dumps run %llu copy thread(s) "
			 "per GPU, not threads = %u (pinned_mb >= 2 x CPUs x chunk_mb uses them all)",
			 (unsigned long long)(o->pinned_max >> 20), (unsigned long long)bufs,
			 o->chunk_size >> 20, (unsigned long long)bufs, o->threads);
}

void cs_options_notes(const struct cs_options *o, cs_options_note_fn fn, void *arg)
{
	char text[sizeof(o->warnings) + 64];
	const char *w;
	size_t n;

	for (w = o->warnings; *w; w += n + (w[n] == '\n')) {
		n = strcspn(w, "\n");
		snprintf(text, sizeof(text), "config file %.*s: keep one", (int)n, w);
		fn(arg, true, text);
	}
	if (o->warnings_dropped) {
		snprintf(text, sizeof(text),
			 "config file %s: %u more key(s) set again; the last value wins: keep one",
			 o->config_path, o->warnings_dropped);
		fn(arg, true, text);
	}
	if (o->notes[0])
		fn(arg, false, o->notes);
}

int cs_options_load(struct cs_options *o, char *err, size_t len)
{
	const char *path = getenv("CUDASTORE_CONFIG");
	char msg[512];
	size_t i;
	int ret;

	defaults(o);
	snprintf(o->source, sizeof(o->source), "defaults");
	ret = load_file(o, path && *path ? path : CS_DEFAULT_CONFIG, path && *path, err, len);
	if (ret)
		return ret;
	for (i = 0; i < sizeof(env_keys) / sizeof(env_keys[0]); i++) {
		const char *v = getenv(env_keys[i].env);

		if (!v)
			continue;
		if (cs_options_set(o, env_keys[i].key, v, msg, sizeof(msg)))
			return cs_fail(-EINVAL, err, len, "%s: %s", env_keys[i].env, msg);
		trace(env_keys[i].key, v, env_keys[i].env);
		if (strlen(o->source) + strlen(env_keys[i].env) + 3 < sizeof(o->source)) {
			strcat(o->source, " + ");
			strcat(o->source, env_keys[i].env);
		}
	}
	ret = check_env_names(err, len);
	if (!ret)
		ret = cs_options_check(o, err, len);
	if (!ret)
		note_copy_threads_capped(o);
	return ret;
}

int cs_options_load_traced(struct cs_options *o, cs_options_trace_fn fn, void *arg, char *err, size_t len)
{
	int ret;

	trace_fn = fn;
	trace_arg = arg;
	ret = cs_options_load(o, err, len);
	trace_fn = NULL;
	trace_arg = NULL;
	return ret;
}

const char *cs_options_config_path(void)
{
	const char *path = getenv("CUDASTORE_CONFIG");

	return path && *path ? path : CS_DEFAULT_CONFIG;
}

/*
 * The prefetch competes with CRIU for CPU and I/O while CRIU restores memory: on the 2-core
 * development VMs it made whole restores slower, and on the 16-core GPU host a whole restore got
 * no faster (docs/performance.md, "Restore prefetch"). So it is off by default, and auto needs 4
 * CPUs.
 */
bool cs_opt_prefetch_on(const struct cs_options *o)
{
	if (o->prefetch != CS_AUTO)
		return o->prefetch == CS_YES && o->prefetch_max;
	return o->prefetch_max && sysconf(_SC_NPROCESSORS_ONLN) >= CS_PREFETCH_AUTO_CPUS;
}

const char *cs_opt_mode_name(enum cs_opt_mode m)
{
	switch (m) {
	case CS_OPT_MODE_CUSTOM:
		return "custom";
	case CS_OPT_MODE_DRIVER:
		return "driver";
	default:
		return "auto";
	}
}

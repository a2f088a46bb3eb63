// SPDX-License-Identifier: MIT
/* Options come from defaults, then the config file, then CUDASTORE_* variables; bad values are
 * refused with a message naming the key, the value and the allowed range. Combinations the copy
 * engine cannot run, CUDASTORE_* variables the plugin does not know, and config files that are
 * not root's own regular files are refused when the options are loaded (init), too. */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "options.h"
#include "tap.h"

/* the options never log: this test's log counts every line that reaches it (none may) */
static int logged;

void cs_log_line(unsigned int loglevel, const char *format, ...)
{
	logged++;
}

/* what cs_options_notes hands its caller */
struct notes {
	int n, nwarn;
	char text[16][640];
	bool warn[16];
};

static void collect(void *arg, bool warn, const char *text)
{
	struct notes *g = arg;

	if (g->n < 16) {
		snprintf(g->text[g->n], sizeof(g->text[0]), "%s", text);
		g->warn[g->n] = warn;
	}
	g->n++;
	g->nwarn += warn;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		tap_bail("cannot write %s", path);
}

static int load_with(const char *file_text, const char *path, struct cs_options *o, char *err, size_t len)
{
	write_file(path, file_text);
	return cs_options_load(o, err, len);
}

/* Combinations the engine cannot run fail at init, before any process is touched. */
static void combinations(const char *path)
{
	struct cs_options o;
	char err[512];

	setenv("CUDASTORE_CONFIG", path, 1);
	setenv("CUDASTORE_PINNED_MB", "2", 1);
	tap_ok(load_with("", path, &o, err, sizeof(err)) == -EINVAL && strstr(err, "pinned_mb") &&
		       strstr(err, "chunk_mb"),
	       "pinned_mb 2 below one default 4 MiB chunk refused at load: %s", err);
	unsetenv("CUDASTORE_PINNED_MB");
	tap_ok(load_with("chunk_mb = 512\npinned_mb = 256\n", path, &o, err, sizeof(err)) == -EINVAL &&
		       strstr(err, "512") && strstr(err, "256"),
	       "chunk_mb 512 with pinned_mb 256 refused at load: %s", err);
	setenv("CUDASTORE_CHUNK_MB", "512", 1);
	tap_ok(load_with("pinned_mb = 256\n", path, &o, err, sizeof(err)) == -EINVAL && strstr(err, "CUDASTORE_CHUNK_MB"),
	       "the message names where the bad combination came from: %s", err);
	unsetenv("CUDASTORE_CHUNK_MB");
	tap_ok(load_with("chunk_mb = 64\npinned_mb = 64\nthreads = 32\n", path, &o, err, sizeof(err)) == 0 &&
		       o.pinned_max == (64ull << 20),
	       "one chunk of pinned memory is enough (fewer copy threads run): %s", err);
	tap_ok(load_with("device_map = GPU-aaaaaaaa-0000-4000-8000-000000000000=GPU-bbbbbbbb-0000-4000-8000-000000000001,"
			 "GPU-aaaaaaaa-0000-4000-8000-000000000000=GPU-cccccccc-0000-4000-8000-000000000002\n",
			 path, &o, err, sizeof(err)) == -EINVAL &&
		       strstr(err, "twice"),
	       "a device map naming one source GPU twice is refused: %s", err);
	tap_ok(load_with("device_map = GPU-aaaaaaaa-0000-4000-8000-000000000000=GPU-cccccccc-0000-4000-8000-000000000002,"
			 "GPU-bbbbbbbb-0000-4000-8000-000000000001=GPU-cccccccc-0000-4000-8000-000000000002\n",
			 path, &o, err, sizeof(err)) == -EINVAL &&
		       strstr(err, "GPU-cccccccc"),
	       "a device map sending two GPUs to one is refused: %s", err);
	tap_ok(load_with("device_map = 0=3,1=3\n", path, &o, err, sizeof(err)) == -EINVAL &&
		   strstr(err, "GPU 0 and GPU 1 both to GPU 3"),
	       "an ordinal map sending two GPUs to one is refused: %s", err);
	tap_ok(load_with("device_map = 0=3,1=2\n", path, &o, err, sizeof(err)) == 0 && o.ndevice_map == 2,
	       "an ordinal map onto distinct GPUs loads: %s", err);
	tap_ok(
	    load_with("device_map = 0=3,GPU-aaaaaaaa-0000-4000-8000-000000000000=GPU-cccccccc-0000-4000-8000-"
		      "000000000002\n",
		      path, &o, err, sizeof(err)) == -EINVAL &&
		strstr(err, "mixes"),
	    "a map mixing ordinal and UUID pairs is refused: %s", err);
	write_file(path, "");
}

/* tmpfs_restore_map: auto unless the file or CUDASTORE_TMPFS_RESTORE_MAP says otherwise */
static void tmpfs_restore_map(const char *path)
{
	struct cs_options o;
	char err[512];

	setenv("CUDASTORE_CONFIG", path, 1);
	tap_ok(load_with("", path, &o, err, sizeof(err)) == 0 && o.tmpfs_restore_map == CS_AUTO,
	       "tmpfs_restore_map is auto by default: %s", err);
	tap_ok(load_with("tmpfs_restore_map = no\n", path, &o, err, sizeof(err)) == 0 &&
		   o.tmpfs_restore_map == CS_NO,
	       "tmpfs_restore_map = no in the file: %s", err);
	setenv("CUDASTORE_TMPFS_RESTORE_MAP", "yes", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0 && o.tmpfs_restore_map == CS_YES,
	       "CUDASTORE_TMPFS_RESTORE_MAP=yes overrides the file's no: %s", err);
	setenv("CUDASTORE_TMPFS_RESTORE_MAP", "always", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL && strstr(err, "CUDASTORE_TMPFS_RESTORE_MAP") &&
		   strstr(err, "'always'") && strstr(err, "auto, yes or no"),
	       "CUDASTORE_TMPFS_RESTORE_MAP=always refused: %s", err);
	unsetenv("CUDASTORE_TMPFS_RESTORE_MAP");
	write_file(path, "");
}

/* A CUDASTORE_* variable the plugin does not know is an error, like an unknown key. */
static void environment(const char *path)
{
	struct cs_options o;
	char err[512];

	setenv("CUDASTORE_CONFIG", path, 1);
	setenv("CUDASTORE_THREAD", "4", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL && strstr(err, "CUDASTORE_THREAD") &&
		       strstr(err, "unknown"),
	       "CUDASTORE_THREAD (a typo) is refused: %s", err);
	unsetenv("CUDASTORE_THREAD");
	setenv("CUDASTORE_", "1", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL, "a bare CUDASTORE_ is refused: %s", err);
	unsetenv("CUDASTORE_");
	setenv("CUDASTORE_EMU_DEVICES", "2", 1);
	setenv("CUDASTORE_CACHE", "/var/cache/cudastore", 1);
	setenv("CUDASTORE_TEST_LOGLEVEL", "1", 1);
	setenv("CUDASTORE_TEST_STALL", "copy-out", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0,
	       "variables of the emulator, the tests and the scripts (allow-list) are accepted: %s", err);
	unsetenv("CUDASTORE_EMU_DEVICES");
	unsetenv("CUDASTORE_CACHE");
	unsetenv("CUDASTORE_TEST_LOGLEVEL");
	unsetenv("CUDASTORE_TEST_STALL");
	setenv("CUDASTORE_THREADS", "4", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0 && o.threads == 4, "known variables still work");
	unsetenv("CUDASTORE_THREADS");
	setenv("cudastore_threads", "4", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0 && o.threads != 4,
	       "names are case-sensitive: cudastore_threads is not ours and is ignored");
	unsetenv("cudastore_threads");
}

/* tmpfs_readback: off unless the file or CUDASTORE_TMPFS_READBACK says yes; a bad value names both */
static void tmpfs_readback(const char *path)
{
	struct cs_options o;
	char err[512];

	setenv("CUDASTORE_CONFIG", path, 1);
	tap_ok(load_with("tmpfs_readback = yes\n", path, &o, err, sizeof(err)) == 0 && o.tmpfs_readback &&
		   !o.tmpfs_map,
	       "tmpfs_readback = yes in the file turns the read-back on (and not the mapping): %s", err);
	setenv("CUDASTORE_TMPFS_READBACK", "no", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0 && !o.tmpfs_readback,
	       "CUDASTORE_TMPFS_READBACK=no overrides the file's yes: %s", err);
	setenv("CUDASTORE_TMPFS_READBACK", "yes", 1);
	tap_ok(load_with("", path, &o, err, sizeof(err)) == 0 && o.tmpfs_readback,
	       "CUDASTORE_TMPFS_READBACK=yes turns the read-back on: %s", err);
	setenv("CUDASTORE_TMPFS_READBACK", "maybe", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL && strstr(err, "CUDASTORE_TMPFS_READBACK") &&
		   strstr(err, "'maybe'") && strstr(err, "yes or no"),
	       "CUDASTORE_TMPFS_READBACK=maybe refused: %s", err);
	unsetenv("CUDASTORE_TMPFS_READBACK");
	tap_ok(load_with("tmpfs_readback = maybe\n", path, &o, err, sizeof(err)) == -EINVAL &&
		   strstr(err, ":1:") && strstr(err, "tmpfs_readback") && strstr(err, "'maybe'") &&
		   strstr(err, "yes or no"),
	       "tmpfs_readback = maybe in the file refused with file:line: %s", err);
	write_file(path, "");
}

/* The config file decides which libraries criu loads: only root's own regular file is read. */
static void file_checks(const char *path)
{
	char dir[] = "/tmp/cs-optdir-XXXXXX", err[512];
	struct cs_options o;

	write_file(path, "threads = 3\n");
	setenv("CUDASTORE_CONFIG", path, 1);
	chmod(path, 0664);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL && strstr(err, path) && strstr(err, "writable"),
	       "a group-writable config file is refused: %s", err);
	chmod(path, 0602);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL && strstr(err, "writable"),
	       "a world-writable config file is refused: %s", err);
	chmod(path, 0644);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0 && o.threads == 3, "a 0644 config file is read: %s", err);
	if (geteuid() == 0) {
		tap_ok(chown(path, 65534, 65534) == 0 && cs_options_load(&o, err, sizeof(err)) == -EINVAL &&
			       strstr(err, "owned by uid 65534"),
		       "a config file not owned by root is refused: %s", err);
		if (chown(path, 0, 0))
			tap_bail("chown back");
	} else {
		tap_skip(1, "not root: cannot give the file to another user");
	}
	if (!mkdtemp(dir))
		tap_bail("mkdtemp");
	setenv("CUDASTORE_CONFIG", dir, 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL && strstr(err, dir) && strstr(err, "not a regular file"),
	       "CUDASTORE_CONFIG naming a directory is an error: %s", err);
	rmdir(dir);
	if (symlink(path, dir))
		tap_bail("symlink");
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0 && o.threads == 3,
	       "a link to root's file is followed (the file itself is checked): %s", err);
	unlink(dir);
	setenv("CUDASTORE_CONFIG", path, 1);
}

/*
 * Format key, set it again from that text, format it again: the same text. The library paths
 * and the helper are shown with their defaults spelled out, which are not settable values.
 */
static bool reads_back(struct cs_options *o, const char *key)
{
	static const char *const shown_only[] = { "helper", "libcuda", "libnvml" };
	char v[512], again[512], err[512];
	unsigned k;

	if (cs_option_format(o, key, v, sizeof(v)))
		return false;
	for (k = 0; k < sizeof(shown_only) / sizeof(shown_only[0]); k++)
		if (!strcmp(key, shown_only[k]))
			return true;
	return !cs_options_set(o, key, v, err, sizeof(err)) &&
	       !cs_option_format(o, key, again, sizeof(again)) && !strcmp(v, again);
}

/* every option key formats; a value set in the file reads back the way the file spells it */
static void formatting(const char *path)
{
	char err[512], v[512];
	struct cs_options o;
	unsigned i, ok = 0;

	write_file(path,
		   "warmup = no\nstripes = 4\n"
		   "device_map = "
		   "GPU-aaaaaaaa-0000-4000-8000-000000000000=GPU-bbbbbbbb-0000-4000-8000-000000000001\n");
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0,
	       "a file with warmup, stripes and a device map loads (%s)", err);
	for (i = 0; cs_option_key(i); i++)
		ok += reads_back(&o, cs_option_key(i));
	tap_ok(i == CS_OPTION_COUNT && ok == i, "all %u option keys format, and read back as set (%u ok)", i,
	       ok);
	tap_ok(!cs_option_format(&o, "warmup", v, sizeof(v)) && !strcmp(v, "no") &&
		   !cs_option_format(&o, "stripes", v, sizeof(v)) && !strcmp(v, "4"),
	       "warmup and stripes show the file's values");
	tap_ok(cs_option_format(&o, "threds", v, sizeof(v)) == -ENOENT, "an unknown key does not format");
}

/*
 * A duplicate key and a pinned bound that caps the copy threads: cs_options_load logs neither,
 * and hands both to its caller through cs_options_notes, in the words the plugin logs them.
 */
static void notes(const char *path)
{
	char err[512], want[640], big[4096];
	struct cs_options o;
	struct notes g = { 0 };
	int i, ret;

	unsetenv("CUDASTORE_THREADS");
	unsetenv("CUDASTORE_MODE");
	unsetenv("CUDASTORE_CHUNK_MB");
	unsetenv("CUDASTORE_PINNED_MB");
	setenv("CUDASTORE_CONFIG", path, 1);
	logged = 0;
	ret =
	    load_with("threads = 8\nchunk_mb = 4\nthreads = 16\npinned_mb = 8\n", path, &o, err, sizeof(err));
	tap_ok(ret == 0 && logged == 0,
	       "a duplicate key and a capped thread count: loaded, nothing logged (%d, %d)", ret, logged);
	cs_options_notes(&o, collect, &g);
	snprintf(want, sizeof(want),
		 "config file %s:3: 'threads' set again (first at line 1); the last value wins: keep one",
		 path);
	tap_ok(g.n == 2 && g.warn[0] && !strcmp(g.text[0], want) && !g.warn[1] &&
		   !strcmp(g.text[1],
			   "pinned_mb 8 holds 2 chunk buffer(s) of 4 MiB: dumps run 2 copy thread(s) "
			   "per GPU, not threads = 16 (pinned_mb >= 2 x CPUs x chunk_mb uses them all)"),
	       "cs_options_notes: the duplicate as a warning, then the capped threads as a note (%d: %s)",
	       g.n, g.n ? g.text[0] : "");
	snprintf(want, sizeof(want), "%s:3: 'threads' set again (first at line 1); the last value wins",
		 path);
	tap_ok(!strcmp(o.warnings, want), "o.warnings keeps the line cudastore check shows (%s)", o.warnings);

	big[0] = '\0';
	for (i = 0; i < 20; i++)
		strcat(big, "threads = 4\n");
	memset(&g, 0, sizeof(g));
	logged = 0;
	ret = load_with(big, path, &o, err, sizeof(err));
	cs_options_notes(&o, collect, &g);
	tap_ok(ret == 0 && logged == 0 && o.warnings_dropped > 0 &&
		   g.nwarn == 19 - (int)o.warnings_dropped + 1 &&
		   strstr(g.text[g.n - 1], "more key(s) set again") && strstr(g.text[g.n - 1], path),
	       "19 duplicates: those past the bound counted (%u) and told in one more warning, none logged",
	       o.warnings_dropped);

	memset(&g, 0, sizeof(g));
	logged = 0;
	ret = load_with("threads = 2\nthreads = 3\nbogus = 1\n", path, &o, err, sizeof(err));
	cs_options_notes(&o, collect, &g);
	tap_ok(ret == -EINVAL && logged == 0 && g.n == 1 && strstr(g.text[0], ":2: 'threads' set again"),
	       "a file refused after a duplicate: the duplicate still handed back, for the log before the "
	       "error");
}

int main(void)
{
	char path[] = "/tmp/cs-opt-XXXXXX", err[512], fmt[256];
	struct cs_options o;
	int fd = mkstemp(path);

	if (fd < 0)
		tap_bail("mkstemp");
	close(fd);
	tap_plan(62);

	setenv("CUDASTORE_CONFIG", "/nonexistent/cudastore.conf", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL && strstr(err, "/nonexistent/cudastore.conf"),
	       "an explicitly named config file that is missing is an error (%s)", err);
	unsetenv("CUDASTORE_CONFIG");

	write_file(path, "# comment\nmode = driver\nthreads = 8\n\nchunk_mb=16\nrescue = no\n");
	setenv("CUDASTORE_CONFIG", path, 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0, "config file loads");
	tap_ok(o.mode == CS_OPT_MODE_DRIVER, "mode from the file");
	tap_ok(o.threads == 8 && o.chunk_size == (16u << 20), "numbers from the file");
	tap_ok(o.rescue == CS_NO && o.leave_running == CS_AUTO, "tristates from the file, defaults kept");
	tap_ok(o.direct_io && !o.tmpfs_map && !o.tmpfs_readback && o.skip_zero && o.space_check,
	       "boolean defaults: tmpfs_map and tmpfs_readback off, the rest on");

	setenv("CUDASTORE_MODE", "custom", 1);
	setenv("CUDASTORE_THREADS", "2", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0 && o.mode == CS_OPT_MODE_CUSTOM && o.threads == 2,
	       "environment overrides the file");
	tap_ok(strstr(o.source, path) && strstr(o.source, "CUDASTORE_MODE"), "source recorded: %s", o.source);

	setenv("CUDASTORE_CHUNK_MB", "3", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL && strstr(err, "CUDASTORE_CHUNK_MB") &&
		       strstr(err, "power of two"), "chunk size not a power of two refused: %s", err);
	unsetenv("CUDASTORE_CHUNK_MB");
	setenv("CUDASTORE_THREADS", "0", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL && strstr(err, "1..32"),
	       "zero threads refused: %s", err);
	unsetenv("CUDASTORE_THREADS");
	setenv("CUDASTORE_MODE", "fast", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL && strstr(err, "'fast'"),
	       "unknown mode refused: %s", err);
	unsetenv("CUDASTORE_MODE");

	write_file(path, "bogus = 1\n");
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL && strstr(err, ":1:") && strstr(err, "bogus"),
	       "unknown key refused with file:line: %s", err);
	write_file(path, "mode\n");
	tap_ok(cs_options_load(&o, err, sizeof(err)) == -EINVAL && strstr(err, "key = value"),
	       "line without '=' refused: %s", err);

	write_file(path, "device_map = GPU-aaaaaaaa-0000-4000-8000-000000000000=GPU-bbbbbbbb-0000-4000-8000-000000000001\n");
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0 && o.ndevice_map == 1 &&
		       (unsigned char)o.device_map[0].from.bytes[0] == 0xaa &&
		       (unsigned char)o.device_map[0].to.bytes[15] == 0x01, "device map parsed");
	tap_ok(cs_options_set(&o, "device_map", "GPU-zz=GPU-aa", err, sizeof(err)) == -EINVAL &&
		   strstr(err, "neither two GPU UUIDs") && strstr(err, "GPU-zz=GPU-aa"),
	       "bad UUID in the device map refused: %s", err);
	tap_ok(cs_options_set(&o, "device_map", "0=3,1=2", err, sizeof(err)) == 0 && o.ndevice_map == 2 &&
		   o.device_map[0].by_ordinal && o.device_map[0].from_ordinal == 0 &&
		   o.device_map[0].to_ordinal == 3 && o.device_map[1].from_ordinal == 1 &&
		   o.device_map[1].to_ordinal == 2,
	       "ordinal pairs parsed (0=3,1=2)");
	tap_ok(cs_option_format(&o, "device_map", fmt, sizeof(fmt)) == 0 && !strcmp(fmt, "0=3,1=2"),
	       "ordinal pairs format back as written: %s", fmt);
	tap_ok(cs_options_set(&o, "device_map", "0=3,0=2", err, sizeof(err)) == -EINVAL &&
		   strstr(err, "twice"),
	       "an ordinal mapped twice is refused: %s", err);
	tap_ok(cs_options_set(&o, "device_map", "0=GPU-aaaaaaaa-0000-4000-8000-000000000000", err,
			      sizeof(err)) == -EINVAL,
	       "a pair mixing an ordinal and a UUID is refused: %s", err);
	tap_ok(cs_options_set(&o, "device_map", "-1=2", err, sizeof(err)) == -EINVAL,
	       "a negative ordinal is refused: %s", err);
	tap_ok(cs_options_set(&o, "device_map", "auto", err, sizeof(err)) == 0 && o.ndevice_map == 0 &&
		   cs_option_format(&o, "device_map", fmt, sizeof(fmt)) == 0 && !strcmp(fmt, "auto"),
	       "device_map = auto clears the map and formats as auto (%s)", fmt);
	tap_ok(cs_options_set(&o, "device_map", "GPU-aaaaaaaa-0000-4000-8000-000000000000", err, sizeof(err)) ==
		       -EINVAL, "pair without '=' refused: %s", err);
	tap_ok(cs_options_set(&o, "leave_running", "yes", err, sizeof(err)) == 0 && o.leave_running == CS_YES,
	       "leave_running=yes");
	setenv("CUDASTORE_TMPFS_MAP", "yes", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0 && o.tmpfs_map, "CUDASTORE_TMPFS_MAP=yes turns the mapping on");
	unsetenv("CUDASTORE_TMPFS_MAP");
	tmpfs_readback(path);
	tmpfs_restore_map(path);

	formatting(path);
	combinations(path);
	environment(path);
	file_checks(path);
	notes(path);
	unlink(path);
	return tap_done();
}

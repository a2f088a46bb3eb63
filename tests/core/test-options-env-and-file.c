// SPDX-License-Identifier: MIT
/* Options come from defaults, then the config file, then CUDASTORE_* variables; bad values are
 * refused with a message naming the key, the value and the allowed range. */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "tap.h"

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		tap_bail("cannot write %s", path);
}

int main(void)
{
	char path[] = "/tmp/cs-opt-XXXXXX", err[512];
	struct cs_options o;
	int fd = mkstemp(path);

	if (fd < 0)
		tap_bail("mkstemp");
	close(fd);
	tap_plan(18);

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
	tap_ok(o.direct_io && !o.tmpfs_map && o.skip_zero && o.space_check, "boolean defaults: tmpfs_map off, the rest on");

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
		       strstr(err, "bad GPU UUID"), "bad UUID in the device map refused: %s", err);
	tap_ok(cs_options_set(&o, "device_map", "GPU-aaaaaaaa-0000-4000-8000-000000000000", err, sizeof(err)) ==
		       -EINVAL, "pair without '=' refused: %s", err);
	tap_ok(cs_options_set(&o, "leave_running", "yes", err, sizeof(err)) == 0 && o.leave_running == CS_YES,
	       "leave_running=yes");
	setenv("CUDASTORE_TMPFS_MAP", "yes", 1);
	tap_ok(cs_options_load(&o, err, sizeof(err)) == 0 && o.tmpfs_map, "CUDASTORE_TMPFS_MAP=yes turns the mapping on");
	unsetenv("CUDASTORE_TMPFS_MAP");
	unlink(path);
	return tap_done();
}

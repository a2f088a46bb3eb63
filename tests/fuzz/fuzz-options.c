// SPDX-License-Identifier: MIT
/*
 * fuzz-options.c - one input as the config file (options.h), through cs_options_load() as the
 * plugin, the helper and the cudastore command read it: the file is written 0600 into a private
 * directory and named in CUDASTORE_CONFIG; no other CUDASTORE_* variable is set.
 *
 * Properties: 0 or -errno, a refusal says why; options that load pass cs_options_check(), keep
 * their strings terminated within their fields, every key formats to printable text, and loading
 * the same file again gives exactly the same options.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "options.h"
#include "strsafe.h"

extern char **environ;

const char cs_fuzz_name[] = "options";
static char work[64], path[96];

void cs_fuzz_cleanup(void)
{
	if (!work[0])
		return;
	unlink(path);
	rmdir(work);
	work[0] = '\0';
}

/* only CUDASTORE_CONFIG: the input alone decides */
static void clean_env(void)
{
	for (char **e = environ; *e;) {
		char name[128];
		size_t n = strcspn(*e, "=");

		if (strncmp(*e, "CUDASTORE_", 10) || n >= sizeof(name)) {
			e++;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)n, *e);
		unsetenv(name); /* environ shifts down: look at *e again */
	}
}

static void setup(void)
{
	if (work[0])
		return;
	cs_fuzz_mkdtemp(work, sizeof(work));
	snprintf(path, sizeof(path), "%s/cudastore.conf", work);
	atexit(cs_fuzz_cleanup);
	clean_env();
	setenv("CUDASTORE_CONFIG", path, 1);
	setenv("CUDASTORE_TEST_LOGLEVEL", "0", 1); /* tests/log-stderr.c: the warnings are not ours */
}

static void write_file(const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		cs_fuzz_fail("cannot write the config file", path);
	close(fd);
}

static void check_loaded(const struct cs_options *o)
{
	char err[512] = "", buf[1024];

	if (cs_options_check(o, err, sizeof(err)))
		cs_fuzz_fail("loaded options fail their own check", err);
	if (strnlen(o->libcuda, sizeof(o->libcuda)) == sizeof(o->libcuda) ||
	    strnlen(o->libnvml, sizeof(o->libnvml)) == sizeof(o->libnvml) ||
	    strnlen(o->helper, sizeof(o->helper)) == sizeof(o->helper))
		cs_fuzz_fail("a path option is not terminated within its field", NULL);
	if (o->ndevice_map > CS_MAX_DEVICES)
		cs_fuzz_fail("device_map holds more pairs than it has room for", NULL);
	for (unsigned i = 0; i < CS_OPTION_COUNT; i++) {
		if (cs_option_format(o, cs_option_key(i), buf, sizeof(buf)))
			cs_fuzz_fail("a key does not format", cs_option_key(i));
		if (!cs_str_is_printable(buf) && (i == 0 || i > 3)) /* 1..3: paths, the file's bytes */
			cs_fuzz_fail("a value formats to unprintable text", cs_option_key(i));
	}
}

int cs_fuzz_one(const uint8_t *data, size_t size)
{
	struct cs_options *a = calloc(2, sizeof(*a)), *b = a + 1;
	char err[512] = "", err2[512] = "";
	int ret, ret2;

	if (!a)
		cs_fuzz_fail("out of memory", NULL);
	setup();
	write_file(data, size);
	ret = cs_options_load(a, err, sizeof(err));
	if (ret > 0 || ret < -4095)
		cs_fuzz_fail("cs_options_load returned neither 0 nor -errno", NULL);
	if (ret && !err[0])
		cs_fuzz_fail("a refusal without a reason", NULL);
	if (!ret)
		check_loaded(a);
	ret2 = cs_options_load(b, err2, sizeof(err2));
	if (ret2 != ret || (ret && strcmp(err, err2)) || (!ret && memcmp(a, b, sizeof(*a))))
		cs_fuzz_fail("the same file loads differently twice", err2);
	free(a);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return cs_fuzz_one(data, size);
}

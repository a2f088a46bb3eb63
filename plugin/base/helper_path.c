// SPDX-License-Identifier: MIT
/* helper_path.c - find cudastore-helper and make its environment (see helper_path.h) */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper_path.h"
#include "trust.h"

extern char **environ;

int cs_helper_path(const struct cs_options *o, const char *plugin_so, char *path, size_t len, char *err,
		   size_t errlen)
{
	char beside[PATH_MAX] = "";
	const char *slash = plugin_so ? strrchr(plugin_so, '/') : NULL;

	if (o->helper[0]) {
		if (access(o->helper, X_OK) == 0)
			return cs_trust_path(o->helper, "helper (from the helper option)", path, len, err,
					     errlen);
		snprintf(err, errlen, "helper %s (from the helper option) is not executable: %s", o->helper,
			 strerror(errno));
		return -ENOENT;
	}
	if (slash) {
		snprintf(beside, sizeof(beside), "%.*s/%s", (int)(slash - plugin_so), plugin_so,
			 CS_HELPER_NAME);
		/* one beside the plugin that may not run is an error, never a reason to use another */
		if (access(beside, X_OK) == 0)
			return cs_trust_path(beside, CS_HELPER_NAME " beside the plugin", path, len, err,
					     errlen);
	}
	if (access(CS_HELPER_PATH, X_OK) == 0)
		return cs_trust_path(CS_HELPER_PATH, "installed " CS_HELPER_NAME, path, len, err, errlen);
	snprintf(err, errlen,
		 "%s not found (looked beside the plugin%s%s and at %s); install cudastore completely "
		 "(make install) or set helper = PATH in cudastore.conf",
		 CS_HELPER_NAME, beside[0] ? ": " : "", beside, CS_HELPER_PATH);
	return -ENOENT;
}

static const char *const env_pass[] = {
	"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", /* read only by a sanitizer build (make check) */
};
static const char *const env_pass_prefix[] = {
	"CUDASTORE_EMU_",  /* the driver emulator, loaded as libcuda by the tests */
	"CUDASTORE_TEST_", /* read only by the test build, cudastore-helper-test */
};

static bool env_passes(const char *entry)
{
	size_t i, n = strcspn(entry, "=");

	if (!entry[n])
		return false;
	for (i = 0; i < sizeof(env_pass) / sizeof(env_pass[0]); i++)
		if (strlen(env_pass[i]) == n && !strncmp(entry, env_pass[i], n))
			return true;
	for (i = 0; i < sizeof(env_pass_prefix) / sizeof(env_pass_prefix[0]); i++)
		if (!strncmp(entry, env_pass_prefix[i], strlen(env_pass_prefix[i])))
			return true;
	return false;
}

char **cs_helper_env(void)
{
	static char path[] = "PATH=" CS_HELPER_ENV_PATH;
	size_t n = 0, k = 0;
	char **env, **e;

	for (e = environ; e && *e; e++)
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	env[k++] = path;
	for (e = environ; e && *e; e++)
		if (env_passes(*e))
			env[k++] = *e;
	return env;
}

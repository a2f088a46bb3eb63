// SPDX-License-Identifier: MIT
/*
 * test-plugin-max-hooks: the plugin offers POST_FORKING (max_hooks 13) only to a criu that
 * exports collect_madv_guards (CRIU >= 4.2), and max_hooks 12 to any other (CRIU 4.0/4.1 reject
 * a plugin with more hooks than they have). Built twice: -DCS_AS_CRIU_42 makes this program
 * export the symbol, as criu 4.2's binary does (-rdynamic). The plugin is dlopen'ed like criu
 * does it (RTLD_LAZY) from $PLUGIN_SO.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "criu-plugin.h"
#include "tap.h"

/* what criu's binary exports and the plugin imports */
void print_on_level(unsigned int level, const char *fmt, ...);
void print_on_level(unsigned int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}
int criu_get_image_dir(void) /* declared by criu-plugin.h */
{
	return -1;
}
#ifdef CS_AS_CRIU_42
void collect_madv_guards(void);
void collect_madv_guards(void)
{
}
#endif

int main(void)
{
	const char *so = getenv("PLUGIN_SO");
	cr_plugin_desc_t *d;
	void *h;

	tap_plan(3);
	if (!so)
		tap_bail("PLUGIN_SO not set");
	h = dlopen(so, RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		tap_bail("dlopen %s: %s", so, dlerror());
	d = dlsym(h, "CR_PLUGIN_DESC");
	if (!d)
		tap_bail("no CR_PLUGIN_DESC");
#ifdef CS_AS_CRIU_42
	tap_ok(d->max_hooks == 13, "criu 4.2: max_hooks 13 (found %u)", d->max_hooks);
	tap_ok(d->hooks[12] != NULL, "criu 4.2: POST_FORKING is offered");
	tap_ok(((int (*)(void))d->hooks[12])() == -ENOTSUP,
	       "POST_FORKING before init (no restore) says -ENOTSUP, never an error");
#else
	tap_ok(d->max_hooks == 12, "criu 4.0/4.1: max_hooks 12 (found %u)", d->max_hooks);
	tap_ok(d->max_hooks <= 12 || d->hooks[12] == NULL, "criu 4.0/4.1: POST_FORKING is not offered");
	tap_ok(d->hooks[CR_PLUGIN_HOOK__RESUME_DEVICES_LATE] && d->hooks[CR_PLUGIN_HOOK__PAUSE_DEVICES] &&
		   d->hooks[CR_PLUGIN_HOOK__CHECKPOINT_DEVICES],
	       "the device hooks are there either way");
#endif
	dlclose(h);
	return tap_done();
}

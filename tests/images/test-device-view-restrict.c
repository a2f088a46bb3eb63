// SPDX-License-Identifier: MIT
/*
 * Which GPUs a restored process can open (devview.h, device_view.h): the GPU device nodes of a
 * /dev are found by name (nvidia and digits) and counted by minor number, only NVIDIA's major
 * 195 and never nvidiactl or nvidia-modeset; a node renamed in the container still names its
 * GPU. Then a table: the GPUs of a host whose minor numbers the /dev lacks are marked closed; a
 * /dev without GPU nodes or a GPU of unknown minor restricts nothing, and the note says why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../tap.h"
#include "device_view.h"

static void node(const char *dir, const char *name, unsigned maj, unsigned min)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (mknod(path, S_IFCHR | 0600, makedev(maj, min)))
		tap_bail("mknod %s: %s", path, strerror(errno));
}

/* a /dev as a container may hold it: renamed GPU nodes, the control nodes, other devices */
static void read_nodes(void)
{
	char dir[] = "/tmp/cs-devview.XXXXXX", path[300];
	struct cs_device_view v;
	int ret;

	if (geteuid()) {
		tap_skip(3, "mknod needs root");
		return;
	}
	if (!mkdtemp(dir))
		tap_bail("mkdtemp: %s", strerror(errno));
	node(dir, "nvidia0", 195, 5); /* the host's GPU of minor 5, renamed */
	node(dir, "nvidia1", 195, 2);
	node(dir, "nvidiactl", 195, 255);
	node(dir, "nvidia-modeset", 195, 254);
	node(dir, "nvidia9", 1, 3); /* not NVIDIA's major: /dev/null's numbers */
	node(dir, "nvidia-uvm", 511, 0);
	snprintf(path, sizeof(path), "%s/nvidia7", dir);
	if (symlink("/nonexistent/nvidia7", path))
		tap_bail("symlink: %s", strerror(errno));
	ret = cs_devview_read(dir, &v);
	tap_ok(!ret && v.n == 2 && v.minor[0] == 2 && v.minor[1] == 5,
	       "renamed nodes found by minor, sorted; ctl, modeset, other majors and a dangling link "
	       "left out (%d: %u nodes, %u %u)",
	       ret, v.n, v.minor[0], v.minor[1]);
	tap_ok(cs_devview_has(&v, 5) && !cs_devview_has(&v, 0), "has 5, not 0");
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path))
		tap_diag("could not remove %s", dir);
	ret = cs_devview_read("/nonexistent/dev", &v);
	tap_ok(ret == -ENOENT, "a /dev that is not there: -ENOENT (%d)", ret);
}

struct scenario {
	const char *what;
	unsigned nview;
	uint32_t view[4];
	unsigned ngpu;
	int32_t minor[4];
	unsigned nclosed;
	bool closed[4];
	const char *words; /* in the note */
};

static void run(const struct scenario *s)
{
	struct cs_restore_host h;
	struct cs_device_view v;
	char note[CS_VIEW_NOTE_MAX];
	unsigned n;
	bool same = true;

	memset(&h, 0, sizeof(h));
	memset(&v, 0, sizeof(v));
	snprintf(v.dir, sizeof(v.dir), "/proc/42/root/dev");
	v.n = s->nview;
	memcpy(v.minor, s->view, sizeof(s->view));
	h.ngpu = s->ngpu;
	for (unsigned i = 0; i < s->ngpu; i++) {
		h.gpu[i].ordinal = (int)i;
		h.gpu[i].minor = s->minor[i];
	}
	n = cs_view_restrict(&h, &v, note, sizeof(note));
	for (unsigned i = 0; i < s->ngpu; i++)
		same = same && h.gpu[i].closed == s->closed[i];
	tap_ok(n == s->nclosed && same && strstr(note, s->words), "%s: %u closed (%s)", s->what, n, note);
}

int main(void)
{
	static const struct scenario t[] = {
		{ "a container given minors 2 and 5 of 4 GPUs numbered 5,0,2,7",
		  2,
		  { 2, 5 },
		  4,
		  { 5, 0, 2, 7 },
		  2,
		  { false, true, false, true },
		  "minor numbers 2,5: 2 of this host's 4 GPUs" },
		{ "every GPU's node",
		  2,
		  { 0, 1 },
		  2,
		  { 0, 1 },
		  0,
		  { false, false },
		  "2 of this host's 2 GPUs" },
		{ "nodes of GPUs this host lacks: every GPU closed",
		  1,
		  { 9 },
		  2,
		  { 0, 1 },
		  2,
		  { true, true },
		  "0 of this host's 2 GPUs" },
		{ "no GPU node: nothing restricted",
		  0,
		  {},
		  2,
		  { 0, 1 },
		  0,
		  { false, false },
		  "holds no GPU device node" },
		{ "a GPU of unknown minor: nothing restricted",
		  1,
		  { 0 },
		  2,
		  { 0, -1 },
		  0,
		  { false, false },
		  "GPU 1's device node minor number is unknown" },
	};

	tap_plan(3 + (int)(sizeof(t) / sizeof(t[0])));
	read_nodes();
	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		run(&t[i]);
	return tap_done();
}

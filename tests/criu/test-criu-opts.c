// SPDX-License-Identifier: MIT
/*
 * test-criu-opts.c - the criu-side reading of criu's options (plugin/criu/criu_opts.c) outside
 * criu: a layout is refused when the options block disagrees with what the plugin knows, and the
 * command-line fallback reads every spelling of -R the way criu's getopt does; criu's
 * --prev-images-dir (opts.img_parent) is read through both checked-in layouts and from the
 * command line.
 */
#include <string.h>
#include <unistd.h>

#include "criu_opts.h"
#include "tap.h"

static unsigned char block[512];

static void put(size_t off, int v)
{
	memcpy(block + off, &v, sizeof(v));
}

static void fake(const struct cs_criu_layout *l, int mode, int final, int tree)
{
	memset(block, 0, sizeof(block));
	put(l->mode, mode);
	put(l->final_state, final);
	put(l->tree_id, tree);
}

static int check(const struct cs_criu_layout *l, pid_t pid)
{
	char why[200];

	return cs_criu_layout_check(l, block, pid, -1, why, sizeof(why));
}

/* argv as /proc/self/cmdline holds it: NUL-separated */
static bool parse(const char *words, bool *leave, bool *dump)
{
	char buf[512];
	size_t n = strlen(words) + 1, i;
	struct cs_criu_view v;

	memcpy(buf, words, n);
	for (i = 0; i < n; i++)
		if (buf[i] == ' ')
			buf[i] = '\0';
	memset(&v, 0, sizeof(v));
	*dump = cs_criu_parse_cmdline(buf, n, &v);
	*leave = v.leave_running;
	return v.stream || v.lazy_pages || v.page_server;
}

/* criu's --prev-images-dir: opts.img_parent, before allow_uprobes, so at 192 in 4.0-4.2 */
static void prev_images_dir(void)
{
	static const char parent[] = "../parent";
	const char *p = parent;
	const void *bad = (const void *)16;
	struct cs_criu_view v;
	pid_t me = getpid();

	for (int i = 0; i < 2; i++) {
		const struct cs_criu_layout *l = &cs_criu_layout_table[i];

		fake(l, 1, 1, me);
		memcpy(block + l->img_parent, &p, sizeof(p));
		memset(&v, 0, sizeof(v));
		cs_criu_layout_read(&v, l, block);
		tap_ok(l->img_parent == 192 && check(l, me) == 0 && !strcmp(v.img_parent, parent),
		       "%s: img_parent at %zu reads '%s'", l->what, l->img_parent, v.img_parent);
	}
	fake(&cs_criu_layout_table[0], 1, 1, me);
	memset(&v, 0, sizeof(v));
	cs_criu_layout_read(&v, &cs_criu_layout_table[0], block);
	tap_ok(!v.img_parent[0], "no --prev-images-dir (NULL) reads as none");
	memcpy(block + cs_criu_layout_table[0].img_parent, &bad, sizeof(bad));
	tap_ok(check(&cs_criu_layout_table[0], me) != 0,
	       "an unreadable img_parent pointer is refused, not dereferenced");
	{
		static const char sep[] = "criu\0dump\0-t\0005\0--prev-images-dir\0../pre\0-D\0d";
		static const char eq[] = "criu\0dump\0--prev-images-dir=../p2\0-t\0005";
		static const char none[] = "criu\0dump\0-D\0--prev-images-dir\0-t\0005";

		memset(&v, 0, sizeof(v));
		cs_criu_parse_cmdline(sep, sizeof(sep), &v);
		tap_ok(!strcmp(v.img_parent, "../pre") && v.tree == 5,
		       "--prev-images-dir DIR on the command line ('%s')", v.img_parent);
		memset(&v, 0, sizeof(v));
		cs_criu_parse_cmdline(eq, sizeof(eq), &v);
		tap_ok(!strcmp(v.img_parent, "../p2") && v.tree == 5,
		       "--prev-images-dir=DIR on the command line ('%s')", v.img_parent);
		memset(&v, 0, sizeof(v));
		cs_criu_parse_cmdline(none, sizeof(none), &v);
		tap_ok(!v.img_parent[0], "--prev-images-dir as the argument of -D names no parent");
	}
}

int main(void)
{
	const struct cs_criu_layout *l42 = &cs_criu_layout_table[0];
	pid_t me = getpid();
	bool lr, dump;

	tap_plan(26);
	tap_ok(cs_criu_layout_table[0].what && cs_criu_layout_table[1].what && !cs_criu_layout_table[2].what,
	       "two checked-in layouts (4.2.x, 4.0/4.1)");
	fake(l42, 1, 1, me);
	tap_ok(check(l42, me) == 0, "a consistent dump block passes");
	fake(l42, 3, 1, me);
	tap_ok(check(l42, me) != 0, "mode restore (3) is refused in a dump");
	fake(l42, 1, 7, me);
	tap_ok(check(l42, me) != 0, "final_state 7 is refused");
	fake(l42, 1, 2, me + 100000);
	tap_ok(check(l42, me) != 0, "a tree_id that is neither the paused pid nor seized is refused");
	fake(l42, 1, 2, me);
	put(l42->stream, 5);
	tap_ok(check(l42, me) != 0, "a non-boolean stream flag is refused");
	fake(l42, 1, 1, me);
	{
		static const char path[] = "/nonexistent/x";
		const char *p = path;

		memcpy(block + l42->imgs_dir, &p, sizeof(p));
	}
	tap_ok(check(l42, me) == 0, "imgs_dir is not compared without an images dir fd");
	{
		const void *bad = (const void *)16;

		memcpy(block + l42->imgs_dir, &bad, sizeof(bad));
	}
	tap_ok(check(l42, me) != 0, "an unreadable imgs_dir pointer is refused, not dereferenced");

	parse("criu dump -t 5 -D d -R", &lr, &dump);
	tap_ok(dump && lr, "-R");
	parse("criu dump -jR -t 5", &lr, &dump);
	tap_ok(dump && lr, "-jR (bundled)");
	parse("criu dump -vR -t 5", &lr, &dump);
	tap_ok(dump && !lr, "-vR is -v with argument R, not leave-running (criu's v::)");
	parse("criu --leave-running dump -t 5", &lr, &dump);
	tap_ok(dump && lr, "--leave-running before the command");
	parse("criu dump -D -R -t 5", &lr, &dump);
	tap_ok(dump && !lr, "-R as the argument of -D is not leave-running");
	parse("criu dump -R -s -t 5", &lr, &dump);
	tap_ok(dump && !lr, "-s after -R wins");
	parse("criu: dump --rpc -t 5", &lr, &dump);
	tap_ok(!dump, "an RPC worker's command line is not trusted");
	tap_ok(parse("criu dump -t 5 --page-server --address a --port 1", &lr, &dump) && dump,
	       "--page-server seen on the command line");
	{
		struct cs_criu_view v;
		static const char words[] = "criu\0dump\0--tree\0"
					    "42\0--freeze-cgroup\0/sys/fs/cgroup/x\0-D\0d";
		static const char eq[] = "criu\0dump\0-t42\0--freeze-cgroup=/cg/y";
		static const char dangling[] = "criu\0dump\0-D\0-t";

		memset(&v, 0, sizeof(v));
		cs_criu_parse_cmdline(words, sizeof(words), &v);
		tap_ok(v.tree == 42 && !strcmp(v.freeze_cgroup, "/sys/fs/cgroup/x"),
		       "--tree 42 and --freeze-cgroup PATH (tree %d, cgroup '%s')", (int)v.tree,
		       v.freeze_cgroup);
		memset(&v, 0, sizeof(v));
		cs_criu_parse_cmdline(eq, sizeof(eq), &v);
		tap_ok(v.tree == 42 && !strcmp(v.freeze_cgroup, "/cg/y"),
		       "-t42 and --freeze-cgroup=PATH (tree %d, '%s')", (int)v.tree, v.freeze_cgroup);
		memset(&v, 0, sizeof(v));
		cs_criu_parse_cmdline(dangling, sizeof(dangling), &v);
		tap_ok(v.tree == 0 && !v.freeze_cgroup[0],
		       "-t as the argument of -D is no tree, no freeze cgroup");
	}
	prev_images_dir();
	return tap_done();
}

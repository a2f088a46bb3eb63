// SPDX-License-Identifier: MIT
/*
 * test-criu-opts.c - the criu-side reading of criu's options (plugin/criu/criu_opts.c) outside
 * criu: a layout is refused when the options block disagrees with what the plugin knows, and the
 * command-line fallback reads every spelling of -R the way criu's getopt does; criu's
 * --prev-images-dir (opts.img_parent) is read through every checked-in layout and from the
 * command line; each layout refuses a block of another CRIU release's shape, and criu's version
 * picks the layout ("4.3" is a 4.3.x).
 */
#include <string.h>
#include <unistd.h>

#include "criu_opts.h"
#include "tap.h"

/* struct cr_options is 512 bytes in CRIU 4.2.1, 552 in 4.3 */
static unsigned char block[1024];

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

/* the checked-in layout for criu version ver, as the plugin picks it; NULL when none */
static const struct cs_criu_layout *layout_for(const char *ver)
{
	const struct cs_criu_layout *l;

	for (l = cs_criu_layout_table; l->what; l++)
		if (cs_criu_version_matches(l->versions, ver))
			return l;
	return NULL;
}

/* criu's --prev-images-dir: opts.img_parent, at 192 in 4.0-4.2 (before allow_uprobes), 216 in 4.3 */
static void prev_images_dir(void)
{
	static const char *const vers[] = { "4.3", "4.2.1", "4.1" };
	static const size_t at[] = { 216, 192, 192 };
	static const char parent[] = "../parent";
	const struct cs_criu_layout *l42 = layout_for("4.2.1");
	const char *p = parent;
	const void *bad = (const void *)16;
	struct cs_criu_view v;
	pid_t me = getpid();

	for (int i = 0; i < 3; i++) {
		const struct cs_criu_layout *l = layout_for(vers[i]);

		if (!l) {
			tap_ok(false, "criu %s: no layout to read img_parent through", vers[i]);
			continue;
		}
		fake(l, 1, 1, me);
		memcpy(block + l->img_parent, &p, sizeof(p));
		memset(&v, 0, sizeof(v));
		cs_criu_layout_read(&v, l, block);
		tap_ok(l->img_parent == at[i] && check(l, me) == 0 && !strcmp(v.img_parent, parent),
		       "%s: img_parent at %zu reads '%s'", l->what, l->img_parent, v.img_parent);
	}
	fake(l42, 1, 1, me);
	memset(&v, 0, sizeof(v));
	cs_criu_layout_read(&v, l42, block);
	tap_ok(!v.img_parent[0], "no --prev-images-dir (NULL) reads as none");
	memcpy(block + l42->img_parent, &bad, sizeof(bad));
	tap_ok(check(l42, me) != 0, "an unreadable img_parent pointer is refused, not dereferenced");
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

/* which checked-in layout each criu version picks ("4.3" is how criu 4.3 names itself) */
static void versions(void)
{
	static const struct {
		const char *ver, *what;
	} cases[] = {
		{ "4.3", "table for CRIU 4.3.x" },
		{ "4.3.1", "table for CRIU 4.3.x" },
		{ "4.2.1", "table for CRIU 4.2.x" },
		{ "4.2", "table for CRIU 4.2.x" },
		{ "4.1", "table for CRIU 4.0/4.1" },
		{ "4.0.2", "table for CRIU 4.0/4.1" },
		{ "4.30", NULL },
		{ "4.4", NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct cs_criu_layout *l = layout_for(cases[i].ver);
		const char *got = l ? l->what : NULL;

		tap_ok(got == cases[i].what || (got && cases[i].what && !strcmp(got, cases[i].what)),
		       "criu %s: %s", cases[i].ver, got ? got : "no layout (the tasks are watched)");
	}
}

/*
 * CRIU 4.3's layout, as measured in criu 4.3 (criu_opts.c): a block of its shape is read right
 * through it, and each release's layout refuses a block of the other's shape.
 */
static void criu43(void)
{
	const struct cs_criu_layout *l43 = layout_for("4.3"), *l42 = layout_for("4.2.1");
	struct cs_criu_view v;
	pid_t me = getpid();

	if (!l43 || !l42) {
		for (int i = 0; i < 5; i++)
			tap_ok(false, "criu 4.3 or 4.2.1 picks no layout (see above)");
		return;
	}
	tap_ok(l43->final_state == 0 && l43->use_page_server == 192 && l43->lazy_pages == 388 &&
		   l43->stream == 432 && l43->tree_id == 436 && l43->log_level == 440 &&
		   l43->imgs_dir == 448 && l43->mode == 520 && l43->freeze_cgroup == 88 &&
		   l43->img_parent == 216,
	       "the 4.3.x layout holds the offsets measured in criu 4.3");
	fake(l43, 2, 1, me);
	put(l43->use_page_server, 1);
	block[l43->lazy_pages] = 1;
	memset(&v, 0, sizeof(v));
	cs_criu_layout_read(&v, l43, block);
	tap_ok(check(l43, me) == 0 && v.known && v.leave_running && v.pre_dump && v.page_server &&
		   v.lazy_pages && !v.stream && v.tree == me,
	       "a 4.3 block passes the 4.3.x layout and reads leave-running, pre-dump, page server, "
	       "lazy pages, tree %d",
	       (int)v.tree);
	fake(l43, 1, 1, me);
	put(l43->stream, 1);
	memset(&v, 0, sizeof(v));
	cs_criu_layout_read(&v, l43, block);
	tap_ok(check(l43, me) == 0 && v.stream && !v.page_server && !v.lazy_pages && !v.pre_dump,
	       "a 4.3 block with --stream reads stream alone");
	tap_ok(check(l42, me) != 0, "the 4.2.x layout refuses a 4.3 block");
	fake(l42, 1, 1, me);
	tap_ok(check(l43, me) != 0, "the 4.3.x layout refuses a 4.2.1 block");
}

int main(void)
{
	const struct cs_criu_layout *l42 = layout_for("4.2.1");
	pid_t me = getpid();
	bool lr, dump;

	tap_plan(40);
	tap_ok(cs_criu_layout_table[0].what && cs_criu_layout_table[1].what && cs_criu_layout_table[2].what &&
		   !cs_criu_layout_table[3].what,
	       "three checked-in layouts (4.3.x, 4.2.x, 4.0/4.1)");
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
	versions();
	criu43();
	return tap_done();
}

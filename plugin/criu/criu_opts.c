// SPDX-License-Identifier: MIT
/*
 * criu_opts.c - criu's own decisions (leave running, --stream, --lazy-pages, --page-server),
 * read from criu's exported global options. criu-side only: no driver calls.
 *
 * Why not criu's command line: runc, crun, containerd and CRI-O drive criu over RPC
 * ("criu swrk 3"; the command line then says nothing), and -R can also come from a CRIU
 * config file or a bundled short option. CRIU itself records the outcome of all of these in
 * opts.final_state.
 *
 * A layout is trusted only when the options block, read through it, agrees with what the
 * plugin knows independently: criu's mode is dump or pre-dump, opts.tree_id is the pid being
 * paused or a process criu has seized (0 over RPC, which passes the pid in the request),
 * opts.log_level is criu's current log level, the flags read as booleans, and
 * opts.imgs_dir, when set, names the directory criu_get_image_dir() has open, and
 * opts.img_parent (--prev-images-dir), when set, is a readable string. The callers pass
 * that fd: a reference to criu_get_image_dir here would have to be bound when the plugin is
 * loaded (tools that dlopen the plugin outside criu, and the unit tests, have none).
 * A layout that passed once is trusted for the rest of the criu process: later reads (the exit
 * hook, when criu may have released or never seized the tree) skip the tree_id check.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "criu_opts.h"
#include "criu_version.h"
#include "log.h"
#include "procfs.h"

/* criu's symbols; weak so that code linked outside criu (unit tests) still links */
extern unsigned char opts[] __attribute__((weak));
extern unsigned int log_get_loglevel(void) __attribute__((weak));

/* compel's task states and criu's modes (values unchanged since CRIU 3.x) */
#define CS_TASK_ALIVE	1
#define CS_TASK_DEAD	2
#define CS_TASK_STOPPED 3
#define CS_CR_DUMP	1
#define CS_CR_PRE_DUMP	2

/*
 * Checked-in layouts, x86_64 and other LP64 targets, newest first. Used only after the run-time
 * check passes.
 * 4.3.x: measured in criu 4.3 itself (Debian's 4.3-1~exp2 build, whose struct cr_options is 552
 * bytes against 4.2.1's 512): its exported "opts" block, copied once criu had parsed its options,
 * compared between runs that differ in one option each (-R, --prev-images-dir, --freeze-cgroup,
 * --page-server, --lazy-pages, --stream, -v, -t, pre-dump). The same procedure applied to criu
 * 4.2.1 gives the 4.2.x row exactly, and criu 4.3's machine code addresses each new offset as
 * often as 4.2.1's addresses the old one (lazy_pages 19 times, stream 13, imgs_dir 11,
 * use_page_server 9, tree_id 4). Against 4.2.1, the plugin options 4.3 added (--plugin-option,
 * 24 bytes after join_ns) move use_page_server through imgs_dir by 24 bytes, and the fields
 * added before mode (--image-io-mode among them) move mode by 44.
 * 4.2.x: computed from the CRIU 4.2.1 tree (the same numbers configure probes).
 * 4.0/4.1: the same struct without allow_uprobes, the one layout change between 4.0 and 4.2.1
 * (CRIU's criu/include/cr_options.h), which moves every field after it by 4 bytes.
 */
const struct cs_criu_layout cs_criu_layout_table[] = {
	{ "table for CRIU 4.3.x", "4.3.", 0, 192, 388, 432, 436, 440, 448, 520, 88, 216 },
	{ "table for CRIU 4.2.x", "4.2.", 0, 168, 364, 408, 412, 416, 424, 476, 88, 192 },
	{ "table for CRIU 4.0/4.1", "4.0|4.1.", 0, 168, 364, 404, 408, 412, 416, 468, 88, 192 },
	{ NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
};

#ifdef CS_CRIU_OPTS_PROBED
static const struct cs_criu_layout probed = {
	"probed CRIU " CS_CRIU_PROBED_VERSION " tree",
	CS_CRIU_PROBED_VERSION,
	CS_CRIU_OFF_FINAL_STATE,
	CS_CRIU_OFF_USE_PAGE_SERVER,
	CS_CRIU_OFF_LAZY_PAGES,
	CS_CRIU_OFF_STREAM,
	CS_CRIU_OFF_TREE_ID,
	CS_CRIU_OFF_LOG_LEVEL,
	CS_CRIU_OFF_IMGS_DIR,
	CS_CRIU_OFF_MODE,
	CS_CRIU_OFF_FREEZE_CGROUP,
	CS_CRIU_OFF_IMG_PARENT,
};
#endif

static int rd_int(const unsigned char *base, size_t off)
{
	int v;

	memcpy(&v, base + off, sizeof(v));
	return v;
}

/* copy a string from our own address space without trusting the pointer */
static int safe_read_str(const void *p, char *buf, size_t len)
{
	struct iovec local = { buf, len - 1 }, remote = { (void *)p, len - 1 };
	ssize_t n;

	/* a page-crossing read may fail in its second half: retry up to the page end */
	n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (n < 0) {
		size_t to_end = 4096 - ((uintptr_t)p & 4095);

		if (to_end >= len)
			return -EFAULT;
		local.iov_len = remote.iov_len = to_end;
		n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
		if (n < 0)
			return -EFAULT;
	}
	buf[n] = '\0';
	return strlen(buf) < (size_t)n ? 0 : -ENAMETOOLONG;
}

/* opts.imgs_dir (a path, absolute or relative to where criu started) vs the open images dir */
static int check_imgs_dir(const char *path, int dfd, char *why, size_t whylen)
{
	char self[64], real[PATH_MAX], rel[PATH_MAX];
	struct stat a, b;
	size_t n, rl;
	ssize_t l;
	char *r;

	if (dfd < 0 || fstat(dfd, &b))
		return 0; /* nothing to compare with */
	if (path[0] == '/') {
		if (stat(path, &a) || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
			snprintf(why, whylen, "imgs_dir '%.80s' is not the open images directory", path);
			return -1;
		}
		return 0;
	}
	/* relative: criu has chdir'ed since; compare the trailing components */
	for (r = (char *)path; r[0] == '.' && r[1] == '/';)
		r += 2;
	snprintf(rel, sizeof(rel), "%s", r);
	for (n = strlen(rel); n > 0 && rel[n - 1] == '/'; n--)
		rel[n - 1] = '\0';
	if (!n || !strcmp(rel, ".") || strstr(rel, ".."))
		return 0; /* cannot be compared by name */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", dfd);
	l = readlink(self, real, sizeof(real) - 1);
	if (l <= 0)
		return 0;
	real[l] = '\0';
	rl = (size_t)l;
	if (rl <= n || strcmp(real + rl - n, rel) || real[rl - n - 1] != '/') {
		snprintf(why, whylen, "imgs_dir '%.80s' does not name the open images directory", path);
		return -1;
	}
	return 0;
}

/* opts.freeze_cgroup: NULL, or a readable absolute path */
static int check_freeze_cgroup(const struct cs_criu_layout *l, const unsigned char *base, char *why,
			       size_t whylen)
{
	char path[PATH_MAX];
	void *p;

	memcpy(&p, base + l->freeze_cgroup, sizeof(p));
	if (!p)
		return 0;
	if (safe_read_str(p, path, sizeof(path)) || path[0] != '/') {
		snprintf(why, whylen, "freeze_cgroup reads %p, not an absolute path", p);
		return -1;
	}
	return 0;
}

/* opts.img_parent: NULL, or a readable string */
static int check_img_parent(const struct cs_criu_layout *l, const unsigned char *base, char *why,
			    size_t whylen)
{
	char path[PATH_MAX];
	void *p;

	memcpy(&p, base + l->img_parent, sizeof(p));
	if (p && safe_read_str(p, path, sizeof(path))) {
		snprintf(why, whylen, "img_parent reads an unreadable pointer %p", p);
		return -1;
	}
	return 0;
}

/*
 * The checks above. check_tree false: this layout already passed the tree check in this criu
 * process (the tree may be gone or released by now, at exit after a refused PAUSE).
 */
static int layout_check(const struct cs_criu_layout *l, const unsigned char *base, pid_t pid,
			bool check_tree, int dirfd, char *why, size_t whylen)
{
	int fs = rd_int(base, l->final_state), mode = rd_int(base, l->mode);
	int stream = rd_int(base, l->stream), ps = rd_int(base, l->use_page_server);
	unsigned char lazy = base[l->lazy_pages];
	pid_t tree = rd_int(base, l->tree_id);
	void *dir;

	if (mode != CS_CR_DUMP && mode != CS_CR_PRE_DUMP) {
		snprintf(why, whylen, "mode reads %d, not dump (%d) or pre-dump (%d)", mode, CS_CR_DUMP,
			 CS_CR_PRE_DUMP);
		return -1;
	}
	if (fs < CS_TASK_ALIVE || fs > CS_TASK_STOPPED) {
		snprintf(why, whylen, "final_state reads %d", fs);
		return -1;
	}
	if ((stream & ~1) || (ps & ~1) || (lazy & ~1)) {
		snprintf(why, whylen, "stream/page-server/lazy-pages read %d/%d/%d, not booleans", stream, ps,
			 lazy);
		return -1;
	}
	if (tree < 0) {
		snprintf(why, whylen, "tree_id reads %d", tree);
		return -1;
	}
	/* RPC passes the pid in the request and leaves tree_id 0; then the log level must check */
	if (check_tree &&
	    ((tree == 0 && !log_get_loglevel) ||
	     (tree > 0 && tree != pid && cs_procfs_status_pid(tree, "TracerPid") != getpid()))) {
		snprintf(why, whylen, "tree_id reads %d: neither pid %d nor a process criu has seized", tree,
			 pid);
		return -1;
	}
	if (log_get_loglevel && (unsigned)rd_int(base, l->log_level) != log_get_loglevel()) {
		snprintf(why, whylen, "log_level reads %d, criu logs at %u", rd_int(base, l->log_level),
			 log_get_loglevel());
		return -1;
	}
	memcpy(&dir, base + l->imgs_dir, sizeof(dir));
	if (dir) {
		char path[PATH_MAX];

		if (safe_read_str(dir, path, sizeof(path))) {
			snprintf(why, whylen, "imgs_dir reads an unreadable pointer %p", dir);
			return -1;
		}
		if (check_imgs_dir(path, dirfd, why, whylen))
			return -1;
	}
	if (check_img_parent(l, base, why, whylen))
		return -1;
	return check_freeze_cgroup(l, base, why, whylen);
}

int cs_criu_layout_check(const struct cs_criu_layout *l, const unsigned char *base, pid_t pid, int dirfd,
			 char *why, size_t whylen)
{
	return layout_check(l, base, pid, true, dirfd, why, whylen);
}

/* criu's version as `criu --version` prints it ("4.2.1"), once per process */
static const char *running_version(void)
{
	static char ver[32];
	static bool tried;

	if (tried)
		return ver[0] ? ver : NULL;
	tried = true;
	if (cs_criu_version("/proc/self/exe", ver, sizeof(ver)))
		return NULL;
	/* "4.2.1-rc1" reads as 4.2.1: the layout table lists numbers */
	ver[strspn(ver, "0123456789.")] = '\0';
	return ver[0] ? ver : NULL;
}

/*
 * ver ("4.3", "4.2.1") against a list of prefixes ("4.0|4.1."): a prefix ending in '.' names a
 * release and its updates, so "4.3." matches "4.3" (criu prints no ".0") and "4.3.1", not "4.30".
 */
bool cs_criu_version_matches(const char *list, const char *ver)
{
	char copy[64], *tok, *save;
	size_t n;

	snprintf(copy, sizeof(copy), "%s", list);
	for (tok = strtok_r(copy, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		n = strlen(tok);
		if (!strncmp(ver, tok, n))
			return true;
		if (n > 1 && tok[n - 1] == '.' && strlen(ver) == n - 1 && !strncmp(ver, tok, n - 1))
			return true;
	}
	return false;
}

/* a string field of the options block into buf ("" for NULL or unreadable) */
static void rd_str(const unsigned char *base, size_t off, char *buf, size_t len)
{
	void *p;

	memcpy(&p, base + off, sizeof(p));
	if (!p || safe_read_str(p, buf, len))
		buf[0] = '\0';
}

void cs_criu_layout_read(struct cs_criu_view *v, const struct cs_criu_layout *l, const unsigned char *base)
{
	v->known = true;
	v->leave_running = rd_int(base, l->final_state) == CS_TASK_ALIVE;
	v->stream = rd_int(base, l->stream) != 0;
	v->page_server = rd_int(base, l->use_page_server) != 0;
	v->lazy_pages = base[l->lazy_pages] != 0;
	v->pre_dump = rd_int(base, l->mode) == CS_CR_PRE_DUMP;
	v->tree = rd_int(base, l->tree_id);
	rd_str(base, l->freeze_cgroup, v->freeze_cgroup, sizeof(v->freeze_cgroup));
	rd_str(base, l->img_parent, v->img_parent, sizeof(v->img_parent));
	snprintf(v->how, sizeof(v->how), "criu's options, %s", l->what);
}

#ifdef CS_CRIU_OPTS_PROBED
static bool warned_probe;
#endif
static bool warned_none;
static bool layout_allowed = true; /* criu_options is not no */
/* the layout that passed every check once in this criu process (criu's options do not move) */
static const struct cs_criu_layout *trusted;

/* l passed: read v through it, and trust it from now on unless the tree could not be checked */
static bool use_layout(struct cs_criu_view *v, const struct cs_criu_layout *l, bool at_init)
{
	if (!at_init)
		trusted = l;
	cs_criu_layout_read(v, l, opts);
	return true;
}

/* a warning once per criu process (PAUSE runs for every process of the tree) */
__attribute__((format(printf, 2, 3))) static void warn_once(bool *done, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (*done)
		return;
	*done = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cs_warn("%s", msg);
}

/* the layouts, in order: probed at build time, then the table entry for the running version */
static bool read_layouts(struct cs_criu_view *v, pid_t pid, bool at_init, int dirfd, char *why, size_t whylen)
{
	const struct cs_criu_layout *l;
	const char *ver;
	char w[160] = "";

	if (!layout_allowed) {
		snprintf(why, whylen, "criu_options=no: criu's private options are not read");
		return false;
	}
	if (!opts) {
		snprintf(why, whylen, "criu exports no 'opts'");
		return false;
	}
	if (trusted) {
		if (!layout_check(trusted, opts, pid, false, dirfd, w, sizeof(w)))
			return use_layout(v, trusted, false);
		snprintf(why, whylen, "the %s, trusted until now, no longer fits: %s", trusted->what, w);
		return false;
	}
#ifdef CS_CRIU_OPTS_PROBED
	if (!layout_check(&probed, opts, pid, !at_init, dirfd, w, sizeof(w)))
		return use_layout(v, &probed, at_init);
	warn_once(&warned_probe,
		  "criu's options: the layout of the %s does not fit this criu (%s); "
		  "trying the checked-in table",
		  probed.what, w);
#endif
	ver = running_version();
	if (!ver) {
		snprintf(why, whylen, "%s%scriu's version is unknown", w, w[0] ? "; " : "");
		return false;
	}
	for (l = cs_criu_layout_table; l->what; l++) {
		if (!cs_criu_version_matches(l->versions, ver))
			continue;
		if (!layout_check(l, opts, pid, !at_init, dirfd, w, sizeof(w)))
			return use_layout(v, l, at_init);
		snprintf(why, whylen, "the %s does not fit criu %s: %s", l->what, ver, w);
		return false;
	}
	snprintf(why, whylen, "no layout of criu %s's options is known%s%s", ver, w[0] ? "; " : "", w);
	return false;
}

static bool is_long(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg, name, n) && (arg[n] == '\0' || arg[n] == '=');
}

/* criu's long options that take the next word as their argument (when not given as --opt=x) */
static bool takes_arg(const char *arg)
{
	static const char *const with_arg[] = {
		"--tree",	   "--images-dir", "--work-dir",	"--log-file",	   "--libdir",
		"--config",	   "--root",	   "--address",		"--port",	   "--pidfile",
		"--freeze-cgroup", "--timeout",	   "--prev-images-dir", "--ext-mount-map", "--external",
		"--inherit-fd",
	};

	for (size_t i = 0; i < sizeof(with_arg) / sizeof(with_arg[0]); i++)
		if (is_long(arg, with_arg[i]))
			return true;
	return false;
}

/* the argument of an option criu's view keeps (-t, --freeze-cgroup, --prev-images-dir) */
static void keep_arg(struct cs_criu_view *v, char what, const char *arg)
{
	if (what == 't')
		v->tree = (pid_t)atoi(arg);
	else if (what == 'f')
		snprintf(v->freeze_cgroup, sizeof(v->freeze_cgroup), "%s", arg);
	else if (what == 'p')
		snprintf(v->img_parent, sizeof(v->img_parent), "%s", arg);
}

/* which kept option a long option is ('t', 'f', 'p'), else 0 */
static char kept_long(const char *p)
{
	if (is_long(p, "--tree"))
		return 't';
	if (is_long(p, "--freeze-cgroup"))
		return 'f';
	if (is_long(p, "--prev-images-dir"))
		return 'p';
	return 0;
}

bool cs_criu_parse_cmdline(const char *buf, size_t len, struct cs_criu_view *v)
{
	const char *p, *end = buf + len;
	bool cmd_seen = false, dump = false, skip_next = false, rpc = false;
	int final = CS_TASK_DEAD;
	char keep = 0; /* the skipped next word is kept as this option's argument */

	/* argv[0] first */
	for (p = buf + strnlen(buf, len) + 1; p < end; p += strnlen(p, end - p) + 1) {
		if (skip_next) {
			skip_next = false;
			keep_arg(v, keep, p);
			continue;
		}
		if (!strcmp(p, "--"))
			break;
		if (p[0] != '-') {
			if (!cmd_seen)
				dump = !strcmp(p, "dump") || !strcmp(p, "pre-dump");
			cmd_seen = true;
			continue;
		}
		if (p[1] == '-') {
			if (is_long(p, "--leave-running"))
				final = CS_TASK_ALIVE;
			else if (is_long(p, "--leave-stopped"))
				final = CS_TASK_STOPPED;
			else if (is_long(p, "--stream"))
				v->stream = true;
			else if (is_long(p, "--no-stream"))
				v->stream = false;
			else if (is_long(p, "--lazy-pages"))
				v->lazy_pages = true;
			else if (is_long(p, "--page-server"))
				v->page_server = true;
			else if (is_long(p, "--no-page-server"))
				v->page_server = false;
			else if (is_long(p, "--rpc"))
				rpc = true;
			else if (kept_long(p) && strchr(p, '='))
				keep_arg(v, kept_long(p), strchr(p, '=') + 1);
			else if (!strchr(p, '=') && takes_arg(p))
				skip_next = true; /* an option that takes the next argument */
			keep = skip_next ? kept_long(p) : 0;
			continue;
		}
		/* short options, possibly bundled: criu's "dSsRt:hD:o:v::x::Vr:jJ:lW:L:M:" */
		for (const char *c = p + 1; *c; c++) {
			if (*c == 'R')
				final = CS_TASK_ALIVE;
			else if (*c == 's')
				final = CS_TASK_STOPPED;
			else if (strchr("tDorJWLM", *c)) {
				skip_next = c[1] == '\0';
				keep = *c == 't' ? 't' : 0;
				if (!skip_next)
					keep_arg(v, keep, c + 1);
				break;
			} else if (strchr("vx", *c))
				break; /* optional argument: the rest of this word */
		}
	}
	v->leave_running = final == CS_TASK_ALIVE;
	return dump && !rpc;
}

static bool read_cmdline(struct cs_criu_view *v, char *cmd, size_t cmdlen)
{
	char buf[8192];
	ssize_t n;
	size_t i;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	cmd[0] = '\0';
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* for the log: arguments joined by spaces; criu rewrites its argv (its process title), so
	 * whatever follows in that area is shown as '?' rather than as raw bytes */
	for (i = 0; i + 1 < cmdlen && i < (size_t)n; i++)
		cmd[i] = !buf[i] ? ' ' : (buf[i] < 0x20 || buf[i] > 0x7e) ? '?' : buf[i];
	cmd[i] = '\0';
	return cs_criu_parse_cmdline(buf, (size_t)n, v);
}

void cs_criu_opts_configure(const struct cs_options *o)
{
	layout_allowed = o->criu_options != CS_NO;
}

static void view_read(struct cs_criu_view *v, pid_t pid, bool at_init, int dirfd)
{
	char why[200] = "", cmd[96];

	memset(v, 0, sizeof(*v));
	if (read_layouts(v, pid, at_init, dirfd, why, sizeof(why)))
		return;
	if (!at_init) /* init has not yet seen whether a CUDA process is dumped */
		warn_once(&warned_none,
			  "criu's options cannot be read (%s); leave-running is decided by watching "
			  "the tasks once criu lets them go, the rest from criu's command line, which does "
			  "not show CRIU config files or RPC requests",
			  why);
	if (read_cmdline(v, cmd, sizeof(cmd))) {
		v->from_cmdline = true;
		snprintf(v->how, sizeof(v->how), "criu's command line (%s)", why);
		return;
	}
	memset(v, 0, sizeof(*v));
	snprintf(v->how, sizeof(v->how), "%s; criu runs as '%.60s'", why, cmd);
}

void cs_criu_view_read(struct cs_criu_view *v, pid_t pid, int dirfd)
{
	view_read(v, pid, false, dirfd);
}

void cs_criu_view_read_init(struct cs_criu_view *v, int dirfd)
{
	view_read(v, 0, true, dirfd);
}

int cs_criu_leave_running(const struct cs_options *o, int dirfd)
{
	struct cs_criu_view v;

	if (o->leave_running != CS_AUTO) {
		cs_info("leave-running %s: set by the leave_running option",
			o->leave_running == CS_YES ? "yes" : "no");
		return o->leave_running == CS_YES;
	}
	cs_criu_view_read(&v, 0, dirfd);
	if (v.known) {
		cs_info("criu %s the dumped tree (read from %s)",
			v.leave_running ? "leaves running" : "does not leave running", v.how);
		return v.leave_running;
	}
	if (v.from_cmdline && v.leave_running) {
		cs_info("criu leaves running the dumped tree (read from %s)", v.how);
		return 1;
	}
	cs_info("criu's options do not say whether criu leaves the dumped tree running (%s): "
		"cudastore-helper will watch what criu does to the tasks and resume the GPU state of "
		"those criu lets run",
		v.how);
	return CS_CRIU_LR_WATCH;
}

int cs_criu_refuse_unsupported(int pid, int dirfd)
{
	struct cs_criu_view v;
	const char *opt, *why;
	char what[256];
	int ret;

	cs_criu_view_read(&v, pid, dirfd);
	if (v.pre_dump)
		return 0; /* pre-dump leaves GPU state alone (dump.c); the final dump decides */
	if (!v.known && !v.from_cmdline) {
		cs_warn("pid %d: cannot tell whether criu runs with --stream, --lazy-pages or "
			"--page-server (%s); cudastore serves none of them",
			pid, v.how);
		return 0;
	}
	if (v.stream) {
		opt = "--stream";
		why = "the image streamer carries only CRIU's own images; cudastore writes GPU extents "
		      "into the images directory, which the streamer bypasses. Dump into a directory "
		      "without --stream";
	} else if (v.lazy_pages) {
		opt = "--lazy-pages";
		why = "GPU memory cannot be paged in lazily: the whole GPU state is restored before the "
		      "process runs. Dump without --lazy-pages";
	} else if (v.page_server) {
		opt = "--page-server";
		why = "only CRIU's memory pages go to the page server; the GPU extents stay in the local "
		      "images directory and the restore side would miss them. Dump into a local (or "
		      "shared) images directory without --page-server and copy it whole";
	} else {
		return 0;
	}
	ret = cs_procfs_cuda_driver(pid, what, sizeof(what));
	if (!ret) {
		cs_debug("pid %d: does not use the CUDA driver; %s does not concern cudastore", pid, opt);
		return 0;
	}
	cs_err("pid %d: criu runs with %s, which cudastore cannot serve for a CUDA process: %s. The "
	       "process was not touched (it %s the CUDA driver: %s; criu's options read from %s)",
	       pid, opt, why, ret > 0 ? "uses" : "may use", what, v.how);
	return -EINVAL;
}

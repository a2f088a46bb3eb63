// SPDX-License-Identifier: MIT
/*
 * procfs.c - NSpid, MemAvailable, /proc/vmstat counters, a thread's signal and seccomp status,
 * the CUDA driver's files in a process, tracees
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

/* /proc/PID/NAME opened for reading; NULL with errno set */
static FILE *proc_open(pid_t pid, const char *name)
{
	char path[96];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	return fopen(path, "re");
}

/*
 * The number after "key" and sep at the start of a line of f (closed here), into *out: 0, or -1
 * when f is NULL or no line has the key.
 */
static int key_number(FILE *f, const char *key, char sep, long long *out)
{
	size_t n = strlen(key);
	char line[256];
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == sep) {
			*out = strtoll(line + n + 1, NULL, 10);
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

pid_t cs_procfs_ns_pid(pid_t pid)
{
	FILE *f = proc_open(pid, "status");
	char line[256];
	pid_t ns = pid;

	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f)) {
		char *p, *end;

		if (strncmp(line, "NSpid:", 6))
			continue;
		for (p = line + 6;; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			ns = (pid_t)v;
		}
		break;
	}
	fclose(f);
	return ns;
}

uint64_t cs_procfs_mem_available(void)
{
	long long kb;

	return !key_number(fopen("/proc/meminfo", "re"), "MemAvailable", ':', &kb) && kb > 0
		   ? (uint64_t)kb * 1024ull
		   : 0;
}

/*
 * schedstat's first field is the thread's time on a CPU in ns (CONFIG_SCHED_INFO); without it,
 * stat's utime and stime in clock ticks.
 */
int cs_procfs_thread_cpu_ns(pid_t pid, pid_t tid, uint64_t *ns)
{
	char name[48], buf[1024], *p;
	unsigned long long v, u, s;
	FILE *f;
	size_t n;
	int got;

	snprintf(name, sizeof(name), "task/%d/schedstat", tid);
	f = proc_open(pid, name);
	if (f) {
		got = fscanf(f, "%llu", &v);
		fclose(f);
		if (got == 1) {
			*ns = v;
			return 0;
		}
	}
	snprintf(name, sizeof(name), "task/%d/stat", tid);
	f = proc_open(pid, name);
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* fields 14 and 15, after the command name */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &u, &s) != 2)
		return -EPROTO;
	*ns = (u + s) * (1000000000ull / (unsigned long long)sysconf(_SC_CLK_TCK));
	return 0;
}

int cs_procfs_rss_pages(pid_t pid, uint64_t *pages)
{
	unsigned long long size, rss;
	FILE *f = proc_open(pid, "statm");
	int n;

	if (!f)
		return -errno;
	n = fscanf(f, "%llu %llu", &size, &rss);
	fclose(f);
	if (n != 2)
		return -EPROTO;
	*pages = rss;
	return 0;
}

uint64_t cs_procfs_vmstat(const char *key)
{
	long long v;

	return !key_number(fopen("/proc/vmstat", "re"), key, ' ', &v) && v > 0 ? (uint64_t)v : 0;
}

int cs_procfs_thread_status(pid_t tid, struct cs_thread_status *st)
{
	char line[256];
	int found = 0;
	FILE *f;

	memset(st, 0, sizeof(*st));
	f = proc_open(tid, "status");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Tgid:", 5)) {
			st->tgid = (pid_t)strtol(line + 5, NULL, 10);
			found++;
		} else if (!strncmp(line, "SigPnd:", 7) || !strncmp(line, "ShdPnd:", 7)) {
			st->pending |= strtoull(line + 7, NULL, 16);
			found++;
		} else if (!strncmp(line, "Seccomp:", 8)) {
			st->seccomp = (int)strtol(line + 8, NULL, 10);
		} else if (!strncmp(line, "State:", 6)) {
			st->state = line[6 + strspn(line + 6, " \t")];
		} else if (!strncmp(line, "TracerPid:", 10)) {
			st->tracer = (pid_t)strtol(line + 10, NULL, 10);
		}
	}
	fclose(f);
	return found == 3 ? 0 : -EIO;
}

/*
 * The first mapping of pid whose line holds needle: 1 (its path, from needle on, into name when
 * name is given), 0 none, -errno when the maps cannot be read.
 */
static int maps_find(pid_t pid, const char *needle, char *name, size_t len)
{
	FILE *f = proc_open(pid, "maps");
	char line[512], *p = NULL;

	if (!f)
		return -errno;
	while (!p && fgets(line, sizeof(line), f))
		p = strstr(line, needle);
	fclose(f);
	if (p && name) {
		p[strcspn(p, "\n")] = '\0';
		snprintf(name, len, "%s", p);
	}
	return p ? 1 : 0;
}

/*
 * What marks a CUDA process from outside is what the driver holds in it: from cuInit on it has
 * /dev/nvidiactl, /dev/nvidiaN and /dev/nvidia-uvm open and mapped, whatever the library that
 * loaded it is called (a vendored or renamed copy, a wrapper's private name). The driver library
 * itself (libcuda.so*) counts as well: it is loaded before cuInit opens anything, so it marks a
 * process in the window between the two, and the only error the extra signal can make is to take
 * a process that loaded the library but never initialised it for a CUDA process, which costs the
 * freezer's single-step seizing, never a GPU state dumped as CPU-only. The maps come first: every
 * initialised CUDA process maps nvidiactl, so the fds only add the moment inside cuInit between
 * open() and mmap(), and a process with more than CS_PROCFS_MAX_FDS fds is decided by its maps and
 * its first fds: a proxy holding 100000 sockets is not taken for a CUDA process for their number.
 */

/* a device file's name as the NVIDIA driver makes it: nvidiactl, nvidiaN, nvidia-uvm(-tools) */
static bool nvidia_dev_name(const char *name)
{
	if (strncmp(name, "nvidia", 6))
		return false;
	name += 6;
	return isdigit((unsigned char)*name) || !strncmp(name, "ctl", 3) || !strncmp(name, "-uvm", 4);
}

/*
 * path, as /proc shows it, names an NVIDIA device file: its last component is such a name in a
 * directory named dev. The path may lie under a container's root (criu outside it sees
 * /run/.../rootfs/dev/nvidia0) and may end in " (deleted)".
 */
static bool nvidia_dev_path(const char *path)
{
	const char *name = strrchr(path, '/');

	return name && name - path >= 4 && !strncmp(name - 4, "/dev", 4) && nvidia_dev_name(name + 1);
}

static bool libcuda_path(const char *path)
{
	const char *name = strrchr(path, '/');

	return name && !strncmp(name + 1, "libcuda.so", 10);
}

/* the path of a /proc/PID/maps line (its sixth field, "" for anonymous memory), in place */
static const char *maps_line_path(char *line)
{
	char *p = line;

	line[strcspn(line, "\n")] = '\0';
	for (int field = 0; field < 5; field++) {
		p += strcspn(p, " ");
		p += strspn(p, " ");
	}
	return p;
}

/* a mapping of the driver in the maps open at fd (taken): 1 (what says which), 0 none, -errno */
static int maps_driver(int fd, char *what, size_t len)
{
	FILE *f = fdopen(fd, "r");
	size_t cap = 0;
	char *line = NULL;
	int ret = 0;

	if (!f) {
		ret = -errno;
		close(fd);
		return ret;
	}
	errno = 0;
	while (!ret && getline(&line, &cap, f) >= 0) {
		const char *path = maps_line_path(line);

		if (nvidia_dev_path(path) || libcuda_path(path)) {
			snprintf(what, len, "maps %s", path);
			ret = 1;
		}
	}
	if (!ret && ferror(f))
		ret = errno ? -errno : -EIO;
	free(line);
	fclose(f);
	return ret;
}

/* an fd of the driver's device files in the fd directory open at fd (taken): as maps_driver */
static int fds_driver(int fd, char *what, size_t len)
{
	DIR *d = fdopendir(fd);
	unsigned seen = 0;
	struct dirent *e;
	int ret = 0;

	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while (!ret && seen < CS_PROCFS_MAX_FDS && (e = readdir(d))) {
		char target[PATH_MAX];
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		seen++;
		n = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
		if (n < 0) {
			if (errno != ENOENT) /* ENOENT: closed meanwhile */
				ret = -errno;
			continue;
		}
		target[n] = '\0';
		if (nvidia_dev_path(target)) {
			snprintf(what, len, "has %s open (fd %s)", target, e->d_name);
			ret = 1;
		}
	}
	closedir(d);
	return ret;
}

int cs_procfs_cuda_driver_at(int dirfd, char *what, size_t len)
{
	char dummy[1];
	int fd, ret;

	if (!what || !len) {
		what = dummy;
		len = sizeof(dummy);
	}
	fd = openat(dirfd, "maps", O_RDONLY | O_CLOEXEC);
	ret = fd < 0 ? -errno : maps_driver(fd, what, len);
	if (ret < 0) {
		snprintf(what, len, "its maps cannot be read (%s)", strerror(-ret));
		return ret;
	}
	if (ret)
		return ret;
	fd = openat(dirfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ret = fd < 0 ? -errno : fds_driver(fd, what, len);
	if (ret < 0)
		snprintf(what, len, "its fds cannot be read (%s)", strerror(-ret));
	return ret;
}

int cs_procfs_cuda_driver(pid_t pid, char *what, size_t len)
{
	char path[32];
	int dfd, ret;

	snprintf(path, sizeof(path), "/proc/%d", pid);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		ret = -errno;
		if (what && len)
			snprintf(what, len, "%s cannot be read (%s)", path, strerror(-ret));
		return ret;
	}
	ret = cs_procfs_cuda_driver_at(dfd, what, len);
	close(dfd);
	return ret;
}

bool cs_procfs_cuda_ipc(pid_t pid, char *name, size_t len)
{
	char found[512];

	if (maps_find(pid, " /dev/shm/cuda.shm.", found, sizeof(found)) <= 0)
		return false;
	snprintf(name, len, "%s", found + 1); /* the path, without the space that anchors it */
	return true;
}

/* fn(tid, arg) for every thread of pid, in /proc order: 0, or -errno when they cannot be listed */
static int each_thread(pid_t pid, void (*fn)(pid_t pid, pid_t tid, void *arg), void *arg)
{
	char path[48];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			fn(pid, (pid_t)strtol(e->d_name, NULL, 10), arg);
	closedir(d);
	return 0;
}

struct children {
	pid_t *out;
	unsigned max, *n;
};

/* the children of thread tid, appended to out[*n..max) (counted past max) */
static void add_thread_children(pid_t pid, pid_t tid, void *arg)
{
	struct children *c = arg;
	char path[64];
	long child;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, tid);
	f = fopen(path, "re");
	while (f && fscanf(f, "%ld", &child) == 1)
		if ((*c->n)++ < c->max)
			c->out[*c->n - 1] = (pid_t)child;
	if (f)
		fclose(f);
}

/* the children of every thread of pid, appended to out[*n..max) (counted past max) */
static int add_children(pid_t pid, pid_t *out, unsigned max, unsigned *n)
{
	struct children c = { out, max, n };

	return each_thread(pid, add_thread_children, &c);
}

int cs_procfs_tree(pid_t pid, pid_t *out, unsigned max)
{
	unsigned n = 0, i;
	int ret;

	if (max)
		out[0] = pid;
	n = 1;
	ret = add_children(pid, out, max, &n);
	if (ret)
		return ret;
	/* a child that exits meanwhile has no task directory: its own subtree is simply empty */
	for (i = 1; i < n && i < max; i++)
		add_children(out[i], out, max, &n);
	return (int)n;
}

#define KILL_TREE_MAX 4096

int cs_procfs_kill_tree(pid_t pid)
{
	pid_t *tree = calloc(KILL_TREE_MAX, sizeof(*tree));
	int n = tree ? cs_procfs_tree(pid, tree, KILL_TREE_MAX) : -ENOMEM;
	int done = 0;

	if (n < 0) { /* its children cannot be listed: it alone */
		free(tree);
		return kill(pid, SIGKILL) ? 0 : 1;
	}
	for (int i = 0; i < n && i < KILL_TREE_MAX; i++)
		done += !kill(tree[i], SIGKILL);
	free(tree);
	return done;
}

#define ENVIRON_MAX (1u << 20) /* bytes of an environment read at most */

int cs_procfs_environ(pid_t pid, const char *name, char *out, size_t len)
{
	FILE *f = proc_open(pid, "environ");
	size_t nlen = strlen(name), used = 0, n;
	char *buf;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	buf = malloc(ENVIRON_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	while (used < ENVIRON_MAX && (n = fread(buf + used, 1, ENVIRON_MAX - used, f)) > 0)
		used += n;
	fclose(f);
	buf[used] = '\0';
	for (size_t at = 0; at < used; at += strlen(buf + at) + 1) {
		if (strncmp(buf + at, name, nlen) || buf[at + nlen] != '=')
			continue;
		ret = strlen(buf + at + nlen + 1) < len ? 0 : -ENAMETOOLONG;
		if (!ret)
			strcpy(out, buf + at + nlen + 1);
		break;
	}
	free(buf);
	return ret;
}

uint64_t cs_procfs_status_bytes(pid_t pid, const char *field)
{
	long long kb;

	return key_number(proc_open(pid, "status"), field, ':', &kb) || kb < 0 ? 0 : (uint64_t)kb << 10;
}

pid_t cs_procfs_status_pid(pid_t pid, const char *field)
{
	long long v;

	return key_number(proc_open(pid, "status"), field, ':', &v) ? -1 : (pid_t)v;
}

int cs_procfs_task(pid_t pid, char *state, unsigned long long *start, pid_t *tracer)
{
	FILE *f = proc_open(pid, "stat");
	char buf[1024], *p;
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
	/* fields 3 (state) to 22 (starttime) */
	if (!p ||
	    sscanf(p + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   state, start) != 2)
		return -EPROTO;
	*tracer = cs_procfs_status_pid(pid, "TracerPid");
	return *tracer < 0 ? -ENOENT : 0;
}

/* one thread of a process read into its group's state (a thread that ended meanwhile: none) */
static void group_thread(pid_t pid, pid_t tid, void *arg)
{
	struct cs_group_state *gs = arg;
	struct cs_thread_status st;

	(void)pid;
	if (cs_procfs_thread_status(tid, &st))
		return;
	gs->threads++;
	gs->live += st.state != 'Z' && st.state != 'X';
	gs->traced += st.tracer > 0 || st.state == 't';
	gs->stopped += st.state == 'T';
}

int cs_procfs_group(pid_t pid, struct cs_group_state *gs)
{
	struct cs_thread_status st;
	int ret;

	memset(gs, 0, sizeof(*gs));
	ret = cs_procfs_thread_status(pid, &st);
	if (ret)
		return ret;
	gs->stop_queued = st.pending & (1ull << (SIGSTOP - 1));
	return each_thread(pid, group_thread, gs);
}

int cs_procfs_traced_by(pid_t tracer, pid_t *out, unsigned max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned n = 0;
	long pid;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = strtol(e->d_name, NULL, 10);
		if (pid <= 0 || cs_procfs_status_pid((pid_t)pid, "TracerPid") != tracer)
			continue;
		if (n < max)
			out[n] = (pid_t)pid;
		n++;
	}
	closedir(d);
	return (int)n;
}

// SPDX-License-Identifier: MIT
/*
 * test-imgdir-planted-nodes-never-opened - a device node or FIFO planted under an image's name (or
 * the guardian log's) is refused without being opened: inotify sees no open of it, and nothing
 * blocks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../tap.h"
#include "imgdir.h"
#include "unit.h"

/* the names of the files inotify saw opened since the last call, space-separated */
static void opened(int in, char *out, size_t len)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	size_t off = 0;
	ssize_t n;
	char *p;

	out[0] = '\0';
	while ((n = read(in, buf, sizeof(buf))) > 0)
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if ((ev->mask & IN_OPEN) && ev->len && off + ev->len + 2 < len)
				off += (size_t)snprintf(out + off, len - off, "%s ", ev->name);
		}
}

int main(void)
{
	char path[4096], seen[1024];
	void *buf = NULL;
	struct stat st;
	size_t n;
	int dirfd, in, fd;

	if (geteuid() != 0)
		tap_skip_all("needs root to make a device node");
	tap_plan(7);
	dirfd = unit_tmpdir(path, sizeof(path));
	if (mknodat(dirfd, "cudastore-1-gpu0.ext", S_IFCHR | 0600, makedev(1, 3)) < 0 ||
	    mkfifoat(dirfd, "cudastore-1.img", 0600) < 0 ||
	    mkfifoat(dirfd, "cudastore-guardian.log", 0600) < 0)
		tap_bail("cannot plant a device node and FIFOs in %s: %s", path, strerror(errno));
	close(openat(dirfd, "cudastore-2.img", O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (in < 0 || inotify_add_watch(in, path, IN_OPEN) < 0)
		tap_bail("inotify: %s", strerror(errno));
	alarm(20); /* a blocking open fails the test instead of hanging it */

	memset(&st, 0, sizeof(st));
	fd = cs_imgdir_open_ro(dirfd, "cudastore-1-gpu0.ext", 0, &st);
	opened(in, seen, sizeof(seen));
	tap_ok(fd == -EINVAL && S_ISCHR(st.st_mode), "a device node as an extent: -EINVAL, st says so (%d)",
	       fd);
	tap_ok(!seen[0], "the device node was never opened (opened: %s)", seen[0] ? seen : "nothing");

	fd = cs_imgdir_read_all(dirfd, "cudastore-1.img", 1 << 20, &buf, &n);
	opened(in, seen, sizeof(seen));
	tap_ok(fd == -EINVAL && !seen[0], "a FIFO as a manifest: -EINVAL, never opened (opened: %s)",
	       seen[0] ? seen : "nothing");

	fd = cs_imgdir_open_append(dirfd, "cudastore-guardian.log");
	opened(in, seen, sizeof(seen));
	tap_ok(fd == -EINVAL && !seen[0],
	       "a FIFO as the guardian log: -EINVAL at once, never opened (%d; opened: %s)", fd,
	       seen[0] ? seen : "nothing");

	fd = cs_imgdir_open_ro(dirfd, "cudastore-2.img", 0, &st);
	opened(in, seen, sizeof(seen));
	tap_ok(fd >= 0 && !strcmp(seen, "cudastore-2.img ") && !(fcntl(fd, F_GETFL) & O_NONBLOCK) &&
		   (fcntl(fd, F_GETFD) & FD_CLOEXEC),
	       "a regular file opens, blocking, close-on-exec (inotify saw: %s)", seen);
	if (fd >= 0)
		close(fd);

	unlinkat(dirfd, "cudastore-guardian.log", 0);
	fd = cs_imgdir_open_append(dirfd, "cudastore-guardian.log");
	tap_ok(fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600 &&
		   write(fd, "a\n", 2) == 2,
	       "an absent log is created 0600 and written");
	if (fd >= 0)
		close(fd);
	fd = cs_imgdir_open_append(dirfd, "cudastore-guardian.log");
	memset(&st, 0, sizeof(st));
	if (fd >= 0 && write(fd, "b\n", 2) == 2)
		fstat(fd, &st);
	tap_ok(st.st_size == 4, "an existing log is appended to (%lld bytes)", (long long)st.st_size);
	if (fd >= 0)
		close(fd);
	alarm(0);
	close(in);
	close(dirfd);
	unit_rmtree(path);
	return tap_done();
}

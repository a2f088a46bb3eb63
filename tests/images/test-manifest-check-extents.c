// SPDX-License-Identifier: MIT
/* test-manifest-check-extents - extents must be regular files (no link, dir, fifo) of exactly the size. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "unit.h"
#include "engine.h"

static struct cs_manifest m;

static void make_extent(int dirfd, const char *name, uint64_t size)
{
	int fd;

	unlinkat(dirfd, name, 0);
	fd = cs_imgdir_create(dirfd, name, 0);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0)
		tap_bail("cannot create extent %s: %d", name, fd);
	close(fd);
}

static void expect(int dirfd, const char *what, int want, const char *e1, const char *e2)
{
	char err[512] = "";
	int ret;

	alarm(10); /* a FIFO that blocks the open would hang here */
	ret = cs_manifest_check_extents(dirfd, &m, err, sizeof(err));
	alarm(0);
	tap_ok(ret == want && strstr(err, e1) && strstr(err, e2), "%s: %d (want %d) \"%s\"", what, ret, want,
	       err);
}

/* dev[1]'s extent replaced by something else each time */
static void scenarios(int dirfd, const char *dir)
{
	const char *x = m.dev[1].extent;
	char target[4200];

	unlinkat(dirfd, x, 0);
	expect(dirfd, "missing extent", -ENOENT, "extent cudastore-4242-gpu1.ext is missing", "incomplete");

	make_extent(dirfd, "elsewhere", m.dev[1].size);
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	if (symlinkat(target, dirfd, x) < 0)
		tap_bail("symlink");
	expect(dirfd, "extent is a symlink to a right-sized file", -ELOOP,
	       "cudastore-4242-gpu1.ext is a symbolic link", "refusing to follow");
	unlinkat(dirfd, x, 0);

	if (mkdirat(dirfd, x, 0700) < 0)
		tap_bail("mkdir");
	expect(dirfd, "extent is a directory", -EINVAL, "is not a regular file (mode 040700)", "");
	unlinkat(dirfd, x, AT_REMOVEDIR);

	if (mkfifoat(dirfd, x, 0600) < 0)
		tap_bail("mkfifo");
	expect(dirfd, "extent is a fifo (and the open does not block)", -EINVAL,
	       "is not a regular file (mode 010600)", "");
	unlinkat(dirfd, x, 0);

	make_extent(dirfd, x, m.dev[1].size - (1u << 20));
	expect(dirfd, "extent 1 MiB short", -EBADMSG,
	       "extent cudastore-4242-gpu1.ext is 2097152 bytes, manifest says 3145728: images truncated or "
	       "corrupt",
	       "");
	make_extent(dirfd, x, m.dev[1].size + 1);
	expect(dirfd, "extent one byte long", -EBADMSG, "is 3145729 bytes, manifest says 3145728", "");
	make_extent(dirfd, x, m.dev[1].size);
	expect(dirfd, "restored extent passes again", 0, "", "");
}

/* format 1.1: dev[0] striped over 3 files, each checked against its own size */
static void stripes(int dirfd)
{
	struct cs_manifest_dev *d = &m.dev[0];
	uint64_t s2;

	d->nstripes = 3;
	for (unsigned k = 0; k < 3; k++) {
		cs_name_stripe(d->stripe[k], d->extent, k);
		make_extent(dirfd, d->stripe[k], cs_stripe_size(d->size, d->chunk_size, 3, k));
	}
	expect(dirfd, "3 stripes of the right sizes", 0, "", "");
	s2 = cs_stripe_size(d->size, d->chunk_size, 3, 2);
	make_extent(dirfd, d->stripe[2], s2 - 1);
	expect(dirfd, "stripe 2 one byte short", -EBADMSG, "extent cudastore-4242-gpu0.s2.ext is", "manifest says");
	unlinkat(dirfd, d->stripe[2], 0);
	expect(dirfd, "stripe 2 missing", -ENOENT, "extent cudastore-4242-gpu0.s2.ext is missing", "incomplete");
	make_extent(dirfd, d->stripe[2], s2);
	make_extent(dirfd, d->extent, d->size);
	expect(dirfd, "stripe 0 has the whole device's size", -EBADMSG, "cudastore-4242-gpu0.ext", "manifest says");
	make_extent(dirfd, d->extent, cs_stripe_size(d->size, d->chunk_size, 3, 0));
	expect(dirfd, "all stripes right again", 0, "", "");
	d->nstripes = 1;
	make_extent(dirfd, d->extent, d->size);
}

int main(void)
{
	char path[4096];
	struct stat st;
	int dirfd;

	tap_plan(15);
	dirfd = unit_tmpdir(path, sizeof(path));
	unit_sample(&m, 2);
	for (unsigned i = 0; i < m.ndev; i++)
		make_extent(dirfd, m.dev[i].extent, m.dev[i].size);
	memset(&st, 0, sizeof(st));
	fstatat(dirfd, m.dev[0].extent, &st, AT_SYMLINK_NOFOLLOW);
	tap_ok(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600, "extent created 0600 (found %o)",
	       st.st_mode & 07777);
	expect(dirfd, "all extents right", 0, "", "");
	scenarios(dirfd, path);
	stripes(dirfd);

	m.dev[0].size++;
	expect(dirfd, "first mismatch is the one reported", -EBADMSG, "cudastore-4242-gpu0.ext",
	       "manifest says 327804");
	m.dev[0].size--;
	cs_manifest_free(&m);
	close(dirfd);
	unit_rmtree(path);
	return tap_done();
}

// SPDX-License-Identifier: MIT
/* chunk_parent.c - a chunked dump's parent, judged before the lock (chunk_parent.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chunk_parent.h"
#include "chunkstore.h"
#include "errmsg.h"

int cs_same_fs(int dirfd, int other)
{
	struct stat a, b;

	if (fstat(dirfd, &a) < 0 || fstat(other, &b) < 0)
		return -errno;
	return a.st_dev == b.st_dev ? 0 : -EXDEV;
}

static bool same_dir(int a, int b)
{
	struct stat sa, sb;

	return !fstat(a, &sa) && !fstat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Follow the chain of parents from dir (its index's parent_dir) looking for imgdir. */
static int check_chain(int imgdir, int dir, const struct cs_index *x, const char *path, char *err,
		       size_t errlen)
{
	struct cs_index cur = *x;
	char why[256];
	int fd = dup(dir), ret = 0;

	if (fd < 0)
		return -errno;
	for (unsigned depth = 0; depth < CS_CHAIN_MAX && cur.has_parent && cur.parent_dir[0]; depth++) {
		int next = openat(fd, cur.parent_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		close(fd);
		fd = next;
		if (fd < 0)
			return 0; /* the rest of the chain is gone: nothing there can loop */
		if (same_dir(fd, imgdir)) {
			ret = cs_fail(-ELOOP, err, errlen,
				      "parent %s leads back to the images directory itself through its chain "
				      "of parents (a loop): name the previous dump of this tree, never the "
				      "directory being written or one of its descendants",
				      path);
			break;
		}
		if (cs_index_read(fd, &cur, why, sizeof(why)))
			break;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

static int open_dir(int imgdir, const char *path, struct cs_chunk_parent *p, char *err, size_t errlen)
{
	int ret;

	p->dir = openat(imgdir, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->dir < 0) {
		ret = -errno;
		return cs_fail(ret, err, errlen,
			       "parent images directory %s cannot be opened: %s; name the images directory "
			       "of an earlier chunked dump of this process tree",
			       path, strerror(-ret));
	}
	ret = cs_same_fs(imgdir, p->dir);
	if (ret == -EXDEV)
		return cs_fail(
		    ret, err, errlen,
		    "parent images directory %s is on another filesystem than the images directory: "
		    "chunks are hard links; put both on the same filesystem",
		    path);
	if (ret)
		return cs_fail(ret, err, errlen, "parent images directory %s: %s", path, strerror(-ret));
	if (same_dir(imgdir, p->dir))
		return cs_fail(
		    -ELOOP, err, errlen,
		    "parent images directory %s is the images directory itself (a loop): dump into "
		    "a new directory and name this one as its parent",
		    path);
	return 0;
}

int cs_chunk_parent_open(int imgdir, const char *path, struct cs_chunk_parent *p, char *err, size_t errlen)
{
	char why[512];
	int ret;

	memset(p, 0, sizeof(*p));
	p->dir = p->chunks = -1;
	snprintf(p->path, sizeof(p->path), "%s", path);
	ret = open_dir(imgdir, path, p, err, errlen);
	if (ret)
		goto err_close;
	ret = cs_index_read(p->dir, &p->x, why, sizeof(why));
	if (ret == -ENOENT)
		ret =
		    cs_fail(-EPROTO, err, errlen,
			    "parent images directory %s has no cudastore-index.img: it is no cudastore dump "
			    "of format 1.5 (or the dump failed); name an earlier chunked dump",
			    path);
	else if (ret)
		cs_seterr(err, errlen, "parent images directory %s is unusable: %s", path, why);
	if (ret)
		goto err_close;
	ret = check_chain(imgdir, p->dir, &p->x, path, err, errlen);
	if (ret)
		goto err_close;
	p->chunks = cs_chunks_dir_open(p->dir, false);
	if (p->chunks == -ENOENT) {
		ret = cs_fail(-EPROTO, err, errlen,
			      "parent %s has no %s: it is not a chunked dump (its GPU memory is in extents "
			      "or CRIU's pages); a parent must be dumped with chunks = yes",
			      path, CS_CHUNKS_DIR);
		goto err_close;
	}
	if (p->chunks < 0) {
		ret = cs_fail(p->chunks, err, errlen, "parent %s: %s cannot be opened: %s", path,
			      CS_CHUNKS_DIR, strerror(-p->chunks));
		goto err_close;
	}
	return 0;
err_close:
	cs_chunk_parent_close(p);
	return ret;
}

int cs_chunk_parent_check_proc(const struct cs_chunk_parent *p, pid_t ns_pid, char *err, size_t errlen)
{
	struct cs_index_file ix = { .err = 0, .x = p->x };
	struct cs_manifest *m;
	char why[512];
	int ret;

	if (!cs_index_has(&p->x, ns_pid))
		return cs_fail(-ESRCH, err, errlen,
			       "parent %s has no images of ns pid %d: it is a dump of another process tree; "
			       "name the previous dump of this tree",
			       p->path, ns_pid);
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	ret = cs_index_load_manifest(p->dir, &ix, ns_pid, m, why, sizeof(why));
	if (ret) {
		cs_seterr(err, errlen, "parent %s, ns pid %d: %s", p->path, ns_pid, why);
		goto out;
	}
	for (unsigned i = 0; i < m->ndev; i++)
		if (!m->dev[i].ids)
			ret = -EPROTO;
	if (ret || m->mode != CS_MODE_CUSTOM)
		ret = cs_fail(-EPROTO, err, errlen,
			      "parent %s holds ns pid %d's GPU memory as %s (format %u.%u), not as chunks: a "
			      "parent must be a chunked dump (chunks = yes, format 1.5)",
			      p->path, ns_pid, m->mode == CS_MODE_CUSTOM ? "extents" : "CRIU's pages",
			      m->format_major, m->format_minor);
out:
	cs_manifest_free(m);
	free(m);
	return ret;
}

void cs_chunk_parent_close(struct cs_chunk_parent *p)
{
	if (p->chunks >= 0)
		close(p->chunks);
	if (p->dir >= 0)
		close(p->dir);
	p->chunks = p->dir = -1;
}

// SPDX-License-Identifier: MIT
/* chunkstore.c - content-addressed chunk files and their hard links (chunkstore.h) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "chunkstore.h"
#include "errmsg.h"
#include "imgdir.h"
#include "le.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

void cs_chunk_rel(const uint8_t id[CS_CHUNK_ID_LEN], char rel[CS_CHUNK_REL])
{
	char hex[2 * CS_CHUNK_ID_LEN + 1];

	cs_chunk_id_hex(id, hex);
	snprintf(rel, CS_CHUNK_REL, "%.2s/%s", hex, hex);
}

bool cs_chunk_id_is_null(const uint8_t id[CS_CHUNK_ID_LEN])
{
	for (unsigned i = 0; i < CS_CHUNK_ID_LEN; i++)
		if (id[i])
			return false;
	return true;
}

static int open_subdir(int dirfd, const char *name, bool create)
{
	int fd = openat(dirfd, name, DIR_FLAGS);

	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
			return -errno;
		fd = openat(dirfd, name, DIR_FLAGS);
	}
	return fd < 0 ? -errno : fd;
}

int cs_chunks_dir_open(int dirfd, bool create)
{
	return open_subdir(dirfd, CS_CHUNKS_DIR, create);
}

static bool is_hh(const char *name)
{
	return strlen(name) == 2 && strspn(name, "0123456789abcdef") == 2;
}

/* dirfd's directory opened anew for a walk (its own offset): 0 or -errno */
static int walk_open(int dirfd, DIR **out)
{
	int fd = openat(dirfd, ".", DIR_FLAGS), ret;

	if (fd < 0)
		return -errno;
	*out = fdopendir(fd);
	if (!*out) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return 0;
}

/* every non-directory entry of dirfd removed; chunk files counted. Each walk opens the directory
 * anew: a dup() would share (and leave at the end) the offset of an earlier walk */
static int clear_files(int dirfd, unsigned *removed)
{
	DIR *d;
	struct dirent *e;
	int ret = walk_open(dirfd, &d);

	if (ret)
		return ret;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_type == DT_DIR)
			continue;
		if (unlinkat(dirfd, e->d_name, 0) < 0 && errno != ENOENT) {
			ret = -errno;
			break;
		}
		if (removed)
			(*removed)++;
	}
	closedir(d);
	return ret;
}

int cs_chunks_dir_clear(int dirfd, unsigned *removed)
{
	int cfd = cs_chunks_dir_open(dirfd, false), ret = 0;
	struct dirent *e;
	DIR *d;

	if (cfd == -ENOENT)
		return 0;
	if (cfd < 0)
		return cfd;
	d = fdopendir(cfd);
	if (!d) {
		ret = -errno;
		close(cfd);
		return ret;
	}
	while (!ret && (e = readdir(d))) {
		int hfd;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!is_hh(e->d_name)) { /* a temporary file of a dump that was stopped */
			if (unlinkat(cfd, e->d_name, 0) < 0 && errno != ENOENT)
				ret = -errno;
			continue;
		}
		hfd = openat(cfd, e->d_name, DIR_FLAGS);
		if (hfd < 0) {
			ret = -errno;
			break;
		}
		ret = clear_files(hfd, removed);
		close(hfd);
		if (!ret && unlinkat(cfd, e->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT)
			ret = -errno;
	}
	closedir(d);
	if (!ret && unlinkat(dirfd, CS_CHUNKS_DIR, AT_REMOVEDIR) < 0 && errno != ENOENT)
		ret = -errno;
	return ret;
}

int cs_chunk_stat(int cfd, const uint8_t id[CS_CHUNK_ID_LEN], uint64_t len, uint64_t *size)
{
	char rel[CS_CHUNK_REL];
	struct stat st;

	cs_chunk_rel(id, rel);
	if (fstatat(cfd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (size)
		*size = (uint64_t)st.st_size;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	return (uint64_t)st.st_size == len ? 0 : -EBADMSG;
}

int cs_chunk_open_ro(int cfd, const uint8_t id[CS_CHUNK_ID_LEN], uint64_t len)
{
	char rel[CS_CHUNK_REL];
	struct stat st;
	int fd;

	cs_chunk_rel(id, rel);
	fd = openat(cfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != len) {
		int ret = !S_ISREG(st.st_mode) ? -EINVAL : -EBADMSG;

		close(fd);
		return ret;
	}
	return fd;
}

/* the hh directory of id in cfd, made when missing */
static int hh_dir(int cfd, const uint8_t id[CS_CHUNK_ID_LEN], bool create)
{
	char hex[2 * CS_CHUNK_ID_LEN + 1], hh[3];

	cs_chunk_id_hex(id, hex);
	memcpy(hh, hex, 2);
	hh[2] = '\0';
	return open_subdir(cfd, hh, create);
}

int cs_chunk_link(int from, int to, const uint8_t id[CS_CHUNK_ID_LEN])
{
	char rel[CS_CHUNK_REL];
	int hfd = hh_dir(to, id, true);

	if (hfd < 0)
		return hfd;
	close(hfd);
	cs_chunk_rel(id, rel);
	if (linkat(from, rel, to, rel, 0) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * *hash as the chunk's CS_CHUNK_XATTR. Only a hint for later dumps: a filesystem that takes no
 * user attributes (or no more of them) leaves the chunk without, and such a chunk is copied again.
 */
static void set_hash(int fd, const uint64_t *hash)
{
	uint8_t le[8];

	if (!hash)
		return;
	cs_put_le(le, *hash, sizeof(le));
	(void)fsetxattr(fd, CS_CHUNK_XATTR, le, sizeof(le), 0);
}

int cs_chunk_write(int to, int tmpfd, const uint8_t id[CS_CHUNK_ID_LEN], const void *buf, size_t len,
		   const uint64_t *hash)
{
	char hex[2 * CS_CHUNK_ID_LEN + 1], tmp[2 * CS_CHUNK_ID_LEN + 32], rel[CS_CHUNK_REL];
	uint64_t nonce = 0;
	int fd, hfd, ret;

	if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
		return -errno;
	cs_chunk_id_hex(id, hex);
	snprintf(tmp, sizeof(tmp), "tmp-%s.%016llx", hex, (unsigned long long)nonce);
	fd = openat(tmpfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	ret = write_all(fd, buf, len);
	if (!ret)
		set_hash(fd, hash);
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	hfd = ret ? -1 : hh_dir(to, id, true);
	if (!ret && hfd < 0)
		ret = hfd;
	cs_chunk_rel(id, rel);
	if (!ret && linkat(tmpfd, tmp, to, rel, 0) < 0 && errno != EEXIST)
		ret = -errno;
	unlinkat(tmpfd, tmp, 0);
	if (!ret)
		ret = cs_imgdir_fsync_dir(hfd);
	if (hfd >= 0)
		close(hfd);
	return ret;
}

/* the chunk of the store or parent at cfd, when it has it at len bytes; -ENOENT when not */
static int find(int cfd, const char *what, const uint8_t id[CS_CHUNK_ID_LEN], size_t len, char *err,
		size_t errlen)
{
	char rel[CS_CHUNK_REL];
	uint64_t size = 0;
	int ret;

	if (cfd < 0)
		return -ENOENT;
	ret = cs_chunk_stat(cfd, id, len, &size);
	if (ret == -ENOENT || !ret)
		return ret;
	cs_chunk_rel(id, rel);
	if (ret == -EBADMSG)
		return cs_fail(ret, err, errlen,
			       "chunk %s of the %s is %llu bytes, its id says %zu: the %s is damaged; remove "
			       "that file, or dump without it",
			       rel, what, (unsigned long long)size, len, what);
	return cs_fail(ret, err, errlen, "chunk %s of the %s: %s", rel, what, strerror(-ret));
}

int cs_chunk_put(const struct cs_chunk_sink *s, const uint8_t id[CS_CHUNK_ID_LEN], const void *buf,
		 size_t len, const uint64_t *hash, enum cs_chunk_from *from, char *err, size_t errlen)
{
	char rel[CS_CHUNK_REL];
	int ret = cs_chunk_stat(s->img, id, len, NULL);

	cs_chunk_rel(id, rel);
	*from = CS_CHUNK_HAD;
	if (!ret)
		return 0;
	*from = CS_CHUNK_FROM_STORE;
	ret = find(s->store, "chunk store", id, len, err, errlen);
	if (!ret)
		ret = cs_chunk_link(s->store, s->img, id);
	if (ret != -ENOENT)
		goto out;
	*from = CS_CHUNK_FROM_PARENT;
	ret = find(s->parent, "parent images", id, len, err, errlen);
	if (!ret)
		ret = cs_chunk_link(s->parent, s->img, id);
	if (ret != -ENOENT)
		goto out;
	*from = CS_CHUNK_WRITTEN;
	if (!buf) /* linking only: the caller copies the bytes and puts them */
		return -ENOENT;
	if (s->store >= 0) {
		ret = cs_chunk_write(s->store, s->stmp, id, buf, len, hash);
		if (!ret)
			ret = cs_chunk_link(s->store, s->img, id);
	} else {
		ret = cs_chunk_write(s->img, s->img, id, buf, len, hash);
	}
out:
	if (ret && err && !err[0])
		cs_seterr(err, errlen, "chunk %s (%zu bytes): %s", rel, len, strerror(-ret));
	return ret;
}

/* the XXH3 of chunk id in cfd; -ENOENT not there (at len bytes), -ENODATA no attribute */
static int hash_in(int cfd, const uint8_t id[CS_CHUNK_ID_LEN], size_t len, uint64_t *hash)
{
	uint8_t le[8];
	ssize_t n;
	int fd;

	if (cfd < 0)
		return -ENOENT;
	fd = cs_chunk_open_ro(cfd, id, len);
	if (fd < 0)
		return fd == -EBADMSG || fd == -EINVAL ? -ENOENT : fd;
	n = fgetxattr(fd, CS_CHUNK_XATTR, le, sizeof(le));
	close(fd);
	if (n != (ssize_t)sizeof(le))
		return -ENODATA;
	*hash = cs_get_le(le, sizeof(le));
	return 0;
}

int cs_chunk_known_hash(const struct cs_chunk_sink *s, const uint8_t id[CS_CHUNK_ID_LEN], size_t len,
			uint64_t *hash)
{
	int ret = hash_in(s->img, id, len, hash);

	if (ret == -ENOENT)
		ret = hash_in(s->store, id, len, hash);
	if (ret == -ENOENT)
		ret = hash_in(s->parent, id, len, hash);
	return ret;
}

int cs_store_open(int basefd, const char *path, int *fd, int *tmpfd)
{
	int ret;

	*fd = *tmpfd = -1;
	if (mkdirat(basefd, path, 0700) < 0 && errno != EEXIST)
		return -errno;
	*fd = openat(basefd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	ret = open_subdir(*fd, CS_STORE_TMP, true);
	if (ret < 0) {
		close(*fd);
		*fd = -1;
		return ret;
	}
	*tmpfd = ret;
	return 0;
}

int cs_store_lock(int storefd, bool exclusive, bool wait)
{
	int fd = openat(storefd, CS_STORE_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	int op = (exclusive ? LOCK_EX : LOCK_SH) | (wait ? 0 : LOCK_NB);

	if (fd < 0)
		return -errno;
	while (flock(fd, op) < 0) {
		int ret = -errno;

		if (ret == -EINTR)
			continue;
		close(fd);
		return ret;
	}
	return fd;
}

/* gc of one hh directory */
static int gc_hh(int hfd, struct cs_gc_stats *st)
{
	struct dirent *e;
	struct stat sb;
	DIR *d;
	int ret = walk_open(hfd, &d);

	if (ret)
		return ret;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(hfd, e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(sb.st_mode))
			continue;
		if (sb.st_nlink > 1) {
			st->kept++;
			continue;
		}
		if (unlinkat(hfd, e->d_name, 0) < 0 && errno != ENOENT) {
			ret = -errno;
			break;
		}
		st->removed++;
		st->removed_bytes += (uint64_t)sb.st_size;
	}
	closedir(d);
	return ret;
}

int cs_store_gc(int storefd, struct cs_gc_stats *st)
{
	struct dirent *e;
	unsigned tmp = 0;
	DIR *d;
	int ret, fd;

	memset(st, 0, sizeof(*st));
	ret = walk_open(storefd, &d);
	if (ret)
		return ret;
	while (!ret && (e = readdir(d))) {
		int hfd;

		if (!is_hh(e->d_name))
			continue;
		hfd = openat(storefd, e->d_name, DIR_FLAGS);
		if (hfd < 0)
			continue;
		ret = gc_hh(hfd, st);
		close(hfd);
		if (!ret)
			unlinkat(storefd, e->d_name, AT_REMOVEDIR); /* only when empty */
	}
	closedir(d);
	fd = ret ? -1 : openat(storefd, CS_STORE_TMP, DIR_FLAGS);
	if (fd >= 0) {
		ret = clear_files(fd, &tmp);
		close(fd);
		st->tmp_removed = tmp;
	}
	if (!ret)
		ret = cs_imgdir_fsync_dir(storefd);
	return ret;
}

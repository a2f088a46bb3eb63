// SPDX-License-Identifier: MIT
/*
 * imgdir.c - file access in CRIU's images directory (contract in imgdir.h).
 *
 * Every function takes the directory as an fd and a name that must pass cs_name_is_safe(), so
 * a name read from an image can never reach outside the directory or through a link.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "imgdir.h"

#define CS_TMP_SUFFIX ".tmp"

void cs_name_manifest(char out[CS_NAME_MAX], int nspid)
{
	snprintf(out, CS_NAME_MAX, "cudastore-%d.img", nspid);
}

void cs_name_extent(char out[CS_NAME_MAX], int nspid, unsigned index)
{
	snprintf(out, CS_NAME_MAX, "cudastore-%d-gpu%u.ext", nspid, index);
}

void cs_name_summary(char out[CS_NAME_MAX], int nspid)
{
	snprintf(out, CS_NAME_MAX, "cudastore-%d.json", nspid);
}

int cs_name_stripe(char out[CS_NAME_MAX], const char *base, unsigned k)
{
	size_t len = strnlen(base, CS_NAME_MAX), stem = len;
	int n;

	if (len >= CS_NAME_MAX)
		return -ENAMETOOLONG;
	if (!k) {
		memcpy(out, base, len + 1);
		return 0;
	}
	if (len > 4 && !strcmp(base + len - 4, ".ext"))
		stem = len - 4;
	n = snprintf(out, CS_NAME_MAX, "%.*s.s%u%s", (int)stem, base, k, base + stem);
	return n < 0 || n >= CS_NAME_MAX ? -ENAMETOOLONG : 0;
}

static bool cs_name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
	       c == '_' || c == '-';
}

bool cs_name_is_safe(const char *name)
{
	size_t len;

	if (!name)
		return false;
	len = strnlen(name, CS_NAME_MAX);
	if (len == 0 || len >= CS_NAME_MAX || name[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++)
		if (!cs_name_char_ok(name[i]))
			return false;
	return true;
}

int cs_imgdir_create(int dirfd, const char *name, int extra_flags)
{
	int fd;

	if (!cs_name_is_safe(name))
		return -EINVAL;
	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | extra_flags, 0600);
	return fd < 0 ? -errno : fd;
}

/*
 * The type is checked before the file is opened: an O_PATH descriptor opens nothing (a device
 * node planted in the images directory is not opened by root, a FIFO does not block), fstat
 * tells what it is, and only a regular file is then opened for reading through
 * /proc/self/fd, which reopens that very inode whatever happens to the name meanwhile.
 */
static int cs_imgdir_pin(int dirfd, const char *name, struct stat *st)
{
	int fd, ret;

	if (!cs_name_is_safe(name))
		return -EINVAL;
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return S_ISLNK(st->st_mode) ? -ELOOP : -EINVAL; /* what O_NOFOLLOW would have said */
	}
	return fd;
}

static int cs_imgdir_reopen(int pinned, int flags)
{
	char self[64];
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", pinned);
	fd = open(self, flags | O_CLOEXEC);
	fd = fd < 0 ? -errno : fd;
	close(pinned);
	return fd;
}

int cs_imgdir_open_ro(int dirfd, const char *name, int extra_flags, struct stat *st)
{
	struct stat local;
	int fd;

	fd = cs_imgdir_pin(dirfd, name, st ? st : &local);
	if (fd < 0)
		return fd;
	return cs_imgdir_reopen(fd, O_RDONLY | (extra_flags & ~O_NOFOLLOW));
}

int cs_imgdir_open_append(int dirfd, const char *name)
{
	struct stat st;
	int fd;

	if (!cs_name_is_safe(name))
		return -EINVAL;
	fd = openat(dirfd, name, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 || errno != EEXIST)
		return fd < 0 ? -errno : fd;
	fd = cs_imgdir_pin(dirfd, name, &st);
	if (fd < 0)
		return fd;
	return cs_imgdir_reopen(fd, O_WRONLY | O_APPEND);
}

int cs_imgdir_remove(int dirfd, const char *name)
{
	if (!cs_name_is_safe(name))
		return -EINVAL;
	if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

static const char *skip_digits(const char *p)
{
	const char *s = p;

	while (*p >= '0' && *p <= '9')
		p++;
	return p > s ? p : NULL;
}

/* cudastore-<n>.img, cudastore-<n>.json, cudastore-<n>-gpu<i>.ext, its stripes
 * cudastore-<n>-gpu<i>.s<k>.ext (format 1.2, cs_name_stripe), cudastore-index.img, each
 * maybe with ".tmp" */
bool cs_name_is_ours(const char *name)
{
	const char *p;

	if (strncmp(name, CS_NAME_PREFIX, strlen(CS_NAME_PREFIX)))
		return false;
	if (!strncmp(name, CS_NAME_INDEX, strlen(CS_NAME_INDEX))) {
		p = name + strlen(CS_NAME_INDEX);
		return !*p || !strcmp(p, CS_TMP_SUFFIX);
	}
	p = skip_digits(name + strlen(CS_NAME_PREFIX));
	if (!p)
		return false;
	if (!strncmp(p, "-gpu", 4)) {
		p = skip_digits(p + 4);
		if (p && !strncmp(p, ".s", 2))
			p = skip_digits(p + 2);
		if (!p || strncmp(p, ".ext", 4))
			return false;
		p += 4;
	} else if (!strncmp(p, ".img", 4)) {
		p += 4;
	} else if (!strncmp(p, ".json", 5)) {
		p += 5;
	} else {
		return false;
	}
	return !*p || !strcmp(p, CS_TMP_SUFFIX);
}

/* Names come from the directory itself (no '/'), so unlinkat() relative to dirfd stays inside it. */
int cs_imgdir_remove_ours(int dirfd, unsigned *removed)
{
	struct dirent *de;
	int fd, ret = 0;
	DIR *d;

	*removed = 0;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((errno = 0, de = readdir(d))) {
		struct stat st;

		if (!cs_name_is_ours(de->d_name))
			continue;
		if (de->d_type == DT_DIR ||
		    (de->d_type == DT_UNKNOWN && !fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		     S_ISDIR(st.st_mode)))
			continue;
		if (unlinkat(dirfd, de->d_name, 0) < 0 && errno != ENOENT) {
			ret = -errno;
			break;
		}
		(*removed)++;
	}
	if (!ret && errno)
		ret = -errno;
	closedir(d);
	return ret;
}

int cs_imgdir_pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Write and fsync "<name>.tmp"; the caller renames it. On error the tmp file is gone. */
static int cs_write_tmp(int dirfd, const char *tmp, const void *buf, size_t len)
{
	int fd, ret;

	if (unlinkat(dirfd, tmp, 0) < 0 && errno != ENOENT)
		return -errno;
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	ret = cs_imgdir_pwrite_full(fd, buf, len, 0);
	if (ret)
		goto err_close;
	if (fsync(fd) < 0) {
		ret = -errno;
		goto err_close;
	}
	/* close() can report a deferred write error (NFS); it must not be lost */
	if (close(fd) < 0) {
		ret = -errno;
		goto err_unlink;
	}
	return 0;

err_close:
	close(fd);
err_unlink:
	unlinkat(dirfd, tmp, 0);
	return ret;
}

int cs_imgdir_write_atomic(int dirfd, const char *name, const void *buf, size_t len)
{
	char tmp[CS_NAME_MAX + sizeof(CS_TMP_SUFFIX)];
	int ret;

	if (!cs_name_is_safe(name))
		return -EINVAL;
	snprintf(tmp, sizeof(tmp), "%s" CS_TMP_SUFFIX, name);
	ret = cs_write_tmp(dirfd, tmp, buf, len);
	if (ret)
		return ret;
	if (renameat(dirfd, tmp, dirfd, name) < 0) {
		ret = -errno;
		unlinkat(dirfd, tmp, 0);
		return ret;
	}
	return cs_imgdir_fsync_dir(dirfd);
}

static int cs_read_full(int fd, char *buf, size_t cap, size_t *got)
{
	*got = 0;
	while (*got < cap) {
		ssize_t n = read(fd, buf + *got, cap - *got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

/*
 * The size check happens on fstat before any allocation; the buffer is one byte larger than
 * the file so that a file growing while we read it is noticed (-ESTALE) rather than cut.
 */
int cs_imgdir_read_all(int dirfd, const char *name, size_t max, void **buf, size_t *len)
{
	struct stat st;
	size_t got;
	char *data;
	int fd, ret;

	*buf = NULL;
	*len = 0;
	fd = cs_imgdir_open_ro(dirfd, name, 0, &st);
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > max) {
		ret = -EFBIG;
		goto err_close;
	}
	data = malloc((size_t)st.st_size + 1);
	if (!data) {
		ret = -ENOMEM;
		goto err_close;
	}
	ret = cs_read_full(fd, data, (size_t)st.st_size + 1, &got);
	if (!ret && got > (size_t)st.st_size)
		ret = -ESTALE;
	if (ret)
		goto err_free;
	close(fd);
	*buf = data;
	*len = got;
	return 0;

err_free:
	free(data);
err_close:
	close(fd);
	return ret;
}

int cs_imgdir_free_bytes(int dirfd, uint64_t *free_bytes)
{
	struct statvfs sv;

	if (fstatvfs(dirfd, &sv) < 0)
		return -errno;
	*free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	return 0;
}

/* Some filesystems (e.g. some FUSE ones) cannot sync a directory and say EINVAL: nothing to do. */
int cs_imgdir_fsync_dir(int dirfd)
{
	if (fsync(dirfd) < 0 && errno != EINVAL)
		return -errno;
	return 0;
}

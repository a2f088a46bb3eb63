// SPDX-License-Identifier: MIT
/*
 * archive.c - a checkpoint archive unpacked into a private directory, for inspect and verify.
 *
 * podman container checkpoint --export and the kubelet's checkpoint API (through CRI-O) write a
 * tar, optionally gzip- or zstd-compressed, with CRIU's images under checkpoint/ beside the
 * container's config and a rootfs diff. A tar of an images directory itself (images at its top)
 * is taken too. libarchive reads every one of these (the compression is detected), and gives
 * each entry's type and name before any byte is written, which is what keeps this safe:
 *   - only regular files are written, each with openat(O_CREAT | O_EXCL | O_NOFOLLOW) into a
 *     directory made here (mkdtemp, 0700); links, devices, fifos and directories in the archive
 *     are skipped, so nothing is followed and no node is made;
 *   - a name is taken only as checkpoint/NAME or NAME, NAME without '/' and not "." or "..":
 *     nothing lands outside the directory, and the rest of the archive (rootfs diff) is skipped;
 *   - the bytes written stay below the free space of $TMPDIR's filesystem less a reserve, and
 *     the number of files below CLI_ARCHIVE_MAX_FILES.
 * Running tar(1) instead would leave those rules to the flags of one tar version.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "cli.h"
#include "imgdir.h"

#define CLI_ARCHIVE_MAX_FILES 100000
#define CLI_ARCHIVE_RESERVE   (64ull << 20) /* left free in $TMPDIR's filesystem */
#define SUBDIR		      "checkpoint"

struct unpack {
	const char *sub, *archive;
	int topfd, subfd; /* the private directory, its checkpoint/ (-1 until needed) */
	const char *tmp;
	uint64_t budget; /* bytes still allowed */
	unsigned files;
};

/* checkpoint/NAME -> NAME in subfd; NAME -> NAME in topfd; anything else: NULL (skipped) */
static const char *target(struct unpack *u, const char *path, int *dirfd)
{
	const char *name;

	while (!strncmp(path, "./", 2))
		path += 2;
	if (!strncmp(path, SUBDIR "/", sizeof(SUBDIR))) {
		name = path + sizeof(SUBDIR);
		if (u->subfd < 0) {
			if (mkdirat(u->topfd, SUBDIR, 0700) && errno != EEXIST)
				return NULL;
			u->subfd = openat(u->topfd, SUBDIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (u->subfd < 0)
				return NULL;
		}
		*dirfd = u->subfd;
	} else {
		name = path;
		*dirfd = u->topfd;
	}
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return NULL;
	return name;
}

static int copy_data(struct unpack *u, struct archive *a, int fd, const char *name)
{
	const void *buf;
	size_t len;
	la_int64_t off;
	uint64_t end = 0;
	int r;

	while ((r = archive_read_data_block(a, &buf, &len, &off)) == ARCHIVE_OK) {
		if (off < 0 || (uint64_t)off + len > u->budget) {
			cli_err(u->sub,
				"%s: %s is too big to unpack into %s (free space less a reserve); set TMPDIR "
				"to a bigger filesystem, or unpack the archive yourself",
				u->archive, name, u->tmp);
			return -EFBIG;
		}
		r = len ? cs_imgdir_pwrite_full(fd, buf, len, (uint64_t)off) : 0;
		if (r) {
			cli_err(u->sub, "cannot write %s/%s: %s", u->tmp, name, strerror(-r));
			return r;
		}
		if ((uint64_t)off + len > end)
			end = (uint64_t)off + len;
	}
	if (r != ARCHIVE_EOF) {
		cli_err(u->sub, "%s: cannot read %s from the archive: %s", u->archive, name,
			archive_error_string(a));
		return -EBADMSG;
	}
	u->budget -= end;
	return 0;
}

static int extract(struct unpack *u, struct archive *a, struct archive_entry *e)
{
	const char *path = archive_entry_pathname(e), *name;
	la_int64_t size = archive_entry_size(e);
	int dirfd, fd, ret;

	if (!path || archive_entry_filetype(e) != AE_IFREG)
		return 0;
	name = target(u, path, &dirfd);
	if (!name)
		return 0;
	if (++u->files > CLI_ARCHIVE_MAX_FILES) {
		cli_err(u->sub, "%s holds more than %u image files: not a checkpoint archive", u->archive,
			CLI_ARCHIVE_MAX_FILES);
		return -E2BIG;
	}
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		cli_err(u->sub, "%s: cannot unpack %s%s: %s", u->archive, path,
			ret == -EEXIST ? " (the archive holds it twice)" : "", strerror(-ret));
		return ret;
	}
	ret = copy_data(u, a, fd, path);
	/* holes at the end (sparse extents) are not in the data blocks */
	if (!ret && size > 0 && ftruncate(fd, size)) {
		ret = -errno;
		cli_err(u->sub, "cannot size %s/%s: %s", u->tmp, path, strerror(-ret));
	}
	close(fd);
	return ret;
}

static int read_all(struct unpack *u)
{
	struct archive_entry *e;
	struct archive *a = archive_read_new();
	int r, ret = 0;

	if (!a)
		return -ENOMEM;
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, u->archive, 1 << 16) != ARCHIVE_OK) {
		cli_err(u->sub,
			"%s is neither an images directory nor a checkpoint archive (tar, .tar.gz, "
			".tar.zst) this command can read: %s",
			u->archive, archive_error_string(a));
		archive_read_free(a);
		return -EINVAL;
	}
	while (!ret && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK)
		ret = extract(u, a, e);
	if (!ret && r != ARCHIVE_EOF) {
		cli_err(u->sub, "%s: not a readable tar archive: %s", u->archive, archive_error_string(a));
		ret = -EBADMSG;
	}
	archive_read_free(a);
	return ret;
}

static int make_private_dir(const char *sub, char *tmp, size_t len)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmp, len, "%s/cudastore-archive-XXXXXX", base && base[0] == '/' ? base : "/tmp");
	if (!mkdtemp(tmp)) {
		cli_err(sub, "cannot make a directory to unpack the archive into (%s): %s; set TMPDIR", tmp,
			strerror(errno));
		tmp[0] = '\0';
		return -errno;
	}
	return 0;
}

int cli_archive_unpack(const char *sub, const char *archive, char *tmp, size_t tmplen, char *dir,
		       size_t dirlen)
{
	struct unpack u = { .sub = sub, .archive = archive, .subfd = -1, .tmp = tmp };
	struct statvfs vfs;
	int ret;

	ret = make_private_dir(sub, tmp, tmplen);
	if (ret)
		return ret;
	u.topfd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (u.topfd < 0 || fstatvfs(u.topfd, &vfs)) {
		ret = -errno;
		cli_err(sub, "cannot open %s: %s", tmp, strerror(-ret));
		goto err;
	}
	u.budget = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	u.budget = u.budget > CLI_ARCHIVE_RESERVE ? u.budget - CLI_ARCHIVE_RESERVE : 0;
	ret = read_all(&u);
	if (!ret && !u.files) {
		cli_err(sub,
			"%s holds no checkpoint images (neither under checkpoint/, as podman and the "
			"kubelet write them, nor at its top)",
			archive);
		ret = -ENOENT;
	}
	if (ret)
		goto err;
	snprintf(dir, dirlen, "%s%s", tmp, u.subfd >= 0 ? "/" SUBDIR : "");
	if (u.subfd >= 0)
		close(u.subfd);
	close(u.topfd);
	return 0;
err:
	if (u.subfd >= 0)
		close(u.subfd);
	if (u.topfd >= 0)
		close(u.topfd);
	cli_archive_remove(tmp);
	tmp[0] = '\0';
	return ret;
}

/* every entry of the directory NAME in parent (flat: only files are ever made in it) */
static void empty_dir(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(fd, de->d_name, 0);
	closedir(d);
}

void cli_archive_remove(const char *tmp)
{
	int fd;

	if (!tmp || !tmp[0])
		return;
	fd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	empty_dir(fd, SUBDIR);
	unlinkat(fd, SUBDIR, AT_REMOVEDIR);
	empty_dir(fd, ".");
	close(fd);
	if (rmdir(tmp))
		cli_err("archive", "cannot remove %s: %s; remove it by hand", tmp, strerror(errno));
}

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
 *   - a name is taken only as checkpoint/NAME or NAME, NAME without '/' and not "." or "..",
 *     or as the same under one top-level directory D (D/NAME, D/checkpoint/NAME: what
 *     "tar czf x.tgz DIR/" writes): nothing lands outside the directory, and the rest of the
 *     archive (rootfs diff, deeper directories) is skipped;
 *   - the bytes written stay below the free space of $TMPDIR's filesystem less a reserve, and
 *     the number of files below CLI_ARCHIVE_MAX_FILES.
 * The images directory is the first of these that got files: checkpoint/, the top, D/checkpoint/,
 * D/. An archive whose images are only under top-level directories must have one of them.
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

/* where the images may be in the archive, in the order one is picked (cli_archive_unpack) */
enum where { IN_SUB, IN_TOP, IN_WRAP_SUB, IN_WRAP, NWHERE };

struct unpack {
	const char *sub, *archive;
	/* the private directory, its checkpoint/, D/ and D/checkpoint/ (-1 until needed) */
	int fd[NWHERE];
	unsigned files_in[NWHERE];
	char wrap[256];	 /* D: the first top-level directory with files ("" none yet) */
	char other[256]; /* another one, skipped ("" none) */
	const char *tmp;
	uint64_t budget; /* bytes still allowed */
	unsigned files;
};

/* a name a file may have in the private directory: one component, not "." or ".." */
static bool one_name(const char *name, size_t len)
{
	return len && len < 256 && !memchr(name, '/', len) && strncmp(name, ".", len) &&
	       strncmp(name, "..", len);
}

/* the directory NAME made (0700) in parent and opened; -1 on failure */
static int subdir(int parent, const char *name)
{
	if (parent < 0 || (mkdirat(parent, name, 0700) && errno != EEXIST))
		return -1;
	return openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/*
 * D/REST: D as the top-level directory, REST what is under it; NULL when D is not the one, or
 * when REST is no file inspect and verify read (inventory.img, cudastore-*): a directory beside
 * the images (podman's volumes/) neither counts as D nor costs room.
 */
static const char *in_wrap(struct unpack *u, const char *path)
{
	const char *slash = strchr(path, '/'), *name;
	size_t len = slash ? (size_t)(slash - path) : 0;

	if (!slash || !one_name(path, len))
		return NULL;
	name = slash + 1;
	if (!strncmp(name, SUBDIR "/", sizeof(SUBDIR)))
		name += sizeof(SUBDIR);
	if (strcmp(name, CLI_INVENTORY) && !cs_name_is_ours(name))
		return NULL;
	if (!u->wrap[0]) {
		snprintf(u->wrap, sizeof(u->wrap), "%.*s", (int)len, path);
		u->fd[IN_WRAP] = subdir(u->fd[IN_TOP], u->wrap);
	}
	if (strlen(u->wrap) != len || strncmp(u->wrap, path, len)) {
		if (!u->other[0])
			snprintf(u->other, sizeof(u->other), "%.*s", (int)len, path);
		return NULL;
	}
	return slash + 1;
}

/* checkpoint/NAME, NAME, D/checkpoint/NAME, D/NAME -> NAME in that directory; else NULL (skipped) */
static const char *target(struct unpack *u, const char *path, enum where *w)
{
	static const enum where sub_of[] = { [IN_TOP] = IN_SUB, [IN_WRAP] = IN_WRAP_SUB };
	enum where base = IN_TOP;
	const char *name = path;

	while (!strncmp(name, "./", 2))
		name += 2;
	if (strncmp(name, SUBDIR "/", sizeof(SUBDIR)) && strchr(name, '/')) {
		name = in_wrap(u, name);
		if (!name)
			return NULL;
		base = IN_WRAP;
	}
	*w = base;
	if (!strncmp(name, SUBDIR "/", sizeof(SUBDIR))) {
		name += sizeof(SUBDIR);
		*w = sub_of[base];
		if (u->fd[*w] < 0)
			u->fd[*w] = subdir(u->fd[base], SUBDIR);
	}
	if (u->fd[*w] < 0 || !one_name(name, strlen(name)))
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
	enum where w;
	int fd, ret;

	if (!path || archive_entry_filetype(e) != AE_IFREG)
		return 0;
	name = target(u, path, &w);
	if (!name)
		return 0;
	if (++u->files > CLI_ARCHIVE_MAX_FILES) {
		cli_err(u->sub, "%s holds more than %u image files: not a checkpoint archive", u->archive,
			CLI_ARCHIVE_MAX_FILES);
		return -E2BIG;
	}
	u->files_in[w]++;
	fd = openat(u->fd[w], name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
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

/* the directory of the images (enum where), after a message when there is none to pick */
static int pick(struct unpack *u, enum where *w)
{
	for (*w = IN_SUB; *w < NWHERE && !u->files_in[*w]; (*w)++)
		;
	if (*w >= IN_WRAP_SUB && u->other[0]) {
		cli_err(u->sub,
			"%s holds images under more than one top-level directory (%s/, %s/): pack one images "
			"directory (tar czf ARCHIVE DIR/), or its contents",
			u->archive, u->wrap, u->other);
		return -EINVAL;
	}
	if (*w == NWHERE) {
		cli_err(u->sub,
			"%s holds no checkpoint images (neither under checkpoint/, as podman and the "
			"kubelet write them, nor at its top, nor in one top-level directory)",
			u->archive);
		return -ENOENT;
	}
	return 0;
}

int cli_archive_unpack(const char *sub, const char *archive, char *tmp, size_t tmplen, char *dir,
		       size_t dirlen)
{
	static const char *const sub_path[NWHERE] = { "/" SUBDIR, "", "/", "/" };
	struct unpack u = { .sub = sub, .archive = archive, .tmp = tmp };
	struct statvfs vfs;
	enum where w;
	int ret, i;

	for (i = 0; i < NWHERE; i++)
		u.fd[i] = -1;
	ret = make_private_dir(sub, tmp, tmplen);
	if (ret)
		return ret;
	u.fd[IN_TOP] = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (u.fd[IN_TOP] < 0 || fstatvfs(u.fd[IN_TOP], &vfs)) {
		ret = -errno;
		cli_err(sub, "cannot open %s: %s", tmp, strerror(-ret));
		goto out;
	}
	u.budget = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	u.budget = u.budget > CLI_ARCHIVE_RESERVE ? u.budget - CLI_ARCHIVE_RESERVE : 0;
	ret = read_all(&u);
	if (!ret)
		ret = pick(&u, &w);
	if (!ret)
		snprintf(dir, dirlen, "%s%s%s%s", tmp, sub_path[w], w >= IN_WRAP_SUB ? u.wrap : "",
			 w == IN_WRAP_SUB ? "/" SUBDIR : "");
out:
	for (i = 0; i < NWHERE; i++)
		if (u.fd[i] >= 0)
			close(u.fd[i]);
	if (ret) {
		cli_archive_remove(tmp);
		tmp[0] = '\0';
	}
	return ret;
}

/*
 * NAME in parent removed with what is in it, down to depth more directory levels (only regular
 * files and the directories made here are ever in it; nothing is followed)
 */
static void remove_tree(int parent, const char *name, int depth)
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
	while ((de = readdir(d))) {
		struct stat st;
		bool dir = de->d_type == DT_DIR;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type == DT_UNKNOWN && !fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			dir = S_ISDIR(st.st_mode);
		if (dir && depth > 0)
			remove_tree(fd, de->d_name, depth - 1);
		else
			unlinkat(fd, de->d_name, dir ? AT_REMOVEDIR : 0);
	}
	closedir(d);
	if (strcmp(name, "."))
		unlinkat(parent, name, AT_REMOVEDIR);
}

void cli_archive_remove(const char *tmp)
{
	int fd;

	if (!tmp || !tmp[0])
		return;
	fd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	remove_tree(fd, ".", 2); /* checkpoint/, D/checkpoint/ */
	close(fd);
	if (rmdir(tmp))
		cli_err("archive", "cannot remove %s: %s; remove it by hand", tmp, strerror(errno));
}

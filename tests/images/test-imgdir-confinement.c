// SPDX-License-Identifier: MIT
/* test-imgdir-confinement - image names cannot leave the directory, follow links or block on fifos. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "unit.h"

static const char *const unsafe[] = {
    "../x",
    "/etc/passwd",
    "a/b",
    ".hidden",
    "",
    ".",
    "..",
    "a b",
    "x\ny",
    "caf\xc3\xa9",
    "x*",
    "~root",
    "0123456789012345678901234567890123456789012345678901234567890123", /* 64 characters */
};
#define NUNSAFE (int)(sizeof(unsafe) / sizeof(unsafe[0]))

static void names(void)
{
	char n[CS_NAME_MAX];
	int bad = 0;

	cs_name_manifest(n, 123);
	tap_ok(!strcmp(n, "cudastore-123.img") && cs_name_is_safe(n), "manifest name %s", n);
	cs_name_extent(n, 123, 7);
	tap_ok(!strcmp(n, "cudastore-123-gpu7.ext") && cs_name_is_safe(n), "extent name %s", n);
	cs_name_summary(n, 123);
	tap_ok(!strcmp(n, "cudastore-123.json") && cs_name_is_safe(n), "summary name %s", n);
	cs_name_extent(n, 2147483647, 4294967295u);
	tap_ok(cs_name_is_safe(n), "largest extent name fits and is safe: %s", n);
	tap_ok(cs_name_is_safe("a") && cs_name_is_safe("A-Z_0.9") && cs_name_is_safe("-x") &&
		   cs_name_is_safe("012345678901234567890123456789012345678901234567890123456789012"),
	       "1..63 characters of [A-Za-z0-9._-] are safe");
	for (int i = 0; i < NUNSAFE; i++)
		if (cs_name_is_safe(unsafe[i])) {
			tap_diag("\"%s\" was accepted", unsafe[i]);
			bad++;
		}
	tap_ok(bad == 0 && !cs_name_is_safe(NULL), "%d unsafe names and NULL are refused", NUNSAFE);
}

static void unsafe_names_refused(int dirfd, const char *dir)
{
	char outside[4200];
	int bad = 0, existed;

	snprintf(outside, sizeof(outside), "%s/../x", dir);
	existed = access(outside, F_OK) == 0;

	for (int i = 0; i < NUNSAFE; i++) {
		int fd = cs_imgdir_create(dirfd, unsafe[i], 0);

		if (fd != -EINVAL) {
			bad++;
			if (fd >= 0)
				close(fd);
		}
		bad += cs_imgdir_open_ro(dirfd, unsafe[i], 0, NULL) != -EINVAL;
		bad += cs_imgdir_remove(dirfd, unsafe[i]) != -EINVAL;
		bad += cs_imgdir_write_atomic(dirfd, unsafe[i], "x", 1) != -EINVAL;
	}
	tap_ok(bad == 0, "create/open/remove/write_atomic refuse every unsafe name with -EINVAL (%d did not)",
	       bad);
	tap_ok(existed || access(outside, F_OK) < 0, "nothing was created outside the directory");
}

static void create(int dirfd, const char *dir)
{
	char target[4200];
	struct stat st;
	int fd;

	memset(&st, 0, sizeof(st));
	fd = cs_imgdir_create(dirfd, "cudastore-1-gpu0.ext", 0);
	if (fd >= 0)
		fstat(fd, &st);
	tap_ok(fd >= 0 && (st.st_mode & 07777) == 0600 && S_ISREG(st.st_mode),
	       "create makes a 0600 regular file (%o)", st.st_mode);
	tap_ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "created fd is close-on-exec");
	if (fd >= 0)
		close(fd);
	tap_ok(cs_imgdir_create(dirfd, "cudastore-1-gpu0.ext", 0) == -EEXIST, "create is exclusive");

	snprintf(target, sizeof(target), "%s-victim", dir);
	if (symlinkat(target, dirfd, "cudastore-1-gpu1.ext") < 0)
		tap_bail("symlink");
	fd = cs_imgdir_create(dirfd, "cudastore-1-gpu1.ext", 0);
	tap_ok(fd == -EEXIST && access(target, F_OK) < 0,
	       "create through a dangling symlink fails, target not made (%d)", fd);
}

static void open_ro(int dirfd, const char *dir)
{
	char target[4200];
	struct stat st;
	int fd;

	fd = cs_imgdir_open_ro(dirfd, "cudastore-1-gpu0.ext", 0, &st);
	tap_ok(fd >= 0 && S_ISREG(st.st_mode) && !(fcntl(fd, F_GETFL) & O_NONBLOCK) &&
		   (fcntl(fd, F_GETFD) & FD_CLOEXEC),
	       "open_ro opens a regular file, blocking, close-on-exec");
	if (fd >= 0)
		close(fd);
	tap_ok(cs_imgdir_open_ro(dirfd, "nothere", 0, NULL) == -ENOENT, "missing file: -ENOENT");

	snprintf(target, sizeof(target), "%s/cudastore-1-gpu0.ext", dir);
	if (symlinkat(target, dirfd, "link") < 0 || mkdirat(dirfd, "dir", 0700) < 0 ||
	    mkfifoat(dirfd, "fifo", 0600) < 0)
		tap_bail("cannot set up link/dir/fifo");
	tap_ok(cs_imgdir_open_ro(dirfd, "link", 0, NULL) == -ELOOP,
	       "symlink (to a good file) is not followed: -ELOOP");
	memset(&st, 0, sizeof(st));
	tap_ok(cs_imgdir_open_ro(dirfd, "dir", 0, &st) == -EINVAL && S_ISDIR(st.st_mode),
	       "directory: -EINVAL, st says directory");
	alarm(10);
	memset(&st, 0, sizeof(st));
	tap_ok(cs_imgdir_open_ro(dirfd, "fifo", 0, &st) == -EINVAL && S_ISFIFO(st.st_mode),
	       "fifo without a writer: -EINVAL at once, st says fifo");
	alarm(0);
}

static void remove_(int dirfd)
{
	struct stat st;

	tap_ok(cs_imgdir_remove(dirfd, "link") == 0 && fstatat(dirfd, "link", &st, AT_SYMLINK_NOFOLLOW) < 0 &&
		   fstatat(dirfd, "cudastore-1-gpu0.ext", &st, 0) == 0,
	       "remove of a symlink removes the link, not its target");
	tap_ok(cs_imgdir_remove(dirfd, "cudastore-1-gpu0.ext") == 0 &&
		   cs_imgdir_remove(dirfd, "cudastore-1-gpu0.ext") == 0,
	       "remove of an absent file is 0");
}

/* A dump removes the files an earlier dump left: exactly the plugin's names, never a directory. */
static void remove_ours(int dirfd)
{
	static const char *const ours[] = { "cudastore-2.img", "cudastore-2-gpu0.ext", "cudastore-2-gpu13.ext",
					    "cudastore-2.json", "cudastore-2.img.tmp", "cudastore-77-gpu1.ext.tmp",
					    "cudastore-index.img", "cudastore-index.img.tmp",
					    "cudastore-2-gpu0.s1.ext", "cudastore-2-gpu3.s31.ext.tmp" };
	static const char *const others[] = { "cudastore-dump.log", "cudastore-2.img.bak", "cudastore-.img",
					      "cudastore-2-gpu.ext", "cudastore-x.json", "xcudastore-2.img",
					      "inventory.img", "cudastore-index.json", "cudastore-2-gpu0.s.ext",
					      "cudastore-2-gpu0.sx.ext", "cudastore-2-gpu0.s1.img" };
	unsigned removed = 0, i;
	bool ok = true;

	for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		ok &= cs_name_is_ours(ours[i]);
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		ok &= !cs_name_is_ours(others[i]);
	tap_ok(ok, "cs_name_is_ours: the names cs_name_*() build (and .tmp), nothing else");
	for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		close(openat(dirfd, ours[i], O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		close(openat(dirfd, others[i], O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
	mkdirat(dirfd, "cudastore-9.img", 0700);
	symlinkat("/nonexistent", dirfd, "cudastore-8.json");
	ok = cs_imgdir_remove_ours(dirfd, &removed) == 0 && removed >= 9; /* earlier parts may leave more */
	for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		ok &= faccessat(dirfd, ours[i], F_OK, AT_SYMLINK_NOFOLLOW) != 0;
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		ok &= faccessat(dirfd, others[i], F_OK, 0) == 0;
		unlinkat(dirfd, others[i], 0);
	}
	ok &= faccessat(dirfd, "cudastore-9.img", F_OK, 0) == 0 &&
	      faccessat(dirfd, "cudastore-8.json", F_OK, AT_SYMLINK_NOFOLLOW) != 0;
	unlinkat(dirfd, "cudastore-9.img", AT_REMOVEDIR);
	tap_ok(ok, "remove_ours removed the 8 files and the link of ours (%u in all), kept other files and a directory",
	       removed);
}

int main(void)
{
	char path[4096];
	uint64_t free_bytes = 0;
	int dirfd, ret;

	tap_plan(6 + 2 + 4 + 5 + 2 + 1 + 2);
	names();
	dirfd = unit_tmpdir(path, sizeof(path));
	unsafe_names_refused(dirfd, path);
	create(dirfd, path);
	open_ro(dirfd, path);
	remove_(dirfd);
	remove_ours(dirfd);
	ret = cs_imgdir_free_bytes(dirfd, &free_bytes);
	tap_ok(ret == 0 && free_bytes > 0, "free bytes: %llu", (unsigned long long)free_bytes);
	close(dirfd);
	unit_rmtree(path);
	return tap_done();
}

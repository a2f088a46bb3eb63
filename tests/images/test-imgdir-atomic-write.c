// SPDX-License-Identifier: MIT
/* test-imgdir-atomic-write - write_atomic replaces a file whole or not at all; read_all is bounded. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "unit.h"

static bool has_content(int dirfd, const char *name, const char *want)
{
	size_t len;
	void *buf;
	bool same;

	if (cs_imgdir_read_all(dirfd, name, 1 << 20, &buf, &len))
		return false;
	same = len == strlen(want) && !memcmp(buf, want, len);
	free(buf);
	return same;
}

static bool exists(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void basic(int dirfd, const char *dir)
{
	char victim[4200];
	struct stat st;
	int fd;

	tap_ok(cs_imgdir_write_atomic(dirfd, "m.img", "first", 5) == 0 &&
		   has_content(dirfd, "m.img", "first"),
	       "new file written");
	memset(&st, 0, sizeof(st));
	fstatat(dirfd, "m.img", &st, 0);
	tap_ok(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600, "mode 0600 (%o)", st.st_mode & 07777);
	tap_ok(!exists(dirfd, "m.img.tmp"), "no tmp left");

	fd = openat(dirfd, "m.img.tmp", O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || write(fd, "stale garbage", 13) != 13)
		tap_bail("cannot make a stale tmp");
	close(fd);
	tap_ok(cs_imgdir_write_atomic(dirfd, "m.img", "second", 6) == 0 &&
		   has_content(dirfd, "m.img", "second") && !exists(dirfd, "m.img.tmp") &&
		   fstatat(dirfd, "m.img", &st, 0) == 0 && (st.st_mode & 07777) == 0600,
	       "a stale 0644 tmp is replaced, result 0600");

	snprintf(victim, sizeof(victim), "%s-victim", dir);
	fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, "keep", 4) != 4 || symlinkat(victim, dirfd, "m.img.tmp") < 0)
		tap_bail("cannot make a tmp symlink");
	close(fd);
	tap_ok(cs_imgdir_write_atomic(dirfd, "m.img", "third", 5) == 0 &&
		   has_content(dirfd, "m.img", "third"),
	       "a tmp that is a symlink is removed, not written through");
	fd = open(victim, O_RDONLY);
	tap_ok(fd >= 0 && read(fd, victim, 5) == 4, "symlink target untouched");
	if (fd >= 0)
		close(fd);
	snprintf(victim, sizeof(victim), "%s-victim", dir);
	unlink(victim);
}

/* renameat fails (the target is a non-empty directory): nothing changes, no tmp left. */
static void rename_fails(int dirfd)
{
	int ret;

	if (mkdirat(dirfd, "d.img", 0700) < 0 || mkdirat(dirfd, "d.img/sub", 0700) < 0)
		tap_bail("mkdir");
	ret = cs_imgdir_write_atomic(dirfd, "d.img", "x", 1);
	tap_ok(ret < 0 && !exists(dirfd, "d.img.tmp") && exists(dirfd, "d.img/sub"),
	       "failed rename: %d, target intact, no tmp", ret);
}

static void read_bounded(int dirfd)
{
	size_t len = 1;
	void *buf = (void *)1;

	tap_ok(cs_imgdir_read_all(dirfd, "m.img", 4, &buf, &len) == -EFBIG && !buf && !len,
	       "read_all of 5 bytes with max 4: -EFBIG, nothing returned");
	tap_ok(has_content(dirfd, "m.img", "third") &&
		   cs_imgdir_read_all(dirfd, "m.img", 5, &buf, &len) == 0 && len == 5,
	       "read_all with max == size reads it");
	free(buf);
	tap_ok(cs_imgdir_write_atomic(dirfd, "empty.img", "", 0) == 0 &&
		   cs_imgdir_read_all(dirfd, "empty.img", 0, &buf, &len) == 0 && len == 0,
	       "empty file round trip");
	free(buf);
}

/* ENOSPC mid-write on a 64 KiB tmpfs: the old file is intact and the tmp is gone. */
static void enospc(const char *dir)
{
	static char big[1 << 20];
	char mnt[4200];
	int fd, ret;

	snprintf(mnt, sizeof(mnt), "%s/tiny", dir);
	if (mkdir(mnt, 0700) < 0)
		tap_bail("mkdir %s", mnt);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("cs-unit", mnt, "tmpfs", 0, "size=64k,mode=0700") < 0) {
		tap_skip(3, "cannot mount a tmpfs here (not root or no mount namespace)");
		return;
	}
	fd = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		tap_bail("open %s", mnt);
	tap_ok(cs_imgdir_write_atomic(fd, "m.img", "old", 3) == 0, "old file written on the tiny tmpfs");
	memset(big, 'n', sizeof(big));
	ret = cs_imgdir_write_atomic(fd, "m.img", big, sizeof(big));
	tap_ok(ret == -ENOSPC, "1 MiB on a 64 KiB tmpfs: %d (want %d)", ret, -ENOSPC);
	tap_ok(has_content(fd, "m.img", "old") && !exists(fd, "m.img.tmp"), "old file intact, no tmp left");
	close(fd);
	umount2(mnt, MNT_DETACH);
}

int main(void)
{
	char path[4096];
	int dirfd;

	tap_plan(6 + 1 + 3 + 3);
	dirfd = unit_tmpdir(path, sizeof(path));
	basic(dirfd, path);
	rename_fails(dirfd);
	read_bounded(dirfd);
	enospc(path);
	close(dirfd);
	unit_rmtree(path);
	return tap_done();
}

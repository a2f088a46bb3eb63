// SPDX-License-Identifier: MIT
/*
 * test-trust-path-and-option-paths - cs_trust_path passes a file root may run only when nobody
 * else can change any step of its path (owner, group/world write, directories above, links and
 * their targets' directories); the helper/libcuda/libnvml options refuse over-long and relative
 * paths instead of cutting or guessing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "options.h"
#include "tap.h"
#include "trust.h"

#define NOBODY 65534

static char top[PATH_MAX], err[1024];

static const char *at(const char *name)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", top, name);
	return buf[k];
}

static void file(const char *name, mode_t mode, uid_t uid)
{
	int fd = open(at(name), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);

	if (fd < 0 || fchmod(fd, mode) || fchown(fd, uid, (gid_t)-1))
		tap_bail("cannot make %s: %s", at(name), strerror(errno));
	close(fd);
}

static void dir(const char *name, mode_t mode, uid_t uid)
{
	if (mkdir(at(name), mode) || chmod(at(name), mode) || chown(at(name), uid, (gid_t)-1))
		tap_bail("cannot make %s: %s", at(name), strerror(errno));
}

static int trust(const char *name, char *resolved)
{
	char local[PATH_MAX];

	err[0] = '\0';
	return cs_trust_path(at(name), "helper", resolved ? resolved : local, PATH_MAX, err, sizeof(err));
}

static void steps(void)
{
	char res[PATH_MAX];

	dir("ok", 0755, 0);
	file("ok/helper", 0755, 0);
	tap_ok(trust("ok/helper", res) == 0 && !strcmp(res, at("ok/helper")),
	       "root's file in root's directories passes");
	file("ok/theirs", 0755, NOBODY);
	tap_ok(trust("ok/theirs", NULL) == -EPERM && strstr(err, "owned by uid 65534"),
	       "another user's file: %s", err);
	file("ok/gw", 0775, 0);
	tap_ok(trust("ok/gw", NULL) == -EPERM && strstr(err, "group- or world-writable (mode 0775)"),
	       "a group-writable file: %s", err);
	file("ok/ow", 0757, 0);
	tap_ok(trust("ok/ow", NULL) == -EPERM, "a world-writable file is refused");
	dir("nobody", 0755, NOBODY);
	file("nobody/helper", 0755, 0);
	tap_ok(trust("nobody/helper", NULL) == -EPERM && strstr(err, "directory") &&
		   strstr(err, "/nobody is owned by uid 65534"),
	       "root's file in another user's directory: %s", err);
	dir("nobody/deep", 0755, 0);
	file("nobody/deep/helper", 0755, 0);
	tap_ok(trust("nobody/deep/helper", NULL) == -EPERM,
	       "a directory of another user further up is refused too");
	dir("open", 0777, 0);
	file("open/helper", 0755, 0);
	tap_ok(trust("open/helper", NULL) == -EPERM && strstr(err, "mode 0777"),
	       "a world-writable directory: %s", err);
	dir("sticky", 01777, 0);
	file("sticky/helper", 0755, 0);
	tap_ok(trust("sticky/helper", NULL) == 0, "a sticky world-writable directory (like /tmp) passes: %s",
	       err);
	dir("ok/d", 0755, 0);
	tap_ok(trust("ok/d", NULL) == -EINVAL && strstr(err, "not a regular file"),
	       "a directory is not a file to run");
	tap_ok(cs_trust_path("ok/helper", "helper", res, sizeof(res), err, sizeof(err)) == -EINVAL &&
		   strstr(err, "not an absolute path"),
	       "a relative path is refused: %s", err);
	tap_ok(trust("ok/missing", NULL) == -ENOENT, "a missing file: -ENOENT");
}

static void links(void)
{
	char res[PATH_MAX];

	if (symlink(at("ok/helper"), at("ok/abs")) || symlink("helper", at("ok/rel")) ||
	    symlink("../ok/./helper", at("ok/dots")) || symlink(at("nobody/helper"), at("ok/via-theirs")) ||
	    symlink(at("ok/loop2"), at("ok/loop1")) || symlink(at("ok/loop1"), at("ok/loop2")) ||
	    symlink(at("ok/helper"), at("ok/theirlink")) || lchown(at("ok/theirlink"), NOBODY, (gid_t)-1) ||
	    symlink(top, at("ok/up")) || symlink(at("ok/up/nobody/helper"), at("ok/chain")))
		tap_bail("cannot make links: %s", strerror(errno));
	tap_ok(trust("ok/abs", res) == 0 && !strcmp(res, at("ok/helper")), "an absolute link resolves: %s",
	       res);
	tap_ok(trust("ok/rel", res) == 0 && !strcmp(res, at("ok/helper")), "a relative link resolves: %s",
	       res);
	tap_ok(trust("ok/dots", res) == 0 && !strcmp(res, at("ok/helper")), "'.' and '..' in a link: %s",
	       res);
	tap_ok(trust("ok/via-theirs", NULL) == -EPERM && strstr(err, "uid 65534"),
	       "a link into another user's directory is refused: %s", err);
	tap_ok(trust("ok/chain", NULL) == -EPERM,
	       "through a link to a directory, then another user's directory");
	tap_ok(trust("ok/theirlink", NULL) == -EPERM && strstr(err, "symbolic link"),
	       "a link owned by another user is refused: %s", err);
	tap_ok(trust("ok/loop1", NULL) == -ELOOP, "a link loop ends: %s", err);
}

static void options(void)
{
	char v[400], msg[512];
	struct cs_options o;

	memset(&o, 0, sizeof(o));
	memset(v, 'a', sizeof(v));
	v[0] = '/';
	v[300] = '\0';
	tap_ok(cs_options_set(&o, "helper", v, msg, sizeof(msg)) == -EINVAL &&
		   strstr(msg, "300 bytes long, at most 255") && !o.helper[0],
	       "a 300-byte helper path is refused, not cut: %s", msg);
	tap_ok(cs_options_set(&o, "libcuda", v, msg, sizeof(msg)) == -EINVAL && !o.libcuda[0] &&
		   cs_options_set(&o, "libnvml", v, msg, sizeof(msg)) == -EINVAL && !o.libnvml[0],
	       "so are over-long libcuda and libnvml paths");
	v[255] = '\0';
	tap_ok(cs_options_set(&o, "helper", v, msg, sizeof(msg)) == 0 && strlen(o.helper) == 255,
	       "a 255-byte path is kept whole");
	tap_ok(cs_options_set(&o, "libcuda", "lib/libcuda.so.1", msg, sizeof(msg)) == -EINVAL &&
		   strstr(msg, "relative path") &&
		   cs_options_set(&o, "libnvml", "./libnvidia-ml.so.1", msg, sizeof(msg)) == -EINVAL,
	       "relative library paths are refused: %s", msg);
	tap_ok(cs_options_set(&o, "libcuda", "libcuda.so.1", msg, sizeof(msg)) == 0 &&
		   cs_options_set(&o, "libnvml", "/usr/lib/libnvidia-ml.so.1", msg, sizeof(msg)) == 0,
	       "a bare library name and an absolute path are taken");
}

int main(void)
{
	snprintf(top, sizeof(top), "/tmp/cs-trust.XXXXXX");
	tap_plan(23);
	options();
	if (geteuid() != 0) {
		for (int i = 0; i < 18; i++)
			tap_ok(1, "# SKIP needs root to give files to another user");
		return tap_done();
	}
	if (!mkdtemp(top) || chmod(top, 0755))
		tap_bail("mkdtemp: %s", strerror(errno));
	steps();
	links();
	if (fork() == 0)
		execlp("rm", "rm", "-rf", top, (char *)NULL);
	return tap_done();
}

// SPDX-License-Identifier: MIT
/*
 * trust.c - walk a path step by step as the kernel would, checking each step (see trust.h).
 *
 * realpath() alone would not do: a link's target may pass through directories that the
 * resolved path never names (a -> /x/b -> /y/file leaves /x out), and whoever can write /x can
 * change where the path leads.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errmsg.h"
#include "trust.h"

struct walk {
	const char *what, *path; /* for messages */
	char done[PATH_MAX];	 /* resolved so far: "" or "/a/b", each step checked */
	char todo[PATH_MAX];	 /* what is left to walk */
	unsigned links;
	char *err;
	size_t errlen;
};

static const char *kind(mode_t mode)
{
	return S_ISDIR(mode) ? "directory" : S_ISLNK(mode) ? "symbolic link" : "file";
}

static int check_step(struct walk *w, const char *step, const struct stat *st)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return cs_fail(-EPERM, w->err, w->errlen,
			       "%s %s: %s %s is owned by uid %u, not root; whoever owns it decides what "
			       "root runs: chown %sroot %s, or install it where only root can write",
			       w->what, w->path, kind(st->st_mode), step, (unsigned)st->st_uid,
			       S_ISLNK(st->st_mode) ? "-h " : "", step);
	if (S_ISLNK(st->st_mode) || !(st->st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	if (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))
		return 0;
	return cs_fail(-EPERM, w->err, w->errlen,
		       "%s %s: %s %s is group- or world-writable (mode %04o); whoever can write it decides "
		       "what root runs: chmod go-w %s",
		       w->what, w->path, kind(st->st_mode), step, (unsigned)st->st_mode & 07777, step);
}

static int too_long(struct walk *w)
{
	return cs_fail(-ENAMETOOLONG, w->err, w->errlen, "%s %s: the path is longer than %d bytes", w->what,
		       w->path, PATH_MAX - 1);
}

/* done is a link: walk its target, then what followed the link */
static int follow(struct walk *w, const char *rest)
{
	char target[PATH_MAX], tail[PATH_MAX];
	ssize_t n;

	if (++w->links > CS_TRUST_LINKS_MAX)
		return cs_fail(-ELOOP, w->err, w->errlen, "%s %s: more than %d symbolic links", w->what,
			       w->path, CS_TRUST_LINKS_MAX);
	n = readlink(w->done, target, sizeof(target) - 1);
	if (n < 0)
		return cs_fail(-errno, w->err, w->errlen, "%s %s: cannot read link %s: %s", w->what, w->path,
			       w->done, strerror(errno));
	target[n] = '\0';
	if (strlen(rest) >= sizeof(tail) || (size_t)n + strlen(rest) >= sizeof(w->todo))
		return too_long(w);
	memcpy(tail, rest, strlen(rest) + 1); /* rest lies in todo, which is rewritten now */
	memcpy(w->todo, target, (size_t)n);
	memcpy(w->todo + n, tail, strlen(tail) + 1);
	if (target[0] == '/')
		w->done[0] = '\0';
	else
		*strrchr(w->done, '/') = '\0';
	return 0;
}

/* append the next name of todo (from *p) to done and check it; 1: todo is walked */
static int step(struct walk *w, char **p)
{
	size_t n, have = strlen(w->done);
	struct stat st;
	char *name;
	int ret;

	while (**p == '/')
		(*p)++;
	if (!**p)
		return 1;
	name = *p;
	n = strcspn(name, "/");
	*p += n;
	if (n == 1 && name[0] == '.')
		return 0;
	if (n == 2 && name[0] == '.' && name[1] == '.') {
		if (have)
			*strrchr(w->done, '/') = '\0';
		return 0;
	}
	if (have + 1 + n >= sizeof(w->done))
		return too_long(w);
	w->done[have] = '/';
	memcpy(w->done + have + 1, name, n);
	w->done[have + 1 + n] = '\0';
	if (lstat(w->done, &st))
		return cs_fail(-errno, w->err, w->errlen, "%s %s: %s: %s", w->what, w->path, w->done,
			       strerror(errno));
	ret = check_step(w, w->done, &st);
	if (ret)
		return ret;
	if (S_ISLNK(st.st_mode)) {
		ret = follow(w, *p);
		*p = w->todo;
		return ret;
	}
	if (**p && !S_ISDIR(st.st_mode))
		return cs_fail(-ENOTDIR, w->err, w->errlen, "%s %s: %s is not a directory", w->what, w->path,
			       w->done);
	return 0;
}

static int walk_all(struct walk *w)
{
	char *p = w->todo;
	struct stat st;
	int ret;

	if (lstat("/", &st))
		return cs_fail(-errno, w->err, w->errlen, "cannot stat /: %s", strerror(errno));
	ret = check_step(w, "/", &st);
	while (!ret)
		ret = step(w, &p);
	if (ret < 0)
		return ret;
	if (!w->done[0] || lstat(w->done, &st) || !S_ISREG(st.st_mode))
		return cs_fail(-EINVAL, w->err, w->errlen, "%s %s is not a regular file", w->what, w->path);
	return 0;
}

int cs_trust_path(const char *path, const char *what, char *resolved, size_t len, char *err, size_t errlen)
{
	struct walk w = { .what = what, .path = path, .err = err, .errlen = errlen };
	int ret;

	if (path[0] != '/')
		return cs_fail(-EINVAL, err, errlen, "%s %s is not an absolute path: give it from /", what,
			       path);
	if (strlen(path) >= sizeof(w.todo))
		return too_long(&w);
	snprintf(w.todo, sizeof(w.todo), "%s", path);
	ret = walk_all(&w);
	if (ret)
		return ret;
	if (strlen(w.done) >= len)
		return too_long(&w);
	snprintf(resolved, len, "%s", w.done);
	return 0;
}

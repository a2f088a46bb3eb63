// SPDX-License-Identifier: MIT
/*
 * fuzz-replay - runs every file of a fuzz target's seed corpus and of its kept crashes through
 * the target (fuzz.h), one child process per file, so that any compiler builds and checks them in
 * every `make check`, clang or not. Built once per target: fuzz-replay (the manifest's: corpus and
 * crashes are the files directly in tests/fuzz/corpus and tests/fuzz/regressions) and
 * fuzz-replay-<name> (tests/fuzz/corpus/<name>, tests/fuzz/regressions/<name>).
 * TAP: one line per file; a crash or a broken property names the file.
 * Usage: fuzz-replay[-<name>] [DIR|FILE...]   (default: the target's corpus and crashes)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "fuzz.h"

#define REPLAY_MAX_INPUT (1u << 20)

static int read_input(const char *path, uint8_t **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size > REPLAY_MAX_INPUT) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*buf = malloc((size_t)st.st_size + 1);
	n = *buf ? read(fd, *buf, (size_t)st.st_size) : -1;
	close(fd);
	*len = n < 0 ? 0 : (size_t)n;
	return n == st.st_size ? 0 : -1;
}

static void replay(const char *path)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int status;
	pid_t pid;

	if (read_input(path, &buf, &len)) {
		tap_ok(0, "%s: cannot read it (%s)", path, strerror(errno));
		free(buf);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) { /* _exit: the parent's exit handlers are not the child's to run */
		int ret = cs_fuzz_one(buf, len);

		cs_fuzz_cleanup();
		_exit(ret);
	}
	free(buf);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		tap_ok(0, "%s: cannot run it", path);
		return;
	}
	tap_ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s (%zu bytes): %s", path, len,
	       WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "no crash, every property holds");
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* every regular file of dir, in name order; returns how many */
static int replay_dir(const char *dir)
{
	struct dirent **list;
	int n = scandir(dir, &list, NULL, by_name), files = 0;

	if (n < 0) {
		tap_ok(0, "cannot list %s: %s", dir, strerror(errno));
		return 0;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
		if (list[i]->d_name[0] != '.' && strcmp(list[i]->d_name, "README") && !stat(path, &st) &&
		    S_ISREG(st.st_mode)) {
			replay(path);
			files++;
		}
		free(list[i]);
	}
	free(list);
	return files;
}

static char tmpdir[] = "/tmp/cs-fuzz-replay.XXXXXX";

static void tmpdir_remove(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		tap_diag("could not remove %s", tmpdir);
}

int main(int argc, char **argv)
{
	const char *top = getenv("top_srcdir");
	char corpus[4096], regressions[4096];
	int seeds;

	/* the target's work directories, even those of a child that crashed, go with this one */
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! mkdtemp %s: %s\n", tmpdir, strerror(errno));
		return 99;
	}
	atexit(tmpdir_remove);
	setenv("TMPDIR", tmpdir, 1);

	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			struct stat st;

			if (!stat(argv[i], &st) && S_ISDIR(st.st_mode))
				replay_dir(argv[i]);
			else
				replay(argv[i]);
		}
		tap_plan(tap_n);
		return tap_done();
	}
	if (!strcmp(cs_fuzz_name, "manifest")) {
		snprintf(corpus, sizeof(corpus), "%s/tests/fuzz/corpus", top && *top ? top : ".");
		snprintf(regressions, sizeof(regressions), "%s/tests/fuzz/regressions",
			 top && *top ? top : ".");
	} else {
		snprintf(corpus, sizeof(corpus), "%s/tests/fuzz/corpus/%s", top && *top ? top : ".",
			 cs_fuzz_name);
		snprintf(regressions, sizeof(regressions), "%s/tests/fuzz/regressions/%s",
			 top && *top ? top : ".", cs_fuzz_name);
	}
	seeds = replay_dir(corpus);
	tap_ok(seeds >= 3, "the seed corpus has inputs (%d files in %s)", seeds, corpus);
	replay_dir(regressions);
	tap_plan(tap_n);
	return tap_done();
}

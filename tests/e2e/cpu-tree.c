// SPDX-License-Identifier: MIT
/*
 * cpu-tree - a CPU-only process tree whose state changes over time (end-to-end test subject).
 *
 *   cpu-tree --pidfile F --status DIR --outfile F
 * The parent forks one child; each keeps a counter and a hash chain over it in memory,
 * advancing every 10 ms and publishing "count" to DIR/<role>. The child also sends its
 * counter to the parent over a pipe; the parent checks it only ever grows. On SIGTERM both
 * re-derive the hash chain from the count (state intact?) and the parent writes PASS or
 * FAIL: <reason> to the outfile after collecting the child's verdict from its exit status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
}

static uint64_t step(uint64_t h, uint64_t n)
{
	h ^= n + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/* Write DIR/<role> through a temporary file and rename(): a reader never sees it empty. */
static void publish(const char *dir, const char *role, uint64_t count)
{
	char path[4096], tmp[4100], buf[32];
	int fd, n;

	/* write aside and rename: a reader never sees the file empty (truncated, not yet written) */
	snprintf(path, sizeof(path), "%s/%s", dir, role);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)count);
	if (write(fd, buf, (size_t)n) != n)
		perror("write");
	close(fd);
	if (rename(tmp, path))
		perror("rename");
}

/* Advance until SIGTERM; return 0 if the chain still matches the count. */
static int run(const char *dir, const char *role, int report_fd, int peer_fd, const char **why)
{
	uint64_t count = 0, hash = 0, peer_last = 0, h = 0, i, v;
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	while (!stop) {
		hash = step(hash, ++count);
		if (count % 5 == 0)
			publish(dir, role, count);
		if (report_fd >= 0 && write(report_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
			break;
		while (peer_fd >= 0 && read(peer_fd, &v, sizeof(v)) == sizeof(v)) {
			if (v <= peer_last) {
				*why = "child counter went backwards";
				return 1;
			}
			peer_last = v;
		}
		nanosleep(&ts, NULL);
	}
	for (i = 1; i <= count; i++)
		h = step(h, i);
	if (h != hash) {
		*why = "hash chain does not match the counter (memory state lost)";
		return 1;
	}
	if (peer_fd >= 0 && peer_last == 0) {
		*why = "never heard from the child";
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *pidfile = NULL, *dir = ".", *outfile = NULL, *why = "?";
	struct sigaction sa = { .sa_handler = on_term };
	int opt, p[2], status = 0, ret;
	pid_t child;
	FILE *f;

	static const struct option opts[] = { { "pidfile", 1, 0, 'p' }, { "status", 1, 0, 's' },
					      { "outfile", 1, 0, 'o' }, { 0 } };
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'p')
			pidfile = optarg;
		else if (opt == 's')
			dir = optarg;
		else if (opt == 'o')
			outfile = optarg;
		else
			return 2;
	}
	if (!outfile || pipe2(p, O_NONBLOCK | O_CLOEXEC))
		return 2;
	sigaction(SIGTERM, &sa, NULL);
	child = fork();
	if (child == 0) {
		close(p[0]);
		_exit(run(dir, "child", p[1], -1, &why) ? 1 : 0);
	}
	close(p[1]);
	if (pidfile && (f = fopen(pidfile, "w"))) {
		fprintf(f, "%d\n", getpid());
		fclose(f);
	}
	ret = run(dir, "parent", -1, p[0], &why);
	kill(child, SIGTERM);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
		ret = 1;
		why = "child failed its own check";
	}
	f = fopen(outfile, "w");
	if (f) {
		fprintf(f, ret ? "FAIL: %s\n" : "PASS\n", why);
		fclose(f);
	}
	return ret;
}

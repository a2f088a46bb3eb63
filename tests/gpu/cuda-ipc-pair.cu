// SPDX-License-Identifier: MIT
/*
 * cuda-ipc-pair - two CUDA processes that share device memory through the CUDA runtime's legacy
 * IPC (cudaIpcGetMemHandle / cudaIpcOpenMemHandle), to checkpoint and restore them as one tree
 * (tests/gpu/run-ipc-probe.sh). Built by nvcc with cudart linked statically, so the GPU host
 * needs nothing but its driver.
 *
 * The exporter, the tree's root, allocates --size bytes, fills them with a pattern of (seed,
 * offset), takes the IPC handle, then forks and execs itself as the importer with the handle in
 * hex on the command line: CUDA state must not cross a fork, so the child is a fresh program
 * before it touches CUDA. The importer opens the handle, checks every byte of it, and allocates
 * and fills --own-size bytes of its own (seed + 1): it is a CUDA process in its own right too.
 * --plain is one process with the exporter's allocation and no IPC, to compare the two with.
 *
 * Nobody writes after setup. While alive, each process reads back a window of each of its
 * buffers every ~100 ms and logs what differs (the importer reads the imported memory). On
 * SIGTERM each checks every byte, writes "PASS" or "FAIL <what>" to PREFIX.parent, PREFIX.child
 * or PREFIX.plain and exits 0. The exporter frees its memory only once the importer is gone (it
 * forwards SIGTERM and waits), so the importer never reads memory its owner has freed.
 *
 *   cuda-ipc-pair [--plain] [--size 256m] [--own-size 16m] [--seed N] [--daemon]
 *                 [--pidfile F] [--child-pidfile F] [--ready F] [--outfile PREFIX]
 *
 * --daemon: detach (setsid) and return once ready, exit 0, or 1 when the setup failed.
 * --pidfile: the exporter's (or plain process's) pid; --child-pidfile: the importer's.
 * --ready: written once both processes have filled and checked their memory.
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK	 (4UL << 20) /* host staging for fills and whole checks */
#define WINDOW	 (1UL << 20) /* bytes of each buffer read back per tick */
#define READY_FD 3	     /* the importer's end of the exporter's ready pipe */

struct opts {
	size_t size, own_size;
	unsigned long long seed;
	bool plain, daemon;
	const char *pidfile, *child_pidfile, *ready, *outfile;
	const char *import; /* the handle in hex: this process is the importer */
};

/* one device buffer and the pattern it must hold */
struct buf {
	const char *name;
	char *dptr;
	size_t size;
	unsigned long long seed;
	size_t cursor; /* the next window to read back */
};

static volatile sig_atomic_t stop;
static const char *role = "exporter";
static unsigned char *got, *want; /* CHUNK bytes each */
static char first_fail[256];
static unsigned long nfail;

static void say(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cuda-ipc-pair[%d] %s: ", getpid(), role);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A failure: the first one is the verdict's reason; only the first 20 are logged, then every
 * 1000th, since a broken context fails every window check from then on. */
static void fail(const char *fmt, ...)
{
	char msg[sizeof(first_fail)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!nfail++)
		snprintf(first_fail, sizeof(first_fail), "%s", msg);
	if (nfail <= 20)
		say("%s", msg);
	else if (nfail % 1000 == 0)
		say("%lu failures so far", nfail);
}

static bool cuda_ok(cudaError_t e, const char *call)
{
	if (e == cudaSuccess)
		return true;
	fail("%s: %s (%d)", call, cudaGetErrorString(e), (int)e);
	return false;
}
#define CU(call) cuda_ok((call), #call)

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* word i of a buffer is mix(mix(seed) ^ i); off and len are multiples of 8 (sizes of 4 KiB) */
static void expect(const struct buf *b, size_t off, size_t len, unsigned char *out)
{
	uint64_t key = mix(b->seed), w;

	for (size_t i = 0; i < len; i += 8) {
		w = mix(key ^ ((off + i) / 8));
		memcpy(out + i, &w, 8);
	}
}

static bool fill(struct buf *b)
{
	for (size_t off = 0; off < b->size; off += CHUNK) {
		size_t n = b->size - off < CHUNK ? b->size - off : CHUNK;

		expect(b, off, n, want);
		if (!CU(cudaMemcpy(b->dptr + off, want, n, cudaMemcpyHostToDevice)))
			return false;
	}
	return true;
}

/* [off, off + len) of b against the pattern; len <= CHUNK */
static bool check(const struct buf *b, size_t off, size_t len)
{
	size_t i = 0;

	if (!CU(cudaMemcpy(got, b->dptr + off, len, cudaMemcpyDeviceToHost)))
		return false;
	expect(b, off, len, want);
	if (!memcmp(got, want, len))
		return true;
	while (got[i] == want[i])
		i++;
	fail("%s memory differs at byte %zu of %zu (0x%02x, not 0x%02x)", b->name, off + i, b->size, got[i],
	     want[i]);
	return false;
}

static bool check_all(const struct buf *b)
{
	for (size_t off = 0; off < b->size; off += CHUNK)
		if (!check(b, off, b->size - off < CHUNK ? b->size - off : CHUNK))
			return false;
	return true;
}

static void check_window(struct buf *b)
{
	size_t n = b->size - b->cursor < WINDOW ? b->size - b->cursor : WINDOW;

	check(b, b->cursor, n);
	b->cursor = (b->cursor + n) % b->size;
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ssize_t len = (ssize_t)strlen(text), n;

	if (fd < 0) {
		say("cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, text, len);
	close(fd);
	return n == len ? 0 : -1;
}

static void write_pid(const char *path, pid_t pid)
{
	char text[24];

	snprintf(text, sizeof(text), "%d\n", pid);
	if (path)
		write_text(path, text);
}

/* PASS or FAIL with the first failure, into PREFIX.suffix */
static void verdict(const struct opts *o, const char *suffix)
{
	char path[4096], text[sizeof(first_fail) + 64];

	if (nfail)
		snprintf(text, sizeof(text), "FAIL %s (%lu failures)\n", first_fail, nfail);
	else
		snprintf(text, sizeof(text), "PASS\n");
	say("%.*s", (int)strlen(text) - 1, text);
	if (!o->outfile)
		return;
	snprintf(path, sizeof(path), "%s.%s", o->outfile, suffix);
	write_text(path, text);
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* how a child ended, for the log */
static const char *status_text(int st, char *text, size_t len)
{
	if (WIFEXITED(st))
		snprintf(text, len, "exited with %d", WEXITSTATUS(st));
	else
		snprintf(text, len, "killed by signal %d", WTERMSIG(st));
	return text;
}

/* Read back a window of every buffer each ~100 ms until SIGTERM, then check every byte. The
 * exporter also reaps an importer that ends early and says so. */
static void watch(struct buf *bufs, int n, pid_t *child)
{
	struct timespec tick = { 0, 100000000 };
	char text[64];
	int st;

	while (!stop) {
		for (int i = 0; i < n; i++)
			check_window(&bufs[i]);
		if (*child > 0 && waitpid(*child, &st, WNOHANG) == *child) {
			say("importer %d %s while running", *child, status_text(st, text, sizeof(text)));
			*child = 0;
		}
		nanosleep(&tick, NULL); /* cut short by SIGTERM */
	}
	say("SIGTERM: checking every byte");
	for (int i = 0; i < n; i++)
		check_all(&bufs[i]);
}

/* The importer maps our memory: it is checked and gone before that memory is freed. */
static void stop_importer(pid_t child)
{
	struct timespec tick = { 0, 100000000 };
	char text[64];
	int st;

	if (child <= 0)
		return;
	kill(child, SIGTERM);
	for (int i = 0; i < 600; i++) {
		pid_t r = waitpid(child, &st, WNOHANG);

		if (r == child) {
			say("importer %d %s", child, status_text(st, text, sizeof(text)));
			return;
		}
		if (r < 0)
			return;
		nanosleep(&tick, NULL);
	}
	say("importer %d still there after 60 s: freeing anyway", child);
}

/* Fork and exec ourselves as the importer of hex; its end of the ready pipe becomes READY_FD. */
static pid_t spawn_importer(const struct opts *o, const char *hex, int ready_wr)
{
	char exe[4096], size[32], own[32], seed[32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *argv[] = { "cuda-ipc-pair", "--import", hex, "--size", size, "--own-size", own,
			       "--seed", seed, o->outfile ? "--outfile" : NULL, o->outfile, NULL };
	pid_t pid;

	if (n < 0)
		return -1;
	exe[n] = '\0'; /* the real path, so that the importer's comm is ours, not "exe" */
	snprintf(size, sizeof(size), "%zu", o->size);
	snprintf(own, sizeof(own), "%zu", o->own_size);
	snprintf(seed, sizeof(seed), "%llu", o->seed);
	pid = fork();
	if (pid)
		return pid;
	/* only async-signal-safe calls between fork and exec (the parent has CUDA threads); the
	 * pipe's end at READY_FD without close-on-exec */
	if ((ready_wr == READY_FD ? fcntl(READY_FD, F_SETFD, 0) : dup2(ready_wr, READY_FD)) < 0)
		_exit(127);
	execv(exe, (char *const *)argv);
	_exit(127);
}

static int importer(const struct opts *o)
{
	struct buf bufs[2] = { { "imported", NULL, o->size, o->seed, 0 },
			       { "own", NULL, o->own_size, o->seed + 1, 0 } };
	cudaIpcMemHandle_t h;
	pid_t none = 0;
	char ok;

	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < sizeof(h) && !nfail; i++)
		if (sscanf(o->import + 2 * i, "%2hhx", (unsigned char *)&h + i) != 1)
			fail("bad handle %s", o->import);
	if (!nfail && CU(cudaSetDevice(0)) &&
	    CU(cudaIpcOpenMemHandle((void **)&bufs[0].dptr, h, cudaIpcMemLazyEnablePeerAccess)) &&
	    check_all(&bufs[0]) && CU(cudaMalloc((void **)&bufs[1].dptr, bufs[1].size)) && fill(&bufs[1]))
		say("opened %zu bytes at %p, filled %zu of its own", o->size, (void *)bufs[0].dptr,
		    o->own_size);
	ok = nfail ? 'F' : 'R';
	if (write(READY_FD, &ok, 1) != 1 || nfail) {
		verdict(o, "child");
		return 1;
	}
	close(READY_FD);
	watch(bufs, 2, &none);
	verdict(o, "child");
	cudaIpcCloseMemHandle(bufs[0].dptr);
	cudaFree(bufs[1].dptr);
	return 0;
}

/* --daemon: the caller returns once the detached child is ready; the child gets the pipe's end */
static int daemonize(void)
{
	int p[2], fd;
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) || (pid = fork()) < 0)
		return -1;
	if (pid > 0) {
		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 && c == 'R' ? 0 : 1);
	}
	close(p[0]);
	setsid();
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	return p[1];
}

static void notify(int *fd, char c)
{
	if (*fd < 0)
		return;
	if (write(*fd, &c, 1) != 1)
		say("cannot tell the launcher: %s", strerror(errno));
	close(*fd);
	*fd = -1;
}

/* the exporter, or with --plain the process without IPC */
static int exporter(const struct opts *o, int notify_fd)
{
	struct buf b = { "exported", NULL, o->size, o->seed, 0 };
	char hex[2 * sizeof(cudaIpcMemHandle_t) + 1], c = 0;
	const char *suffix = o->plain ? "plain" : "parent";
	cudaIpcMemHandle_t h;
	pid_t child = 0;
	ssize_t n;
	int rd[2];

	if (!CU(cudaSetDevice(0)) || !CU(cudaMalloc((void **)&b.dptr, b.size)) || !fill(&b))
		goto failed;
	say("filled %zu bytes at %p, seed %llu", b.size, (void *)b.dptr, o->seed);
	if (!o->plain) {
		if (!CU(cudaIpcGetMemHandle(&h, b.dptr)))
			goto failed;
		for (size_t i = 0; i < sizeof(h); i++)
			snprintf(hex + 2 * i, 3, "%02x", ((unsigned char *)&h)[i]);
		say("IPC handle %s", hex);
		if (pipe2(rd, O_CLOEXEC) || (child = spawn_importer(o, hex, rd[1])) < 0) {
			fail("cannot start the importer: %s", strerror(errno));
			goto failed;
		}
		close(rd[1]);
		write_pid(o->child_pidfile, child);
		while ((n = read(rd[0], &c, 1)) < 0 && errno == EINTR) /* a SIGTERM meanwhile */
			;
		if (n != 1 || c != 'R') {
			fail("importer %d failed its setup", child);
			goto failed;
		}
		close(rd[0]);
	}
	if (o->ready && write_text(o->ready, "ready\n"))
		goto failed;
	say("ready%s", o->plain ? "" : ", and so is the importer");
	notify(&notify_fd, 'R');
	watch(&b, 1, &child);
	verdict(o, suffix);
	stop_importer(child);
	cudaFree(b.dptr);
	return 0;
failed:
	verdict(o, suffix);
	stop_importer(child);
	notify(&notify_fd, 'F');
	return 1;
}

static int parse_size(const char *text, size_t *out)
{
	static const char units[] = "kmg";
	const char *u;
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno || end == text)
		return -1;
	if (*end && (u = strchr(units, *end | 0x20))) {
		v <<= 10 * (u - units + 1);
		end++;
	}
	if (*end || !v || v % 4096) /* the pattern is in 8-byte words; 4 KiB is simple to state */
		return -1;
	*out = (size_t)v;
	return 0;
}

static int parse(struct opts *o, int argc, char **argv)
{
	enum { SIZE = 256, OWN_SIZE, SEED, PIDFILE, CHILD_PIDFILE, READY, OUTFILE, IMPORT };
	static const struct option longopts[] = {
		{ "plain", no_argument, NULL, 'p' },
		{ "daemon", no_argument, NULL, 'd' },
		{ "size", required_argument, NULL, SIZE },
		{ "own-size", required_argument, NULL, OWN_SIZE },
		{ "seed", required_argument, NULL, SEED },
		{ "pidfile", required_argument, NULL, PIDFILE },
		{ "child-pidfile", required_argument, NULL, CHILD_PIDFILE },
		{ "ready", required_argument, NULL, READY },
		{ "outfile", required_argument, NULL, OUTFILE },
		{ "import", required_argument, NULL, IMPORT },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->size = 256UL << 20;
	o->own_size = 16UL << 20;
	o->seed = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': o->plain = true; break;
		case 'd': o->daemon = true; break;
		case SIZE: if (parse_size(optarg, &o->size)) return -1; break;
		case OWN_SIZE: if (parse_size(optarg, &o->own_size)) return -1; break;
		case SEED: o->seed = strtoull(optarg, NULL, 0); break;
		case PIDFILE: o->pidfile = optarg; break;
		case CHILD_PIDFILE: o->child_pidfile = optarg; break;
		case READY: o->ready = optarg; break;
		case OUTFILE: o->outfile = optarg; break;
		case IMPORT: o->import = optarg; break;
		default: return -1;
		}
	}
	if (optind < argc || (o->import && strlen(o->import) != 2 * sizeof(cudaIpcMemHandle_t)))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	int notify_fd = -1;
	struct opts o;

	if (parse(&o, argc, argv)) {
		fprintf(stderr,
			"usage: cuda-ipc-pair [--plain] [--size BYTES[k|m|g]] [--own-size BYTES] [--seed N]\n"
			"                     [--daemon] [--pidfile F] [--child-pidfile F] [--ready F]\n"
			"                     [--outfile PREFIX]   (sizes: multiples of 4 KiB)\n");
		return 2;
	}
	if (o.import)
		role = "importer";
	else if (o.plain)
		role = "plain";
	/* descriptors inherited from the launcher would be dumped with us: keep 0-2 and, in the
	 * importer, the ready pipe */
	close_range(o.import ? READY_FD + 1 : 3, ~0U, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	got = (unsigned char *)malloc(CHUNK);
	want = (unsigned char *)malloc(CHUNK);
	if (!got || !want)
		return 1;
	if (o.import)
		return importer(&o);
	if (o.daemon && (notify_fd = daemonize()) < 0)
		return 1;
	write_pid(o.pidfile, getpid());
	return exporter(&o, notify_fd);
}

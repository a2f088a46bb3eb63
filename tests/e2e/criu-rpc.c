// SPDX-License-Identifier: MIT
/*
 * criu-rpc.c - a minimal CRIU RPC client for the tests: one DUMP request, the way runc, crun,
 * containerd and CRI-O ask criu (criu swrk over a SOCK_SEQPACKET socketpair), or through a
 * running `criu service`. The request is encoded by hand (images/rpc.proto field numbers of
 * CRIU 4.x): criu_req{type=1 DUMP, opts=criu_opts{...}}.
 *
 * Usage: criu-rpc swrk CRIU | service SOCKET  PID IMGDIR [options]
 *   --leave-running           criu_opts.leave_running = true (3)
 *   --config FILE             criu_opts.config_file (51): criu's RPC config file
 *   --page-server ADDR PORT   criu_opts.ps (11) {address=1, port=2}
 *   --lazy-pages              criu_opts.lazy_pages (48)
 *   --parent DIR              criu_opts.parent_img (14): criu's --prev-images-dir
 * Logs to IMGDIR/dump.log at level 4. Exit 0 when criu answers success, 1 when it answers
 * failure, 2 on a usage or transport error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

struct buf {
	uint8_t d[4096];
	size_t n;
};

static void put_varint(struct buf *b, uint64_t v)
{
	do {
		b->d[b->n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void put_int(struct buf *b, unsigned field, uint64_t v)
{
	put_varint(b, (uint64_t)field << 3);
	put_varint(b, v);
}

static void put_bytes(struct buf *b, unsigned field, const void *p, size_t len)
{
	put_varint(b, ((uint64_t)field << 3) | 2);
	put_varint(b, len);
	memcpy(b->d + b->n, p, len);
	b->n += len;
}

static int usage(void)
{
	fprintf(stderr, "usage: criu-rpc swrk CRIU | service SOCKET  PID IMGDIR [--leave-running] "
			"[--config FILE] [--page-server ADDR PORT] [--lazy-pages] [--parent DIR]\n");
	return 2;
}

/* criu_resp: type (1), success (2), cr_errno (7), cr_errmsg (9) */
static int decode_resp(const uint8_t *p, ssize_t n)
{
	int success = -1;
	ssize_t i = 0;

	while (i < n) {
		uint64_t key = 0, v = 0;
		int shift = 0;

		do
			key |= (uint64_t)(p[i] & 0x7f) << shift, shift += 7;
		while (p[i++] & 0x80 && i < n);
		shift = 0;
		if ((key & 7) == 0) {
			do
				v |= (uint64_t)(p[i] & 0x7f) << shift, shift += 7;
			while (p[i++] & 0x80 && i < n);
			if (key >> 3 == 2)
				success = (int)v;
			if (key >> 3 == 7)
				fprintf(stderr, "criu-rpc: cr_errno %d\n", (int)v);
		} else if ((key & 7) == 2) {
			do
				v |= (uint64_t)(p[i] & 0x7f) << shift, shift += 7;
			while (p[i++] & 0x80 && i < n);
			if (key >> 3 == 9)
				fprintf(stderr, "criu-rpc: cr_errmsg %.*s\n", (int)v, (const char *)p + i);
			i += (ssize_t)v;
		} else {
			fprintf(stderr, "criu-rpc: unexpected wire type %d\n", (int)(key & 7));
			return -1;
		}
	}
	return success;
}

int main(int argc, char **argv)
{
	struct buf opts = { .n = 0 }, req = { .n = 0 }, ps = { .n = 0 };
	const char *how, *target, *cfg = NULL, *parent = NULL;
	uint8_t resp[4096];
	pid_t child = -1;
	int sk, dfd, i, ok, lr = 0, lazy = 0;
	ssize_t n;

	if (argc < 5)
		return usage();
	how = argv[1];
	target = argv[2];
	dfd = open(argv[4], O_RDONLY | O_DIRECTORY);
	if (dfd < 0) {
		perror(argv[4]);
		return 2;
	}
	for (i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "--leave-running"))
			lr = 1;
		else if (!strcmp(argv[i], "--lazy-pages"))
			lazy = 1;
		else if (!strcmp(argv[i], "--config") && i + 1 < argc)
			cfg = argv[++i];
		else if (!strcmp(argv[i], "--parent") && i + 1 < argc)
			parent = argv[++i];
		else if (!strcmp(argv[i], "--page-server") && i + 2 < argc) {
			put_bytes(&ps, 1, argv[i + 1], strlen(argv[i + 1]));
			put_int(&ps, 2, (uint64_t)atoi(argv[i + 2]));
			i += 2;
		} else
			return usage();
	}
	put_int(&opts, 1, (uint64_t)dfd);
	put_int(&opts, 2, (uint64_t)atoi(argv[3]));
	if (lr)
		put_int(&opts, 3, 1);
	put_int(&opts, 9, 4);
	put_bytes(&opts, 10, "dump.log", 8);
	if (ps.n)
		put_bytes(&opts, 11, ps.d, ps.n);
	if (parent)
		put_bytes(&opts, 14, parent, strlen(parent));
	if (lazy)
		put_int(&opts, 48, 1);
	if (cfg)
		put_bytes(&opts, 51, cfg, strlen(cfg));
	put_int(&req, 1, 1); /* DUMP */
	put_bytes(&req, 2, opts.d, opts.n);

	if (!strcmp(how, "swrk")) {
		int sv[2];
		char fdarg[16];

		if (socketpair(AF_LOCAL, SOCK_SEQPACKET, 0, sv))
			return perror("socketpair"), 2;
		child = fork();
		if (child == 0) {
			close(sv[0]);
			snprintf(fdarg, sizeof(fdarg), "%d", sv[1]);
			execl(target, "criu", "swrk", fdarg, (char *)NULL);
			perror(target);
			_exit(127);
		}
		close(sv[1]);
		sk = sv[0];
	} else if (!strcmp(how, "service")) {
		struct sockaddr_un sa = { .sun_family = AF_LOCAL };

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", target);
		sk = socket(AF_LOCAL, SOCK_SEQPACKET, 0);
		if (sk < 0 || connect(sk, (struct sockaddr *)&sa, sizeof(sa)))
			return perror("connect"), 2;
	} else {
		return usage();
	}
	if (send(sk, req.d, req.n, 0) != (ssize_t)req.n)
		return perror("send"), 2;
	n = recv(sk, resp, sizeof(resp), 0);
	if (n <= 0) {
		fprintf(stderr, "criu-rpc: no answer from criu (%s)\n", n ? strerror(errno) : "EOF");
		return 2;
	}
	ok = decode_resp(resp, n);
	close(sk);
	if (child > 0)
		waitpid(child, NULL, 0);
	printf("criu-rpc: dump %s\n", ok == 1 ? "succeeded" : "failed");
	return ok == 1 ? 0 : ok == 0 ? 1 : 2;
}

// SPDX-License-Identifier: MIT
/*
 * cs-wire-bench - what one plugin <-> helper request costs (wire.h): a request carrying the
 * images-directory fd, answered by DONE, between two processes over the same SOCK_SEQPACKET
 * socketpair the plugin uses; beside it, the floor: an empty one-byte ping-pong on a pipe pair.
 * Usage: cs-wire-bench [ROUNDS]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "wire.h"

static void echo_server(int sock)
{
	struct cs_wire_msg m;
	int fd;

	while (!cs_wire_recv(sock, &m, &fd)) {
		if (fd >= 0)
			close(fd);
		if (m.type == CS_W_BYE)
			break;
		cs_wire_send_simple(sock, CS_W_DONE, 0, 0, 0, 0, -1);
	}
	_exit(0);
}

static double wire_rounds(long n)
{
	struct cs_wire_msg m;
	int sv[2], dir = open("/", O_RDONLY | O_DIRECTORY);
	double t0;
	long i;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) || dir < 0)
		exit(1);
	if (!fork()) {
		close(sv[0]);
		echo_server(sv[1]);
	}
	close(sv[1]);
	t0 = cs_now();
	for (i = 0; i < n; i++)
		if (cs_wire_send_simple(sv[0], CS_W_PAUSE, 1, 1000, 0, 0, dir) || cs_wire_recv(sv[0], &m, NULL))
			exit(1);
	t0 = cs_now() - t0;
	cs_wire_send_simple(sv[0], CS_W_BYE, 0, 0, 0, 0, -1);
	wait(NULL);
	return t0 / n;
}

static double pipe_rounds(long n)
{
	int a[2], b[2];
	char c = 0;
	double t0;
	long i;

	if (pipe(a) || pipe(b))
		exit(1);
	if (!fork()) {
		while (read(a[0], &c, 1) == 1 && c)
			if (write(b[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	t0 = cs_now();
	for (i = 0; i < n; i++) {
		c = 1;
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			exit(1);
	}
	t0 = cs_now() - t0;
	c = 0;
	if (write(a[1], &c, 1) != 1)
		exit(1);
	wait(NULL);
	return t0 / n;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;
	double w, p;

	if (n <= 0) {
		fprintf(stderr, "usage: cs-wire-bench [ROUNDS]\n");
		return 2;
	}
	w = wire_rounds(n);
	p = pipe_rounds(n);
	printf("one request with the images-dir fd + DONE: %.1f us (%ld rounds)\n", w * 1e6, n);
	printf("floor, 1-byte pipe ping-pong between the same two processes: %.1f us\n", p * 1e6);
	printf("a dump of one CUDA process makes about 4 requests + 4 restore-thread calls + its log lines\n");
	return 0;
}

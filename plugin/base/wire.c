// SPDX-License-Identifier: MIT
/* wire.c - framing and fd passing for the plugin <-> helper socket (see wire.h) */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wire.h"

#define HDR_LEN offsetof(struct cs_wire_msg, data)

int cs_wire_send_bytes(int sock, const void *buf, size_t len, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == ECONNRESET ? -EPIPE : -errno;
	return (size_t)n == len ? 0 : -EPROTO;
}

int cs_wire_send(int sock, struct cs_wire_msg *m, int fd)
{
	if (m->len > CS_WIRE_DATA)
		return -EMSGSIZE;
	m->magic = CS_WIRE_MAGIC;
	return cs_wire_send_bytes(sock, m, HDR_LEN + m->len, fd);
}

int cs_wire_send_simple(int sock, uint32_t type, int32_t pid, int32_t arg, int32_t ret, uint32_t flags,
			int fd)
{
	struct cs_wire_msg m;

	memset(&m, 0, HDR_LEN);
	m.type = type;
	m.pid = pid;
	m.arg = arg;
	m.ret = ret;
	m.flags = flags;
	return cs_wire_send(sock, &m, fd);
}

static int take_fd(struct msghdr *mh)
{
	struct cmsghdr *c;
	int fd = -1;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		if (c->cmsg_len >= CMSG_LEN(sizeof(int)) && fd < 0)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	}
	return fd;
}

int cs_wire_recv(int sock, struct cs_wire_msg *m, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = HDR_LEN + CS_WIRE_DATA };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	ssize_t n;
	int got;

	if (fd)
		*fd = -1;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == ECONNRESET ? -EPIPE : -errno;
	if (n == 0)
		return -EPIPE;
	got = take_fd(&mh);
	if (fd)
		*fd = got;
	else if (got >= 0)
		close(got);
	if ((size_t)n < HDR_LEN || m->magic != CS_WIRE_MAGIC || m->len > CS_WIRE_DATA ||
	    (size_t)n != HDR_LEN + m->len || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		goto err_proto;
	m->data[m->len] = '\0';
	return 0;

err_proto:
	if (got >= 0)
		close(got);
	if (fd)
		*fd = -1;
	return -EPROTO;
}

const char *cs_wire_type_name(uint32_t type)
{
	static const char *names[] = { "?",	   "init",    "pause",	  "checkpoint", "restore", "finish",
				       "bye",	   "log",     "rt-run",	  "rt-stop",	"rt-done", "done",
				       "prefetch", "recover", "progress", "recovered" };

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

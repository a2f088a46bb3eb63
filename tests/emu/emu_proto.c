// SPDX-License-Identifier: MIT
/*
 * emu_proto.c - the wire between a caller and a target's driver thread.
 *
 * Abstract unix stream socket "\0cudastore-emu.<pid>" in the target; one connection per
 * request: the caller sends one struct emu_req (plus memfds for a restore Complete), the
 * driver thread answers one struct emu_rep (plus memfds for a CustomStorage checkpoint) and
 * closes. Between requests the target holds only the listening socket, which CRIU can dump.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "emu.h"
#include "procfs.h"

const char *emu_op_name(uint32_t op)
{
	static const char *const names[] = {
		[EMU_OP_STATE] = "state",	    [EMU_OP_LOCK] = "lock",
		[EMU_OP_CHECKPOINT] = "checkpoint", [EMU_OP_RESTORE] = "restore",
		[EMU_OP_COMPLETE] = "complete",	    [EMU_OP_UNLOCK] = "unlock",
	};

	return op < sizeof(names) / sizeof(names[0]) && names[op] ? names[op] : "unknown";
}

static socklen_t sock_addr(int pid, struct sockaddr_un *sa)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, EMU_SOCK_PREFIX "%d", pid);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

int emu_sock_listen(int pid)
{
	struct sockaddr_un sa;
	socklen_t len = sock_addr(pid, &sa);
	int sk, ret;

	sk = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sk < 0)
		return -errno;
	if (bind(sk, (struct sockaddr *)&sa, len) || listen(sk, 16)) {
		ret = -errno;
		close(sk);
		return ret;
	}
	return sk;
}

/*
 * An abstract socket lives in its creator's network namespace. The real driver is reached
 * through device nodes whatever the namespaces; to behave the same for a target in another
 * network namespace (a container), the caller's thread creates its socket in the target's
 * namespace (setns on this thread only, then back).
 */
static int socket_in_netns_of(int pid)
{
	char path[64];
	struct stat a, b;
	int self, target, sk, err;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	target = open(path, O_RDONLY | O_CLOEXEC);
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (target < 0 || self < 0 || fstat(target, &a) || fstat(self, &b) ||
	    (a.st_dev == b.st_dev && a.st_ino == b.st_ino) || setns(target, CLONE_NEWNET)) {
		if (target >= 0)
			close(target);
		if (self >= 0)
			close(self);
		return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	}
	sk = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	err = errno;
	if (setns(self, CLONE_NEWNET))
		abort(); /* a caller thread left in the target's namespace would be worse */
	close(target);
	close(self);
	errno = err;
	return sk;
}

/*
 * The target names its socket after getpid(), its pid in its own pid namespace; the caller knows
 * it by the pid of the caller's namespace: map through the last NSpid entry (plugin/base/procfs.c).
 */
int emu_sock_connect(int pid)
{
	struct sockaddr_un sa;
	socklen_t len = sock_addr(cs_procfs_ns_pid(pid), &sa);
	int sk, ret;

	sk = socket_in_netns_of(pid);
	if (sk < 0)
		return -errno;
	while (connect(sk, (struct sockaddr *)&sa, len)) {
		if (errno == EINTR)
			continue;
		ret = -errno;
		close(sk);
		return ret;
	}
	return sk;
}

int emu_msg_send(int sk, const void *buf, size_t len, const int *fds, int nfd)
{
	char cbuf[CMSG_SPACE(sizeof(int) * EMU_MAXDEV)] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

	if (nfd > EMU_MAXDEV)
		return -EINVAL;
	if (nfd > 0) {
		msg.msg_control = cbuf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfd);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfd);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfd);
	}
	do
		n = sendmsg(sk, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* messages are small; a short send on a unix stream socket does not happen in practice */
	return (size_t)n == len ? 0 : -EIO;
}

static void take_fds(struct msghdr *msg, int *fds, int *nfd, int maxfd)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		size_t n;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (fds && *nfd < maxfd)
				fds[(*nfd)++] = fd;
			else
				close(fd);
		}
	}
}

int emu_msg_recv(int sk, void *buf, size_t len, int *fds, int *nfd, int maxfd)
{
	char cbuf[CMSG_SPACE(sizeof(int) * EMU_MAXDEV)];
	size_t got = 0;
	int dummy = 0;

	if (!nfd)
		nfd = &dummy;
	*nfd = 0;
	while (got < len) {
		struct iovec iov = { .iov_base = (char *)buf + got, .iov_len = len - got };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		n = recvmsg(sk, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		take_fds(&msg, fds, nfd, maxfd);
		got += (size_t)n;
	}
	return 0;
}

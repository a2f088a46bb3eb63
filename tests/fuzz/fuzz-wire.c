// SPDX-License-Identifier: MIT
/*
 * fuzz-wire.c - one datagram through the receiver of the plugin <-> helper protocol (wire.h):
 * what either side gets when the other is buggy or not ours.
 *
 * Input: the first byte chooses whether an fd rides along (bit 0) and whether the receiver takes
 * it (bit 1); the rest is sent as one datagram over a SOCK_SEQPACKET socketpair, as the plugin and
 * the helper use it, and cs_wire_recv() receives it. Properties: the result is 0 or -EPROTO; a
 * message it accepts has the magic, at most CS_WIRE_DATA data bytes, exactly the datagram's
 * length, and its data terminated when there is room; cs_wire_type_name() names any type; a
 * refused message leaves no fd to the caller; no fd leaks either way. A message accepted is sent
 * back with cs_wire_send() and received the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "wire.h"

#define HDR_LEN offsetof(struct cs_wire_msg, data)

const char cs_fuzz_name[] = "wire";
static int sv[2] = { -1, -1 }, devnull = -1;

void cs_fuzz_cleanup(void)
{
	if (sv[0] >= 0) {
		close(sv[0]);
		close(sv[1]);
		close(devnull);
	}
	sv[0] = sv[1] = devnull = -1;
}

static void setup(void)
{
	if (sv[0] >= 0)
		return;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		cs_fuzz_fail("socketpair", NULL);
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0)
		cs_fuzz_fail("open /dev/null", NULL);
	atexit(cs_fuzz_cleanup);
}

/* the lowest free fd number: the same before and after means nothing leaked */
static int lowest_free_fd(void)
{
	int fd = dup(0);

	if (fd < 0)
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		cs_fuzz_fail("no fd to probe with", NULL);
	close(fd);
	return fd;
}

static void send_raw(const uint8_t *buf, size_t len, bool with_fd)
{
	if (cs_wire_send_bytes(sv[0], buf, len, with_fd ? devnull : -1))
		cs_fuzz_fail("sendmsg of the input", NULL);
}

static void check_accepted(const struct cs_wire_msg *m, size_t sent)
{
	struct cs_wire_msg *back = malloc(sizeof(*back));
	int fd = -1;

	if (m->magic != CS_WIRE_MAGIC || m->len > CS_WIRE_DATA || HDR_LEN + m->len != sent)
		cs_fuzz_fail("a message was accepted that breaks the framing", NULL);
	if (m->len < CS_WIRE_DATA && m->data[m->len])
		cs_fuzz_fail("accepted data is not terminated", NULL);
	if (!cs_wire_type_name(m->type))
		cs_fuzz_fail("a type without a name", NULL);
	if (!back || cs_wire_send(sv[1], (struct cs_wire_msg *)m, -1) || cs_wire_recv(sv[0], back, &fd) ||
	    fd != -1 || memcmp(back, m, HDR_LEN + m->len))
		cs_fuzz_fail("an accepted message does not survive being sent again", NULL);
	free(back);
}

int cs_fuzz_one(const uint8_t *data, size_t size)
{
	struct cs_wire_msg *m = malloc(sizeof(*m));
	bool with_fd, take_fd;
	int before, fd = -2, ret;

	if (!m)
		cs_fuzz_fail("out of memory", NULL);
	setup();
	if (!size) {
		free(m);
		return 0;
	}
	with_fd = data[0] & 1;
	take_fd = data[0] & 2;
	data++;
	size--;
	if (size > sizeof(*m) + 64)
		size = sizeof(*m) + 64;
	if (!size) { /* an empty datagram reads as the peer gone: not a message */
		free(m);
		return 0;
	}
	before = lowest_free_fd();
	send_raw(data, size, with_fd);
	memset(m, 0xa5, sizeof(*m));
	ret = cs_wire_recv(sv[1], m, take_fd ? &fd : NULL);
	if (ret && ret != -EPROTO)
		cs_fuzz_fail("cs_wire_recv returned neither 0 nor -EPROTO", NULL);
	if (take_fd && ret && fd != -1)
		cs_fuzz_fail("a refused message handed an fd over", NULL);
	if (take_fd && !ret && (with_fd ? fd < 0 : fd != -1))
		cs_fuzz_fail("an fd appeared that was not sent", NULL);
	if (fd >= 0)
		close(fd);
	if (!ret)
		check_accepted(m, size);
	if (lowest_free_fd() != before)
		cs_fuzz_fail("an fd leaked", NULL);
	free(m);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return cs_fuzz_one(data, size);
}

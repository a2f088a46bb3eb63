// SPDX-License-Identifier: MIT
/* test-wire-full-log-record-terminated - a LOG record of the maximum size arrives NUL-terminated. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../tap.h"
#include "wire.h"

#define HDR_LEN offsetof(struct cs_wire_msg, data)

/* a datagram of header + n bytes of 'A', its len field saying len */
static int send_raw(int sock, size_t n, uint32_t len)
{
	char *buf = calloc(1, HDR_LEN + n);
	struct cs_wire_msg *h = (struct cs_wire_msg *)buf;
	ssize_t sent;

	if (!buf)
		tap_bail("out of memory");
	h->magic = CS_WIRE_MAGIC;
	h->type = CS_W_LOG;
	h->len = len;
	memset(buf + HDR_LEN, 'A', n);
	sent = send(sock, buf, HDR_LEN + n, 0);
	free(buf);
	return sent == (ssize_t)(HDR_LEN + n) ? 0 : -errno;
}

/* receive into a buffer that holds no NUL beforehand, as a reused heap message may not */
static int recv_dirty(int sock, struct cs_wire_msg *m)
{
	memset(m, 'B', sizeof(*m));
	return cs_wire_recv(sock, m, NULL);
}

int main(void)
{
	struct cs_wire_msg *m = malloc(sizeof(*m));
	int sv[2], ret;

	tap_plan(5);
	if (!m || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv))
		tap_bail("socketpair: %s", strerror(errno));

	if (send_raw(sv[0], CS_WIRE_DATA, CS_WIRE_DATA))
		tap_bail("send: %s", strerror(errno));
	ret = recv_dirty(sv[1], m);
	tap_ok(ret == 0 && m->len == CS_WIRE_DATA, "a record of exactly %d bytes is accepted (%d)",
	       CS_WIRE_DATA, ret);
	tap_ok(memchr(m->data, '\0', sizeof(m->data)) && strlen(m->data) == CS_WIRE_DATA,
	       "its data is terminated right after its %d bytes (%%s stays inside the message)",
	       CS_WIRE_DATA);

	send_raw(sv[0], 10, 10);
	ret = recv_dirty(sv[1], m);
	tap_ok(ret == 0 && strlen(m->data) == 10, "a short record is terminated after its length");

	send_raw(sv[0], CS_WIRE_DATA + 1, CS_WIRE_DATA + 1);
	tap_ok(recv_dirty(sv[1], m) == -EPROTO, "one byte over the maximum is refused (-EPROTO)");
	send_raw(sv[0], 10, 11);
	tap_ok(recv_dirty(sv[1], m) == -EPROTO, "a length field that disagrees with the datagram is refused");

	close(sv[0]);
	close(sv[1]);
	free(m);
	return tap_done();
}

// SPDX-License-Identifier: MIT
/* imgindex.c - encode, decode, read and write cudastore-index.img (contract in imgindex.h) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "le.h"
#include "cudastore.pb-c.h"
#include "errmsg.h"
#include "imgdir.h"
#include "imgindex.h"

#define IDX_MAGIC   "CSIX"
#define IDX_HDR	    16u
#define IDX_CORRUPT " (images corrupt or not written by cudastore: use another checkpoint)"

_Static_assert(CS_INDEX_MAX_PIDS * 5 + 64 < CS_INDEX_MAX_BYTES, "a full index fits its bound");

bool cs_index_has(const struct cs_index *x, int32_t ns_pid)
{
	for (unsigned i = 0; i < x->n; i++)
		if (x->ns_pid[i] == ns_pid)
			return true;
	return false;
}

int cs_index_encode(const struct cs_index *x, void **buf, size_t *len)
{
	CsIndex pi = CS_INDEX__INIT;
	size_t plen;
	uint8_t *out;

	*buf = NULL;
	*len = 0;
	if (x->n > CS_INDEX_MAX_PIDS)
		return -EINVAL;
	pi.has_format_major = pi.has_format_minor = pi.has_dump_id = 1;
	pi.format_major = CS_FORMAT_MAJOR;
	pi.format_minor = CS_FORMAT_MINOR;
	pi.dump_id.len = sizeof(x->dump_id);
	pi.dump_id.data = (uint8_t *)x->dump_id;
	pi.n_ns_pids = x->n;
	pi.ns_pids = (int32_t *)x->ns_pid;
	plen = cs_index__get_packed_size(&pi);
	if (plen > CS_INDEX_MAX_BYTES)
		return -EFBIG;
	out = malloc(IDX_HDR + plen);
	if (!out)
		return -ENOMEM;
	if (cs_index__pack(&pi, out + IDX_HDR) != plen) {
		free(out);
		return -EIO;
	}
	memcpy(out, IDX_MAGIC, 4);
	cs_put_le(out + 4, plen, 4);
	cs_put_le(out + 8, XXH3_64bits(out + IDX_HDR, plen), 8);
	*buf = out;
	*len = IDX_HDR + plen;
	return 0;
}

static int frame_check(const uint8_t *p, size_t len, size_t *plen, char *err, size_t errlen)
{
	uint32_t n;

	if (len < IDX_HDR || memcmp(p, IDX_MAGIC, 4))
		return cs_fail(-EBADMSG, err, errlen, "%s: %s" IDX_CORRUPT, CS_INDEX_NAME,
			       len < IDX_HDR ? "shorter than its 16-byte header"
					     : "magic is not \"" IDX_MAGIC "\"");
	n = (uint32_t)cs_get_le(p + 4, 4);
	if (n > CS_INDEX_MAX_BYTES || len - IDX_HDR != n)
		return cs_fail(-EBADMSG, err, errlen,
			       "%s: header says %u payload bytes (limit %u), file has %zu" IDX_CORRUPT,
			       CS_INDEX_NAME, n, CS_INDEX_MAX_BYTES, len - IDX_HDR);
	if (cs_get_le(p + 8, 8) != XXH3_64bits(p + IDX_HDR, n))
		return cs_fail(-EBADMSG, err, errlen,
			       "%s: payload XXH3-64 does not match its header" IDX_CORRUPT, CS_INDEX_NAME);
	*plen = n;
	return 0;
}

static int check(const CsIndex *pi, char *err, size_t errlen)
{
	if (!pi->has_format_major || !pi->has_format_minor)
		return cs_fail(-EBADMSG, err, errlen, "%s: format version missing" IDX_CORRUPT,
			       CS_INDEX_NAME);
	if (pi->format_major != CS_FORMAT_MAJOR)
		return cs_fail(pi->format_major > CS_FORMAT_MAJOR ? -EPROTONOSUPPORT : -EBADMSG, err, errlen,
			       "%s: format is %u.%u; this plugin supports format %d.x%s", CS_INDEX_NAME,
			       pi->format_major, pi->format_minor, CS_FORMAT_MAJOR,
			       pi->format_major > CS_FORMAT_MAJOR ? ": upgrade the plugin" : IDX_CORRUPT);
	if (!pi->has_dump_id || pi->dump_id.len != CS_DUMP_ID_BYTES)
		return cs_fail(-EBADMSG, err, errlen, "%s: dump_id is %s, must be %d bytes" IDX_CORRUPT,
			       CS_INDEX_NAME, pi->has_dump_id ? "of another size" : "missing",
			       CS_DUMP_ID_BYTES);
	if (pi->n_ns_pids > CS_INDEX_MAX_PIDS)
		return cs_fail(-EBADMSG, err, errlen, "%s: lists %zu processes, limit is %d" IDX_CORRUPT,
			       CS_INDEX_NAME, pi->n_ns_pids, CS_INDEX_MAX_PIDS);
	for (size_t i = 0; i < pi->n_ns_pids; i++) {
		if (pi->ns_pids[i] <= 0)
			return cs_fail(-EBADMSG, err, errlen,
				       "%s: ns_pids[%zu] is %d, must be > 0" IDX_CORRUPT, CS_INDEX_NAME, i,
				       pi->ns_pids[i]);
		for (size_t j = 0; j < i; j++)
			if (pi->ns_pids[j] == pi->ns_pids[i])
				return cs_fail(-EBADMSG, err, errlen,
					       "%s: ns pid %d is listed twice" IDX_CORRUPT, CS_INDEX_NAME,
					       pi->ns_pids[i]);
	}
	return 0;
}

int cs_index_decode(const void *buf, size_t len, struct cs_index *x, char *err, size_t errlen)
{
	size_t plen = 0;
	CsIndex *pi;
	int ret;

	memset(x, 0, sizeof(*x));
	ret = frame_check(buf, len, &plen, err, errlen);
	if (ret)
		return ret;
	pi = cs_index__unpack(NULL, plen, (const uint8_t *)buf + IDX_HDR);
	if (!pi)
		return cs_fail(-EBADMSG, err, errlen,
			       "%s: payload is not a valid CsIndex message" IDX_CORRUPT, CS_INDEX_NAME);
	ret = check(pi, err, errlen);
	if (!ret) {
		memcpy(x->dump_id, pi->dump_id.data, sizeof(x->dump_id));
		x->n = (unsigned)pi->n_ns_pids;
		memcpy(x->ns_pid, pi->ns_pids, pi->n_ns_pids * sizeof(*x->ns_pid));
	}
	cs_index__free_unpacked(pi, NULL);
	return ret;
}

int cs_index_write(int dirfd, const struct cs_index *x)
{
	size_t len;
	void *buf;
	int ret;

	ret = cs_index_encode(x, &buf, &len);
	if (ret)
		return ret;
	ret = cs_imgdir_write_atomic(dirfd, CS_INDEX_NAME, buf, len);
	free(buf);
	return ret;
}

int cs_index_read(int dirfd, struct cs_index *x, char *err, size_t errlen)
{
	size_t len;
	void *buf;
	int ret;

	memset(x, 0, sizeof(*x));
	ret = cs_imgdir_read_all(dirfd, CS_INDEX_NAME, IDX_HDR + CS_INDEX_MAX_BYTES, &buf, &len);
	if (ret == -ENOENT)
		return ret;
	if (ret)
		return cs_fail(ret, err, errlen, "cannot read %s: %s", CS_INDEX_NAME, strerror(-ret));
	ret = cs_index_decode(buf, len, x, err, errlen);
	free(buf);
	return ret;
}

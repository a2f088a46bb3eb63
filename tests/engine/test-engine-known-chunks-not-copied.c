// SPDX-License-Identifier: MIT
/*
 * test-engine-known-chunks-not-copied: a chunked dump given chunk ids known before the copy
 * (cs_engine_region.known, hashed on the GPU) records a parent's chunk and an all-zero chunk
 * without a device-to-host copy, links the parent's chunk and takes its XXH3 as given; a chunk
 * marked known that the parent does not have after all is copied and written as usual.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "chunkstore.h"
#include "engine-test.h"

#define C    CS_DEDUP_CHUNK
#define N    4 /* chunks: parent's, known but missing, zero, new (short) */
#define SIZE (3ull * C + 12345)

static struct cs_cuda_ops ops;
static struct et_dir d;

static size_t len_of(unsigned i)
{
	return i == N - 1 ? (size_t)(SIZE - 3ull * C) : C;
}

static int links_of(int cfd, const uint8_t *id)
{
	char rel[CS_CHUNK_REL];
	struct stat st;

	cs_chunk_rel(id, rel);
	return fstatat(cfd, rel, &st, AT_SYMLINK_NOFOLLOW) ? -1 : (int)st.st_nlink;
}

int main(void)
{
	uint8_t ids[N][CS_CHUNK_ID_LEN], known[N] = { 2, 2, 1, 0 };
	uint64_t pre_hash[N] = { 0 }, want[N];
	struct cs_chunk_sink sink = { .store = -1, .stmp = -1 };
	struct cs_engine_region r;
	struct cs_engine_opts o;
	struct fake_stats st;
	char err[512] = "";
	CUdeviceptr src;
	uint8_t *host;
	int pfd, ret;
	unsigned i;

	tap_plan(9);
	if (et_dir_make(&d, NULL, NULL))
		tap_bail("cannot make a scratch directory");
	fake_cuda_init(&ops);
	src = et_dev(fake_ctx(0), SIZE, ET_DENSE, C, 11);
	host = fake_host(src);
	memset(host + 2ull * C, 0, C); /* chunk 2 all zero */
	for (i = 0; i < N; i++) {
		if (cs_chunk_id(host + (uint64_t)i * C, len_of(i), ids[i]))
			tap_bail("cannot compute chunk ids");
		want[i] = XXH3_64bits(host + (uint64_t)i * C, len_of(i));
	}
	pre_hash[0] = want[0];
	pre_hash[1] = 0x5a5a; /* never used: the chunk is copied */
	if (mkdirat(d.fd, "parent", 0700) || (pfd = openat(d.fd, "parent", O_RDONLY | O_DIRECTORY)) < 0)
		tap_bail("cannot make the parent directory");
	sink.parent = cs_chunks_dir_open(pfd, true);
	sink.img = cs_chunks_dir_open(d.fd, true);
	if (sink.parent < 0 || sink.img < 0 ||
	    cs_chunk_write(sink.parent, sink.parent, ids[0], host, C, NULL))
		tap_bail("cannot make the chunk directories");

	cs_engine_opts_default(&o);
	et_region(&r, src, SIZE, fake_ctx(0), d.fd, "known.ext");
	r.sink = &sink;
	r.known = known;
	r.pre_ids = &ids[0][0];
	r.pre_hash = pre_hash;
	ret = cs_engine_dump(&ops, &r, 1, &o, err, sizeof(err));
	tap_ok(ret == 0, "dump returns 0 (%d: %s)", ret, err);
	fake_get_stats(&st);
	tap_ok(st.calls[FAKE_DTOH] == 2, "2 device-to-host copies for 4 chunks (%lu)", st.calls[FAKE_DTOH]);
	tap_ok(r.skipped_bytes == 2ull * C, "skipped_bytes is the parent's chunk and the zero one (%llu)",
	       (unsigned long long)r.skipped_bytes);
	tap_ok(r.zero[2] && !r.zero[0] && !r.zero[1] && !r.zero[3], "only chunk 2 is flagged zero");
	tap_ok(!memcmp(r.ids, ids[0], CS_CHUNK_ID_LEN) &&
		   !memcmp(r.ids + CS_CHUNK_ID_LEN, ids[1], CS_CHUNK_ID_LEN) &&
		   !memcmp(r.ids + 3 * CS_CHUNK_ID_LEN, ids[3], CS_CHUNK_ID_LEN),
	       "ids of the linked, the copied and the new chunk are theirs");
	tap_ok(r.hash[0] == want[0] && r.hash[1] == want[1] && r.hash[3] == want[3],
	       "XXH3 values are the chunks' (the linked one as given, the copied ones computed)");
	tap_ok(links_of(sink.parent, ids[0]) == 2 && links_of(sink.img, ids[0]) == 2,
	       "the parent's chunk is hard-linked, not written");
	tap_ok(links_of(sink.img, ids[1]) == 1 && links_of(sink.img, ids[3]) == 1,
	       "the chunk the parent lacks and the new one are written");
	tap_ok(r.new_bytes == C + len_of(3), "new_bytes counts the written chunks (%llu)",
	       (unsigned long long)r.new_bytes);

	cs_engine_region_free_meta(&r);
	fake_dev_free(src);
	close(sink.parent);
	close(sink.img);
	cs_chunks_dir_clear(d.fd, NULL);
	cs_chunks_dir_clear(pfd, NULL);
	close(pfd);
	unlinkat(d.fd, "parent", AT_REMOVEDIR);
	et_dir_remove(&d);
	return tap_done();
}

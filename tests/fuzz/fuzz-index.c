// SPDX-License-Identifier: MIT
/*
 * fuzz-index.c - one input through the index decoder (imgindex.h), as a restore and cudastore
 * verify meet cudastore-index.img.
 *
 * Per input: cs_index_decode() of the bytes as they are, then of their payload (the bytes after a
 * "CSIX" header, or all of them) in a correct frame, so that mutations reach protobuf-c and the
 * field checks, and the same through a file (cs_index_file_read): memory and file must agree. An
 * index that decodes keeps its limits (at most CS_MAX_PROCS pids, each > 0, none twice) and
 * encodes to an index that decodes to the same; a refusal always says why.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "fuzz.h"
#include "imgindex.h"

#define FRAME_HDR 16u

const char cs_fuzz_name[] = "index";
static char work[64];
static int work_fd = -1;

void cs_fuzz_cleanup(void)
{
	if (!work[0])
		return;
	unlinkat(work_fd, CS_INDEX_NAME, 0);
	close(work_fd);
	rmdir(work);
	work_fd = -1;
	work[0] = '\0';
}

static void work_setup(void)
{
	if (work_fd >= 0)
		return;
	cs_fuzz_mkdtemp(work, sizeof(work));
	atexit(cs_fuzz_cleanup);
	work_fd = open(work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (work_fd < 0)
		cs_fuzz_fail("cannot open the work directory", work);
}

static uint8_t *reframe(const uint8_t *data, size_t size, size_t *len)
{
	const uint8_t *pl = data;
	size_t plen = size;
	uint64_t h;
	uint32_t l;
	uint8_t *buf;

	if (size >= FRAME_HDR && !memcmp(data, "CSIX", 4)) {
		pl = data + FRAME_HDR;
		plen = size - FRAME_HDR;
	}
	buf = malloc(FRAME_HDR + plen + 1);
	if (!buf)
		cs_fuzz_fail("out of memory", NULL);
	l = (uint32_t)plen;
	h = XXH3_64bits(pl, plen);
	memcpy(buf, "CSIX", 4);
	for (int i = 0; i < 4; i++)
		buf[4 + i] = (uint8_t)(l >> (8 * i));
	for (int i = 0; i < 8; i++)
		buf[8 + i] = (uint8_t)(h >> (8 * i));
	if (plen)
		memcpy(buf + FRAME_HDR, pl, plen);
	*len = FRAME_HDR + plen;
	return buf;
}

static void check_result(int ret, const struct cs_index *x, const char *err, const char *how)
{
	if (ret > 0 || ret < -4095)
		cs_fuzz_fail("decode returned neither 0 nor -errno", how);
	if (ret) {
		if (!err[0])
			cs_fuzz_fail("a refusal without a reason", how);
		return;
	}
	if (x->n > CS_MAX_PROCS)
		cs_fuzz_fail("a decoded index lists too many pids", how);
	for (unsigned i = 0; i < x->n; i++) {
		if (x->ns_pid[i] <= 0)
			cs_fuzz_fail("a decoded index lists a pid <= 0", how);
		for (unsigned j = 0; j < i; j++)
			if (x->ns_pid[i] == x->ns_pid[j])
				cs_fuzz_fail("a decoded index lists a pid twice", how);
	}
}

static void check_reencode(const struct cs_index *x)
{
	struct cs_index again;
	char err[512] = "";
	size_t len;
	void *buf;

	if (cs_index_encode(x, &buf, &len))
		cs_fuzz_fail("a decoded index cannot be encoded again", NULL);
	if (cs_index_decode(buf, len, &again, err, sizeof(err)))
		cs_fuzz_fail("a re-encoded index is refused", err);
	if (memcmp(x, &again, sizeof(again)))
		cs_fuzz_fail("a re-encoded index decodes to something else", NULL);
	free(buf);
}

static void write_file(const uint8_t *buf, size_t len)
{
	int fd = openat(work_fd, CS_INDEX_NAME, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		cs_fuzz_fail("cannot write the index file", work);
	close(fd);
}

int cs_fuzz_one(const uint8_t *data, size_t size)
{
	struct cs_index_file *f = calloc(1, sizeof(*f));
	struct cs_index *x = calloc(1, sizeof(*x));
	char err[512] = "";
	uint8_t *buf;
	size_t len;
	int ret;

	if (!f || !x)
		cs_fuzz_fail("out of memory", NULL);
	work_setup();
	ret = cs_index_decode(data, size, x, err, sizeof(err));
	check_result(ret, x, err, "as given");
	if (!ret)
		check_reencode(x);
	buf = reframe(data, size, &len);
	err[0] = '\0';
	ret = cs_index_decode(buf, len, x, err, sizeof(err));
	check_result(ret, x, err, "reframed");
	if (!ret)
		check_reencode(x);
	write_file(buf, len);
	cs_index_file_read(work_fd, f);
	if (f->err != ret || (!ret && memcmp(&f->x, x, sizeof(*x))))
		cs_fuzz_fail("the file and the memory decode disagree", f->why);
	free(buf);
	free(f);
	free(x);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return cs_fuzz_one(data, size);
}

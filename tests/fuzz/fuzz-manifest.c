// SPDX-License-Identifier: MIT
/*
 * fuzz-manifest.c - one input through the manifest decoder and the extent checks, as a restore
 * meets an images directory (plugin/images/manifest.h). The entry point, LLVMFuzzerTestOneInput,
 * is built by clang with libFuzzer (tests/fuzz/test-fuzz-manifest.sh) and by the normal compiler
 * into fuzz-replay, which runs the seed corpus and every kept crash in every build.
 *
 * Per input:
 *  1. cs_manifest_decode() of the bytes as they are (the frame checks);
 *  2. the payload (the bytes after a "CSMF" header, or all of them) in a correct frame, so that
 *     every mutation reaches protobuf-c and the field checks behind the checksum; decoded from
 *     memory and, through cs_manifest_read(), from a file: both must agree;
 *  3. for a manifest that decodes: encoding it again gives one that decodes to the same thing
 *     (but for the format version, which the encoder stamps as its own),
 *     and cs_manifest_check_extents() over a directory where each extent is, chosen by the
 *     input's hash, right, missing, a symlink, a directory, a FIFO or one byte too long returns
 *     exactly the error of the first bad one.
 * A broken property abort()s, which libFuzzer and the replay driver report as a crash.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "manifest.h"
#include "fuzz.h"
#include "fuzz-manifest.h"

#define FRAME_HDR 16u

enum ext_kind { EXT_OK, EXT_MISSING, EXT_SYMLINK, EXT_DIR, EXT_FIFO, EXT_LONG, EXT_KINDS };

static char work[64]; /* <tmp>/cs-fuzz.XXXXXX: the manifest file; ext/ holds the extents */
static int work_fd = -1, ext_fd = -1;

void cs_fuzz_manifest_cleanup(void)
{
	char cmd[128];

	if (!work[0])
		return;
	if (ext_fd >= 0)
		close(ext_fd);
	if (work_fd >= 0)
		close(work_fd);
	ext_fd = work_fd = -1;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz-manifest: could not remove %s\n", work);
	work[0] = '\0';
}

static void work_setup(void)
{
	if (work_fd >= 0)
		return;
	cs_fuzz_mkdtemp(work, sizeof(work));
	atexit(cs_fuzz_manifest_cleanup);
	work_fd = open(work, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (work_fd < 0 || mkdirat(work_fd, "ext", 0700) < 0)
		cs_fuzz_fail("cannot set up the work directory", work);
	ext_fd = openat(work_fd, "ext", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (ext_fd < 0)
		cs_fuzz_fail("cannot open the extents directory", work);
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* the payload of data in a correct frame (malloc'ed, *len bytes) */
static uint8_t *reframe(const uint8_t *data, size_t size, size_t *len)
{
	const uint8_t *pl = data;
	size_t plen = size;
	uint8_t *buf;

	if (size >= FRAME_HDR && !memcmp(data, "CSMF", 4)) {
		pl = data + FRAME_HDR;
		plen = size - FRAME_HDR;
	}
	buf = malloc(FRAME_HDR + plen + 1);
	if (!buf)
		cs_fuzz_fail("out of memory", NULL);
	memcpy(buf, "CSMF", 4);
	put_le(buf + 4, plen, 4);
	put_le(buf + 8, XXH3_64bits(pl, plen), 8);
	if (plen)
		memcpy(buf + FRAME_HDR, pl, plen);
	*len = FRAME_HDR + plen;
	return buf;
}

/* the contract of every decode: 0 with a sane manifest, or -errno with a reason and nothing held */
static void check_result(int ret, const struct cs_manifest *m, const char *err, const char *how)
{
	if (ret > 0 || ret < -4095)
		cs_fuzz_fail("decode returned neither 0 nor -errno", how);
	if (ret) {
		if (!err[0])
			cs_fuzz_fail("a refusal without a reason", how);
		for (unsigned i = 0; i < CS_MAX_DEVICES; i++)
			if (m->dev[i].hash || m->dev[i].zero)
				cs_fuzz_fail("a refused manifest still holds chunk tables", how);
		return;
	}
	if (m->ndev > CS_MAX_DEVICES || (m->mode != CS_MODE_CUSTOM && m->mode != CS_MODE_DRIVER))
		cs_fuzz_fail("a decoded manifest breaks its limits", how);
	for (unsigned i = 0; i < m->ndev; i++) {
		const struct cs_manifest_dev *d = &m->dev[i];

		if (!cs_name_is_safe(d->extent) || !d->size || d->size > CS_MAX_DEVICE_BYTES ||
		    !d->chunk_size || d->nchunks != (d->size + d->chunk_size - 1) / d->chunk_size ||
		    !d->hash || !d->zero)
			cs_fuzz_fail("a decoded device breaks its limits", how);
	}
}

#define DIFF(field) \
	if (a->field != b->field) \
		return #field
/* the first field in which a and b differ, NULL if none */
static const char *dev_diff(const struct cs_manifest_dev *a, const struct cs_manifest_dev *b)
{
	if (memcmp(&a->uuid, &b->uuid, sizeof(a->uuid)))
		return "uuid";
	DIFF(ordinal);
	DIFF(size);
	DIFF(chunk_size);
	DIFF(nchunks);
	DIFF(stored_bytes);
	if (strcmp(a->extent, b->extent))
		return "extent";
	if (memcmp(a->hash, b->hash, a->nchunks * sizeof(*a->hash)))
		return "hash";
	if (memcmp(a->zero, b->zero, a->nchunks * sizeof(*a->zero)))
		return "zero";
	return NULL;
}

static const char *diff(const struct cs_manifest *a, const struct cs_manifest *b)
{
	static char what[64];

	DIFF(format_major);
	DIFF(format_minor);
	DIFF(mode);
	DIFF(pid);
	DIFF(ns_pid);
	DIFF(driver_version);
	DIFF(created_unix_ns);
	DIFF(ndev);
	DIFF(total_bytes);
	DIFF(stored_bytes);
	if (strcmp(a->plugin_version, b->plugin_version))
		return "plugin_version";
	for (unsigned i = 0; i < a->ndev; i++) {
		const char *d = dev_diff(&a->dev[i], &b->dev[i]);

		if (d) {
			snprintf(what, sizeof(what), "dev[%u].%s", i, d);
			return what;
		}
	}
	return NULL;
}
#undef DIFF

static void check_reencode(const struct cs_manifest *m)
{
	struct cs_manifest *again = calloc(1, sizeof(*again));
	char err[512];
	size_t len;
	void *buf;
	int ret;

	if (!again)
		cs_fuzz_fail("out of memory", NULL);
	ret = cs_manifest_encode(m, &buf, &len);
	if (ret)
		cs_fuzz_fail("a decoded manifest cannot be encoded again", strerror(-ret));
	ret = cs_manifest_decode(buf, len, again, err, sizeof(err));
	if (ret)
		cs_fuzz_fail("a re-encoded manifest is refused", err);
	/* the encoder stamps the format it writes; a newer minor it read becomes its own */
	if (again->format_major != CS_FORMAT_MAJOR || again->format_minor != CS_FORMAT_MINOR)
		cs_fuzz_fail("the encoder did not write its own format version", NULL);
	again->format_minor = m->format_minor;
	if (diff(m, again))
		cs_fuzz_fail("a re-encoded manifest decodes to something else", diff(m, again));
	cs_manifest_free(again);
	free(again);
	free(buf);
}

/* make extent d as kind says; returns the error check_extents must give for it, 1 if unknown */
static int plant_extent(const struct cs_manifest_dev *d, enum ext_kind kind)
{
	int fd;

	switch (kind) {
	case EXT_MISSING:
		return -ENOENT;
	case EXT_SYMLINK:
		return symlinkat("/dev/null", ext_fd, d->extent) ? 1 : -ELOOP;
	case EXT_DIR:
		return mkdirat(ext_fd, d->extent, 0700) ? 1 : -EINVAL;
	case EXT_FIFO:
		return mkfifoat(ext_fd, d->extent, 0600) ? 1 : -EINVAL;
	default:
		break;
	}
	fd = openat(ext_fd, d->extent, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return 1;
	/* sparse: a 4 TiB extent costs nothing */
	if (ftruncate(fd, (off_t)(d->size + (kind == EXT_LONG))) < 0) {
		close(fd);
		return 1;
	}
	close(fd);
	return kind == EXT_LONG ? -EBADMSG : 0;
}

static void check_extents(const struct cs_manifest *m, uint64_t choice)
{
	int want = 0, ret;
	char err[512];

	for (unsigned i = 0; i < m->ndev; i++) {
		enum ext_kind kind = choice % 4 ? EXT_OK : (enum ext_kind)(1 + (choice >> 2) % (EXT_KINDS - 1));
		int r = plant_extent(&m->dev[i], kind);

		choice = choice * 6364136223846793005ull + 1442695040888963407ull;
		if (!want)
			want = r;
	}
	ret = cs_manifest_check_extents(ext_fd, m, err, sizeof(err));
	if (want != 1 && ret != want) {
		snprintf(err + strlen(err), sizeof(err) - strlen(err), " (returned %d, expected %d)", ret, want);
		cs_fuzz_fail("cs_manifest_check_extents gave the wrong verdict", err);
	}
	if (ret && !err[0])
		cs_fuzz_fail("cs_manifest_check_extents refused without a reason", NULL);
	for (unsigned i = 0; i < m->ndev; i++)
		if (unlinkat(ext_fd, m->dev[i].extent, 0) && errno == EISDIR)
			unlinkat(ext_fd, m->dev[i].extent, AT_REMOVEDIR);
}

static int write_file(const char *name, const void *buf, size_t len)
{
	int fd = openat(work_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, buf, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

int cs_fuzz_manifest_one(const uint8_t *data, size_t size)
{
	struct cs_manifest *m = calloc(2, sizeof(*m)), *f = m + 1;
	char err[512], ferr[512];
	int ret, fret;
	size_t len;
	uint8_t *buf;

	if (!m)
		cs_fuzz_fail("out of memory", NULL);
	work_setup();
	ret = cs_manifest_decode(data, size, m, err, sizeof(err));
	check_result(ret, m, err, "as given");
	if (!ret)
		check_reencode(m);
	cs_manifest_free(m);

	buf = reframe(data, size, &len);
	ret = cs_manifest_decode(buf, len, m, err, sizeof(err));
	check_result(ret, m, err, "reframed");
	if (write_file("cudastore-1.img", buf, len))
		cs_fuzz_fail("cannot write the manifest file", work);
	fret = cs_manifest_read(work_fd, "cudastore-1.img", f, ferr, sizeof(ferr));
	check_result(fret, f, ferr, "read from a file");
	if (fret != ret || (!ret && diff(m, f))) {
		snprintf(ferr + strlen(ferr), sizeof(ferr) - strlen(ferr), " (file %d, memory %d)", fret, ret);
		cs_fuzz_fail("cs_manifest_read and cs_manifest_decode disagree", ferr);
	}
	if (!ret) {
		check_reencode(m);
		check_extents(m, XXH3_64bits(buf, len));
	}
	cs_manifest_free(m);
	cs_manifest_free(f);
	free(m);
	free(buf);
	return 0;
}

const char cs_fuzz_name[] = "manifest";

int cs_fuzz_one(const uint8_t *data, size_t size)
{
	return cs_fuzz_manifest_one(data, size);
}

void cs_fuzz_cleanup(void)
{
	cs_fuzz_manifest_cleanup();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return cs_fuzz_manifest_one(data, size);
}

// SPDX-License-Identifier: MIT
/* test-manifest-roundtrip - a multi-device manifest written and read back is equal field by field. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "unit.h"
#include "engine.h"

static void roundtrip_memory(unsigned ndev)
{
	struct cs_manifest *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char why[256] = "", err[512] = "";
	size_t len;
	void *buf;
	int ret;

	unit_sample(a, ndev);
	ret = cs_manifest_encode(a, &buf, &len);
	tap_ok(ret == 0, "encode %u devices: %d", ndev, ret);
	ret = ret ? ret : cs_manifest_decode(buf, len, b, err, sizeof(err));
	tap_ok(ret == 0, "decode %u devices: %d %s", ndev, ret, err);
	tap_ok(!ret && unit_manifest_equal(a, b, why, sizeof(why)), "in memory, %u devices: equal %s", ndev,
	       why);
	tap_ok(!ret && unit_manifest_invariants(b, why, sizeof(why)),
	       "decoded manifest keeps its invariants %s", why);
	if (!ret)
		free(buf);
	cs_manifest_free(a);
	cs_manifest_free(b);
	free(a);
	free(b);
}

/* format 1.2: a device striped over 3 files keeps its file names and count */
static void roundtrip_stripes(void)
{
	struct cs_manifest *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char why[256] = "", err[512] = "";
	size_t len;
	void *buf = NULL;
	int ret;

	unit_sample(a, 2);
	a->dev[0].nstripes = 3;
	for (unsigned k = 0; k < 3; k++)
		cs_name_stripe(a->dev[0].stripe[k], a->dev[0].extent, k);
	ret = cs_manifest_encode(a, &buf, &len);
	ret = ret ? ret : cs_manifest_decode(buf, len, b, err, sizeof(err));
	tap_ok(!ret && unit_manifest_equal(a, b, why, sizeof(why)) &&
		   unit_manifest_invariants(b, why, sizeof(why)),
	       "striped device: decoded equal, invariants kept (%d %s %s)", ret, err, why);
	tap_ok(!ret && b->format_minor == CS_FORMAT_MINOR && b->format_minor >= 2 &&
		   b->dev[0].nstripes == 3 && b->dev[1].nstripes == 1 &&
		   !strcmp(b->dev[0].stripe[2], "cudastore-4242-gpu0.s2.ext") &&
		   !strcmp(b->dev[1].stripe[0], b->dev[1].extent),
	       "format 1.2 (and later) written; 3 files (%s) and 1 file (%s)", b->dev[0].stripe[2],
	       b->dev[1].stripe[0]);
	free(buf);
	cs_manifest_free(a);
	cs_manifest_free(b);
	free(a);
	free(b);
}

static void roundtrip_file(int dirfd)
{
	struct cs_manifest *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char name[CS_NAME_MAX], why[256] = "", err[512] = "";
	struct stat st;
	int ret;

	unit_sample(a, 4);
	cs_name_manifest(name, a->ns_pid);
	tap_ok(!strcmp(name, "cudastore-4242.img"), "manifest name is %s", name);
	ret = cs_manifest_write(dirfd, name, a, err, sizeof(err));
	tap_ok(ret == 0, "cs_manifest_write %s: %d %s", name, ret, err);
	memset(&st, 0, sizeof(st));
	ret = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
	tap_ok(ret == 0 && (st.st_mode & 07777) == 0600, "manifest file mode is 0600 (found %o)",
	       st.st_mode & 07777);
	ret = cs_manifest_read(dirfd, name, b, err, sizeof(err));
	tap_ok(ret == 0, "cs_manifest_read: %d %s", ret, err);
	tap_ok(!ret && unit_manifest_equal(a, b, why, sizeof(why)), "through the file: all fields equal %s",
	       why);
	tap_ok(b->dev[3].stored_bytes == 0 && b->dev[1].stored_bytes == b->dev[1].size,
	       "all-zero and no-zero devices keep their stored_bytes");

	/* rewrite over the existing file (atomic replace), then read again */
	a->created_unix_ns++;
	cs_manifest_free(b);
	ret = cs_manifest_write(dirfd, name, a, err, sizeof(err));
	tap_ok(ret == 0 && cs_manifest_read(dirfd, name, b, err, sizeof(err)) == 0 &&
		   b->created_unix_ns == a->created_unix_ns,
	       "rewriting replaces the manifest");
	tap_ok(faccessat(dirfd, "cudastore-4242.img.tmp", F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT,
	       "no temporary file is left behind");
	cs_manifest_free(a);
	cs_manifest_free(b);
	free(a);
	free(b);
}

static void roundtrip_driver_mode(int dirfd)
{
	struct cs_manifest *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char why[256] = "", err[512] = "";
	int ret;

	unit_sample(a, 0);
	a->mode = CS_MODE_DRIVER;
	ret = cs_manifest_write(dirfd, "cudastore-7.img", a, err, sizeof(err));
	tap_ok(ret == 0, "driver-mode manifest with no devices is written: %d", ret);
	ret = cs_manifest_read(dirfd, "cudastore-7.img", b, err, sizeof(err));
	tap_ok(ret == 0 && unit_manifest_equal(a, b, why, sizeof(why)), "driver-mode round trip: %d %s %s",
	       ret, err, why);
	free(a);
	free(b);
}

/* The writer refuses what the reader would refuse (here: a duplicate UUID). */
static void write_refuses_invalid(int dirfd)
{
	struct cs_manifest *a = calloc(1, sizeof(*a));
	char err[512] = "";

	unit_sample(a, 2);
	memcpy(a->dev[1].uuid.bytes, a->dev[0].uuid.bytes, 16);
	tap_ok(cs_manifest_write(dirfd, "cudastore-9.img", a, err, sizeof(err)) == -EINVAL &&
		   strstr(err, "refusing to write manifest cudastore-9.img that restore would reject: "),
	       "write refuses an invalid manifest, saying why: %s", err);
	tap_ok(faccessat(dirfd, "cudastore-9.img", F_OK, AT_SYMLINK_NOFOLLOW) < 0, "and leaves no file");
	cs_manifest_free(a);
	free(a);
}

int main(void)
{
	char path[4096];
	int dirfd;

	tap_plan(4 * 4 + 8 + 2 + 2 + 2);
	roundtrip_stripes();
	for (unsigned n = 1; n <= 4; n++)
		roundtrip_memory(n);
	dirfd = unit_tmpdir(path, sizeof(path));
	roundtrip_file(dirfd);
	roundtrip_driver_mode(dirfd);
	write_refuses_invalid(dirfd);
	close(dirfd);
	unit_rmtree(path);
	return tap_done();
}

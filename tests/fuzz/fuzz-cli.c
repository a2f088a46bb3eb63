// SPDX-License-Identifier: MIT
/*
 * fuzz-cli.c - one input as an images directory, through cudastore inspect and verify in this
 * process (the cli directory's code), as an operator runs them on images from anywhere.
 *
 * The input is cut at each "@@F@" into up to six files: cudastore-1.img (the manifest),
 * cudastore-index.img, cudastore-1-gpu0.ext, cudastore-1.json (the summary),
 * cudastore-1-gpu1.ext and CRIU's inventory.img; a missing part, or one that is just "-", is no
 * file. A manifest or index
 * part that starts with its magic gets a correct frame (length and XXH3-64), so that mutations
 * reach the fields behind the checksum. Then `inspect DIR`, `verify DIR` and `inspect --json DIR`
 * run with stdout and stderr in files. Properties: the exit status is 0, 1 or 2; the text output
 * holds no control character but the newline ending each line, nor any byte above 0x7e (text
 * from an image is printed escaped); the JSON output is one valid JSON object.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "../../cli/cli.h"
#include "log.h"
#include "fuzz.h"

#define SEP	  "@@F@"
#define NPARTS	  6
#define FRAME_HDR 16u

const char cs_fuzz_name[] = "cli";
static const char *const part_name[NPARTS] = { "cudastore-1.img",      "cudastore-index.img",
					       "cudastore-1-gpu0.ext", "cudastore-1.json",
					       "cudastore-1-gpu1.ext", "inventory.img" };
static char work[64], dir[96], out[96], errf[96], conf[96];

static void clear_dir(void)
{
	char p[160];

	for (unsigned i = 0; i < NPARTS; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, part_name[i]);
		unlink(p);
	}
}

void cs_fuzz_cleanup(void)
{
	if (!work[0])
		return;
	clear_dir();
	rmdir(dir);
	unlink(out);
	unlink(errf);
	unlink(conf);
	rmdir(work);
	work[0] = '\0';
}

static void setup(void)
{
	if (work[0])
		return;
	cs_fuzz_mkdtemp(work, sizeof(work));
	atexit(cs_fuzz_cleanup);
	snprintf(dir, sizeof(dir), "%s/img", work);
	snprintf(out, sizeof(out), "%s/out", work);
	snprintf(errf, sizeof(errf), "%s/err", work);
	snprintf(conf, sizeof(conf), "%s/cudastore.conf", work);
	if (mkdir(dir, 0700) || close(open(conf, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)))
		cs_fuzz_fail("cannot set up the work directory", work);
	setenv("CUDASTORE_CONFIG", conf, 1); /* the defaults: nothing in /etc decides */
	cs_log_set_sink(cli_log_sink);	     /* as cudastore's main does: module lines only with -v */
}

/* one part as a file; a "CSMF"/"CSIX" part framed anew */
static void write_part(unsigned i, const uint8_t *p, size_t n)
{
	uint8_t hdr[FRAME_HDR];
	char path[160];
	int fd;

	if (n == 1 && p[0] == '-')
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, part_name[i]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		cs_fuzz_fail("cannot write a part", path);
	if (i <= 1 && n >= FRAME_HDR && !memcmp(p, i ? "CSIX" : "CSMF", 4)) {
		uint32_t l = (uint32_t)(n - FRAME_HDR);
		uint64_t h = XXH3_64bits(p + FRAME_HDR, n - FRAME_HDR);

		memcpy(hdr, p, 4);
		for (int k = 0; k < 4; k++)
			hdr[4 + k] = (uint8_t)(l >> (8 * k));
		for (int k = 0; k < 8; k++)
			hdr[8 + k] = (uint8_t)(h >> (8 * k));
		if (write(fd, hdr, FRAME_HDR) != FRAME_HDR)
			cs_fuzz_fail("short write", path);
		p += FRAME_HDR;
		n -= FRAME_HDR;
	}
	if (n && write(fd, p, n) != (ssize_t)n)
		cs_fuzz_fail("short write", path);
	close(fd);
}

static void make_dir(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;

	clear_dir();
	for (unsigned i = 0; i < NPARTS && p <= end; i++) {
		const uint8_t *s = memmem(p, (size_t)(end - p), SEP, 4);
		size_t n = s ? (size_t)(s - p) : (size_t)(end - p);

		if (!(i && !n && !s))
			write_part(i, p, n);
		if (!s)
			break;
		p = s + 4;
	}
}

/* run `cudastore ARGS` in this process, stdout into out, stderr into errf; its exit status */
static int run(int (*cmd)(int, char **), bool json, const char *sub)
{
	char *argv[4] = { (char *)sub, json ? (char *)"--json" : dir, json ? dir : NULL, NULL };
	int fd, fd2, saved1, saved2, rc;

	fflush(stdout);
	fflush(stderr);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	fd2 = open(errf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	saved1 = dup(1);
	saved2 = dup(2);
	if (fd < 0 || fd2 < 0 || saved1 < 0 || saved2 < 0 || dup2(fd, 1) < 0 || dup2(fd2, 2) < 0)
		cs_fuzz_fail("cannot redirect the output", out);
	close(fd);
	close(fd2);
	cli_json = json;
	cli_forget_output(); /* each command as in a process of its own */
	optind = 0; /* getopt_long starts over for every command */
	rc = cmd(json ? 3 : 2, argv);
	if (json) /* as cudastore's main does: an error the command only said on stderr */
		cli_json_error_if_silent(sub, rc);
	fflush(stdout);
	fflush(stderr);
	dup2(saved1, 1);
	dup2(saved2, 2);
	close(saved1);
	close(saved2);
	cli_json = false;
	if (rc != CLI_OK && rc != CLI_FAIL && rc != CLI_USAGE)
		cs_fuzz_fail("an exit status that is not 0, 1 or 2", sub);
	return rc;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "re");
	char *buf = malloc(1 << 20);

	if (!f || !buf)
		cs_fuzz_fail("cannot read the output", out);
	*n = fread(buf, 1, (1 << 20) - 1, f);
	buf[*n] = '\0';
	fclose(f);
	return buf;
}

static void check_text(const char *path, const char *sub)
{
	size_t n;
	char *buf = slurp(path, &n);

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c != '\n' && (c < 0x20 || c > 0x7e)) {
			fprintf(stderr, "fuzz-cli: byte 0x%02x at %zu of:\n%s\n", c, i, buf);
			cs_fuzz_fail("the text output holds a control character", sub);
		}
	}
	free(buf);
}

static void check_json(void)
{
	size_t n;
	char *buf = slurp(out, &n);
	json_object *o = json_tokener_parse(buf);

	if (!o || !json_object_is_type(o, json_type_object)) {
		fprintf(stderr, "fuzz-cli: output:\n%s\n", buf);
		cs_fuzz_fail("inspect --json printed no JSON object", NULL);
	}
	json_object_put(o);
	free(buf);
}

int cs_fuzz_one(const uint8_t *data, size_t size)
{
	setup();
	make_dir(data, size);
	run(cli_inspect, false, "inspect");
	check_text(out, "inspect");
	check_text(errf, "inspect's messages");
	run(cli_verify, false, "verify");
	check_text(out, "verify");
	check_text(errf, "verify's messages");
	run(cli_inspect, true, "inspect");
	check_json();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return cs_fuzz_one(data, size);
}

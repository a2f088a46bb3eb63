// SPDX-License-Identifier: MIT
/*
 * images.c - which processes an images directory holds: the cudastore-<nspid>.img manifests,
 * the pids the dump's index (cudastore-index.img) lists, or no GPU state at all (CRIU's
 * inventory.img without cudastore files). An archive is unpacked first (archive.c). The index is
 * bound to the CRIU dump of the directory (the run its inventory.img names, inventory.c) as a
 * restore binds it, so an index of another CRIU dump fails every manifest in verify too.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "imgdir.h"
#include "imgindex.h"

bool cli_cannot_read(int err)
{
	return err == -EACCES || err == -EPERM;
}

const char *cli_cannot_read_text(const char *file, int err, char *buf, size_t len)
{
	snprintf(buf, len, "cannot read %s: %s (%s)", file, strerror(-err),
		 err == -EPERM	  ? "EPERM"
		 : err == -EACCES ? "EACCES"
				  : "?");
	return buf;
}

const char *cli_cannot_read_advice(void)
{
	static char buf[160];

	snprintf(buf, sizeof(buf),
		 "run as a user who may read them (root, or their owner: criu writes them 0600; this is "
		 "uid %u)",
		 (unsigned)geteuid());
	return buf;
}

/* DIR as a directory fd, with a message naming it on failure; -errno */
static int cli_open_dir(const char *sub, const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		cli_err(sub, "cannot open the images directory %s: %s%s%s", dir, strerror(e),
			cli_cannot_read(-e) ? "; " : "", cli_cannot_read(-e) ? cli_cannot_read_advice() : "");
		return -e;
	}
	return fd;
}

/* "cudastore-<digits>.img" with the name cs_name_manifest would build for that pid */
static int nspid_of(const char *name)
{
	char want[CS_NAME_MAX];
	char *end;
	long v;

	if (strncmp(name, "cudastore-", 10))
		return -1;
	v = strtol(name + 10, &end, 10);
	if (end == name + 10 || strcmp(end, ".img") || v <= 0 || v > 0x3fffffff)
		return -1;
	cs_name_manifest(want, (int)v);
	return strcmp(want, name) ? -1 : (int)v;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int cli_list_manifests(int dirfd, int **pids, unsigned *n)
{
	struct dirent *de;
	unsigned cap = 0;
	int *v = NULL, fd, pid;
	DIR *d;

	*pids = NULL;
	*n = 0;
	fd = dup(dirfd);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		pid = nspid_of(de->d_name);
		if (pid < 0)
			continue;
		if (*n == cap) {
			int *nv = realloc(v, (cap ? cap * 2 : 16) * sizeof(*v));

			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
			cap = cap ? cap * 2 : 16;
		}
		v[(*n)++] = pid;
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_int);
	*pids = v;
	return 0;
}

/* "10, 12, 15" (at most 16 of them) */
static void pid_list(const int *pids, unsigned n, char *buf, size_t len)
{
	size_t off = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < n && i < 16 && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%d", i ? ", " : "", pids[i]);
	if (n > 16 && off < len)
		snprintf(buf + off, len - off, ", ... (%u in all)", n);
}

static bool has_pid(const int *pids, unsigned n, int pid)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* the pids the index lists whose manifest is missing, added to im->pids (a restore fails them) */
static int add_index_pids(struct cli_images *im, const struct cs_index *x)
{
	unsigned i;
	int *v;

	for (i = 0; i < x->n; i++) {
		if (has_pid(im->pids, im->n, x->ns_pid[i]))
			continue;
		v = realloc(im->pids, (im->n + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		im->pids = v;
		im->pids[im->n++] = x->ns_pid[i];
	}
	if (im->n)
		qsort(im->pids, im->n, sizeof(*im->pids), cmp_int);
	return 0;
}

/* up to two names of cudastore files in dirfd (extents, summaries), for a message; their count */
static unsigned ours_named(int dirfd, char *buf, size_t len)
{
	struct dirent *de;
	unsigned n = 0;
	size_t off = 0;
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	buf[0] = '\0';
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		if (!cs_name_is_ours(de->d_name))
			continue;
		if (n < 2 && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", n ? ", " : "", de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* no manifest: CRIU images without GPU state, cudastore files left without manifest, or nothing */
static int no_manifest(const char *sub, struct cli_images *im, const struct cs_index *x)
{
	char names[600], pids[200];
	unsigned n = ours_named(im->dirfd, names, sizeof(names));

	if (x->n) {
		pid_list(x->ns_pid, x->n, pids, sizeof(pids));
		cli_err(sub,
			"%s: the dump's index (%s) lists pid(s) %s, but their manifests "
			"(cudastore-PID.img) are missing: the images are incomplete and a restore would "
			"fail; dump again or use an intact copy",
			im->shown, CS_INDEX_NAME, pids);
		return CLI_FAIL;
	}
	if (n) {
		cli_err(sub,
			"%s holds cudastore files (%s%s) but no manifest (cudastore-PID.img): it was "
			"deleted or the dump did not finish; the GPU state cannot be restored: dump again "
			"or use an intact copy",
			im->shown, names, n > 2 ? ", ..." : "");
		return CLI_FAIL;
	}
	if (!faccessat(im->dirfd, CLI_INVENTORY, F_OK, AT_SYMLINK_NOFOLLOW)) {
		im->gpu_state = false;
		return CLI_OK;
	}
	cli_err(sub,
		"%s holds no checkpoint images (neither CRIU's %s nor cudastore-PID.img); is it the "
		"directory given to criu dump -D?",
		im->shown, CLI_INVENTORY);
	return CLI_FAIL;
}

/* ONE is not among the pids the images hold: name those */
static int not_held(const char *sub, struct cli_images *im, int one)
{
	char pids[200];

	if (!im->n) {
		cli_err(sub,
			"%s holds no GPU state, so none for pid %d (CRIU images without cudastore files)",
			im->shown, one);
		return CLI_FAIL;
	}
	pid_list(im->pids, im->n, pids, sizeof(pids));
	cli_err(sub,
		"%s holds no cudastore-%d.img: pid %d is not in these images; they hold pid(s) %s "
		"(pids in the process's own pid namespace, as in cudastore-PID.img)",
		im->shown, one, one, pids);
	return CLI_FAIL;
}

/*
 * The index tied to the CRIU dump beside it, as a restore ties it to the run criu read from the
 * same inventory.img (imgset.h). Without a readable inventory nothing is tied: criu restores no
 * such directory, and verify says why (cli_images_unbound, inv_why).
 */
static void bind_index(struct cli_images *im)
{
	im->inv_why[0] = '\0';
	im->inv_err = cli_inventory_run(im->dirfd, im->inv_run, im->inv_why, sizeof(im->inv_why));
	cs_index_file_bind(&im->index, im->inv_err ? NULL : im->inv_run);
}

bool cli_images_inventory_bad(const struct cli_images *im)
{
	return im->gpu_state && im->inv_err && im->inv_err != -ENOENT;
}

/* the index was read and decoded (perhaps of another CRIU dump) */
static bool index_read(const struct cli_images *im)
{
	return !im->index.err || im->index.bound == CS_BOUND_OTHER;
}

const char *cli_images_unbound(const struct cli_images *im)
{
	if (!im->gpu_state || cli_images_inventory_bad(im))
		return NULL; /* nothing to tie; an unreadable inventory is a failure of its own */
	if (im->inv_err == -ENOENT && im->index.bound == CS_BOUND_NO_CRIU_RUN)
		return "there is no CRIU " CLI_INVENTORY " beside them to name their CRIU dump";
	return cs_index_bound_note(&im->index);
}

void cli_file_named(const char *msg, char *file, size_t len)
{
	const char *p = strstr(msg, "cudastore-");
	size_t n = p ? strcspn(p, ",: )") : 0;

	snprintf(file, len, "%.*s", (int)n, p ? p : "");
}

int cli_load_manifest(const struct cli_images *im, int nspid, struct cs_manifest *m, char *err, size_t errlen)
{
	char name[CS_NAME_MAX], file[CS_NAME_MAX];
	int ret = cs_index_load_manifest(im->dirfd, &im->index, nspid, m, err, errlen);

	cs_name_manifest(name, nspid);
	if (ret == -ENOENT)
		snprintf(err, errlen,
			 "%s: missing, though the dump's index (%s) lists pid %d: the images are incomplete",
			 name, CS_INDEX_NAME, nspid);
	if (cli_cannot_read(ret)) { /* the manifest, or an extent its rules open */
		cli_file_named(err, file, sizeof(file));
		cli_cannot_read_text(file[0] ? file : name, ret, err, errlen);
	}
	return ret;
}

void cli_jcriu_dump(json_object *out, const struct cli_images *im)
{
	json_object *o = cli_jobj(out, "criu_dump");
	const char *note = cli_images_unbound(im);

	cli_jstr(o, "criu_run_id", !im->inv_err && im->inv_run[0] ? im->inv_run : NULL);
	cli_jstr(o, "index_criu_run_id",
		 index_read(im) && im->index.x.criu_run[0] ? im->index.x.criu_run : NULL);
	if (im->index.bound == CS_BOUND_SAME || im->index.bound == CS_BOUND_OTHER)
		cli_jbool(o, "same_dump", im->index.bound == CS_BOUND_SAME);
	else
		cli_jnull(o, "same_dump");
	if (note)
		cli_jstr(o, "not_checked", note);
	if (im->index.bound == CS_BOUND_OTHER)
		cli_jstr(o, "error", im->index.why);
	else if (cli_images_inventory_bad(im))
		cli_jstr(o, "error", im->inv_why);
}

/* "DIR/cudastore-index.img: dump ID, CRIU run RUN", "DIR/inventory.img: CRIU run RUN" */
bool cli_text_criu_dump(const struct cli_images *im)
{
	char id[2 * CS_DUMP_ID_BYTES + 1];
	const char *note = cli_images_unbound(im);
	unsigned i;

	if (!im->gpu_state)
		return true;
	for (i = 0; i < CS_DUMP_ID_BYTES; i++)
		snprintf(id + 2 * i, 3, "%02x", im->index.x.dump_id[i]);
	if (index_read(im))
		cli_line("%s/%s: dump %s, CRIU run %s", im->shown, CS_INDEX_NAME, id,
			 im->index.x.criu_run[0] ? im->index.x.criu_run : "not recorded (format 1.0-1.2)");
	else if (im->index.err == -ENOENT)
		cli_line("%s/%s: absent (format 1.0 images)", im->shown, CS_INDEX_NAME);
	else
		cli_line("%s/%s: UNUSABLE: %s", im->shown, CS_INDEX_NAME, im->index.why);
	if (!im->inv_err)
		cli_line("%s/%s: CRIU run %s", im->shown, CLI_INVENTORY,
			 im->inv_run[0] ? im->inv_run : "not recorded");
	else if (im->inv_err == -ENOENT)
		cli_line("%s/%s: absent", im->shown, CLI_INVENTORY);
	else
		cli_line("%s/%s: UNREADABLE: %s", im->shown, CLI_INVENTORY, im->inv_why);
	if (im->index.bound == CS_BOUND_OTHER)
		cli_line("  problem:        %s", im->index.why);
	else if (note)
		cli_line("  not checked:    %s", note);
	return im->index.bound != CS_BOUND_OTHER;
}

/* FILE of the images cannot be read by this user: nothing is judged (CLI_CANNOT_READ) */
static int cannot_read(const char *sub, const struct cli_images *im, const char *file, int err)
{
	char path[4400], why[4600];

	snprintf(path, sizeof(path), "%s/%s", im->shown, file);
	cli_err(sub, "%s: the images were not checked; %s", cli_cannot_read_text(path, err, why, sizeof(why)),
		cli_cannot_read_advice());
	return CLI_CANNOT_READ;
}

/* the images directory to read: PATH itself, or PATH unpacked when it is an archive */
static int open_path(const char *sub, const char *path, struct cli_images *im)
{
	char dir[4096];
	struct stat st;

	snprintf(im->shown_buf, sizeof(im->shown_buf), "%s", path);
	im->shown = im->shown_buf;
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		im->dirfd = cli_open_dir(sub, path);
		return im->dirfd < 0 ? CLI_USAGE : CLI_OK;
	}
	if (cli_archive_unpack(sub, path, im->tmp, sizeof(im->tmp), dir, sizeof(dir)))
		return CLI_FAIL;
	if (strcmp(dir, im->tmp)) /* ARCHIVE:checkpoint, ARCHIVE:D, ARCHIVE:D/checkpoint */
		snprintf(im->shown_buf, sizeof(im->shown_buf), "%s:%s", path, dir + strlen(im->tmp) + 1);
	im->dirfd = cli_open_dir(sub, dir);
	return im->dirfd < 0 ? CLI_FAIL : CLI_OK;
}

int cli_images_open(const char *sub, const char *path, int one, struct cli_images *im)
{
	struct cs_index none = { .n = 0 };
	const struct cs_index *x;
	int rc;

	memset(im, 0, sizeof(*im));
	im->dirfd = -1;
	im->gpu_state = true;
	rc = open_path(sub, path, im);
	if (rc != CLI_OK)
		goto err;
	rc = CLI_USAGE;
	if (cli_list_manifests(im->dirfd, &im->pids, &im->n)) {
		cli_err(sub, "cannot list %s: %s", im->shown, strerror(errno));
		goto err;
	}
	/* an unusable index fails every manifest (cs_index_load_manifest): verify reports it per manifest */
	cs_index_file_read(im->dirfd, &im->index);
	bind_index(im);
	if (cli_cannot_read(im->index.err)) {
		rc = cannot_read(sub, im, CS_INDEX_NAME, im->index.err);
		goto err;
	}
	x = im->index.err ? &none : &im->index.x;
	rc = CLI_FAIL;
	if (!im->n && (rc = no_manifest(sub, im, x)) != CLI_OK)
		goto err;
	if (im->gpu_state && cli_cannot_read(im->inv_err)) {
		rc = cannot_read(sub, im, CLI_INVENTORY, im->inv_err);
		goto err;
	}
	rc = CLI_USAGE;
	if (im->n && add_index_pids(im, x))
		goto err;
	if (one && !has_pid(im->pids, im->n, one)) {
		rc = not_held(sub, im, one);
		goto err;
	}
	if (one) {
		im->pids[0] = one;
		im->n = 1;
	}
	return CLI_OK;
err:
	cli_images_close(im);
	return rc;
}

void cli_images_close(struct cli_images *im)
{
	free(im->pids);
	im->pids = NULL;
	im->n = 0;
	if (im->dirfd >= 0)
		close(im->dirfd);
	im->dirfd = -1;
	if (im->tmp[0])
		cli_archive_remove(im->tmp);
	im->tmp[0] = '\0';
}

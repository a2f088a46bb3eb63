// SPDX-License-Identifier: MIT
/*
 * prefetch.c - the helper's restore prefetch (contract in prefetch.h).
 *
 * The scanner thread reads the manifests a restore would read - those the restore's image set
 * lists, or every "cudastore-<nspid>.img" of format 1.0 images without an index (imgset.h) - with
 * the restore's own rules (cs_imgset_read), collects the devices of the custom-mode ones and
 * starts the engine's prefetch over them, bounded by the prefetch_mb option and by half of the memory
 * available now. Every failure here is logged at debug level and only means "no prefetch": the RESTORE
 * request reads and checks everything itself, as it always did.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imgdir.h"
#include "imgindex.h"
#include "imgset.h"
#include "log.h"
#include "manifest.h"
#include "prefetch.h"
#include "procfs.h"
#include "test_hooks.h"

#define PF_MAX_MANIFESTS 16

/* the ns pid of "cudastore-<nspid>.img", exactly as cs_name_manifest() writes it, or 0 */
static pid_t manifest_ns_pid(const char *name)
{
	char again[CS_NAME_MAX];
	int nspid;

	if (sscanf(name, "cudastore-%d.img", &nspid) != 1 || nspid <= 0)
		return 0;
	cs_name_manifest(again, nspid);
	return strcmp(again, name) ? 0 : nspid;
}

static unsigned add_regions(const struct cs_prefetcher *st, struct cs_manifest *m,
			    struct cs_engine_region *regs, unsigned n)
{
	for (unsigned i = 0; i < m->ndev && n < CS_MAX_DEVICES; i++) {
		const struct cs_manifest_dev *d = &m->dev[i];

		if (d->ids)
			continue; /* chunk files: the restore reads them itself (no extent to prefetch) */
		cs_engine_region_from_manifest(&regs[n++], d, st->dirfd);
	}
	return n;
}

/* read, validate (the restore's rules) and keep the manifest of ns_pid */
static void take_manifest(const struct cs_prefetcher *st, pid_t ns_pid, struct cs_manifest *ms, unsigned *nm,
			  struct cs_engine_region *regs, unsigned *nr)
{
	struct cs_manifest *m = &ms[*nm];
	char err[512], name[CS_NAME_MAX];

	if (cs_imgset_read(st->set, st->dirfd, ns_pid, m, err, sizeof(err))) {
		cs_name_manifest(name, ns_pid);
		cs_debug("prefetch: skipping %s: %s", name, err);
		return;
	}
	(*nm)++;
	if (m->mode == CS_MODE_CUSTOM)
		*nr = add_regions(st, m, regs, *nr);
}

static void scan(const struct cs_prefetcher *st, struct cs_manifest *ms, unsigned *nm,
		 struct cs_engine_region *regs, unsigned *nr)
{
	const struct cs_index_file *ix = &st->set->ix;
	struct dirent *e;
	pid_t ns_pid;
	DIR *d;
	int fd;

	if (cs_imgset_indexed(st->set)) { /* format 1.1+: exactly the manifests of this dump */
		for (unsigned i = 0; i < ix->x.n && *nm < PF_MAX_MANIFESTS; i++)
			take_manifest(st, ix->x.ns_pid[i], ms, nm, regs, nr);
		return;
	}
	if (ix->err != -ENOENT) { /* the restore will say what is wrong with the index */
		cs_debug("prefetch: no usable index: %s", ix->why);
		return;
	}
	fd = openat(st->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* 1.0: every manifest */
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		cs_debug("prefetch: cannot list the images directory: %s", strerror(errno));
		return;
	}
	while ((e = readdir(d)) && *nm < PF_MAX_MANIFESTS) {
		ns_pid = manifest_ns_pid(e->d_name);
		if (ns_pid)
			take_manifest(st, ns_pid, ms, nm, regs, nr);
	}
	closedir(d);
}

static void *scanner(void *arg)
{
	struct cs_prefetcher *st = arg;
	struct cs_manifest *ms = calloc(PF_MAX_MANIFESTS, sizeof(*ms));
	struct cs_engine_region *regs = calloc(CS_MAX_DEVICES, sizeof(*regs));
	unsigned nm = 0, nr = 0, i;
	char err[512];

	if (!ms || !regs) {
		cs_debug("prefetch: out of memory");
		goto out;
	}
	scan(st, ms, &nm, regs, &nr);
	if (!nr) {
		cs_debug("prefetch: no extents to read (%u manifests)", nm);
		goto out;
	}
	if (cs_prefetch_start(&st->pf, regs, nr, st->threads, st->max_bytes, err, sizeof(err)))
		cs_debug("%s", err);
	else
		cs_debug("prefetch: reading %u extents of %u manifests, up to %llu bytes, %u threads", nr, nm,
			 (unsigned long long)st->max_bytes, st->threads);
out:
	for (i = 0; ms && i < nm; i++)
		cs_manifest_free(&ms[i]);
	free(ms);
	free(regs);
	return NULL;
}

int cs_prefetch_begin(struct cs_prefetcher *st, const struct cs_options *opt, const struct cs_imgset *set,
		      int dirfd)
{
	uint64_t avail = cs_procfs_mem_available() / 2;
	sigset_t all, old;
	int ret;

	if (st->started || dirfd < 0 || !set->loaded || !cs_opt_prefetch_on(opt)) {
		if (dirfd >= 0)
			close(dirfd);
		return st->started ? -EALREADY : 0;
	}
	st->dirfd = dirfd;
	st->set = set;
	st->threads = opt->threads;
	st->max_bytes = opt->prefetch_max;
	if (avail && avail < st->max_bytes)
		st->max_bytes = avail;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* no signal handler runs on its threads */
	ret = pthread_create(&st->tid, NULL, scanner, st);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		cs_debug("prefetch: cannot start: %s", strerror(ret));
		close(st->dirfd);
		st->dirfd = -1;
		return -ret;
	}
	st->started = st->scanning = true;
	return 0;
}

struct cs_prefetch *cs_prefetch_take(struct cs_prefetcher *st)
{
	struct cs_prefetch_stats ps;

	if (!st->started)
		return NULL;
	if (st->scanning) {
		pthread_join(st->tid, NULL);
		st->scanning = false;
		if (st->pf && cs_test_prefetch_complete())
			cs_prefetch_wait(st->pf); /* tests: read everything first (deterministic counts) */
		if (st->pf) {
			cs_prefetch_settle(st->pf);
			cs_prefetch_get_stats(st->pf, &ps);
			cs_info("prefetch: %llu bytes read and verified in %.3f s before the GPU restore%s%s",
				(unsigned long long)ps.ready_bytes, ps.seconds,
				ps.full ? " (memory bound reached)" : "",
				ps.bad_chunks ? "; some chunks were not usable and are read again" : "");
		}
	}
	return st->pf;
}

void cs_prefetch_end(struct cs_prefetcher *st)
{
	if (st->scanning)
		pthread_join(st->tid, NULL);
	st->scanning = false;
	cs_prefetch_free(st->pf);
	st->pf = NULL;
	if (st->started && st->dirfd >= 0) /* zeroed until begin: fd 0 is not ours */
		close(st->dirfd);
	st->dirfd = -1;
	st->started = false;
}

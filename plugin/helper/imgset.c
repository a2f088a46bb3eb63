// SPDX-License-Identifier: MIT
/*
 * imgset.c - the helper's image-set policy (imgset.h): a dump's files (stale ones removed, the
 * index kept), and the set a restore or a recovery reads, loaded once
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "errmsg.h"
#include "imgdir.h"
#include "imgframe.h"
#include "imgset.h"
#include "log.h"

int cs_imgset_dump_begin(struct cs_dump_session *ds, int dirfd)
{
	unsigned removed = 0;
	int ret;

	memset(&ds->index, 0, sizeof(ds->index));
	memcpy(ds->index.criu_run, ds->criu_run, sizeof(ds->index.criu_run));
	if (getrandom(ds->index.dump_id, sizeof(ds->index.dump_id), 0) != sizeof(ds->index.dump_id)) {
		ret = -errno;
		cs_err("cannot draw a random dump id: %s", strerror(-ret));
		return ret;
	}
	ret = cs_imgdir_remove_ours(dirfd, &removed);
	if (ret) {
		cs_err("cannot remove the cudastore files of an earlier dump from the images directory: %s. "
		       "A dump must not leave them next to its own: remove them, or dump into an empty "
		       "directory",
		       strerror(-ret));
		return ret;
	}
	if (removed)
		cs_info("removed %u cudastore file(s) of an earlier dump from the images directory", removed);
	return 0;
}

int cs_imgset_dump_own(struct cs_dump_session *ds, int dirfd)
{
	int ret;

	if (ds->imgdir_owned)
		return 0;
	ret = cs_imgset_dump_begin(ds, dirfd);
	ds->imgdir_owned = !ret;
	return ret;
}

int cs_imgset_dump_note(struct cs_dump_session *ds, pid_t ns_pid)
{
	if (cs_index_has(&ds->index, ns_pid))
		return 0;
	if (ds->index.n >= CS_MAX_PROCS)
		return -E2BIG;
	ds->index.ns_pid[ds->index.n++] = ns_pid;
	return 0;
}

void cs_imgset_dump_remove(int dirfd, pid_t ns_pid, unsigned ndev)
{
	char name[CS_NAME_MAX];
	unsigned i;

	cs_name_manifest(name, ns_pid);
	cs_imgdir_remove(dirfd, name);
	cs_name_summary(name, ns_pid);
	cs_imgdir_remove(dirfd, name);
	for (i = 0; i < ndev; i++) {
		char base[CS_NAME_MAX];
		unsigned k;

		cs_name_extent(base, ns_pid, i);
		for (k = 0; k < CS_MAX_STRIPES; k++)
			if (!cs_name_stripe(name, base, k))
				cs_imgdir_remove(dirfd, name);
	}
}

int cs_imgset_dump_flush(const struct cs_dump_session *ds, int dirfd)
{
	int ret = cs_index_write(dirfd, &ds->index);

	if (ret)
		cs_err("cannot write %s (%u manifests) in the images directory: %s", CS_INDEX_NAME,
		       ds->index.n, strerror(-ret));
	return ret;
}

void cs_imgset_load(struct cs_imgset *set, int dirfd)
{
	if (set->loaded)
		return;
	set->loaded = true;
	cs_index_file_read(dirfd, &set->ix);
	if (set->tie) /* a restore's: of the CRIU dump being restored, or unusable */
		cs_index_file_bind(&set->ix, set->criu_run);
}

bool cs_imgset_indexed(const struct cs_imgset *set)
{
	return set->loaded && !set->ix.err;
}

unsigned cs_imgset_left(const struct cs_imgset *set, unsigned restored)
{
	return cs_imgset_indexed(set) && restored < set->ix.x.n ? set->ix.x.n - restored : 0;
}

int cs_imgset_read(const struct cs_imgset *set, int dirfd, pid_t ns_pid, struct cs_manifest *m, char *err,
		   size_t errlen)
{
	return cs_index_load_manifest(dirfd, &set->ix, ns_pid, m, err, errlen);
}

/* what the restore is to know about the index, once */
static void report(struct cs_imgset *set)
{
	if (set->reported)
		return;
	set->reported = true;
	if (set->ix.err == -ENOENT)
		cs_debug("no %s: images of format 1.0; every cudastore-<nspid>.img is read", CS_INDEX_NAME);
	/* an unusable index fails each manifest's load, with its reason in err: the caller logs it */
	if (set->ix.bound == CS_BOUND_SAME)
		cs_debug("%s is of the CRIU dump being restored (run %s)", CS_INDEX_NAME, set->criu_run);
	else if (cs_index_bound_note(&set->ix))
		cs_info("not checked whether the cudastore images are of the CRIU dump being restored: %s",
			cs_index_bound_note(&set->ix));
}

int cs_imgset_restore_load(struct cs_imgset *set, int dirfd, pid_t ns_pid, struct cs_manifest *m, char *err,
			   size_t errlen)
{
	cs_imgset_load(set, dirfd);
	report(set);
	return cs_imgset_read(set, dirfd, ns_pid, m, err, errlen);
}

int cs_imgset_recover_load(struct cs_imgset *set, int dirfd, pid_t ns_pid, struct cs_manifest *m, char *err,
			   size_t errlen)
{
	cs_imgset_load(set, dirfd);
	return cs_index_load_manifest_as(dirfd, &set->ix, CS_INDEX_DUMPING, ns_pid, m, err, errlen);
}

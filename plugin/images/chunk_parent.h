/* SPDX-License-Identifier: MIT */
/*
 * chunk_parent.h - the parent of a chunked dump (docs/image-format.md section 10), judged before
 * any process is locked: a dump that cannot use it is refused while every process still runs.
 * Nothing here logs: 0 or -errno with the reason and what to do in err.
 */
#ifndef CUDASTORE_CHUNK_PARENT_H
#define CUDASTORE_CHUNK_PARENT_H

#include <stddef.h>
#include <sys/types.h>

#include "imgindex.h"

#define CS_CHAIN_MAX 64 /* parents followed when looking for a loop */

struct cs_chunk_parent {
	int dir;    /* the parent's images directory, or -1 */
	int chunks; /* its cudastore-chunks, or -1 */
	struct cs_index x;
	char path[CS_INDEX_PARENT_MAX + 1];
};

/*
 * Open path (relative to the images directory imgdir when not absolute, as CRIU resolves
 * --prev-images-dir) as a parent: a directory on imgdir's filesystem (else -EXDEV), neither imgdir
 * itself nor a directory whose chain of parents leads back to imgdir (-ELOOP), with a usable index
 * and a cudastore-chunks directory (-EPROTO: not a chunked dump). 0 or -errno.
 */
int cs_chunk_parent_open(int imgdir, const char *path, struct cs_chunk_parent *p, char *err, size_t errlen);
/*
 * The parent's images of the process with ns pid ns_pid: listed by its index (else -ESRCH: a
 * dump of another process tree), a manifest every rule of a restore accepts, of CustomStorage
 * chunked devices only (-EPROTO), every chunk it references there at its length.
 */
int cs_chunk_parent_check_proc(const struct cs_chunk_parent *p, pid_t ns_pid, char *err, size_t errlen);
void cs_chunk_parent_close(struct cs_chunk_parent *p);

/* Is the directory at path (relative to base) on the filesystem of dirfd? 0, -EXDEV, or -errno. */
int cs_same_fs(int dirfd, int other);

#endif /* CUDASTORE_CHUNK_PARENT_H */

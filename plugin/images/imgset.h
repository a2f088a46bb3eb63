/* SPDX-License-Identifier: MIT */
/*
 * imgset.h - a dump owns exactly the cudastore files of the processes it dumped, and a restore
 * resumes no CUDA process whose GPU state the images lack (docs/image-format.md, section 1).
 *
 * Dump: before the first file is written, cs_imgset_dump_begin() removes every file of the
 * plugin's names (cs_name_is_ours: cudastore-<n>.img, .json, -gpu<i>.ext, and their .tmp) that an
 * earlier dump left in the images directory (containers reuse small ns pids, so a stale
 * cudastore-<nspid>.img could otherwise be taken for a process of this dump). Other files, such
 * as a criu log named cudastore-dump.log, are left alone.
 *
 * Each dump also draws a random 16-byte dump_id, writes it into every manifest (format 1.1) and
 * lists the ns pid of every manifest it wrote in cudastore-index.img with the same id. A restore
 * reads only the manifests the index lists, and only if they carry its dump_id, so stale files
 * copied in after the dump (an older checkpoint merged into the directory) are not acted on.
 * Images without an index (format 1.0, before this) are read as before.
 *
 * Restore: restore.c decides about a restored process that has no manifest (no_manifest()).
 */
#ifndef CUDASTORE_IMGSET_H
#define CUDASTORE_IMGSET_H

#include <sys/types.h>

#include "context.h"

/*
 * Dump, first PAUSE: remove stale files of ours (not directories) from dirfd and draw this dump's
 * random dump_id (ctx->index). 0 or -errno (logged).
 */
int cs_imgset_dump_begin(struct cs_ctx *ctx, int dirfd);
/* Dump: the manifest of ns_pid is written: list it in the index (memory; callers serialise). */
int cs_imgset_dump_note(struct cs_ctx *ctx, pid_t ns_pid);
/* Dump: write cudastore-index.img with every manifest noted so far (atomic rewrite). */
int cs_imgset_dump_flush(struct cs_ctx *ctx, int dirfd);

/*
 * Restore, before reading the manifest of ns_pid: loads the index once (ctx->index). Returns
 * -ENOTSUP when a valid index does not list ns_pid: any cudastore-<ns_pid>.img there is not this
 * dump's (logged) and the process has no manifest. 0: read the manifest.
 */
int cs_imgset_restore_lookup(struct cs_ctx *ctx, int dirfd, pid_t ns_pid);
/* Restore, after reading manifest `name`: it must be this dump's. 0 or -EBADMSG, why in err. */
int cs_imgset_restore_check(const struct cs_ctx *ctx, const struct cs_manifest *m, const char *name,
			    char *err, size_t errlen);
/*
 * The rule itself (unit-tested): with an index (idx), the manifest must carry its dump_id; with
 * no index file (idx NULL), it must be a format 1.0 manifest (no dump_id): a 1.1 dump always
 * writes the index, so its absence means the images are incomplete.
 */
int cs_imgset_check_manifest(const struct cs_index *idx, const struct cs_manifest *m, const char *name,
			     char *err, size_t errlen);


#endif /* CUDASTORE_IMGSET_H */

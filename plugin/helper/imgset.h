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
#include "imgindex.h"

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
 * Restore: cs_index_load_manifest (imgindex.h) with the index read once into ctx->rindex; an
 * unusable index fails every manifest's load, saying why in err (not logged here).
 */
int cs_imgset_restore_load(struct cs_ctx *ctx, int dirfd, pid_t ns_pid, struct cs_manifest *m, char *err,
			   size_t errlen);

#endif /* CUDASTORE_IMGSET_H */

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
 * lists the ns pid of every manifest it wrote in cudastore-index.img with the same id, and the run
 * id of its criu (format 1.3, criu_run.h), which CRIU records in the same dump's inventory.img. A
 * restore reads only the manifests the index lists, only if they carry its dump_id, and only if
 * the index names the run of the CRIU dump being restored (the run criu read from its
 * inventory.img), so stale files copied in after the dump (an older checkpoint merged into the
 * directory) and a whole image set of another dump beside CRIU's images are not acted on.
 * Images without an index (format 1.0) or without a run (1.0-1.2) are read as before.
 *
 * Restore: the image set (struct cs_imgset) is the index, read once by cs_imgset_load() on the
 * main thread and bound to the CRIU dump being restored (set->tie, set->criu_run: from INIT;
 * cs_index_file_bind) before any byte reaches a GPU: at POST_FORKING before the warm-up and the
 * prefetch threads start (they only read it), or at the first RESTORE. Every question "which
 * manifests do these images hold, and is this one of them" is answered from it, by the restore,
 * the warm-up and the prefetch alike, with the rules of cs_index_load_manifest (imgindex.h).
 * restore.c decides about a restored process that has no manifest (no_manifest()).
 *
 * Recover: a fresh helper taking over a dump whose helper died reads what that dump wrote with
 * the same rules, for a dump that did not finish (CS_INDEX_DUMPING).
 */
#ifndef CUDASTORE_IMGSET_H
#define CUDASTORE_IMGSET_H

#include <sys/types.h>

#include "context.h"
#include "imgindex.h"

/*
 * Dump, first PAUSE: remove stale files of ours (not directories) from dirfd and draw this dump's
 * random dump_id (ds->index). 0 or -errno (logged).
 */
int cs_imgset_dump_begin(struct cs_dump_session *ds, int dirfd);
/* Dump: cs_imgset_dump_begin unless it ran already (ds->imgdir_owned). 0 or -errno (logged). */
int cs_imgset_dump_own(struct cs_dump_session *ds, int dirfd);
/* Dump: the manifest of ns_pid is written: list it in the index (memory; callers serialise). */
int cs_imgset_dump_note(struct cs_dump_session *ds, pid_t ns_pid);
/* Dump: remove ns_pid's manifest, summary and the extent stripes of its first ndev GPUs. */
void cs_imgset_dump_remove(int dirfd, pid_t ns_pid, unsigned ndev);
/* Dump: write cudastore-index.img with every manifest noted so far (atomic rewrite). */
int cs_imgset_dump_flush(const struct cs_dump_session *ds, int dirfd);

/*
 * Restore: read the index of the images in dirfd into set, once (later calls do nothing), bound to
 * set->criu_run when set->tie (an index of another CRIU dump is then unusable).
 */
void cs_imgset_load(struct cs_imgset *set, int dirfd);
/* A usable index lists the manifests (set->ix.x); false for format 1.0 images or an unusable one. */
bool cs_imgset_indexed(const struct cs_imgset *set);
/* Processes the index lists that are not among the restored ones yet (0 without a usable index). */
unsigned cs_imgset_left(const struct cs_imgset *set, unsigned restored);
/*
 * The manifest of ns_pid, by the restore's rules against the loaded set: cs_index_load_manifest
 * (imgindex.h), its answers included: an unusable index fails every manifest's load, saying why
 * in err. Logs nothing: any thread may call it.
 */
int cs_imgset_read(const struct cs_imgset *set, int dirfd, pid_t ns_pid, struct cs_manifest *m, char *err,
		   size_t errlen);
/*
 * RESTORE, on the main thread: cs_imgset_read with the set loaded first if it is not yet; an
 * unusable index is logged as an error the first time.
 */
int cs_imgset_restore_load(struct cs_imgset *set, int dirfd, pid_t ns_pid, struct cs_manifest *m, char *err,
			   size_t errlen);
/*
 * RECOVER: the manifest of ns_pid that a dump which did not finish wrote (CS_INDEX_DUMPING), with
 * the set (that dump's index) loaded first if it is not yet.
 */
int cs_imgset_recover_load(struct cs_imgset *set, int dirfd, pid_t ns_pid, struct cs_manifest *m, char *err,
			   size_t errlen);

#endif /* CUDASTORE_IMGSET_H */

/* SPDX-License-Identifier: MIT */
/*
 * imgindex.h - cudastore-index.img: the manifests one dump owns (format 1.1) and the CRIU dump
 * it belongs to (format 1.3; docs/image-format.md).
 *
 * On disk: the manifest's 16-byte frame (imgframe.h) with the magic "CSIX" (u32 LE payload
 * length, at most CS_INDEX_MAX_BYTES, u64 LE XXH3-64 of the payload), then a protobuf-c CsIndex:
 * format version, the dump's 16-byte dump_id (also in every manifest it wrote), the ns pid of
 * every manifest and (1.3) the run id of the criu that made the dump (criu_run.h), which CRIU
 * also records in that dump's inventory.img.
 * cs_index_decode() refuses a bad frame, a newer major, a missing or wrong-sized dump_id, more
 * than CS_MAX_PROCS pids, a pid <= 0, a pid listed twice and a run id that is not one
 * (cs_criu_run_ok), naming the field.
 */
#ifndef CUDASTORE_IMGINDEX_H
#define CUDASTORE_IMGINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "criu_run.h"
#include "imgdir.h"
#include "manifest.h"

#define CS_INDEX_NAME	   CS_NAME_INDEX
#define CS_INDEX_MAX_BYTES (64u << 10)
#define CS_INDEX_PARENT_MAX 1023 /* bytes of parent_dir */

struct cs_index {
	uint8_t dump_id[CS_DUMP_ID_BYTES];
	unsigned n;
	int32_t ns_pid[CS_MAX_PROCS];
	char criu_run[CS_CRIU_RUN_MAX + 1]; /* format 1.3: the run of the dump's criu; "" none */
	/* format 1.5: a chunked dump's parent (chunkstore.h): its dump_id, and its directory as the
	 * dump opened it (shown by cudastore inspect; never used to read data); "" none */
	bool has_parent;
	uint8_t parent_dump_id[CS_DUMP_ID_BYTES];
	char parent_dir[CS_INDEX_PARENT_MAX + 1];
};

bool cs_index_has(const struct cs_index *x, int32_t ns_pid);
/* frame + protobuf into a malloc'ed buffer; 0 or -errno */
int cs_index_encode(const struct cs_index *x, void **buf, size_t *len);
/* 0 or -errno with the reason in err; x is zeroed first */
int cs_index_decode(const void *buf, size_t len, struct cs_index *x, char *err, size_t errlen);
/* encode + cs_imgdir_write_atomic (0600) */
int cs_index_write(int dirfd, const struct cs_index *x);
/* -ENOENT (no err) when the file does not exist: images of format 1.0 */
int cs_index_read(int dirfd, struct cs_index *x, char *err, size_t errlen);

/* What cs_index_file_bind() found about the CRIU dump an index belongs to. */
enum cs_index_bound {
	CS_BOUND_UNASKED = 0,  /* not bound: an unusable index, or cs_index_file_bind not called */
	CS_BOUND_SAME,	       /* the index names the run of the CRIU dump being restored */
	CS_BOUND_NO_INDEX_RUN, /* no index, or it names no run (format 1.0-1.2, a criu without one) */
	CS_BOUND_NO_CRIU_RUN,  /* the CRIU dump's run is not known: nothing to compare with */
	CS_BOUND_OTHER,	       /* it names another run: the index is unusable (err -ESTALE) */
};

/* The index file of an images directory as a restore (and cudastore verify) found it. */
struct cs_index_file {
	int err; /* 0; -ENOENT: no index file (format 1.0 images); else unusable, why says why */
	char why[512];
	struct cs_index x; /* when err is 0 */
	enum cs_index_bound bound;
};
/* cs_index_read into f; it never fails: f->err says what was found. */
void cs_index_file_read(int dirfd, struct cs_index_file *f);
/*
 * Ties a usable index to the CRIU dump being restored: criu_run is the run id that CRIU's
 * inventory.img of the images names (a restoring criu's dump_criu_run_id; NULL or "": not known).
 * An index that names another run makes f unusable: f->err -ESTALE and f->why names both runs and
 * says what to do, so no manifest it lists is acted on (cs_index_load_manifest). An index that
 * names none, or an unknown criu_run, is accepted as before: f->bound says which.
 */
void cs_index_file_bind(struct cs_index_file *f, const char *criu_run);
/* Why f's CRIU dump could not be checked (CS_BOUND_NO_INDEX_RUN, _NO_CRIU_RUN), else NULL. */
const char *cs_index_bound_note(const struct cs_index_file *f);
/*
 * The rule itself (unit-tested): 0 when the index x names no run, criu_run is not known or both
 * are the same; -ESTALE with both runs and what to do in err otherwise.
 */
int cs_index_check_run(const struct cs_index *x, const char *criu_run, char *err, size_t errlen);

/*
 * Every rule a restore applies to the images of the process with ns pid ns_pid before any byte
 * reaches a GPU, in its order; cudastore verify applies exactly these:
 *   - a valid index that does not list ns_pid: the process has no manifest of this dump;
 *   - cudastore-<ns_pid>.img read and decoded (cs_manifest_read);
 *   - an index that is there but unusable (or of another CRIU dump: cs_index_file_bind)
 *     refuses every manifest;
 *   - the manifest's ns_pid field is ns_pid, the pid its file name says;
 *   - its dump_id is the index's (cs_index_check_manifest);
 *   - custom mode: every extent file a regular file of its size (cs_manifest_check_extents).
 * 0: m holds a manifest the restore acts on (free it with cs_manifest_free). -ENOENT: no manifest
 * file (a missing extent file is -EBADMSG); -ENOTSUP: a file that is not this dump's (err says so: a restore
 * ignores it); in both the process has no manifest. Any other -errno: the images are unusable, why in err.
 */
int cs_index_load_manifest(int dirfd, const struct cs_index_file *ix, pid_t ns_pid, struct cs_manifest *m,
			   char *err, size_t errlen);
/* Which images cs_index_load_manifest_as() judges. */
enum cs_index_rules {
	CS_INDEX_COMPLETE, /* a finished dump's (a restore, cudastore verify): every rule above */
	/*
	 * A dump that did not finish (its helper died): its index is written only after every
	 * manifest, so an index that is absent or unusable is not consulted (the manifest may carry
	 * a dump_id all the same); a usable one applies as above.
	 */
	CS_INDEX_DUMPING,
};
/* cs_index_load_manifest under the given rules (it is CS_INDEX_COMPLETE). */
int cs_index_load_manifest_as(int dirfd, const struct cs_index_file *ix, enum cs_index_rules rules,
			      pid_t ns_pid, struct cs_manifest *m, char *err, size_t errlen);
/*
 * The rule itself (unit-tested): with an index (idx), the manifest must carry its dump_id; with
 * no index file (idx NULL), it must be a format 1.0 manifest (no dump_id): a 1.1 dump always
 * writes the index, so its absence means the images are incomplete.
 */
int cs_index_check_manifest(const struct cs_index *idx, const struct cs_manifest *m, const char *name,
			    char *err, size_t errlen);

#endif /* CUDASTORE_IMGINDEX_H */

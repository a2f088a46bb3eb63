/* SPDX-License-Identifier: MIT */
/*
 * chunkstore.h - chunked images (format 1.5, docs/image-format.md section 10): content-addressed
 * chunk files and the hard links that put them into images directories.
 *
 * A chunk is the file <hh>/<id> (id: 64 lower-case hex digits of its sha256-tree-4k id,
 * chunk_id.h; hh: its first two) in a chunk directory: an images directory's cudastore-chunks/,
 * or a store's root. A new chunk is written under a temporary name, fsynced, hard-linked to its
 * final name and the temporary name removed: a final name never shows a partial chunk, and an
 * existing chunk is never overwritten (EEXIST means the same bytes are there already). Every
 * images directory links each chunk it references, so no directory depends on another one.
 * A chunk written with its XXH3 (the checksum a manifest records for its bytes) carries it in the
 * extended attribute CS_CHUNK_XATTR, where the filesystem has user attributes: a later dump that
 * finds the chunk by id records it without copying the bytes, and a restore verifies the bytes
 * against the manifest as always (the attribute is never trusted for a restore).
 * Nothing here logs: 0 or -errno, and the reason in err where given.
 */
#ifndef CUDASTORE_CHUNKSTORE_H
#define CUDASTORE_CHUNKSTORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chunk_id.h"

#define CS_CHUNKS_DIR	"cudastore-chunks" /* in an images directory */
#define CS_DEDUP_CHUNK	(4u << 20)	   /* bytes per chunk of a chunked dump */
#define CS_CHUNK_SCHEME "sha256-tree-4k"   /* CsDevice.chunk_id_scheme */
#define CS_STORE_LOCK	"lock"		   /* a store's lock file: flock shared (dumps), exclusive (gc) */
#define CS_STORE_TMP	"tmp"		   /* a store's temporary names */
#define CS_CHUNK_REL	(2 + 1 + 2 * CS_CHUNK_ID_LEN + 1) /* "hh/<64 hex>" and its NUL */
#define CS_CHUNK_XATTR	"user.cudastore.xxh3"		  /* a chunk's XXH3, 8 bytes little-endian */

/* "hh/<64 hex>" of id */
void cs_chunk_rel(const uint8_t id[CS_CHUNK_ID_LEN], char rel[CS_CHUNK_REL]);
/* An id of all zero bytes: the slot of an all-zero chunk, which has no file. */
bool cs_chunk_id_is_null(const uint8_t id[CS_CHUNK_ID_LEN]);

/* The cudastore-chunks directory of the images directory dirfd: fd, or -errno (-ENOENT absent).
 * create: made 0700 first when missing. Never follows a symbolic link. */
int cs_chunks_dir_open(int dirfd, bool create);
/* Remove every chunk link (and leftover temporary file) of dirfd's cudastore-chunks, then the
 * directory itself; 0 when there was none. *removed (may be NULL) counts the chunk files. */
int cs_chunks_dir_clear(int dirfd, unsigned *removed);

/*
 * Chunk id of len bytes in chunk directory cfd: 0 when it is a regular file of exactly len bytes;
 * -ENOENT missing, -EBADMSG another size (*size says which), -EINVAL not a regular file (a link).
 */
int cs_chunk_stat(int cfd, const uint8_t id[CS_CHUNK_ID_LEN], uint64_t len, uint64_t *size);
/* Open chunk id read-only (regular file of len bytes, no link followed): fd or -errno as above. */
int cs_chunk_open_ro(int cfd, const uint8_t id[CS_CHUNK_ID_LEN], uint64_t len);
/* Hard-link chunk id of from into to (hh made when missing); 0, also when to already has it. */
int cs_chunk_link(int from, int to, const uint8_t id[CS_CHUNK_ID_LEN]);
/*
 * Write len bytes at buf as chunk id of to: a temporary file in tmpfd (same filesystem as to),
 * written (with *hash as CS_CHUNK_XATTR where the filesystem takes it; hash may be NULL),
 * fsynced, linked to its name, removed; to's hh directory fsynced. 0 also when the chunk
 * appeared meanwhile (its bytes are the same).
 */
int cs_chunk_write(int to, int tmpfd, const uint8_t id[CS_CHUNK_ID_LEN], const void *buf, size_t len,
		   const uint64_t *hash);

/* Where a chunked dump finds and puts its chunks; shared by every copy thread of the dump. */
struct cs_chunk_sink {
	int img;    /* the images directory's cudastore-chunks (created) */
	int store;  /* the store's root, or -1 */
	int stmp;   /* the store's tmp/, or -1 */
	int parent; /* the parent's cudastore-chunks, or -1 */
};
/* The places a chunk put found it, or that it was written. */
enum cs_chunk_from { CS_CHUNK_HAD, CS_CHUNK_FROM_STORE, CS_CHUNK_FROM_PARENT, CS_CHUNK_WRITTEN };
/*
 * Chunk id (len bytes at buf) into the images directory: there already, else linked from the
 * store or the parent, else written (into the store and linked, or into the images directory).
 * A chunk of the store or parent of another length than len is an error (-EBADMSG, err says
 * which file and what to do). *from says what happened. buf NULL: link only; -ENOENT (err
 * untouched) when the chunk would have to be written. hash (may be NULL): the bytes' XXH3, kept
 * with a chunk written (cs_chunk_write).
 */
int cs_chunk_put(const struct cs_chunk_sink *s, const uint8_t id[CS_CHUNK_ID_LEN], const void *buf,
		 size_t len, const uint64_t *hash, enum cs_chunk_from *from, char *err, size_t errlen);
/*
 * The XXH3 chunk id of len bytes was written with (CS_CHUNK_XATTR), from the first of the
 * images directory, the store and the parent that holds it as a regular file of len bytes:
 * 0 with *hash, -ENOENT when none holds it, -ENODATA when the one that does has no such
 * attribute (written before, copied without attributes, or a filesystem without them).
 */
int cs_chunk_known_hash(const struct cs_chunk_sink *s, const uint8_t id[CS_CHUNK_ID_LEN], size_t len,
			uint64_t *hash);

/*
 * A store directory (path, relative to basefd when not absolute; made 0700 with its tmp/ when
 * missing): *fd its root, *tmpfd its tmp/. 0 or -errno.
 */
int cs_store_open(int basefd, const char *path, int *fd, int *tmpfd);
/* flock the store's lock file: shared for a dump, exclusive for gc (nonblocking: -EWOULDBLOCK
 * when a dump holds it). The fd returned holds the lock until closed; or -errno. */
int cs_store_lock(int storefd, bool exclusive, bool wait);

struct cs_gc_stats {
	uint64_t kept, removed, removed_bytes, tmp_removed;
};
/* With the store locked exclusively (lockfd): remove every chunk no images directory links (link
 * count 1) and every temporary file; an hh directory left empty goes too. */
int cs_store_gc(int storefd, struct cs_gc_stats *st);

#endif /* CUDASTORE_CHUNKSTORE_H */

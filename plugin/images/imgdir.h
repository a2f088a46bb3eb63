/* SPDX-License-Identifier: MIT */
/*
 * imgdir.h - every file access in CRIU's images directory goes through here.
 *
 * File names are built in one place (cs_name_*) and every name read from an image is checked
 * by cs_name_is_safe() before use, so no path from an image escapes the directory: a safe
 * name is 1..63 characters of [A-Za-z0-9._-], not starting with '.', no '/'. Files are opened
 * with openat(dirfd, ..., O_NOFOLLOW | O_CLOEXEC) and created 0600.
 *
 * Names (nspid = the process's pid in its own pid namespace, stable across restore):
 *   cudastore-<nspid>.img          manifest (protobuf-c, framed; see docs/image-format.md)
 *   cudastore-<nspid>-gpu<i>.ext   extent of the i-th device in the manifest
 *   cudastore-<nspid>.json         machine-readable summary of phases and timings
 *   cudastore-index.img            the manifests the dump owns (format 1.1, imgindex.h)
 */
#ifndef CUDASTORE_IMGDIR_H
#define CUDASTORE_IMGDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define CS_NAME_MAX    64
#define CS_NAME_PREFIX "cudastore-"	   /* every file name of ours starts so */
#define CS_NAME_INDEX  "cudastore-index.img" /* the dump's index (imgindex.h) */

void cs_name_manifest(char out[CS_NAME_MAX], int nspid);
void cs_name_extent(char out[CS_NAME_MAX], int nspid, unsigned index);
void cs_name_summary(char out[CS_NAME_MAX], int nspid);
/* Name of stripe k of the extent base: base itself for k == 0, else "<stem>.s<k><.ext>" (the
 * ".ext" suffix kept when base has it). -ENAMETOOLONG when it does not fit. */
int cs_name_stripe(char out[CS_NAME_MAX], const char *base, unsigned k);
bool cs_name_is_safe(const char *name);
/* A name cs_name_*() builds (or its ".tmp" during an atomic write): a file the plugin owns. */
bool cs_name_is_ours(const char *name);

/* Create name exclusively (O_CREAT|O_EXCL, 0600). extra: e.g. O_DIRECT. fd or -errno. */
int cs_imgdir_create(int dirfd, const char *name, int extra_flags);
/*
 * Open an existing regular file read-only; -EINVAL if it is not a regular file, which is then
 * never opened (no device node or FIFO is opened by root; *st says what it is). fd or -errno.
 */
int cs_imgdir_open_ro(int dirfd, const char *name, int extra_flags, struct stat *st);
/* Open name for appending, created 0600 if missing; -EINVAL (never opened) if not a regular file. */
int cs_imgdir_open_append(int dirfd, const char *name);
/* Remove name if present (0 if it did not exist). */
int cs_imgdir_remove(int dirfd, const char *name);
/* Remove every entry that cs_name_is_ours(), except directories; *removed counts them. */
int cs_imgdir_remove_ours(int dirfd, unsigned *removed);
/* Write buf to name atomically: "<name>.tmp", fsync, rename over name, fsync the directory. */
int cs_imgdir_write_atomic(int dirfd, const char *name, const void *buf, size_t len);
/* Read the whole of name (at most max bytes) into a malloc'ed buffer. 0 or -errno (-EFBIG). */
int cs_imgdir_read_all(int dirfd, const char *name, size_t max, void **buf, size_t *len);
/* Bytes available to an unprivileged writer... and to root (we run as root): f_bavail*f_frsize */
int cs_imgdir_free_bytes(int dirfd, uint64_t *free_bytes);
int cs_imgdir_fsync_dir(int dirfd);
/* pwrite all of buf at off, retrying EINTR and short writes. 0 or -errno (-EIO on no progress). */
int cs_imgdir_pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

#endif /* CUDASTORE_IMGDIR_H */

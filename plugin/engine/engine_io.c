// SPDX-License-Identifier: MIT
/*
 * engine_io.c - the extent files: O_DIRECT where the filesystem allows it, buffered otherwise.
 *
 * O_DIRECT keeps tens of GiB of image out of the page cache and lets several threads stream
 * at the device's rate; it needs aligned buffers, offsets and lengths. The alignment is what
 * the filesystem reports for the file (statx STATX_DIOALIGN, Linux 6.1+); where it reports
 * nothing, 4 KiB (ENG_ALIGN), which suits every common device, and the EINVAL fallback below
 * covers the rest. A file that needs more than ENG_ALIGN, or reports no O_DIRECT support, is
 * written buffered. Buffers are pinned (page-aligned) and chunk offsets are multiples of the
 * chunk size, so only the last chunk's length needs rounding: it is written zero-padded and the
 * file cut back to its size. A short O_DIRECT transfer goes on from the last aligned byte it
 * reached (the rest is transferred again), never from an unaligned offset.
 *
 * Every file is opened through imgdir.c (O_NOFOLLOW, O_NONBLOCK until it is known to be a
 * regular file, names checked) and O_DIRECT added with fcntl.
 *
 * Fallback: a filesystem without O_DIRECT refuses it with EINVAL (on open, or on the first
 * transfer when it cannot satisfy the alignment); then the file is switched to buffered I/O
 * with fcntl(F_SETFL) - for all threads at once, since they share the open file - and the
 * transfer retried. Once one O_DIRECT transfer of the file succeeded, EINVAL is an error.
 * Buffered dumps push each chunk to writeback right away and drop it from the page cache
 * once written (write-behind), so dumping does not fill memory with dirty image pages.
 *
 * tmpfs (opts->map_tmpfs, off by default: with stripes, pwrite is faster; docs/performance.md,
 * "tmpfs dumps through a mapping"): every write(2) to a tmpfs file holds the file's inode lock, so
 * all the threads writing one file queue on one lock, and more threads do not make its dump
 * faster. With map_tmpfs the dump maps the fully reserved file shared and each thread copies into
 * the mapping with process_vm_writev on itself: a kernel copy, like write(2), but under no inode
 * lock. A fault the kernel cannot satisfy is EFAULT there, where a plain memcpy would be SIGBUS in
 * CRIU; and a user-space memcpy pays a page fault of its own for every fresh page, which makes it
 * several times slower than this copy. Kernels or sandboxes without the call fall back to pwrite
 * for the file.
 *
 * Stripes: a region's chunks are spread over nfiles extent files (chunk i in file i % nfiles),
 * so the writers of one region do not queue on one inode lock. On a disk every file is reserved
 * before the first byte moves, all of them at once (one thread per file), so the copy cannot
 * hit ENOSPC midway; there fallocate only books blocks.
 *
 * A memory filesystem (tmpfs, ramfs) is not reserved: fallocate there allocates every page under
 * the file's lock, a pass over memory of its own that the writers then queue behind
 * (docs/performance.md, "Space and durability"). The free space is checked up front instead, for
 * every region of the call together (the helper checked the whole dump's planned bytes before any
 * process was locked); another writer taking the space meanwhile fails the copy with the same "no
 * space" error, and the dump is rolled back like any failed copy. Zero chunks are holes there from
 * the start.
 *
 * Buffered files (no O_DIRECT: tmpfs, ramfs, or O_DIRECT refused) are read and written in
 * ENG_PIECE pieces, each hashed right after its read / right before its write while it is still
 * in the CPU cache: one pass over memory less than hashing the whole chunk separately. The
 * hash is always taken over the bytes in our buffer, never over the file's pages.
 *
 * The restore of such pages reads them through a mapping instead (engine_mapread.c), which
 * avoids the promotion without costing the dump; the read-back remains for restores that use
 * read(2) (opts->tmpfs_restore_map = CS_NO).
 *
 * Read-back (opts->tmpfs_readback, off by default): tmpfs leaves a page it creates on a write
 * marked referenced on the inactive LRU list, so the first read(2) of it moves it to the active
 * list, page by page under the LRU lock; when that first read is the restore's, the restore pays
 * that promotion for every page (docs/performance.md, "The first read of a tmpfs page"). With the
 * option a dump into a memory filesystem reads each ENG_READBACK step back right after writing it:
 * most of its pages are then still in this CPU's batch of pages not yet on a list, where the
 * promotion is a flag. The dump pays a read of cached bytes and a system call per step; the first
 * restore after it reads at the rate of a second read. Disks are not affected (their written pages
 * are not marked referenced), and neither are mapped tmpfs writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine_priv.h"
#include "imgdir.h"

static uint64_t align_up(uint64_t v, uint32_t align)
{
	return (v + align - 1) & ~(uint64_t)(align - 1);
}

static int set_direct(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = on ? fl | O_DIRECT : fl & ~O_DIRECT;
	return fcntl(fd, F_SETFL, fl) ? -errno : 0;
}

/* O_DIRECT alignment of the open file (see the top); 0: use buffered I/O for it. */
static uint32_t dio_align(const struct eng_job *job, int fd, const char *name)
{
	struct statx stx;

	memset(&stx, 0, sizeof(stx));
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) || !(stx.stx_mask & STATX_DIOALIGN))
		return ENG_ALIGN; /* not reported (older kernel or filesystem) */
	if (!stx.stx_dio_offset_align) {
		eng_note(job, CS_ENGINE_NOTE_INFO,
			 "engine: %s: the filesystem does not support O_DIRECT for it; using buffered I/O",
			 name);
		return 0;
	}
	if (stx.stx_dio_offset_align > ENG_ALIGN || stx.stx_dio_mem_align > ENG_ALIGN ||
	    (stx.stx_dio_offset_align & (stx.stx_dio_offset_align - 1))) {
		eng_note(job, CS_ENGINE_NOTE_INFO,
			 "engine: %s: O_DIRECT needs %u-byte offsets and %u-byte buffers here, more than "
			 "the %u bytes the engine aligns to; using buffered I/O",
			 name, stx.stx_dio_offset_align, stx.stx_dio_mem_align, ENG_ALIGN);
		return 0;
	}
	return stx.stx_dio_offset_align;
}

/* Add O_DIRECT to the open file when asked for and possible; 0, or -errno of a real failure. */
static int try_direct(struct eng_file *f, const char *what)
{
	struct eng_region *reg = f->reg;
	int ret;

	/* a memory filesystem's "O_DIRECT" (tmpfs since 6.6) is its page cache: buffered I/O, hashed
	 * piece by piece (see the top), is the same copy with one memory pass less */
	if (!reg->job->opts->direct_io || reg->memfs)
		return 0;
	f->align = dio_align(reg->job, f->fd, f->name);
	if (!f->align)
		return 0;
	ret = set_direct(f->fd, true);
	if (!ret) {
		atomic_store(&f->direct, true);
		return 0;
	}
	if (ret == -EINVAL) {
		eng_note(reg->job, CS_ENGINE_NOTE_INFO,
			 "engine: %s: the filesystem refuses O_DIRECT; using buffered I/O for this file",
			 f->name);
		return 0;
	}
	eng_fail(reg->job, ret, "%s: cannot enable O_DIRECT on %s: %s", what, f->name, strerror(-ret));
	return ret;
}

bool eng_dir_is_memfs(int dirfd)
{
	struct statfs sfs;

	return !fstatfs(dirfd, &sfs) && (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC);
}

/*
 * The files are created without O_DIRECT and O_DIRECT added with fcntl: an
 * open(O_CREAT|O_EXCL|O_DIRECT) refused with EINVAL may already have created the file, so a
 * buffered retry would fail with EEXIST. fcntl applies the same check as open.
 */
int eng_io_create(struct eng_region *reg)
{
	unsigned k;
	int ret;

	for (k = 0; k < reg->nfiles; k++) {
		struct eng_file *f = &reg->files[k];

		f->fd = cs_imgdir_create(reg->r->dirfd, f->name, 0);
		if (f->fd < 0) {
			ret = f->fd;
			f->fd = -1;
			eng_fail(reg->job, ret, "dump: cannot create extent %s: %s", f->name, strerror(-ret));
			return ret;
		}
		f->created = true;
		ret = try_direct(f, "dump");
		if (ret)
			return ret;
	}
	return 0;
}

static void *reserve_file(void *arg)
{
	struct eng_file *f = arg;

	f->err = 0;
	if (f->size && fallocate(f->fd, 0, 0, (off_t)f->size))
		f->err = -errno;
	else if (f->size)
		f->reserved = true;
	return NULL;
}

static void no_space(struct eng_region *reg, unsigned long long avail)
{
	eng_fail(
	    reg->job, -ENOSPC,
	    "dump: no space for extent %s: it needs %llu bytes (in %u file%s), the filesystem has %llu free",
	    reg->r->name, (unsigned long long)reg->r->size, reg->nfiles, reg->nfiles > 1 ? "s" : "", avail);
}

static unsigned long long free_bytes(int fd)
{
	struct statvfs vfs;

	return fstatvfs(fd, &vfs) ? 0 : (unsigned long long)vfs.f_bavail * vfs.f_frsize;
}

static int reserve_failed(struct eng_region *reg, struct eng_file *f)
{
	int ret = f->err;

	if (ret == -EOPNOTSUPP || ret == -ENOSYS) {
		eng_note(reg->job, CS_ENGINE_NOTE_DEBUG,
			 "engine: %s: fallocate not supported; space is not reserved in advance", f->name);
		return 0;
	}
	if (ret == -ENOSPC) {
		no_space(reg, free_bytes(f->fd));
		return ret;
	}
	eng_fail(reg->job, ret, "dump: cannot reserve %llu bytes for extent %s: %s",
		 (unsigned long long)f->size, f->name, strerror(-ret));
	return ret;
}

/*
 * A memory filesystem (see the top): the region must fit into what is free, counted for every
 * region of the call together from the free space seen at the first. Nothing is reserved.
 */
static int check_space(struct eng_region *reg)
{
	struct eng_job *job = reg->job;
	struct statvfs vfs;

	reg->space_checked = true;
	if (fstatvfs(reg->files[0].fd, &vfs) || !vfs.f_blocks) /* ramfs: no size, no limit */
		return 0;
	if (!job->memfs_claimed || job->fsid_memfs != vfs.f_fsid) {
		job->fsid_memfs = vfs.f_fsid;
		job->memfs_free = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		job->memfs_claimed = 0;
	}
	if (job->memfs_claimed + reg->r->size > job->memfs_free) {
		no_space(reg, job->memfs_free - job->memfs_claimed);
		return -ENOSPC;
	}
	job->memfs_claimed += reg->r->size;
	return 0;
}

/*
 * Reserve every block of every stripe before the first byte moves, so the copy cannot hit
 * ENOSPC midway; the stripes are reserved at the same time, one thread each (see the top). On
 * a memory filesystem (without map_tmpfs, which needs every page reserved) the space is only
 * checked (check_space).
 */
int eng_io_reserve(struct eng_region *reg)
{
	bool started[CS_MAX_STRIPES] = { false };
	sigset_t all, old;
	unsigned k;
	int ret = 0;

	if (reg->memfs && !reg->job->opts->map_tmpfs)
		return check_space(reg);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* the threads inherit "every signal blocked" */
	for (k = 1; k < reg->nfiles; k++)
		started[k] = !pthread_create(&reg->files[k].tid, NULL, reserve_file, &reg->files[k]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	for (k = 1; k < reg->nfiles; k++)
		if (!started[k])
			reserve_file(&reg->files[k]);
	reserve_file(&reg->files[0]);
	for (k = 1; k < reg->nfiles; k++)
		if (started[k])
			pthread_join(reg->files[k].tid, NULL);
	for (k = 0; k < reg->nfiles && !ret; k++)
		if (reg->files[k].err)
			ret = reserve_failed(reg, &reg->files[k]);
	return ret;
}

/* Dump on tmpfs with every block reserved: write through a shared mapping (see the top). */
void eng_io_map(struct eng_region *reg)
{
	struct statfs sfs;
	unsigned k;

	if (!reg->job->opts->map_tmpfs)
		return;
	for (k = 0; k < reg->nfiles; k++) {
		struct eng_file *f = &reg->files[k];
		void *p;

		if (!f->reserved || fstatfs(f->fd, &sfs) || sfs.f_type != TMPFS_MAGIC)
			return;
		p = mmap(NULL, f->size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, 0);
		if (p == MAP_FAILED) {
			eng_note(reg->job, CS_ENGINE_NOTE_INFO,
				 "engine: %s: cannot map the tmpfs file (%s); writing it with pwrite",
				 f->name, strerror(errno));
			continue;
		}
		f->map = p;
		reg->r->used_mapping = true;
	}
	if (reg->r->used_mapping)
		eng_note(reg->job, CS_ENGINE_NOTE_DEBUG, "engine: %s: tmpfs: writing through shared mappings",
			 reg->r->name);
}

void eng_io_unmap(struct eng_region *reg)
{
	unsigned k;

	for (k = 0; k < reg->nfiles; k++) {
		if (reg->files[k].map)
			munmap(reg->files[k].map, reg->files[k].size);
		reg->files[k].map = NULL;
	}
}

/* copy len bytes to dst, an address of our own mapping, by a kernel copy; 0 or -errno */
int eng_copy_to_mapping(void *dst, const void *src, size_t len)
{
	size_t done = 0;

	while (done < len) {
		struct iovec local = { .iov_base = (char *)src + done, .iov_len = len - done };
		struct iovec remote = { .iov_base = (char *)dst + done, .iov_len = len - done };
		ssize_t n = process_vm_writev(getpid(), &local, 1, &remote, 1, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* the kernel refuses process_vm_writev (seccomp, old kernel): this file goes on with pwrite */
static void map_give_up(struct eng_file *f, int err)
{
	struct eng_region *reg = f->reg;

	pthread_mutex_lock(&reg->lock);
	if (!atomic_load(&f->map_off)) {
		atomic_store(&f->map_off, true);
		reg->r->used_mapping = false;
		eng_note(reg->job, CS_ENGINE_NOTE_INFO,
			 "engine: %s: process_vm_writev is not allowed here (%s); writing with pwrite",
			 f->name, strerror(-err));
	}
	pthread_mutex_unlock(&reg->lock);
}

static int open_ro(struct eng_file *f)
{
	struct eng_region *reg = f->reg;
	struct stat st;
	int fd, ret;

	memset(&st, 0, sizeof(st));
	fd = cs_imgdir_open_ro(reg->r->dirfd, f->name, 0, &st);
	if (fd < 0 && !(fd == -EINVAL && st.st_mode)) { /* st is filled for "not a regular file" */
		eng_fail(reg->job, fd, "restore: cannot open extent %s: %s", f->name, strerror(-fd));
		return fd;
	}
	f->fd = fd < 0 ? -1 : fd;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != f->size) {
		eng_fail(reg->job, -EINVAL,
			 "restore: extent %s: %s %lld bytes, expected a regular file of %llu bytes", f->name,
			 S_ISREG(st.st_mode) ? "found" : "not a regular file,", (long long)st.st_size,
			 (unsigned long long)f->size);
		return -EINVAL;
	}
	ret = try_direct(f, "restore");
	if (ret)
		return ret;
	if (!atomic_load(&f->direct))
		posix_fadvise(f->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return 0;
}

int eng_io_open_ro(struct eng_region *reg)
{
	unsigned k;
	int ret;

	for (k = 0; k < reg->nfiles; k++) {
		ret = open_ro(&reg->files[k]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Switch the file to buffered I/O after an O_DIRECT EINVAL; true: retry buffered. */
static bool fall_back(struct eng_file *f)
{
	struct eng_region *reg = f->reg;
	bool retry = false;

	pthread_mutex_lock(&reg->lock);
	if (!atomic_load(&f->direct)) {
		retry = true; /* another thread switched already */
	} else if (!atomic_load(&f->direct_ok) && !set_direct(f->fd, false)) {
		atomic_store(&f->direct, false);
		eng_note(reg->job, CS_ENGINE_NOTE_INFO,
			 "engine: %s: O_DIRECT %s refused with EINVAL; using buffered I/O for this file",
			 f->name, reg->job->dump ? "write" : "read");
		retry = true;
	}
	pthread_mutex_unlock(&reg->lock);
	return retry;
}

/*
 * Read until need bytes are in (asking for want >= need); *got says how far it came. align
 * (O_DIRECT: the file's alignment, else 1): a short read goes on from the last aligned byte.
 */
static int pread_full(int fd, char *buf, size_t want, size_t need, uint64_t off, size_t *got, uint32_t align)
{
	*got = 0;
	while (*got < need) {
		ssize_t n = pread(fd, buf + *got, want - *got, (off_t)(off + *got));
		size_t next;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		next = *got + (size_t)n;
		if (next < need)
			next &= ~(size_t)(align - 1);
		if (next <= *got) {
			*got += (size_t)n;
			return -EIO; /* no aligned progress */
		}
		*got = next;
	}
	return 0;
}

struct pread_piece {
	int fd;
	char *buf;
	uint64_t off;
	size_t *got;
};

static int pread_piece(void *arg, size_t at, size_t n)
{
	struct pread_piece *p = arg;
	size_t piece;
	int ret = pread_full(p->fd, p->buf + at, n, n, p->off + at, &piece, 1);

	*p->got = at + piece;
	return ret;
}

/* Buffered read in ENG_PIECE pieces, each hashed right after it came in (see the top). */
static int pread_hashed(int fd, char *buf, size_t len, uint64_t off, size_t *got, uint64_t *hash)
{
	struct pread_piece p = { .fd = fd, .buf = buf, .off = off, .got = got };

	*got = 0;
	return eng_pieces(buf, len, false, pread_piece, &p, hash);
}

/* O_DIRECT write of len (a multiple of align) at off; a short write goes on from the last
 * aligned byte it reached. 0 or -errno (-EIO on no aligned progress). */
static int pwrite_direct(int fd, const char *buf, size_t len, uint64_t off, uint32_t align)
{
	while (len) {
		ssize_t n = pwrite(fd, buf, len, (off_t)off);
		size_t k;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		k = (size_t)n & ~(size_t)(align - 1);
		if (!k)
			return -EIO;
		buf += k;
		off += k;
		len -= k;
	}
	return 0;
}

/*
 * tmpfs_readback: write a piece in ENG_READBACK steps, each read back at once into a scratch
 * buffer (see the top, "Read-back"). The bytes read are not looked at: the read is what tells
 * the kernel the pages are in use while that is still cheap.
 */
static int pwrite_readback(int fd, const char *buf, size_t len, uint64_t off)
{
	char scratch[ENG_READBACK] __attribute__((aligned(64)));
	size_t done = 0;
	int ret;

	while (done < len) {
		size_t n = len - done < ENG_READBACK ? len - done : ENG_READBACK;

		ret = cs_imgdir_pwrite_full(fd, buf + done, n, off + done);
		if (ret)
			return ret;
		if (pread(fd, scratch, n, (off_t)(off + done)) < 0)
			return -errno;
		done += n;
	}
	return 0;
}

struct pwrite_piece {
	int fd;
	const char *buf;
	uint64_t off;
	bool readback;
};

static int pwrite_piece(void *arg, size_t at, size_t n)
{
	struct pwrite_piece *p = arg;

	if (p->readback)
		return pwrite_readback(p->fd, p->buf + at, n, p->off + at);
	return cs_imgdir_pwrite_full(p->fd, p->buf + at, n, p->off + at);
}

/* Buffered write in ENG_PIECE pieces, each hashed right before it is written (see the top). */
static int pwrite_hashed(int fd, const char *buf, size_t len, uint64_t off, uint64_t *hash, bool readback)
{
	struct pwrite_piece p = { .fd = fd, .buf = buf, .off = off, .readback = readback };

	return eng_pieces(buf, len, true, pwrite_piece, &p, hash);
}

/* Buffered dump to a disk: start writeback of this chunk now; wait for and drop the previous one. */
static void write_behind(struct eng_thread *t, struct eng_file *f, uint64_t off, uint64_t len)
{
	if (t->reg->memfs)
		return; /* nothing to write back: the pages are the image */
	sync_file_range(f->fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
	if (t->prev_len) {
		int pfd = t->prev_file->fd;

		sync_file_range(pfd, (off_t)t->prev_off, (off_t)t->prev_len,
				SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				    SYNC_FILE_RANGE_WAIT_AFTER);
		posix_fadvise(pfd, (off_t)t->prev_off, (off_t)t->prev_len, POSIX_FADV_DONTNEED);
	}
	t->prev_file = f;
	t->prev_off = off;
	t->prev_len = len;
}

/* through the file's shared mapping: 1 = not possible (go on with pwrite), else 0 or -errno */
static int write_mapped(struct eng_file *f, void *buf, size_t len, uint64_t idx, uint64_t off)
{
	int ret;

	if (!f->map || atomic_load(&f->map_off))
		return 1;
	ret = eng_copy_to_mapping(f->map + off, buf, len);
	if (ret == -EPERM || ret == -ENOSYS) {
		map_give_up(f, ret);
		return 1;
	}
	if (ret)
		eng_fail(f->reg->job, ret,
			 "dump: copying chunk %llu into the mapped %s (offset %llu, %zu bytes) failed: %s",
			 (unsigned long long)idx, f->name, (unsigned long long)off, len, strerror(-ret));
	return ret;
}

/* Where chunk idx of len bytes lies, and how it is read or written: the file, the offset in
 * it, O_DIRECT or not, and the length the I/O moves (aligned up for O_DIRECT). */
struct io_at {
	struct eng_file *f;
	uint64_t off;
	bool direct;
	size_t alen;
};

static struct io_at io_at(struct eng_region *reg, uint64_t idx, size_t len)
{
	struct io_at at = { .f = eng_chunk_file(reg, idx), .off = eng_file_off(reg, idx) };

	at.direct = atomic_load(&at.f->direct);
	at.alen = at.direct ? (size_t)align_up(len, at.f->align) : len;
	return at;
}

int eng_io_write(struct eng_thread *t, void *buf, size_t len, uint64_t idx, uint64_t *hash)
{
	struct eng_region *reg = t->reg;
	struct io_at at = io_at(reg, idx, len);
	struct eng_file *f = at.f;
	uint64_t off = at.off;
	bool direct = at.direct;
	size_t alen = at.alen;
	int ret;

	if (f->map && hash) {
		*hash = eng_hash(buf, len);
		hash = NULL;
	}
	ret = write_mapped(f, buf, len, idx, off);
	if (ret <= 0) {
		if (!ret)
			atomic_fetch_add(&reg->stored, len);
		return ret;
	}
	if (direct && hash) { /* O_DIRECT does not read buf through the cache: hash it first */
		*hash = eng_hash(buf, len);
		hash = NULL;
	}
	if (alen > len)
		memset((char *)buf + len, 0, alen - len); /* O_DIRECT tail; cut off by ftruncate */
	if (direct) {
		ret = pwrite_direct(f->fd, buf, alen, off, f->align);
	} else {
		ret = pwrite_hashed(f->fd, buf, len, off, hash, eng_reads_back(reg));
	}
	if (ret == -EINVAL && direct && fall_back(f)) {
		direct = false;
		ret = cs_imgdir_pwrite_full(f->fd, buf, len, off);
	}
	if (ret == -ENOSPC && reg->space_checked) { /* checked up front, taken since (check_space) */
		no_space(reg, free_bytes(f->fd));
		return ret;
	}
	if (ret) {
		eng_fail(reg->job, ret, "dump: writing chunk %llu of %s (offset %llu, %zu bytes) failed: %s",
			 (unsigned long long)idx, f->name, (unsigned long long)off, alen, strerror(-ret));
		return ret;
	}
	if (direct)
		atomic_store(&f->direct_ok, true);
	else
		write_behind(t, f, off, len);
	atomic_fetch_add(&reg->stored, len);
	return 0;
}

int eng_io_read(struct eng_thread *t, void *buf, size_t len, uint64_t idx, uint64_t *hash)
{
	struct eng_region *reg = t->reg;
	struct io_at at = io_at(reg, idx, len);
	struct eng_file *f = at.f;
	uint64_t off = at.off;
	bool direct = at.direct;
	size_t alen = at.alen;
	size_t got;
	int ret;

	if (f->map) /* tmpfs pages not read since written (engine_mapread.c) */
		return eng_mapread(reg, f, buf, len, off, hash);
	if (direct)
		ret = pread_full(f->fd, buf, alen, len, off, &got, f->align);
	else
		ret = pread_hashed(f->fd, buf, len, off, &got, hash);
	if (ret == -EINVAL && direct && !got && fall_back(f)) {
		direct = false;
		ret = pread_hashed(f->fd, buf, len, off, &got, hash);
	}
	if (ret == -ENODATA) {
		eng_fail(reg->job, -EIO,
			 "restore: short read of chunk %llu from %s at offset %llu: got %zu of %zu bytes "
			 "(file truncated?)",
			 (unsigned long long)idx, f->name, (unsigned long long)off, got, len);
		return -EIO;
	}
	if (ret) {
		eng_fail(reg->job, ret,
			 "restore: reading chunk %llu of %s (offset %llu, %zu bytes) failed: %s",
			 (unsigned long long)idx, f->name, (unsigned long long)off, len, strerror(-ret));
		return ret;
	}
	if (direct) {
		atomic_store(&f->direct_ok, true);
		if (hash)
			*hash = eng_hash(buf, len);
	}
	return 0;
}

/*
 * A zero chunk is not written; its reserved blocks are given back by the copy thread that found
 * it, right away and in parallel with the other threads' copies (a punch after the copy, one
 * file after another, ran on the dump's critical path: on tmpfs every reserved page is freed).
 */
int eng_io_skip(struct eng_thread *t, size_t len, uint64_t idx)
{
	struct eng_region *reg = t->reg;
	struct eng_file *f = eng_chunk_file(reg, idx);
	uint64_t off = eng_file_off(reg, idx);
	int ret;

	if (!f->reserved || atomic_load(&f->no_punch))
		return 0; /* nothing reserved: the chunk is a hole already */
	if (!fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len))
		return 0;
	ret = -errno;
	if (ret == -EOPNOTSUPP) {
		if (!atomic_exchange(&f->no_punch, true))
			eng_note(reg->job, CS_ENGINE_NOTE_WARN,
				 "engine: %s: cannot punch holes; its zero chunks keep their reserved blocks",
				 f->name);
		return 0;
	}
	eng_fail(reg->job, ret, "dump: punching a hole into %s at offset %llu (%zu bytes) failed: %s",
		 f->name, (unsigned long long)off, len, strerror(-ret));
	return ret;
}

static int finish_file(struct eng_region *reg, struct eng_file *f)
{
	int ret;

	if (ftruncate(f->fd, (off_t)f->size)) {
		ret = -errno;
		eng_fail(reg->job, ret, "dump: cannot set the size of %s to %llu bytes: %s", f->name,
			 (unsigned long long)f->size, strerror(-ret));
		return ret;
	}
	/* O_DIRECT bypasses the page cache, not the device's write cache */
	if (fdatasync(f->fd)) {
		ret = -errno;
		eng_fail(reg->job, ret, "dump: fdatasync of %s failed: %s", f->name, strerror(-ret));
		return ret;
	}
	if (!atomic_load(&f->direct) && !reg->memfs)
		posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}

int eng_io_finish_dump(struct eng_region *reg)
{
	unsigned k;
	int ret;

	eng_io_unmap(reg);
	for (k = 0; k < reg->nfiles; k++) {
		ret = finish_file(reg, &reg->files[k]);
		if (ret)
			return ret;
	}
	return 0;
}

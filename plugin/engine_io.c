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
 * tmpfs (opts->map_tmpfs, off by default until measured on a GPU host; performance.md):
 * every write(2) to a tmpfs file holds the file's inode lock, so all the threads of a region
 * queue on one lock, and a dump into /dev/shm stayed near 2 GB/s whatever the thread count.
 * With map_tmpfs the dump maps the fully reserved file shared and each thread copies into the
 * mapping with process_vm_writev on itself: a kernel copy, like write(2), but under no inode
 * lock. A fault the kernel cannot satisfy is EFAULT there, where a plain memcpy would be
 * SIGBUS in CRIU. (A user-space memcpy into the fresh mapping ran at 0.5 GB/s per thread on
 * our development VMs, against 3.3 GB/s for this.) Kernels or sandboxes without the call fall
 * back to pwrite for the file.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "log.h"

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
static uint32_t dio_align(int fd, const char *name)
{
	struct statx stx;

	memset(&stx, 0, sizeof(stx));
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) || !(stx.stx_mask & STATX_DIOALIGN))
		return ENG_ALIGN; /* not reported (older kernel or filesystem) */
	if (!stx.stx_dio_offset_align) {
		cs_info("engine: %s: the filesystem does not support O_DIRECT for it; using buffered I/O",
			name);
		return 0;
	}
	if (stx.stx_dio_offset_align > ENG_ALIGN || stx.stx_dio_mem_align > ENG_ALIGN ||
	    (stx.stx_dio_offset_align & (stx.stx_dio_offset_align - 1))) {
		cs_info("engine: %s: O_DIRECT needs %u-byte offsets and %u-byte buffers here, more than "
			"the %u bytes the engine aligns to; using buffered I/O",
			name, stx.stx_dio_offset_align, stx.stx_dio_mem_align, ENG_ALIGN);
		return 0;
	}
	return stx.stx_dio_offset_align;
}

/* Add O_DIRECT to the open file when asked for and possible; 0, or -errno of a real failure. */
static int try_direct(struct eng_region *reg, const char *what)
{
	const char *name = reg->r->name;
	int ret;

	if (!reg->job->opts->direct_io)
		return 0;
	reg->align = dio_align(reg->fd, name);
	if (!reg->align)
		return 0;
	ret = set_direct(reg->fd, true);
	if (!ret) {
		atomic_store(&reg->direct, true);
		return 0;
	}
	if (ret == -EINVAL) {
		cs_info("engine: %s: the filesystem refuses O_DIRECT; using buffered I/O for this file",
			name);
		return 0;
	}
	eng_fail(reg->job, ret, "%s: cannot enable O_DIRECT on %s: %s", what, name, strerror(-ret));
	return ret;
}


/*
 * The file is created without O_DIRECT and O_DIRECT added with fcntl: an
 * open(O_CREAT|O_EXCL|O_DIRECT) refused with EINVAL may already have created the file, so a
 * buffered retry would fail with EEXIST. fcntl applies the same check as open.
 */
int eng_io_create(struct eng_region *reg)
{
	struct cs_engine_region *r = reg->r;
	int ret;

	reg->fd = cs_imgdir_create(r->dirfd, r->name, 0);
	if (reg->fd < 0) {
		ret = reg->fd;
		reg->fd = -1;
		eng_fail(reg->job, ret, "dump: cannot create extent %s: %s", r->name, strerror(-ret));
		return ret;
	}
	reg->created = true;
	return try_direct(reg, "dump");
}

/* Reserve every block before the first byte moves, so the copy cannot hit ENOSPC midway. */
int eng_io_reserve(struct eng_region *reg)
{
	struct cs_engine_region *r = reg->r;
	struct statvfs vfs;
	int ret;

	if (!r->size)
		return 0;
	if (!fallocate(reg->fd, 0, 0, (off_t)r->size)) {
		reg->reserved = true;
		return 0;
	}
	ret = -errno;
	if (ret == -EOPNOTSUPP || ret == -ENOSYS) {
		cs_debug("engine: %s: fallocate not supported; space is not reserved in advance", r->name);
		return 0;
	}
	if (ret == -ENOSPC) {
		unsigned long long avail = 0;

		if (!fstatvfs(reg->fd, &vfs))
			avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
		eng_fail(reg->job, ret,
			 "dump: no space for extent %s: it needs %llu bytes, the filesystem has %llu free",
			 r->name, (unsigned long long)r->size, avail);
		return ret;
	}
	eng_fail(reg->job, ret, "dump: cannot reserve %llu bytes for extent %s: %s",
		 (unsigned long long)r->size, r->name, strerror(-ret));
	return ret;
}

/* Dump on tmpfs with every block reserved: write through a shared mapping (see the top). */
void eng_io_map(struct eng_region *reg)
{
	struct cs_engine_region *r = reg->r;
	struct statfs sfs;
	void *p;

	if (!reg->job->opts->map_tmpfs || !reg->reserved || fstatfs(reg->fd, &sfs) ||
	    sfs.f_type != TMPFS_MAGIC)
		return;
	p = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, reg->fd, 0);
	if (p == MAP_FAILED) {
		cs_info("engine: %s: cannot map the tmpfs file (%s); writing it with pwrite", r->name,
			strerror(errno));
		return;
	}
	reg->map = p;
	r->used_mapping = true;
	cs_debug("engine: %s: tmpfs: writing through a shared mapping", r->name);
}

void eng_io_unmap(struct eng_region *reg)
{
	if (reg->map)
		munmap(reg->map, reg->r->size);
	reg->map = NULL;
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
static void map_give_up(struct eng_region *reg, int err)
{
	pthread_mutex_lock(&reg->lock);
	if (!atomic_load(&reg->map_off)) {
		atomic_store(&reg->map_off, true);
		reg->r->used_mapping = false;
		cs_info("engine: %s: process_vm_writev is not allowed here (%s); writing with pwrite",
			reg->r->name, strerror(-err));
	}
	pthread_mutex_unlock(&reg->lock);
}

int eng_io_open_ro(struct eng_region *reg)
{
	struct cs_engine_region *r = reg->r;
	struct stat st;
	int fd, ret;

	memset(&st, 0, sizeof(st));
	fd = cs_imgdir_open_ro(r->dirfd, r->name, 0, &st);
	if (fd < 0 && !(fd == -EINVAL && st.st_mode)) { /* st is filled for "not a regular file" */
		eng_fail(reg->job, fd, "restore: cannot open extent %s: %s", r->name, strerror(-fd));
		return fd;
	}
	reg->fd = fd < 0 ? -1 : fd;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != r->size) {
		eng_fail(reg->job, -EINVAL,
			 "restore: extent %s: %s %lld bytes, expected a regular file of %llu bytes", r->name,
			 S_ISREG(st.st_mode) ? "found" : "not a regular file,", (long long)st.st_size,
			 (unsigned long long)r->size);
		return -EINVAL;
	}
	ret = try_direct(reg, "restore");
	if (ret)
		return ret;
	if (!atomic_load(&reg->direct))
		posix_fadvise(reg->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return 0;
}

/* Switch the file to buffered I/O after an O_DIRECT EINVAL; true: retry buffered. */
static bool fall_back(struct eng_region *reg)
{
	bool retry = false;

	pthread_mutex_lock(&reg->lock);
	if (!atomic_load(&reg->direct)) {
		retry = true; /* another thread switched already */
	} else if (!atomic_load(&reg->direct_ok) && !set_direct(reg->fd, false)) {
		atomic_store(&reg->direct, false);
		cs_info("engine: %s: O_DIRECT %s refused with EINVAL; using buffered I/O for this file",
			reg->r->name, reg->job->dump ? "write" : "read");
		retry = true;
	}
	pthread_mutex_unlock(&reg->lock);
	return retry;
}

/*
 * Read until need bytes are in (asking for want >= need); *got says how far it came. align
 * (O_DIRECT: the file's alignment, else 1): a short read goes on from the last aligned byte.
 */
static int pread_full(int fd, char *buf, size_t want, size_t need, uint64_t off, size_t *got,
		      uint32_t align)
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

/* Buffered dump: start writeback of this chunk now; wait for and drop the previous one. */
static void write_behind(struct eng_thread *t, uint64_t off, uint64_t len)
{
	int fd = t->reg->fd;

	sync_file_range(fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
	if (t->prev_len) {
		sync_file_range(fd, (off_t)t->prev_off, (off_t)t->prev_len,
				SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				    SYNC_FILE_RANGE_WAIT_AFTER);
		posix_fadvise(fd, (off_t)t->prev_off, (off_t)t->prev_len, POSIX_FADV_DONTNEED);
	}
	t->prev_off = off;
	t->prev_len = len;
}

int eng_io_write(struct eng_thread *t, void *buf, size_t len, uint64_t idx)
{
	struct eng_region *reg = t->reg;
	uint64_t off = eng_chunk_off(reg, idx);
	bool direct = atomic_load(&reg->direct);
	size_t alen = direct ? (size_t)align_up(len, reg->align) : len;
	int ret;

	if (reg->map && !atomic_load(&reg->map_off)) {
		ret = eng_copy_to_mapping(reg->map + off, buf, len);
		if (ret == -EPERM || ret == -ENOSYS) {
			map_give_up(reg, ret);
		} else if (ret) {
			eng_fail(
			    reg->job, ret,
			    "dump: copying chunk %llu into the mapped %s (offset %llu, %zu bytes) failed: %s",
			    (unsigned long long)idx, reg->r->name, (unsigned long long)off, len,
			    strerror(-ret));
			return ret;
		} else {
			atomic_fetch_add(&reg->stored, len);
			return 0;
		}
	}
	if (alen > len)
		memset((char *)buf + len, 0, alen - len); /* O_DIRECT tail; cut off by ftruncate */
	ret = direct ? pwrite_direct(reg->fd, buf, alen, off, reg->align)
		     : cs_imgdir_pwrite_full(reg->fd, buf, alen, off);
	if (ret == -EINVAL && direct && fall_back(reg)) {
		direct = false;
		ret = cs_imgdir_pwrite_full(reg->fd, buf, len, off);
	}
	if (ret) {
		eng_fail(reg->job, ret, "dump: writing chunk %llu of %s (offset %llu, %zu bytes) failed: %s",
			 (unsigned long long)idx, reg->r->name, (unsigned long long)off, alen,
			 strerror(-ret));
		return ret;
	}
	if (direct)
		atomic_store(&reg->direct_ok, true);
	else
		write_behind(t, off, len);
	atomic_fetch_add(&reg->stored, len);
	return 0;
}

int eng_io_read(struct eng_thread *t, void *buf, size_t len, uint64_t idx)
{
	struct eng_region *reg = t->reg;
	uint64_t off = eng_chunk_off(reg, idx);
	bool direct = atomic_load(&reg->direct);
	size_t alen = direct ? (size_t)align_up(len, reg->align) : len;
	size_t got;
	int ret;

	ret = pread_full(reg->fd, buf, alen, len, off, &got, direct ? reg->align : 1);
	if (ret == -EINVAL && direct && !got && fall_back(reg))
		ret = pread_full(reg->fd, buf, len, len, off, &got, 1);
	if (ret == -ENODATA) {
		eng_fail(reg->job, -EIO,
			 "restore: short read of chunk %llu from %s at offset %llu: got %zu of %zu bytes "
			 "(file truncated?)",
			 (unsigned long long)idx, reg->r->name, (unsigned long long)off, got, len);
		return -EIO;
	}
	if (ret) {
		eng_fail(reg->job, ret,
			 "restore: reading chunk %llu of %s (offset %llu, %zu bytes) failed: %s",
			 (unsigned long long)idx, reg->r->name, (unsigned long long)off, len, strerror(-ret));
		return ret;
	}
	if (atomic_load(&reg->direct))
		atomic_store(&reg->direct_ok, true);
	return 0;
}

/* Give back the reserved blocks of zero chunks (merged into runs). */
static int punch_holes(struct eng_region *reg)
{
	const struct cs_engine_region *r = reg->r;
	uint64_t i = 0, j, off, end;

	while (i < reg->nchunks) {
		if (!r->zero[i]) {
			i++;
			continue;
		}
		for (j = i; j < reg->nchunks && r->zero[j]; j++)
			;
		off = eng_chunk_off(reg, i);
		end = j == reg->nchunks ? r->size : eng_chunk_off(reg, j);
		if (fallocate(reg->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off,
			      (off_t)(end - off))) {
			int ret = -errno;

			if (ret == -EOPNOTSUPP) {
				cs_warn("engine: %s: cannot punch holes; its zero chunks keep their reserved "
					"blocks",
					r->name);
				return 0;
			}
			eng_fail(reg->job, ret,
				 "dump: punching a hole into %s at offset %llu (%llu bytes) failed: %s",
				 r->name, (unsigned long long)off, (unsigned long long)(end - off),
				 strerror(-ret));
			return ret;
		}
		i = j;
	}
	return 0;
}

int eng_io_finish_dump(struct eng_region *reg)
{
	const struct cs_engine_region *r = reg->r;
	int ret;

	eng_io_unmap(reg);
	if (reg->reserved) {
		ret = punch_holes(reg);
		if (ret)
			return ret;
	}
	if (ftruncate(reg->fd, (off_t)r->size)) {
		ret = -errno;
		eng_fail(reg->job, ret, "dump: cannot set the size of %s to %llu bytes: %s", r->name,
			 (unsigned long long)r->size, strerror(-ret));
		return ret;
	}
	/* O_DIRECT bypasses the page cache, not the device's write cache */
	if (fdatasync(reg->fd)) {
		ret = -errno;
		eng_fail(reg->job, ret, "dump: fdatasync of %s failed: %s", r->name, strerror(-ret));
		return ret;
	}
	if (!atomic_load(&reg->direct))
		posix_fadvise(reg->fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}

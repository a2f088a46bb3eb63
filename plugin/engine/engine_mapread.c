// SPDX-License-Identifier: MIT
/*
 * engine_mapread.c - a restore reads a tmpfs extent through a mapping while its pages were never
 * read since they were written.
 *
 * A chunked restore's chunk files are read the same way, mapped into a window of each copy
 * thread's own and dropped ENG_MAP_DROP bytes at a time (eng_mapread_chunk, below), when the
 * same probe over its chunk files says so.
 *
 * Why: tmpfs leaves a page that write(2) created referenced on the inactive LRU list, and the
 * first read(2) of it moves it to the active list, page by page under the LRU lock (engine_io.c,
 * the top). A restore right after a dump is that first read. Copying out of a shared mapping
 * marked MADV_SEQUENTIAL moves nothing: the fault maps the page without marking it accessed,
 * and dropping the mapping skips the accessed bit of a sequential mapping. Creating and removing a
 * mapping per step costs more than dropping the copied pages of one mapping (MADV_DONTNEED), and
 * larger drops cost fewer TLB flushes (the rates: docs/performance.md, "The first read of a tmpfs
 * page"). So each file is mapped once, and a thread claims up to ENG_MAP_DROP bytes of one file at
 * a time (reg->group chunks back to back; engine_restore.c) and drops them in one call when it has
 * copied them.
 *
 * The pages stay unpromoted, so the next read(2) of them pays what this one avoided. Pages
 * read before (a second restore of the same images, a copy) wait for no promotion, and read(2)
 * reads them at least as fast as a mapping does (same section). They go to read(2). Which
 * way a region goes (opts->tmpfs_restore_map):
 *   CS_NO    read(2), as on a disk;
 *   CS_YES   through a mapping, whenever the directory is a memory filesystem;
 *   CS_AUTO  the default: through a mapping when a probe finds the pages unread. The probe
 *            looks at up to MR_PROBES pages spread over the region's stored chunks. As root it
 *            reads their flags (/proc/self/pagemap, /proc/kpageflags, through a sequential
 *            mapping, which changes none): unread pages are on the inactive list and marked
 *            referenced; half of the probes so is enough. Where the flags cannot be read it
 *            reads one byte of each and counts the kernel's promotions around that (/proc/vmstat
 *            pgactivate): unread pages are promoted by the read, pages read before are not. The
 *            kernel counts promotions in per-CPU batches of up to 31, so a quarter of the probes
 *            is enough there; promotions elsewhere on the host can only make this choose the
 *            mapping for pages read before, which costs speed, never bytes. With the multi-gen
 *            LRU, which keeps no such lists, it reads.
 *
 * Safety. The hash is taken over the bytes in our buffer, never over the file's pages, as for
 * read(2) (engine_io.c). A mapping faults with SIGBUS where its file shrank under it, or on a
 * page the kernel cannot read; a plain memcpy would kill the process. The copy runs under a
 * SIGBUS handler that jumps back out of it when the fault is in this thread's copy (the thread
 * lets SIGBUS through for the copy only; engine threads block every signal otherwise): the chunk
 * then fails with EFAULT, and the restore fails as for a short read. A SIGBUS that is not ours
 * goes to the handler that was there before (the default kills the process, as it would have).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "chunkstore.h"
#include "engine_priv.h"
#include "procfs.h"

#define MR_PROBES 64u
#define MR_PAGE	  4096u

/* ---- the guard: a SIGBUS in this thread's copy jumps back to it ---- */

/* volatile: memcpy does not read it, so plain stores around the copy could be dropped */
static _Thread_local sigjmp_buf *volatile guard_env;
static struct sigaction guard_prev;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static int guard_err;

static void guard_forward(int sig, siginfo_t *si, void *uc)
{
	if (guard_prev.sa_flags & SA_SIGINFO) {
		guard_prev.sa_sigaction(sig, si, uc);
	} else if (guard_prev.sa_handler != SIG_DFL && guard_prev.sa_handler != SIG_IGN) {
		guard_prev.sa_handler(sig);
	} else if (guard_prev.sa_handler == SIG_IGN && si->si_code <= 0) {
		return; /* sent by someone, and ignored before: still ignored, the guard stays */
	} else {
		/* the default (or ignoring a fault, which the kernel refuses): put it back; a fault
		 * happens again on return, a SIGBUS sent by someone is sent again */
		sigaction(SIGBUS, &guard_prev, NULL);
		if (si->si_code <= 0)
			raise(SIGBUS);
	}
}

static void guard_handler(int sig, siginfo_t *si, void *uc)
{
	if (guard_env && si->si_code > 0)
		siglongjmp(*guard_env, 1);
	guard_forward(sig, si, uc);
}

static void guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART; /* NODEFER: no mask to restore on the jump */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &guard_prev))
		guard_err = -errno;
}

/* copy len bytes from the mapping; 0, or -EFAULT when the mapping faulted */
static int guarded_copy(char *dst, const char *src, size_t len)
{
	sigjmp_buf env;

	if (sigsetjmp(env, 0)) {
		guard_env = NULL;
		return -EFAULT;
	}
	guard_env = &env;
	memcpy(dst, src, len);
	guard_env = NULL;
	return 0;
}

/* ---- the choice ---- */

struct probes {
	unsigned n;
	int fd[MR_PROBES];
	uint64_t off[MR_PROBES];
	bool own; /* the fds are chunk files opened for the probe, closed after */
};

/*
 * Up to MR_PROBES distinct pages spread over the region's stored chunks: in its extent files,
 * or (chunks) in its chunk files, each opened here for the probe (the read of a chunk that
 * cannot be opened reports it).
 */
static void pick(const struct eng_region *reg, struct probes *p, bool chunks)
{
	uint64_t size = reg->r->size, k, last = UINT64_MAX;

	p->n = 0;
	p->own = chunks;
	for (k = 0; k < MR_PROBES; k++) {
		uint64_t pos = size / MR_PROBES * k / MR_PAGE * MR_PAGE, idx = pos / reg->chunk;
		int fd;

		if (pos == last || pos >= size || reg->r->zero[idx])
			continue;
		last = pos;
		fd = !chunks ? reg->files[idx % reg->nfiles].fd
			     : cs_chunk_open_ro(reg->chunks_fd, reg->r->ids + idx * CS_CHUNK_ID_LEN,
						eng_chunk_len(reg, idx));
		if (fd < 0)
			continue;
		p->fd[p->n] = fd;
		p->off[p->n++] = (chunks ? 0 : eng_file_off(reg, idx)) + pos % reg->chunk;
	}
}

static void probes_close(struct probes *p)
{
	unsigned i;

	for (i = 0; p->own && i < p->n; i++)
		close(p->fd[i]);
	p->n = 0;
}

#define KPF_REFERENCED	2
#define KPF_LRU		5
#define KPF_ACTIVE	6
#define KPF_UNEVICTABLE 18 /* ramfs, locked shm: never promoted, read(2) is fine */
#define PM_PFN(e)	((e) & ((1ull << 55) - 1))

/* the flags of the page at off of fd (mapped sequential and touched, which changes no flag);
 * -1: not known (not resident, or page frames not shown: the caller lacks CAP_SYS_ADMIN) */
static int64_t page_flags(int fd, uint64_t off, int pagemap, int kpageflags)
{
	volatile const char *p = mmap(NULL, MR_PAGE, PROT_READ, MAP_SHARED, fd, (off_t)off);
	uint64_t ent = 0, flags = 0;
	int64_t ret = -1;

	if (p == MAP_FAILED)
		return -1;
	madvise((void *)p, MR_PAGE, MADV_SEQUENTIAL);
	(void)*p;
	if (pread(pagemap, &ent, sizeof(ent), (off_t)((uintptr_t)p / MR_PAGE * sizeof(ent))) == sizeof(ent) &&
	    (ent >> 63) && PM_PFN(ent) &&
	    pread(kpageflags, &flags, sizeof(flags), (off_t)(PM_PFN(ent) * sizeof(flags))) == sizeof(flags))
		ret = (int64_t)(flags & INT64_MAX);
	munmap((void *)p, MR_PAGE);
	return ret;
}

/* probed pages still waiting for their first promotion (on a list, referenced, inactive), by the
 * kernel's page flags; -1 when they cannot be read (not root, no /proc/kpageflags) */
static int unread_by_flags(const struct eng_region *reg, const struct probes *p)
{
	int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	int kf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	int unread = 0;
	unsigned i;

	for (i = 0; i < p->n && pm >= 0 && kf >= 0 && unread >= 0; i++) {
		int64_t fl = page_flags(p->fd[i], p->off[i], pm, kf);

		if (fl < 0)
			unread = -1;
		else if ((fl >> KPF_LRU & 1) && (fl >> KPF_REFERENCED & 1) && !(fl >> KPF_ACTIVE & 1) &&
			 !(fl >> KPF_UNEVICTABLE & 1))
			unread++;
	}
	if (pm < 0 || kf < 0)
		unread = -1;
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return unread;
}

/* promotions a one-byte read of each probed page caused (/proc/vmstat pgactivate; system-wide,
 * so other work can only add to it), or 0 when the counter is not there */
static uint64_t promoted_by_reading(const struct eng_region *reg, const struct probes *p)
{
	uint64_t before = cs_procfs_vmstat("pgactivate");
	unsigned i;
	char c;

	for (i = 0; i < p->n; i++)
		if (pread(p->fd[i], &c, 1, (off_t)p->off[i]) != 1)
			break;
	return before ? cs_procfs_vmstat("pgactivate") - before : 0;
}

/* the multi-gen LRU keeps no active and inactive lists: a first read promotes nothing there */
static bool multigen_lru(void)
{
	char buf[32] = "";
	int fd = open("/sys/kernel/mm/lru_gen/enabled", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 && strtoul(buf, NULL, 16) != 0;
}

/* the probed pages of reg wait for their first promotion (most of them) */
static bool probed_unread(struct eng_region *reg, const struct probes *p)
{
	uint64_t promoted;
	int unread;

	if (!p->n || multigen_lru())
		return false;
	unread = unread_by_flags(reg, p);
	if (unread >= 0) {
		if (2 * (unsigned)unread < p->n) {
			eng_note(reg->job, CS_ENGINE_NOTE_DEBUG,
				 "engine: region %u (%s): few of its pages wait for a promotion (%d of %u "
				 "probed): read(2)",
				 reg->index, reg->r->name, unread, p->n);
			return false;
		}
		eng_note(reg->job, CS_ENGINE_NOTE_INFO,
			 "engine: region %u (%s): its pages were not read since they were written (%d of %u "
			 "probed pages, by their flags): reading them through a mapping",
			 reg->index, reg->r->name, unread, p->n);
		return true;
	}
	promoted = promoted_by_reading(reg, p);
	if (promoted < (p->n + 3) / 4) {
		eng_note(reg->job, CS_ENGINE_NOTE_DEBUG,
			 "engine: region %u (%s): few of its pages wait for a promotion (reading %u of "
			 "them promoted %llu): read(2)",
			 reg->index, reg->r->name, p->n, (unsigned long long)promoted);
		return false;
	}
	eng_note(reg->job, CS_ENGINE_NOTE_INFO,
		 "engine: region %u (%s): its pages were not read since they were written (reading %u of "
		 "them promoted %llu): reading them through a mapping",
		 reg->index, reg->r->name, p->n, (unsigned long long)promoted);
	return true;
}

/* opts->tmpfs_restore_map for reg, probing its extent files or (chunks) its chunk files under auto */
static bool want_map(struct eng_region *reg, bool chunks)
{
	struct probes p;
	bool ret;

	if (reg->job->dump || !reg->memfs || reg->job->opts->tmpfs_restore_map == CS_NO)
		return false;
	if (reg->job->opts->tmpfs_restore_map == CS_YES)
		return true;
	pick(reg, &p, chunks);
	ret = probed_unread(reg, &p);
	probes_close(&p);
	return ret;
}

/* the SIGBUS guard installed once; false (noted) where it cannot be */
static bool guard_ready(struct eng_region *reg)
{
	pthread_once(&guard_once, guard_install);
	if (guard_err)
		eng_note(reg->job, CS_ENGINE_NOTE_INFO,
			 "engine: region %u (%s): cannot catch SIGBUS (%s); reading with read(2)", reg->index,
			 reg->r->name, strerror(-guard_err));
	return !guard_err;
}

static uint32_t plan_group(const struct eng_region *reg);

void eng_mapread_plan(struct eng_region *reg)
{
	unsigned k;

	if (!want_map(reg, false) || !guard_ready(reg))
		return;
	for (k = 0; k < reg->nfiles; k++) {
		struct eng_file *f = &reg->files[k];
		void *p;

		if (!f->size || atomic_load(&f->direct))
			continue;
		p = mmap(NULL, f->size, PROT_READ, MAP_SHARED, f->fd, 0);
		if (p == MAP_FAILED) {
			eng_note(reg->job, CS_ENGINE_NOTE_INFO,
				 "engine: %s: cannot map it (%s); reading it with read(2)", f->name,
				 strerror(errno));
			continue;
		}
		madvise(p, f->size, MADV_SEQUENTIAL); /* no accessed bits: see the top */
		f->map = p;
		reg->r->used_mapping = true;
	}
	if (reg->r->used_mapping) {
		reg->group = plan_group(reg);
		atomic_store(&reg->unclaimed, reg->nchunks);
	}
}

/* chunks per claim: ENG_MAP_DROP bytes, but never fewer claims than threads */
static uint32_t plan_group(const struct eng_region *reg)
{
	uint64_t g = ENG_MAP_DROP / reg->chunk, fair = reg->nchunks / (reg->nthreads ? reg->nthreads : 1);

	if (g > fair)
		g = fair;
	return g ? (uint32_t)g : 1;
}

void eng_mapread_drop(struct eng_region *reg, unsigned k, uint64_t first, uint64_t end)
{
	struct eng_file *f = &reg->files[k];
	uint64_t off = first * reg->chunk, stop = end * reg->chunk;

	if (!f->map || off >= f->size)
		return;
	if (stop > f->size)
		stop = f->size;
	madvise(f->map + off, stop - off, MADV_DONTNEED); /* the page tables stay small */
}

struct map_piece {
	char *dst;
	const char *src;
};

static int map_piece(void *arg, size_t at, size_t n)
{
	struct map_piece *p = arg;

	return guarded_copy(p->dst + at, p->src + at, n);
}

/* len bytes from src into buf, hashed as read(2)'s, under the guard; -EFAULT where it faulted */
static int copy_mapped(char *buf, const char *src, size_t len, uint64_t *hash)
{
	struct map_piece p = { .dst = buf, .src = src };
	sigset_t bus, old;
	int ret;

	/* engine threads block every signal (engine.c), and the kernel kills a thread that faults
	 * with SIGBUS blocked: let the guard have it while this thread copies */
	sigemptyset(&bus);
	sigaddset(&bus, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &bus, &old);
	ret = eng_pieces(buf, len, false, map_piece, &p, hash);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int eng_mapread(struct eng_region *reg, struct eng_file *f, char *buf, size_t len, uint64_t off,
		uint64_t *hash)
{
	int ret = copy_mapped(buf, f->map + off, len, hash);

	if (ret)
		eng_fail(reg->job, ret,
			 "restore: reading %zu bytes of %s at offset %llu through its mapping faulted: the "
			 "file shrank during the restore, or a page of it cannot be read",
			 len, f->name, (unsigned long long)off);
	return ret;
}

/*
 * A chunked restore's files are mapped one after the other into a window of the copy thread's
 * own: ENG_MAP_DROP bytes of address space reserved without access, one chunk per slot. A chunk
 * file mapped into a slot replaces a part of the reservation that holds no page, which flushes
 * nothing; once every slot was used, one mapping of the whole reservation again replaces them
 * all, one TLB flush for ENG_MAP_DROP bytes as the extent files' drops (unmapping each chunk
 * file after its copy would flush once per chunk). The window is the thread's alone, and a slot
 * is only ever mapped over with MAP_FIXED while the reservation covers it: where a mapping fails
 * (and so may have left a hole), the whole window is given back and made again.
 */
void eng_mapread_plan_chunks(struct eng_region *reg)
{
	reg->chunk_map = want_map(reg, true) && guard_ready(reg);
	if (reg->chunk_map)
		reg->r->used_mapping = true;
}

/* chunk slots in a copy thread's window */
static size_t window_slots(const struct eng_region *reg)
{
	return ENG_MAP_DROP / reg->chunk ? ENG_MAP_DROP / reg->chunk : 1;
}

void eng_mapread_window_free(struct eng_thread *t)
{
	if (t->win)
		munmap(t->win, window_slots(t->reg) * t->reg->chunk);
	t->win = NULL;
	t->win_used = 0;
}

#define WIN_PROT_NONE (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

/* t's window with a free slot, reserved or dropped as needed; false: none (read(2) then) */
static bool window_slot(struct eng_thread *t)
{
	size_t slots = window_slots(t->reg), size = slots * t->reg->chunk;
	void *p;

	if (!t->win) {
		p = mmap(NULL, size, PROT_NONE, WIN_PROT_NONE, -1, 0);
		if (p == MAP_FAILED)
			return false;
		t->win = p;
		t->win_used = 0;
	}
	if (t->win_used < slots)
		return true;
	p = mmap(t->win, size, PROT_NONE, WIN_PROT_NONE | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED) {
		eng_mapread_window_free(t);
		return false;
	}
	t->win_used = 0;
	return true;
}

int eng_mapread_chunk(struct eng_thread *t, int fd, const char *rel, char *buf, size_t len, uint64_t *hash)
{
	struct eng_region *reg = t->reg;
	char *p;
	int ret;

	if (!len || len > reg->chunk || !window_slot(t))
		return 1;
	p = mmap(t->win + (size_t)t->win_used * reg->chunk, len, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED) {
		eng_mapread_window_free(t);
		return 1;
	}
	t->win_used++;
	madvise(p, len, MADV_SEQUENTIAL); /* no accessed bits: see the top */
	ret = copy_mapped(buf, p, len, hash);
	if (ret)
		eng_fail(reg->job, ret,
			 "restore: region %u: reading %s/%s (%zu bytes) through its mapping faulted: the "
			 "file shrank during the restore, or a page of it cannot be read",
			 reg->index, CS_CHUNKS_DIR, rel, len);
	return ret;
}

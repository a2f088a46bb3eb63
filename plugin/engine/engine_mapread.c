// SPDX-License-Identifier: MIT
/*
 * engine_mapread.c - a restore reads a tmpfs extent through a mapping while its pages were never
 * read since they were written.
 *
 * Why: tmpfs leaves a page that write(2) created referenced on the inactive LRU list, and the
 * first read(2) of it moves it to the active list, page by page under the LRU lock (engine_io.c,
 * the top). A restore right after a dump is that first read. Copying out of a shared mapping
 * marked MADV_SEQUENTIAL moves nothing: the fault maps the page without marking it accessed,
 * and dropping the mapping skips the accessed bit of a sequential mapping. On the GPU host
 * (16 threads, 16 GiB just written into /dev/shm; performance.md section 4) read(2) ran at
 * 24.5-25.3 GB/s the first time and 55-56 the second; one mapping per file, each 16 MiB dropped
 * (MADV_DONTNEED) right after it was copied, ran the first time at 50.9-54.3 GB/s, and with
 * 64 MiB steps at 67-69. A fresh mapping per step ran at 35.5-39.3 (16 MiB) and 41.5-47.1
 * (64 MiB): creating and removing mappings costs more than dropping pages of one.
 *
 * The pages stay unpromoted, so the next read(2) of them pays what this one avoided; pages
 * read before (a second restore of the same images, a copy) are read faster by read(2). Which
 * way a region goes (opts->tmpfs_restore_map):
 *   CS_NO    read(2), as on a disk;
 *   CS_YES   through a mapping, whenever the directory is a memory filesystem;
 *   CS_AUTO  the default: through a mapping when a probe finds the pages unread. The probe
 *            reads one byte at the start of up to MR_PROBES pages spread over the region's
 *            stored chunks and counts the kernel's promotions (/proc/vmstat pgactivate)
 *            around it: unread pages are promoted by that read, pages read before are not.
 *            The kernel counts promotions in per-CPU batches of up to 31, so a quarter of the
 *            probes is enough. Promotions elsewhere on the host can only make the probe choose
 *            the mapping for pages read before, which costs speed, never bytes. Without the
 *            counter (no /proc, the multi-gen LRU, which keeps no such lists) it reads.
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
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>

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
	} else {
		/* the default (or ignoring it, which the kernel refuses for a fault): put it back;
		 * a fault happens again on return, a SIGBUS sent by someone is sent again */
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

/* promotions the read of up to MR_PROBES unread pages caused, out of *probes */
static uint64_t probe(const struct eng_region *reg, unsigned *probes)
{
	uint64_t size = reg->r->size, before, k, last = UINT64_MAX;
	char c;

	*probes = 0;
	before = cs_procfs_vmstat("pgactivate");
	for (k = 0; k < MR_PROBES; k++) {
		uint64_t pos = size / MR_PROBES * k / MR_PAGE * MR_PAGE, idx = pos / reg->chunk;
		const struct eng_file *f;

		if (pos == last || pos >= size || reg->r->zero[idx])
			continue; /* a page read twice is promoted once: each probe its own page */
		last = pos;
		f = &reg->files[idx % reg->nfiles];
		if (pread(f->fd, &c, 1, (off_t)(eng_file_off(reg, idx) + pos % reg->chunk)) == 1)
			(*probes)++;
	}
	return before ? cs_procfs_vmstat("pgactivate") - before : 0;
}

static bool want_map(struct eng_region *reg)
{
	unsigned probes;
	uint64_t promoted;

	if (reg->job->dump || !reg->memfs || reg->job->opts->tmpfs_restore_map == CS_NO)
		return false;
	if (reg->job->opts->tmpfs_restore_map == CS_YES)
		return true;
	promoted = probe(reg, &probes);
	if (probes && promoted >= (probes + 3) / 4) {
		eng_note(reg->job, CS_ENGINE_NOTE_INFO,
			 "engine: region %u (%s): its pages were not read since they were written (reading "
			 "%u of them promoted %llu): reading them through a mapping",
			 reg->index, reg->r->name, probes, (unsigned long long)promoted);
		return true;
	}
	eng_note(reg->job, CS_ENGINE_NOTE_DEBUG,
		 "engine: region %u (%s): its pages were read before (reading %u of them promoted %llu): "
		 "read(2)",
		 reg->index, reg->r->name, probes, (unsigned long long)promoted);
	return false;
}

void eng_mapread_plan(struct eng_region *reg)
{
	unsigned k;

	if (!want_map(reg))
		return;
	pthread_once(&guard_once, guard_install);
	if (guard_err) {
		eng_note(reg->job, CS_ENGINE_NOTE_INFO,
			 "engine: region %u (%s): cannot catch SIGBUS (%s); reading with read(2)", reg->index,
			 reg->r->name, strerror(-guard_err));
		return;
	}
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
}

int eng_mapread(struct eng_region *reg, struct eng_file *f, char *buf, size_t len, uint64_t off,
		uint64_t *hash)
{
	struct eng_hstate h;
	sigset_t bus, old;
	size_t done = 0;
	int ret = 0;

	/* engine threads block every signal (engine.c), and the kernel kills a thread that faults
	 * with SIGBUS blocked: let the guard have it while this thread copies */
	sigemptyset(&bus);
	sigaddset(&bus, SIGBUS);
	pthread_sigmask(SIG_UNBLOCK, &bus, &old);
	if (hash)
		eng_hstate_reset(&h);
	while (done < len && !ret) {
		size_t n = len - done < ENG_PIECE ? len - done : ENG_PIECE;

		ret = guarded_copy(buf + done, f->map + off + done, n);
		if (!ret && hash)
			eng_hstate_update(&h, buf + done, n);
		done += n;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	madvise(f->map + off, len, MADV_DONTNEED); /* drop what was copied: the page tables stay small */
	if (ret) {
		eng_fail(reg->job, ret,
			 "restore: reading %zu bytes of %s at offset %llu through its mapping faulted: the "
			 "file shrank during the restore, or a page of it cannot be read",
			 len, f->name, (unsigned long long)off);
		return ret;
	}
	if (hash)
		*hash = eng_hstate_digest(&h);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * engine_prefetch.c - read and verify extents into host memory before a restore needs them.
 *
 * CRIU >= 4.2 calls the plugin at POST_FORKING, while it still restores the processes' memory
 * and files; the GPU is only written at RESUME_DEVICES_LATE. The prefetch uses that window: a
 * few threads read the non-zero chunks of every region in order into one private anonymous
 * mapping (MAP_NORESERVE, at most max_bytes) and hash each with XXH3; a chunk whose bytes match
 * its table entry is marked ready. The restore (engine_restore.c) then copies a ready chunk from
 * memory into its pinned buffer instead of reading and hashing it, after checking that its own
 * chunk table (from the manifest it validated itself) expects the very hash that was verified,
 * and gives the memory back (MADV_DONTNEED) right after.
 *
 * The threads run at the lowest CPU priority (nice 19) and in the idle I/O class: the window
 * belongs to CRIU, which restores memory and files at the same time, and the prefetch must only
 * use what CRIU leaves (on a 2-core VM, full-priority prefetch threads made the whole restore
 * slower; docs/performance.md). At most half the CPUs get a prefetch thread.
 *
 * Safety: the bytes that reach the GPU are the bytes that were hashed (our private memory; no
 * file page is trusted after the check), and a prefetch failure of any kind - a file missing,
 * short, replaced, a hash mismatch, no memory - only leaves chunks not ready, which the restore
 * reads and verifies the normal way (and reports, if they are bad).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine_priv.h"
#include "errmsg.h"
#include "imgdir.h"

#define PF_THREADS_MAX 32u

struct pf_region {
	char name[CS_NAME_MAX];
	unsigned nfiles;
	char names[CS_MAX_STRIPES][CS_NAME_MAX];
	int fd[CS_MAX_STRIPES];
	uint64_t size;
	uint32_t chunk;
	uint64_t nchunks;
	uint64_t *hash; /* copy of the table the chunks were verified against */
	uint8_t *zero;	/* copy */
	uint64_t *slot; /* byte offset of a ready chunk in the cache */
	atomic_uchar *ready;
	uint64_t first; /* flattened index of chunk 0 */
};

struct cs_prefetch {
	struct pf_region *r;
	unsigned n;
	char *cache;
	uint64_t cap;
	atomic_uint_fast64_t used;
	atomic_uint_fast64_t next; /* flattened chunk cursor */
	uint64_t total;
	atomic_bool stop;
	atomic_bool full;
	pthread_t tids[PF_THREADS_MAX];
	unsigned nthreads;
	bool settled;
	atomic_uint_fast64_t ready_bytes, taken_bytes, bad_chunks;
	atomic_uint live;
	uint64_t t0_ns;
	_Atomic uint64_t t1_ns;
};

static size_t pf_len(const struct pf_region *p, uint64_t i)
{
	uint64_t off = i * p->chunk;

	return p->size - off < p->chunk ? (size_t)(p->size - off) : p->chunk;
}

/*
 * Read len bytes at off in ENG_PIECE pieces, hashing each while it is in the cache; gives up
 * (-ECANCELED) between pieces once the restore wants the prefetch to stop, so that a thread
 * starved at nice 19 never holds the restore up by more than one piece.
 */
static int pf_read(struct cs_prefetch *pf, int fd, char *buf, size_t len, uint64_t off, uint64_t *hash)
{
	struct eng_hstate h;
	size_t done = 0;

	eng_hstate_reset(&h);
	while (done < len) {
		size_t want = len - done < ENG_PIECE ? len - done : ENG_PIECE, got = 0;

		if (atomic_load_explicit(&pf->stop, memory_order_relaxed))
			return -ECANCELED;
		while (got < want) {
			ssize_t n = pread(fd, buf + done + got, want - got, (off_t)(off + done + got));

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n < 0 ? -errno : -ENODATA;
			got += (size_t)n;
		}
		eng_hstate_update(&h, buf + done, want);
		done += want;
	}
	*hash = eng_hstate_digest(&h);
	return 0;
}

static struct pf_region *pf_locate(struct cs_prefetch *pf, uint64_t g, uint64_t *idx)
{
	unsigned k;

	for (k = pf->n; k-- > 0;) {
		if (g >= pf->r[k].first) {
			*idx = g - pf->r[k].first;
			return *idx < pf->r[k].nchunks ? &pf->r[k] : NULL;
		}
	}
	return NULL;
}

static void pf_one(struct cs_prefetch *pf, struct pf_region *p, uint64_t i)
{
	size_t len = pf_len(p, i), slot_len = (len + 4095) & ~(size_t)4095;
	int fd = p->fd[i % p->nfiles];
	uint64_t at, hash = 0;
	char *dst;
	int ret;

	if (p->zero[i] || fd < 0)
		return;
	at = atomic_fetch_add(&pf->used, slot_len);
	if (at + slot_len > pf->cap) {
		atomic_store(&pf->full, true);
		atomic_store(&pf->stop, true);
		return;
	}
	dst = pf->cache + at;
	ret = pf_read(pf, fd, dst, len, i / p->nfiles * p->chunk, &hash);
	if (ret || hash != p->hash[i]) {
		if (ret != -ECANCELED)
			atomic_fetch_add(&pf->bad_chunks, 1);
		madvise(dst, slot_len, MADV_DONTNEED);
		return;
	}
	p->slot[i] = at;
	atomic_store_explicit(&p->ready[i], 1, memory_order_release);
	atomic_fetch_add(&pf->ready_bytes, len);
}

#define PF_IOPRIO_CLASS_IDLE  3 /* linux/ioprio.h */
#define PF_IOPRIO_CLASS_SHIFT 13

/* this thread only runs (and reads) when nothing else wants the CPU or the disk */
static void pf_background(void)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	setpriority(PRIO_PROCESS, (id_t)tid, 19);
	syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS: a thread id */, tid,
		PF_IOPRIO_CLASS_IDLE << PF_IOPRIO_CLASS_SHIFT);
}

static void *pf_main(void *arg)
{
	struct cs_prefetch *pf = arg;
	struct pf_region *p;
	uint64_t g, i;

	pf_background();

	while (!atomic_load_explicit(&pf->stop, memory_order_relaxed)) {
		g = atomic_fetch_add(&pf->next, 1);
		if (g >= pf->total)
			break;
		p = pf_locate(pf, g, &i);
		if (p)
			pf_one(pf, p, i);
	}
	if (atomic_fetch_sub(&pf->live, 1) == 1)
		atomic_store(&pf->t1_ns, cs_now_ns());
	return NULL;
}

static void pf_region_free(struct pf_region *p)
{
	unsigned k;

	for (k = 0; k < CS_MAX_STRIPES; k++)
		if (p->fd[k] >= 0)
			close(p->fd[k]);
	free(p->hash);
	free(p->zero);
	free(p->slot);
	free(p->ready);
}

/* copy what the threads need; a stripe that cannot be opened as a regular file of the right
 * size is just not prefetched (the restore will say what is wrong with it) */
static int pf_region_init(struct pf_region *p, const struct cs_engine_region *r)
{
	unsigned k;

	for (k = 0; k < CS_MAX_STRIPES; k++)
		p->fd[k] = -1;
	p->nfiles = r->nstripes ? r->nstripes : 1;
	p->size = r->size;
	p->chunk = r->chunk_size;
	p->nchunks = r->nchunks;
	if (p->nfiles > CS_MAX_STRIPES || !eng_chunk_size_ok(p->chunk) || !r->hash || !r->zero ||
	    p->nchunks != (p->size + p->chunk - 1) / p->chunk || p->nfiles > p->nchunks)
		return -EINVAL;
	snprintf(p->name, sizeof(p->name), "%s", r->name);
	p->hash = malloc(p->nchunks * sizeof(*p->hash));
	p->zero = malloc(p->nchunks);
	p->slot = calloc(p->nchunks, sizeof(*p->slot));
	p->ready = calloc(p->nchunks, sizeof(*p->ready));
	if (!p->hash || !p->zero || !p->slot || !p->ready)
		return -ENOMEM;
	memcpy(p->hash, r->hash, p->nchunks * sizeof(*p->hash));
	memcpy(p->zero, r->zero, p->nchunks);
	for (k = 0; k < p->nfiles; k++) {
		const char *name = k ? r->stripe_name[k] : r->name;
		struct stat st = { 0 };
		int fd;

		snprintf(p->names[k], CS_NAME_MAX, "%s", name);
		fd = cs_imgdir_open_ro(r->dirfd, name, 0, &st);
		if (fd < 0)
			continue;
		if ((uint64_t)st.st_size != cs_stripe_size(p->size, p->chunk, p->nfiles, k)) {
			close(fd);
			continue;
		}
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
		p->fd[k] = fd;
	}
	return 0;
}

static void pf_destroy(struct cs_prefetch *pf)
{
	unsigned i;

	for (i = 0; pf->r && i < pf->n; i++)
		pf_region_free(&pf->r[i]);
	free(pf->r);
	if (pf->cache)
		munmap(pf->cache, pf->cap);
	free(pf);
}

static int pf_threads(struct cs_prefetch *pf, unsigned threads)
{
	sigset_t all, old;
	unsigned i;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* as every engine thread: no signal runs here */
	atomic_store(&pf->live, threads);
	for (i = 0; i < threads; i++)
		if (pthread_create(&pf->tids[i], NULL, pf_main, pf))
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pf->nthreads = i;
	if (i < threads) /* those never started will not count down */
		atomic_fetch_sub(&pf->live, threads - i);
	if (!i)
		atomic_store(&pf->t1_ns, cs_now_ns());
	return i ? 0 : -EAGAIN;
}

int cs_prefetch_start(struct cs_prefetch **out, const struct cs_engine_region *regions, unsigned n,
		      unsigned threads, uint64_t max_bytes, char *err, size_t errlen)
{
	struct cs_prefetch *pf;
	unsigned i;
	long cpus;
	int ret;

	*out = NULL;
	if (!n || !max_bytes)
		return cs_fail(-EINVAL, err, errlen, "prefetch: nothing to read (%u regions, %llu bytes)", n,
			       (unsigned long long)max_bytes);
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return cs_fail(-ENOMEM, err, errlen, "prefetch: out of memory");
	pf->t0_ns = cs_now_ns();
	pf->r = calloc(n, sizeof(*pf->r));
	if (!pf->r) {
		ret = cs_fail(-ENOMEM, err, errlen, "prefetch: out of memory");
		goto err;
	}
	for (i = 0; i < n; i++, pf->n++) {
		ret = pf_region_init(&pf->r[i], &regions[i]);
		if (ret) {
			pf->n++;
			cs_seterr(err, errlen, "prefetch: region %u (%s): %s", i, regions[i].name,
				  strerror(-ret));
			goto err;
		}
		pf->r[i].first = pf->total;
		pf->total += pf->r[i].nchunks;
	}
	pf->cap = max_bytes;
	pf->cache =
	    mmap(NULL, pf->cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (pf->cache == MAP_FAILED) {
		pf->cache = NULL;
		ret = cs_fail(-ENOMEM, err, errlen, "prefetch: cannot map %llu bytes: %s",
			      (unsigned long long)max_bytes, strerror(errno));
		goto err;
	}
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus > 1 && threads > (unsigned long)cpus / 2)
		threads = (unsigned)(cpus / 2);
	if (threads < 1)
		threads = 1;
	if (threads > PF_THREADS_MAX)
		threads = PF_THREADS_MAX;
	ret = pf_threads(pf, threads);
	if (ret) {
		cs_seterr(err, errlen, "prefetch: cannot start threads");
		goto err;
	}
	*out = pf;
	return 0;
err:
	pf_destroy(pf);
	return ret;
}

static void pf_join(struct cs_prefetch *pf, bool stop)
{
	unsigned i;

	if (!pf || pf->settled)
		return;
	if (stop)
		atomic_store(&pf->stop, true);
	for (i = 0; i < pf->nthreads; i++)
		pthread_join(pf->tids[i], NULL);
	pf->settled = true;
}

void cs_prefetch_settle(struct cs_prefetch *pf)
{
	pf_join(pf, true);
}

void cs_prefetch_wait(struct cs_prefetch *pf)
{
	pf_join(pf, false);
}

void cs_prefetch_free(struct cs_prefetch *pf)
{
	if (!pf)
		return;
	cs_prefetch_settle(pf);
	pf_destroy(pf);
}

void cs_prefetch_get_stats(struct cs_prefetch *pf, struct cs_prefetch_stats *st)
{
	uint64_t t1 = atomic_load(&pf->t1_ns);

	st->ready_bytes = atomic_load(&pf->ready_bytes);
	st->taken_bytes = atomic_load(&pf->taken_bytes);
	st->bad_chunks = atomic_load(&pf->bad_chunks);
	st->full = atomic_load(&pf->full);
	st->seconds = (double)((t1 ? t1 : cs_now_ns()) - pf->t0_ns) / 1e9;
}

/* ---- used by the restore (engine.c, engine_restore.c) ---------------------------------------- */

/* the prefetched region that holds exactly r's files and chunking, or NULL */
struct pf_region *eng_prefetch_find(struct cs_prefetch *pf, const struct cs_engine_region *r)
{
	unsigned i, k, nfiles = r->nstripes ? r->nstripes : 1;

	if (!pf || !pf->settled)
		return NULL;
	for (i = 0; i < pf->n; i++) {
		struct pf_region *p = &pf->r[i];

		if (strcmp(p->name, r->name) || p->size != r->size || p->chunk != r->chunk_size ||
		    p->nfiles != nfiles || p->nchunks != r->nchunks)
			continue;
		for (k = 0; k < nfiles; k++)
			if (strcmp(p->names[k], k ? r->stripe_name[k] : r->name))
				break;
		if (k == nfiles)
			return p;
	}
	return NULL;
}

/* the restore of this region is over (done or failed): give back what it did not take */
void eng_prefetch_release(struct cs_prefetch *pf, struct pf_region *p)
{
	if (!pf || !p)
		return;
	for (uint64_t i = 0; i < p->nchunks; i++) {
		if (!atomic_exchange(&p->ready[i], 0))
			continue;
		madvise(pf->cache + p->slot[i], (pf_len(p, i) + 4095) & ~(size_t)4095, MADV_DONTNEED);
	}
}

/*
 * Copy chunk idx into buf if it was prefetched and verified against the hash the restore
 * expects (want); then its memory goes back to the kernel. true: buf holds the chunk.
 */
bool eng_prefetch_take(struct cs_prefetch *pf, struct pf_region *p, uint64_t idx, void *buf, size_t len,
		       uint64_t want)
{
	size_t slot_len = (len + 4095) & ~(size_t)4095;
	char *src;

	if (!p || idx >= p->nchunks || pf_len(p, idx) != len || p->hash[idx] != want ||
	    !atomic_exchange_explicit(&p->ready[idx], 0, memory_order_acquire)) /* taken once */
		return false;
	src = pf->cache + p->slot[idx];
	memcpy(buf, src, len);
	madvise(src, slot_len, MADV_DONTNEED);
	atomic_fetch_add(&pf->taken_bytes, len);
	return true;
}

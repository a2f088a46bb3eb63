/* SPDX-License-Identifier: MIT */
/*
 * emu.h - internals of the libcuda.so.1 / libnvidia-ml.so.1 emulator (make check only).
 *
 * One library serves both sides of a checkpoint:
 *  - the application: device memory lives in one memfd per device, mapped MAP_SHARED at a
 *    fixed virtual address per physical device (so device pointers survive restore, like UVA);
 *    cuInit starts a driver thread ("cs-emu-driver") that serves checkpoint requests on the
 *    abstract unix socket "\0cudastore-emu.<pid>";
 *  - the caller (cudastore-helper): the cuCheckpoint* functions talk to the target's
 *    driver thread, one short connection per request (emu_proto.c).
 * Only symbols marked EMU_API are exported; the libraries are built -fvisibility=hidden.
 * All configuration comes from CUDASTORE_EMU_* variables (emu_config.c, docs/testing.md).
 */
#ifndef CUDASTORE_EMU_H
#define CUDASTORE_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_api.h"

struct cs_op;

#define EMU_API __attribute__((visibility("default")))

#define EMU_MAXDEV	    8
#define EMU_MAXPAIRS	    32
#define EMU_MAXALLOC	    1024
#define EMU_ALIGN	    (2UL << 20) /* allocation granularity */
/*
 * Device 0's base, far below the kernel's mmap area. AddressSanitizer keeps its heap at
 * 0x600000000000 on x86-64, so the sanitizer build (tests/test-sanitizers.sh) moves the devices
 * 16 TiB lower, out of its way.
 */
#ifdef __SANITIZE_ADDRESS__
#define EMU_VA_BASE 0x500000000000UL
#else
#define EMU_VA_BASE 0x600000000000UL
#endif
#define EMU_VA_STRIDE	    0x10000000000UL  /* 1 TiB per physical device */
#define EMU_DRIVER_COMM	    "cs-emu-driver"
#define EMU_SOCK_PREFIX	    "cudastore-emu."
#define EMU_MEMFD_PREFIX    "cudastore-emu:"
#define EMU_DEFAULT_VERSION 13040
#define EMU_DEFAULT_MEM_MB  4096
#define EMU_NAME_LEN	    96 /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */

/*
 * Attributes cuda.h numbers that cudastore's own declarations do not name (emulator names, so
 * that a later declaration of the real ones cannot clash with them).
 */
#define EMU_ATTR_PCI_DOMAIN_ID 50 /* CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID */
#define EMU_ATTR_CC_MAJOR      75 /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
#define EMU_ATTR_CC_MINOR      76 /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR */

/*
 * What one GPU is: every fact a device reports through CUDA and NVML. The configuration holds
 * one per physical device of the emulated host; a restore onto another GPU gives the
 * application's device the facts of the caller's destination device (emu_dev_move).
 */
struct emu_gpu {
	CUuuid uuid;
	char name[EMU_NAME_LEN];
	int cc_major, cc_minor;
	unsigned int pci_domain, pci_bus, pci_device, pci_function;
	bool mig;	/* MIG mode enabled (NVML only: CUDA has no attribute for it) */
	uint64_t mem;	/* total bytes */
	uint64_t other; /* bytes used by processes outside the emulation (other tenants) */
	unsigned int minor; /* its /dev/nvidiaN number (NVML's minor number); default: its index */
};

/* ---- configuration (emu_config.c): parsed once per process, aborts on a malformed value ---- */
struct emu_fault {
	char name[48];
	int pid;	  /* "name@PID": only calls concerning target PID count; 0: every call */
	unsigned int nth; /* 1-based */
	bool and_later;	  /* "N+" */
	CUresult code;
};

struct emu_delay {
	char name[48];
	unsigned int ms;
};

#define EMU_MAXSPEC 16
struct emu_config {
	int driver_version;
	char driver_string[32]; /* nvmlSystemGetDriverVersion: "580.159.04", the branch first */
	int ndev;		/* physical devices: what NVML and a caller with no CUDA_VISIBLE_DEVICES see */
	struct emu_gpu gpu[EMU_MAXDEV];
	/*
	 * CUDA_VISIBLE_DEVICES as the driver reads it: libcuda's ordinal i is physical device
	 * visible[i]. Unset: every device, in order. NVML ignores it, as the real one does.
	 */
	int nvisible;
	int visible[EMU_MAXDEV];
	int nfault;
	struct emu_fault fault[EMU_MAXSPEC];
	int ndelay;
	struct emu_delay delay[EMU_MAXSPEC];
	char abort_op[16];
	char trace[256];
	unsigned int rate_mbps; /* the driver's own per-process rate, 10^6 bytes/s; 0: no limit */
	char device_file[256];	/* opened and mapped at cuInit, as the driver's /dev/nvidia*; "": none */
	bool ipc_importer;	/* imports another's GPU memory by CUDA IPC: never restored before 13.4 */
};

const struct emu_config *emu_config(void);
/*
 * Inside emu_config's one parse: the emulated host's GPUs, driver version string and
 * CUDA_VISIBLE_DEVICES into c, whose driver_version and ndev are read already (emu_host.c).
 */
void emu_host_load(struct emu_config *c);
/* for the parsers: print "cudastore-emu[PID]: <message>" and abort */
__attribute__((noreturn, format(printf, 1, 2))) void emu_cfg_die(const char *fmt, ...);
/* a decimal number in [min, max] at text (*end after it), else emu_cfg_die naming var */
long emu_cfg_number(const char *var, const char *text, char **end, long min, long max);
/*
 * Counts one call of name concerning target pid (0: a call about no other process); returns
 * the injected CUresult, or CUDA_SUCCESS. Safe from any number of threads.
 */
CUresult emu_fault_hit(const char *name, int pid);
unsigned int emu_delay_ms(const char *name);
uint64_t emu_now_ns(void); /* CLOCK_MONOTONIC */
/*
 * Appends "pid tid name result begin_ns end_ns target" to $CUDASTORE_EMU_TRACE with one
 * write() (open/append/close), so lines of concurrent calls never mix. target: the process
 * the call concerns, 0 for none.
 */
void emu_trace_span(const char *name, CUresult res, uint64_t begin_ns, uint64_t end_ns, int target);
/* A line for an instant event: begin = end = now, target 0. */
void emu_trace(const char *name, CUresult res);
/* A DtoH copy of bytes succeeded: counted into $CUDASTORE_EMU_DTOH_COUNT.<pid> (emu_dtoh_count.c) */
void emu_dtoh_count(size_t bytes);

/* ---- every API call goes through begin/end (emu_call.c) ---- */
enum {
	EMU_F_INIT = 1, /* needs cuInit */
	EMU_F_GATE = 2, /* touches device state: blocked while the process is LOCKED */
};

struct emu_call {
	const char *name;
	bool gated;
	int target;	   /* the process the call concerns (fault qualifier, trace), or 0 */
	uint64_t begin_ns; /* CLOCK_MONOTONIC at entry */
};

/* target: the pid the call concerns (a checkpoint call's pid, a mapping's owner), or 0 */
CUresult emu_call_begin(struct emu_call *c, const char *name, unsigned int flags, int target);
CUresult emu_call_end(struct emu_call *c, CUresult res);
/* Shorthand for an API function body: begin, run expr if allowed, end. */
#define EMU_CALL_FOR(name, flags, target, expr)                                                              \
	do {                                                                                                 \
		struct emu_call c_;                                                                          \
		CUresult r_ = emu_call_begin(&c_, name, flags, target);                                      \
		if (r_ == CUDA_SUCCESS)                                                                      \
			r_ = (expr);                                                                         \
		return emu_call_end(&c_, r_);                                                                \
	} while (0)
#define EMU_CALL(name, flags, expr) EMU_CALL_FOR(name, flags, 0, expr)

/* The API gate of the application: Lock waits for in-flight calls, then holds new ones. */
void emu_gate_enter(void);
void emu_gate_leave(void);
CUresult emu_gate_lock(unsigned int timeout_ms);
void emu_gate_unlock(void);

/* ---- init and devices (emu_init.c, emu_device.c) ---- */
bool emu_initialized(void);
/* libcuda's devices: the ordinals CUDA_VISIBLE_DEVICES leaves this process */
int emu_ndev(void);
/* The facts device ordinal dev reports now (a restore onto another GPU changes them). */
const struct emu_gpu *emu_dev_gpu(int dev);
void emu_dev_uuid(int dev, CUuuid *out);
/* A restore put the device's memory on GPU to: from now on it reports to's facts. */
void emu_dev_move(int dev, const struct emu_gpu *to);
size_t emu_dev_capacity(int dev);
/* What this process may allocate on dev: its capacity less what other tenants use. */
size_t emu_dev_avail(int dev);
/*
 * The physical device ordinal dev showed at start-up: its memory lives at that device's
 * fixed address range, for the life of the process (a restore elsewhere keeps the address).
 */
int emu_dev_slot(int dev);
int emu_ctx_current_dev(void); /* -1 without a current context */
bool emu_ctx_retained(int dev);
CUcontext emu_ctx_of(int dev);
/* Streams created by the driver itself (CustomStorage entries in the caller). */
CUresult emu_stream_new(CUstream *out, int dev);
void emu_stream_free(CUstream stream);
int emu_driver_start(void);

/* ---- device memory (emu_mem.c) ---- */
uintptr_t emu_dev_base(int dev);
int emu_mem_reserve(int dev);
/* After a move: extends dev's reserved range when its capacity grew from old_cap. 0 or -errno. */
int emu_mem_recap(int dev, size_t old_cap);
CUresult emu_mem_alloc(int dev, size_t bytes, CUdeviceptr *out);
CUresult emu_mem_free(CUdeviceptr ptr);
size_t emu_mem_used(int dev);
size_t emu_mem_saved(int dev); /* used bytes recorded at checkpoint */
/*
 * Host address of [ptr, ptr+len) if it lies in live device memory or a caller mapping, else
 * NULL. A range in a caller mapping pins that operation (*pin, else NULL): drop it with
 * emu_op_unpin() once the bytes are moved.
 */
void *emu_mem_resolve(CUdeviceptr ptr, size_t len, struct cs_op **pin);
/* app side, driver thread only; each returns 0 or -errno */
int emu_mem_export_fd(int dev);
int emu_mem_release(int dev);
int emu_mem_install(int dev, int fd);
int emu_mem_host_save(void);
int emu_mem_host_load(void);

/*
 * Caller-side mappings of another process's memory (emu_checkpoint.c), one operation per
 * CustomStorage checkpoint or restore. Safe from any number of threads.
 *  - emu_op_pin: the operation whose mapping holds [ptr, ptr+len), pinned, or NULL. Its
 *    Complete waits until every pin is dropped, so a copy never meets a vanished mapping.
 *  - emu_op_owner: the target pid of that operation, or 0 (no pin).
 *  - emu_op_handle_pid: the target pid of an operation handle, or 0 if unknown.
 */
struct cs_op *emu_op_pin(CUdeviceptr ptr, size_t len);
void emu_op_unpin(struct cs_op *op); /* NULL is fine */
int emu_op_owner(CUdeviceptr ptr, size_t len);
int emu_op_handle_pid(CUcheckpointOperationHandle handle);

/* ---- protocol between caller and the target's driver thread (emu_proto.c) ---- */
enum emu_op {
	EMU_OP_STATE = 1,
	EMU_OP_LOCK,
	EMU_OP_CHECKPOINT,
	EMU_OP_RESTORE,
	EMU_OP_COMPLETE,
	EMU_OP_UNLOCK,
};
#define EMU_MAGIC 0x43534555u /* "UESC" */

struct emu_req {
	uint32_t magic;
	uint32_t op;
	int32_t caller_pid;
	uint32_t timeout_ms;
	uint32_t custom;  /* CustomStorage requested */
	uint32_t ncaller; /* devices the caller sees */
	struct emu_gpu caller_gpu[EMU_MAXDEV]; /* and their facts: a restore's destinations */
	uint32_t retained; /* bit n: caller retained the primary context of its device n */
	uint32_t npairs;
	CUcheckpointGpuPair pairs[EMU_MAXPAIRS];
	uint32_t nfd; /* COMPLETE after restore: fds attached, one per entry */
	int32_t fd_dev[EMU_MAXDEV];
};

struct emu_rep_dev {
	int32_t app_dev;    /* ordinal in the target */
	int32_t caller_dev; /* ordinal in the caller */
	uint64_t size;
	CUuuid uuid; /* the target's device UUID (checkpoint) or the new one (restore) */
};

struct emu_rep {
	uint32_t magic;
	int32_t result;
	uint32_t state;
	uint32_t ndev;
	struct emu_rep_dev dev[EMU_MAXDEV];
};

const char *emu_op_name(uint32_t op);
int emu_sock_listen(int pid);
/* Connect to pid's driver thread: fd, or -errno (-ECONNREFUSED / -ENOENT: nobody listens). */
int emu_sock_connect(int pid);
int emu_msg_send(int sk, const void *buf, size_t len, const int *fds, int nfd);
/* Receives exactly len bytes; fds (up to maxfd) land in fds[], their count in *nfd. */
int emu_msg_recv(int sk, void *buf, size_t len, int *fds, int *nfd, int maxfd);

/* ---- application side state machine, run by the driver thread (emu_driver.c) ---- */
void emu_driver_serve(int sk);

#endif /* CUDASTORE_EMU_H */

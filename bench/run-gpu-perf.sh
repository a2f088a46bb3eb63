#!/usr/bin/env bash
# run-gpu-perf.sh - all the numbers of the copy-engine targets (docs/performance.md, section 3)
# in one go on the NVIDIA host, plus the restore overlap, then a summary that checks each target.
# Runs from the GPU artifacts folder (scripts/make-gpu-artifacts.sh) as root; nothing installed.
#
#   ./run-gpu-perf.sh [-o OUTDIR] [-d DISKDIR] [-w WINDOW_S] [-s SHM_SIZES] [-k DISK_SIZES]
#                     [-m MAP_SIZE] [-g GPU_SIZE] [-p PROCS_SIZES]
#
# (The size options exist for dry runs on small machines; the defaults are the targets' sizes.)
#
#   1. cs-bench --dir /dev/shm/b --sizes 8G,32G --kinds dense,zero75 --overlap WINDOW --pool --limits-after
#      (defaults; the storage limits measured again after each row, reported beside the targets)
#   2. cs-bench --dir DISKDIR --sizes 8G --kinds dense,zero75                            (defaults)
#   3. cs-bench --dir /dev/shm/b --sizes "$MAP_SIZE" --kinds dense --no-naive --tmpfs-map        (the alternative)
#      cs-bench --dir /dev/shm/b --sizes "$MAP_SIZE" --kinds dense --no-naive --pool --tmpfs-readback
#      (the dump reads each step back: a slower dump for a first restore without the kernel's promotions)
#      and the pooled row again in a tmpfs mounted with huge=within_size (2 MiB pages)
#   4. cs-bench --dir /dev/shm/b --sizes 16G,4G --kinds dense,zero75 --no-naive --procs 4
#      (4 concurrent copies of 4 GiB and of 1 GiB, sharers 4, against the 4-copy storage limit)
#   5. criu-overlap.sh: whole `criu restore` with and without the prefetch (driver emulator,
#      2 x 1 GiB GPU buffers, 2 GiB host memory, images in /dev/shm, 3 runs each)
# About 6 minutes on the 1 x H200 host; every step has a time limit (at most 865 s in all), and
# what a step printed before its limit is kept. Everything goes to OUTDIR (*.out, *.err, results.jsonl,
# summary.txt); the summary is also printed last.
set -uo pipefail
ART=$(cd "$(dirname "$0")" && pwd)
BIN=$ART/bin
[ -x "$BIN/cs-bench" ] || BIN=$ART # a build tree: bench/cs-bench next to this script
OUT=$PWD/perf-$(hostname -s 2>/dev/null || echo host)-$(date +%Y%m%d-%H%M%S)
DISK=/var/tmp/cs-bench
WINDOW=2 SHM_SIZES=8G,32G DISK_SIZES=8G MAP_SIZE=32G GPU_SIZE=1g HOST_MB=2048 PROCS_SIZES=16G,4G
while getopts o:d:w:s:k:m:g:p: opt; do
	case $opt in
	o) OUT=$OPTARG ;;
	d) DISK=$OPTARG ;;
	w) WINDOW=$OPTARG ;;
	s) SHM_SIZES=$OPTARG ;;
	k) DISK_SIZES=$OPTARG ;;
	m) MAP_SIZE=$OPTARG ;;
	g) GPU_SIZE=$OPTARG; HOST_MB=256 ;;
	p) PROCS_SIZES=$OPTARG ;;
	*) echo "usage: $0 [-o OUTDIR] [-d DISKDIR] [-w WINDOW_S] [-s SHM_SIZES] [-k DISK_SIZES] [-m MAP_SIZE] [-g GPU_SIZE] [-p PROCS_SIZES]" >&2; exit 2 ;;
	esac
done
SHM=/dev/shm/b
mkdir -p "$OUT" || exit 1
{
	echo "# $(date -u +%FT%TZ) $(uname -srm); $(nproc) cpus"
	nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,memory.total \
		--format=csv,noheader 2>/dev/null || echo "# nvidia-smi not available"
	df -h /dev/shm "$(dirname "$DISK")" 2>/dev/null
	free -g
	cat /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null
} >"$OUT/host.txt" 2>&1
cat "$OUT/host.txt"

rc=0
step() { # step NAME LIMIT_S command...
	local name=$1 limit=$2 r
	shift 2
	echo "== $(date +%T) $name: $*"
	timeout -k 10 "$limit" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
	r=$?
	cat "$OUT/$name.out"
	[ $r = 0 ] || { echo "$name: exit $r (see $OUT/$name.err)"; tail -n 5 "$OUT/$name.err"; rc=1; }
}
step shm 340 "$BIN/cs-bench" --dir "$SHM" --sizes "$SHM_SIZES" --kinds dense,zero75 --overlap "$WINDOW" --pool --limits-after
rm -rf "$SHM"
step disk 110 "$BIN/cs-bench" --dir "$DISK" --sizes "$DISK_SIZES" --kinds dense,zero75
rm -rf "$DISK"
step shm-map 55 "$BIN/cs-bench" --dir "$SHM" --sizes "$MAP_SIZE" --kinds dense --no-naive --tmpfs-map
rm -rf "$SHM"
step shm-readback 70 "$BIN/cs-bench" --dir "$SHM" --sizes "$MAP_SIZE" --kinds dense --no-naive --pool --tmpfs-readback
rm -rf "$SHM"
# the same on a tmpfs of 2 MiB pages (huge=within_size): one page promotion per 2 MiB, not per 4 KiB
HUGE=$(mktemp -d /tmp/cs-bench-huge.XXXXXX)
if mount -t tmpfs -o huge=within_size,size=70G,mode=0700 cs-bench-huge "$HUGE" 2>/dev/null; then
	step shm-huge 70 "$BIN/cs-bench" --dir "$HUGE/b" --sizes "$MAP_SIZE" --kinds dense --no-naive --pool
	umount "$HUGE"
else
	echo "== shm-huge: skipped (cannot mount a tmpfs with huge=within_size here)"
fi
rmdir "$HUGE"
# a process tree's copies at once: each row's size is the total, split over 4 engine calls
step shm-procs 150 "$BIN/cs-bench" --dir "$SHM" --sizes "$PROCS_SIZES" --kinds dense,zero75 --no-naive --procs 4
rm -rf "$SHM"
if [ -x "$ART/criu/criu" ] && [ -e "$ART/emu/libcuda.so.1" ]; then
	step criu-overlap 70 "$ART/criu-overlap.sh" --criu "$ART/criu/criu" --plugins "$ART/plugins" \
		--workload "$BIN/cuda-workload" --emu "$ART/emu" --size "$GPU_SIZE" --buffers 2 --host-mb "$HOST_MB" --runs 3 \
		--images /dev/shm/cudastore-overlap
else
	echo "== criu-overlap: skipped (no criu bundle or emulator in $ART)"
fi
grep -h '^{' "$OUT"/*.out >"$OUT/results.jsonl" 2>/dev/null

# the targets, checked from the JSON lines
if command -v python3 >/dev/null; then
	python3 - "$OUT/results.jsonl" "$DISK" <<'PY' | tee "$OUT/summary.txt"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
eng = [r for r in rows if r.get("bench") == "cs-bench"]
ovl = [r for r in rows if r.get("bench") == "cs-bench-overlap"]
cri = [r for r in rows if r.get("bench") == "criu-overlap"]
prc = [r for r in rows if r.get("bench") == "cs-bench-procs"]
def res(ok, what): print(("MET   " if ok else "MISSED") + "  " + what)
def find(d, size, kind, mapped=False, readback=False):
    for r in eng:
        if r["dir"].startswith(d) and r["size"] == size and r["kind"] == kind and r["tmpfs_mapped"] == mapped and r.get("tmpfs_readback", False) == readback:
            return r
G = 1 << 30
def threads(r, copy):
    """where the copy threads' time went (the engine's io_seconds and gpu_wait_seconds)"""
    t = r.get(copy + "_threads_s", 0)
    return "; its threads' time: %.0f %% in the files and checks, %.0f %% waiting for the GPU" % (100 * r[copy + "_io_s"] / t, 100 * r[copy + "_gpu_wait_s"] / t) if t > 0 else ""
def after(r, key, lim):
    """the ratio against the limit measured again after the row (cs-bench --limits-after)"""
    return "; against the limit measured again after the row: %.2f (%.2f GB/s)" % (r[key], r[lim]) if r.get(lim, 0) > 0 else ""
print("== targets (docs/performance.md, section 3)")
r = find("/dev/shm", 32 * G, "dense")
if r: res(r["dump_gbps"] >= 10, "dump into /dev/shm at 32 GiB >= 10 GB/s: %.2f GB/s" % r["dump_gbps"])
for s in (8, 32):
    r = find("/dev/shm", s * G, "dense")
    if r: res(r["restore_ratio"] >= 0.9, "restore from /dev/shm %g GiB >= 0.9 of the read limit (%d readers): %.2f (%.2f of %.2f GB/s)" % (s, r["restore_threads"], r["restore_ratio"], r["restore_gbps"], r["limit_restore_gbps"]))
for s in (8, 32):
    r = find("/dev/shm", s * G, "dense")
    if r and r.get("dump_pool_gbps", 0) > 0:
        res(r["dump_pool_ratio"] >= 0.8, "dump into /dev/shm %g GiB with the pool (as the plugin) >= 0.8 of the write limit: %.2f (%.2f of %.2f GB/s)%s" % (s, r["dump_pool_ratio"], r["dump_pool_gbps"], r["storage_write_gbps"], after(r, "dump_pool_ratio_after", "limit_dump_after_gbps")))
        res(r["restore_pool_ratio"] >= 0.9, "pooled restore from /dev/shm %g GiB >= 0.9 of the read limit (its faster, second pass): %.2f (%.2f of %.2f GB/s); of the first read of pages just written: %.2f (%.2f GB/s); pages promoted during it: %d; %s%s" % (s, r["restore_pool_ratio"], r["restore_pool_gbps"], r["limit_restore_gbps"], r["restore_pool_first_ratio"], r["storage_read_first_gbps"], r.get("restore_pool_pages_promoted", -1), "read through mappings" if r.get("restore_pool_mapped") else "read with read(2)", after(r, "restore_pool_ratio_after", "limit_restore_after_gbps") + threads(r, "restore_pool")))
        z = find("/dev/shm", s * G, "zero75")
        if z: res(z["dump_pool_gbps"] >= r["dump_pool_gbps"], "/dev/shm %g GiB: 75%%-zero dump per logical byte >= dense: %.2f vs %.2f GB/s" % (s, z["dump_pool_gbps"], r["dump_pool_gbps"]))
for r in eng:
    if r["dir"].startswith(sys.argv[2]) and r["kind"] == "dense": # step 2 (not the 2 MiB-page tmpfs)
        res(r["dump_ratio"] >= 0.95 and r["restore_ratio"] >= 0.95, "disk %g GiB dense >= 0.95 of the limits: dump %.2f, restore %.2f" % (r["size"] / G, r["dump_ratio"], r["restore_ratio"]))
for r in eng:
    if r["naive_dump_gbps"] > 0:
        res(r["dump_gbps"] >= r["naive_dump_gbps"] and r["restore_gbps"] >= r["naive_restore_gbps"], "%s %g GiB %s >= naive: dump %.2f vs %.2f, restore %.2f vs %.2f" % (r["dir"], r["size"] / G, r["kind"], r["dump_gbps"], r["naive_dump_gbps"], r["restore_gbps"], r["naive_restore_gbps"]))
for r in eng:
    if r["kind"] == "zero75" and r["naive_dump_gbps"] > 0: # steps 1 and 2 (target 2)
        d = find(r["dir"], r["size"], "dense", r["tmpfs_mapped"])
        if d: res(r["restore_gbps"] >= 3 * d["restore_gbps"], "%s %g GiB: 75%%-zero restore >= 3x dense: %.1fx (%.2f vs %.2f GB/s)" % (r["dir"], r["size"] / G, r["restore_gbps"] / d["restore_gbps"], r["restore_gbps"], d["restore_gbps"]))
res(all(r["pinned_bytes"] <= r["pinned_max"] for r in eng) and eng, "pinned memory within its bound in every row (max %d of %d)" % (max([r["pinned_bytes"] for r in eng] or [0]), max([r["pinned_max"] for r in eng] or [0])))
for r in prc:
    what = "%d concurrent copies of %g GiB, %s, /dev/shm" % (r["procs"], r["size_per_proc"] / G, r["kind"])
    res(r["dump_target_met"], "%s: dump aggregate >= 0.8 of the limit (min of pinned D2H %.2f and the %d-writer storage %.2f): %.2f (%.2f of %.2f GB/s; copies' sum %.2f x wall)" % (what, r.get("pcie_d2h_gbps", 0), r["procs"] * r["dump_threads"], r["storage_write_gbps"], r["dump_ratio"], r["dump_gbps"], r.get("limit_dump_gbps", r["storage_write_gbps"]), r["dump_sum_s"] / max(r["dump_wall_s"], 1e-9)))
    res(r["restore_target_met"], "%s: restore aggregate >= 0.8 of the limit (min of pinned H2D %.2f and the %d-reader storage %.2f): %.2f (%.2f of %.2f GB/s; copies' sum %.2f x wall)" % (what, r.get("pcie_h2d_gbps", 0), r["procs"] * r["restore_threads"], r["storage_read_gbps"], r["restore_ratio"], r["restore_gbps"], r.get("limit_restore_gbps", r["storage_read_gbps"]), r["restore_sum_s"] / max(r["restore_wall_s"], 1e-9)))
res(all(r["verified"] for r in eng + ovl + prc) and eng, "every row verified (%d rows, %d overlap rows, %d procs rows)" % (len(eng), len(ovl), len(prc)))
print("== restore overlap")
for r in ovl:
    print("cs-bench %g GiB %s, %.1f s window: GPU phase %.3f -> %.3f s (%.0f %% hidden), window + GPU phase %.0f %% shorter; prefetched %d of the image's bytes" % (r["size"] / G, r["kind"], r["window_s"], r["restore_plain_s"], r["restore_after_s"], 100 * r["gpu_phase_hidden"], 100 * r["total_hidden"], r["prefetch_bytes"]))
for r in cri:
    print("criu restore (%s, %s x %s, %s MiB host): %.3f s without, %.3f s with the %s (%.1f %% less); GPU phase %.3f -> %.3f s; %d failures" % ("real GPU" if r.get("real_gpu") else "emulator", r["buffers"], r["size"], r["host_mb"], r["restore_off_s"], r["restore_on_s"], r.get("compare", "prefetch"), 100 * (r["restore_off_s"] - r["restore_on_s"]) / max(r["restore_off_s"], 1e-9), r["gpu_off_s"], r["gpu_on_s"], r["failures"]))
r = find("/dev/shm", 32 * G, "dense", True)
d = find("/dev/shm", 32 * G, "dense")
if r and d: print("mapped tmpfs writes, 32 GiB dense: dump %.2f GB/s (default pwrite into stripes: %.2f)" % (r["dump_gbps"], d["dump_gbps"]))
# the /dev/shm dense row of this size with the pool and the default engine options (step 1)
def shm_pooled_default(size):
    return next((x for x in eng if x["dir"].startswith("/dev/shm") and x["size"] == size and x["kind"] == "dense" and not x["tmpfs_mapped"] and not x.get("tmpfs_readback") and x.get("dump_pool_gbps", 0) > 0), None)
for r in [r for r in eng if r["dir"].startswith("/tmp/cs-bench-huge") and r.get("dump_pool_gbps", 0) > 0]:
    d = shm_pooled_default(r["size"])
    print("== tmpfs with 2 MiB pages (huge=within_size; %g GiB dense, pooled)" % (r["size"] / G))
    res(r["restore_pool_ratio"] >= 0.9, "pooled restore >= 0.9 of the read limit (its faster pass): %.2f (%.2f of %.2f GB/s; first read %.2f GB/s; pages promoted during it: %d)" % (r["restore_pool_ratio"], r["restore_pool_gbps"], r["limit_restore_gbps"], r["storage_read_first_gbps"], r.get("restore_pool_pages_promoted", -1)))
    res(r["dump_pool_ratio"] >= 0.8, "dump with the pool >= 0.8 of the write limit: %.2f (%.2f of %.2f GB/s)%s" % (r["dump_pool_ratio"], r["dump_pool_gbps"], r["storage_write_gbps"], ("; /dev/shm (step 1): dump %.2f GB/s (write limit %.2f), restore %.2f GB/s (first read %.2f)" % (d["dump_pool_gbps"], d["storage_write_gbps"], d["restore_pool_gbps"], d["storage_read_first_gbps"])) if d else ""))
for r in [r for r in eng if r.get("tmpfs_readback") and r["kind"] == "dense" and r.get("dump_pool_gbps", 0) > 0]:
    d = shm_pooled_default(r["size"])
    print("== tmpfs_readback (%g GiB dense, pooled; the dump reads each step back)" % (r["size"] / G))
    res(r["restore_pool_ratio"] >= 0.9, "pooled restore >= 0.9 of the read limit (its faster pass): %.2f (%.2f of %.2f GB/s; pages promoted during the dump %d, during the restore %d)" % (r["restore_pool_ratio"], r["restore_pool_gbps"], r["limit_restore_gbps"], r.get("dump_pool_pages_promoted", -1), r.get("restore_pool_pages_promoted", -1)))
    print("dump with the pool %.2f GB/s = %.2f of the write limit %.2f%s" % (r["dump_pool_gbps"], r["dump_pool_ratio"], r["storage_write_gbps"], ("; without readback (step 1): dump %.2f GB/s, restore %.2f GB/s" % (d["dump_pool_gbps"], d["restore_pool_gbps"])) if d and d.get("dump_pool_gbps", 0) > 0 else ""))
PY
fi
echo "results in $OUT"
exit $rc

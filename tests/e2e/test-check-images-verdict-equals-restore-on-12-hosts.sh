#!/bin/bash
# cudastore check --images says before a restore what the restore then does. A tree of two CUDA
# processes (a GPU each, on a 2-GPU emulated host, driver 615.20.01) and a CPU-only child is dumped
# once in each mode (CustomStorage, driver-managed); then, for each of 18 emulated target hosts, the
# check runs with the host's emulator variables (the same ones criu restore gets in CRIU_ENV) and
# the images are restored there. Each time the check's exit status and JSON verdict are the ones
# the host is expected to get, and the restore does the same: it succeeds, puts each GPU where
# the check's placement said and the tree verifies every byte; or it fails, logging every reason
# the check gave, word for word, and no process of the tree runs.
# The hosts: the same one; CUDA_VISIBLE_DEVICES in the caller's environment (the helper that
# restores sees every GPU, so the check ignores it); another product name; another compute
# capability; less memory per GPU; one GPU fewer; one GPU full of another tenant's memory; an
# older driver of the branch; a newer one; another branch; an older CUDA driver API; MIG on; the
# checkpointed UUIDs absent but equivalent GPUs there (automatic placement); the UUIDs in the
# other order with an ordinal device map; a device map naming a GPU that is not there; another
# build of the same libcuda (a copy of the emulator with another GNU build id: a note, not a
# refusal); no GPU at all (cuInit fails); another CPU architecture (linux32: uname says i686).
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
command -v python3 >/dev/null || skip_all "python3 not installed"
CS=$CUDASTORE_CMD
# UUIDs of this test only: the emulated NVML counts every process's memory on a UUID, host-wide
A0=GPU-c4ec1a9e-0000-4000-8000-00000000a000 A1=GPU-c4ec1a9e-0000-4000-8000-00000000a001
B0=GPU-c4ec1a9e-0000-4000-8000-00000000b000 B1=GPU-c4ec1a9e-0000-4000-8000-00000000b001
export CUDASTORE_EMU_DEVICES=2 CUDASTORE_EMU_UUIDS=$A0,$A1 CUDASTORE_EMU_DRIVER_STRING=615.20.01

# another build of the emulated libcuda: a copy whose GNU build id differs in one byte
OTHER=$WORK/other-libcuda
mkdir -p "$OTHER"
python3 - "$CUDASTORE_LIBCUDA" "$OTHER/libcuda.so.1" <<'PY' || bail "cannot make a libcuda with another build id"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
phoff, = struct.unpack_from('<Q', b, 0x20)
phentsize, phnum = struct.unpack_from('<HH', b, 0x36)
for i in range(phnum):
    ph = phoff + i * phentsize
    if struct.unpack_from('<I', b, ph)[0] != 4:  # PT_NOTE
        continue
    off, = struct.unpack_from('<Q', b, ph + 8)
    size, = struct.unpack_from('<Q', b, ph + 32)
    p = off
    while p + 12 <= off + size:
        nsz, dsz, typ = struct.unpack_from('<III', b, p)
        name = p + 12
        desc = name + ((nsz + 3) & ~3)
        if typ == 3 and b[name:name + 4] == b'GNU\0':  # NT_GNU_BUILD_ID
            b[desc] ^= 0xff
            open(sys.argv[2], 'wb').write(b)
            sys.exit(0)
        p = desc + ((dsz + 3) & ~3)
sys.exit(1)
PY
chmod 755 "$OTHER/libcuda.so.1"
# criu as another CPU architecture would run it: uname says i686 (x86_64) or armv8l (aarch64)
CRIU32=$WORK/criu-linux32
printf '#!/bin/sh\nexec linux32 %s "$@"\n' "$CRIU" >"$CRIU32"
chmod 755 "$CRIU32"
[ "$(linux32 uname -m)" != "$(uname -m)" ] || bail "linux32 does not change the CPU architecture uname gives"

# NAME|WANT|WRAP|VARIABLES: a target host (WRAP linux32: another CPU architecture)
HOSTS=(
	"the same host|yes||"
	"CUDA_VISIBLE_DEVICES=1 in the caller's environment|yes||CUDA_VISIBLE_DEVICES=1"
	"another product name|no||CUDASTORE_EMU_NAMES=NVIDIA-A100-SXM4-80GB"
	"another compute capability|no||CUDASTORE_EMU_CC=8.0"
	"less memory per GPU|no||CUDASTORE_EMU_MEM_MB=2048"
	"one GPU fewer|no||CUDASTORE_EMU_DEVICES=1"
	"one GPU full of another tenant's memory|no||CUDASTORE_EMU_USED_MB=0,4096"
	"an older driver of the branch|no||CUDASTORE_EMU_DRIVER_STRING=615.10.00"
	"a newer driver of the branch|yes||CUDASTORE_EMU_DRIVER_STRING=615.30.02"
	"another driver branch|no||CUDASTORE_EMU_DRIVER_STRING=620.10.00"
	"an older CUDA driver API|no||CUDASTORE_EMU_DRIVER_VERSION=13000"
	"MIG on|no||CUDASTORE_EMU_MIG=1"
	"the UUIDs absent, equivalent GPUs there|yes||CUDASTORE_EMU_UUIDS=$B0,$B1"
	"the UUIDs in the other order, an ordinal device map|yes||CUDASTORE_EMU_UUIDS=$B1,$B0 CUDASTORE_DEVICE_MAP=0=1,1=0"
	"a device map naming a GPU not here|no||CUDASTORE_DEVICE_MAP=$A0=$B0,$A1=$B1"
	"another build of the same libcuda|yes||CUDASTORE_LIBCUDA=$OTHER/libcuda.so.1"
	"no GPU at all|no||CUDASTORE_EMU_DEVICES=0"
	"another CPU architecture|no|linux32|"
)
plan $((2 * (2 + 2 * ${#HOSTS[@]})))

# the tree of MODE: the root and a CUDA child (a GPU each) and a CPU-only child, dumped into
# $WORK/MODE; sets PIDS
dump_tree() {
	local mode=$1 k
	start_workload "$mode" --size 4m --fork-cuda 1 --fork-cpu 1 --gpu-each
	sleep 0.5
	PIDS="$WPID $(cat /proc/"$WPID"/task/*/children)"
	for k in $PIDS; do PIDS_TO_KILL="$PIDS_TO_KILL $k"; done
	check "$mode: the tree has 3 processes ($PIDS)" [ "$(echo $PIDS | wc -w)" = 3 ]
	CRIU_ENV="CUDASTORE_MODE=$mode" criu_dump "$WORK/$mode" "$WPID"
	check "$mode: criu dump succeeds" [ $? = 0 ]
	tree_gone
}
tree_gone() { local p; for p in $PIDS; do wait_gone "$p"; done; }

# agrees JSON LOG VERDICT: the restore's log holds what the check said: every reason, word for word
# (refuse), or every placement and note (restore)
agrees() {
	python3 - "$@" <<'PY'
import json, sys
img = json.load(open(sys.argv[1]))['images']
log = open(sys.argv[2], 'rb').read().decode('utf-8', 'replace')
if sys.argv[3] == 'refuse':
    need = ['this host cannot restore these images: ' + r for r in img['reasons']]
else:
    need = ['placement: checkpointed GPU %s is restored onto %s (GPU %d here): %s' %
            (p['from_uuid'], p['to_uuid'], p['to_ordinal'], p['how']) for p in img['placement']]
    need += ['placement: ' + n for n in img['notes']]
    if len(img['placement']) != 2:
        print('# the check placed %d GPUs, not 2' % len(img['placement']))
        sys.exit(1)
missing = [n for n in need if n not in log]
for n in missing:
    print('# not in the restore log: ' + n[:300])
sys.exit(1 if missing or not need else 0)
PY
}

# judge MODE HOST: the check, then the restore, on HOST (an entry of HOSTS)
judge() {
	local mode=$1 name want wrap vars tag rc v got criu=$CRIU verdict same p
	IFS='|' read -r name want wrap vars <<<"$2"
	tag=$WORK/$mode-$(echo "$name" | tr -c 'a-zA-Z0-9\n' '-')
	# shellcheck disable=SC2086 # vars: the host's variables, split on purpose
	env $vars $wrap "$CS" check --images "$WORK/$mode" --json >"$tag.json" 2>"$tag.err"
	rc=$?
	# shellcheck disable=SC2086
	env $vars $wrap "$CS" check --images "$WORK/$mode" >"$tag.txt" 2>>"$tag.err"
	verdict=$(json_get "$tag.json" "d['images']['verdict']" 2>/dev/null)
	diag "$mode, $name: $(sed -n 's/^  reason: *//p;s/^  placement: *//p;s/^  note: *//p' "$tag.txt" | head -n 2 | cut -c1-150 | paste -sd'|' -)"
	check "$mode, $name: check says $want (exit $rc, verdict ${verdict:-none}, text: $(head -n1 "$tag.txt" | sed 's/.*: //'))" \
		[ "$rc/$verdict/$(head -n1 "$tag.txt" | sed 's/.*: //')" = "$([ "$want" = yes ] && echo 0/restore/yes || echo 1/refuse/no)" ]
	rm -f "$WORK/$mode.out"
	[ "$wrap" = linux32 ] && criu=$CRIU32
	CRIU=$criu CRIU_ENV="$vars" criu_restore "$WORK/$mode"
	rc=$?
	mv "$WORK/$mode/restore.log" "$tag.restore.log"
	sleep 0.3
	if [ "$rc" = 0 ]; then
		v=$(verdict "$WPID" "$WORK/$mode.out")
		got=yes
		[ "$v" = PASS ] || got="no (restored, but the tree says: $v)"
		for p in $PIDS; do kill -9 "$p" 2>/dev/null; done # the CPU-only child too
	else
		got=no
		gone $PIDS || got="no, but a process of the tree runs"
	fi
	same=false
	[ "$got" = "$want" ] && [ -n "$verdict" ] && agrees "$tag.json" "$tag.restore.log" "$verdict" && same=true
	check "$mode, $name: the restore agrees: $got" $same
	tree_gone
}

for mode in custom driver; do
	dump_tree "$mode"
	for h in "${HOSTS[@]}"; do
		judge "$mode" "$h"
	done
done
done_testing

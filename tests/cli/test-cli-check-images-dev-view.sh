#!/bin/bash
# cudastore check --images DIR --dev DEVDIR judges as the restore does inside a container whose
# /dev is DEVDIR: only the GPUs whose device node (/dev/nvidiaN, by minor number) DEVDIR holds.
# On a 3-GPU emulated host whose GPUs have minors 4,0,7 (CUDASTORE_EMU_MINORS), with one-GPU
# images whose GPU this host lacks (cs-sparse-images, format 1.1: placed by ordinal, else the
# first GPU it can open): without --dev GPU 0; with a /dev holding minor 7 (named nvidia0, as a
# container names it) GPU 2; a map onto GPU 0 then refused, naming the node; a /dev without GPU
# nodes restricts nothing (a note says so); an unreadable --dev and --dev without --images are
# usage errors.
. "$top_srcdir/tests/e2e/lib.sh"
setup_work; use_emulator
command -v python3 >/dev/null || skip_all "python3 not installed"
[ "$(id -u)" = 0 ] || skip_all "mknod needs root"
CS=$CUDASTORE_CMD
SPARSE=$top_builddir/tests/cli/cs-sparse-images
export CUDASTORE_EMU_DEVICES=3 CUDASTORE_EMU_MINORS=4,0,7
plan 9
mkdir -p "$WORK/one" "$WORK/dev7" "$WORK/devnone"
"$SPARSE" "$WORK/one" 7 1 $((1 << 20)) $((2 << 20)) index || bail "cs-sparse-images failed"
mknod "$WORK/dev7/nvidia0" c 195 7 || bail "mknod failed"
mknod "$WORK/dev7/nvidiactl" c 195 255 || bail "mknod failed"
mknod "$WORK/devnone/null" c 1 3 || bail "mknod failed"
j() { json_get "$WORK/$1.json" "$2"; }
run() { # run NAME ARGS...: NAME.json, exit status in RC
	local name=$1; shift
	"$CS" check --json "$@" >"$WORK/$name.json" 2>"$WORK/$name.err"
	RC=$?
}

run all --images "$WORK/one"
check "without --dev: every GPU counts, placed on GPU 0 ($RC)" \
	[ "$RC/$(j all "d['images']['placement'][0]['to_ordinal']")" = "0/0" ]
run dev7 --images "$WORK/one" --dev "$WORK/dev7"
check "--dev holding minor 7 (as nvidia0): placed on GPU 2, the one of minor 7 ($RC)" \
	[ "$RC/$(j dev7 "d['images']['placement'][0]['to_ordinal']")" = "0/2" ]
check "a note says which device nodes the /dev holds" \
	[ "$(j dev7 "any('holds the GPU device nodes of minor numbers 7: 1 of this host' in n for n in d['images']['notes'])")" = True ]
CUDASTORE_DEVICE_MAP=0=0 run map0 --images "$WORK/one" --dev "$WORK/dev7"
check "a map onto GPU 0 (minor 4), which that /dev lacks: no, exit 1 ($RC)" [ "$RC" = 1 ]
check "the reason names the device node, in the restore's words" \
	[ "$(j map0 "any('which the restored process cannot open: its /dev has no device node of minor 4' in r for r in d['images']['reasons'])")" = True ]
run none --images "$WORK/one" --dev "$WORK/devnone"
check "a /dev without GPU nodes restricts nothing: GPU 0, with a note ($RC)" \
	[ "$RC/$(j none "d['images']['placement'][0]['to_ordinal']")/$(j none "any('holds no GPU device node' in n for n in d['images']['notes'])")" = "0/0/True" ]
"$CS" check --images "$WORK/one" --dev "$WORK/nonexistent" >"$WORK/bad.out" 2>&1
RC=$?
check "an unreadable --dev: exit 2 ($RC)" [ "$RC" = 2 ]
check "the error names it" grep -q "cannot read --dev $WORK/nonexistent" "$WORK/bad.out"
"$CS" check --dev "$WORK/dev7" >"$WORK/alone.out" 2>&1
RC=$?
check "--dev without --images: usage error, exit 2 ($RC)" [ "$RC" = 2 ]
done_testing

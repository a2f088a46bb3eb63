#!/bin/bash
# cudastore check --images on images a restore cannot trust or that record less than it judges
# by, each verdict confirmed by a restore of the same images. A process on two emulated GPUs is
# dumped (CustomStorage, format 1.4); copies of its images then get, through cs-manifest-tool (the
# frame's checksum kept right, so only the decoder's checks can catch it):
#   - a driver version with a control byte, a driver branch its version contradicts, a GPU name
#     with a newline: the decoder refuses the manifest, so the check says no (exit 1), naming
#     the manifest and the decoder's words, and the restore refuses the images (nothing runs);
#   - a well-formed host of another CPU architecture (aarch64): no, for the arch, word for word
#     the restore's reason;
#   - no facts at all (format 1.3, before the GPUs and the host were recorded): yes, with a note
#     that the facts are missing and the GPUs were judged by UUID, and the restore succeeds with
#     every byte; on a host without those UUIDs: no ("hold no facts"), as the restore says;
#   - a manifest the dump's index does not list: a note that a restore ignores it, still yes.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
command -v python3 >/dev/null || skip_all "python3 not installed"
CS=$CUDASTORE_CMD
TOOL=$top_builddir/tests/e2e/cs-manifest-tool
C0=GPU-c4ec1a9e-0000-4000-8000-00000000c000 C1=GPU-c4ec1a9e-0000-4000-8000-00000000c001
D0=GPU-c4ec1a9e-0000-4000-8000-00000000d000 D1=GPU-c4ec1a9e-0000-4000-8000-00000000d001
export CUDASTORE_EMU_DEVICES=2 CUDASTORE_EMU_UUIDS=$C0,$C1
plan 20
start_workload w --devices 2 --size 4m
criu_dump "$WORK/img" "$WPID"
check "criu dump of a process on two GPUs succeeds" [ $? = 0 ]
wait_gone "$WPID"
M=cudastore-$WPID.img

# variant NAME TOOL-ARGS...: a copy of the images whose manifest cs-manifest-tool changed
variant() {
	local name=$1; shift
	cp -a "$WORK/img" "$WORK/$name"
	"$TOOL" "$WORK/$name/$M" "$@" || bail "cs-manifest-tool $* failed"
}
# judge NAME [VAR=VALUE...]: check --images (JSON in NAME.json, text in NAME.txt, exit in RC)
judge() {
	local name=$1; shift
	env "$@" "$CS" check --images "$WORK/$name" --json >"$WORK/$name.json" 2>"$WORK/$name.err"
	RC=$?
	env "$@" "$CS" check --images "$WORK/$name" >"$WORK/$name.txt" 2>>"$WORK/$name.err"
}
j() { json_get "$WORK/$1.json" "$2"; }
# restored NAME [VAR=VALUE...]: criu restore of NAME's images; RRC its exit status
restored() {
	local name=$1; shift
	rm -f "$WORK/w.out"
	CRIU_ENV="$*" criu_restore "$WORK/$name"
	RRC=$?
}

# ---- identity fields the decoder refuses
variant ctl set-host driver_version "$(printf '615.20.01\a')"
variant branch set-host driver_version 620.10.00
variant name set-gpu-name 0 "$(printf 'NVIDIA\nH200')"
for v in "ctl|host.driver_version holds byte 0x07" "branch|driver_branch is 615, its driver version '620.10.00' says 620" \
	"name|gpus[0].name holds byte 0x0a"; do
	name=${v%%|*} words=${v#*|}
	judge "$name"
	check "$name: check says no (exit $RC), naming $M and the decoder's words" \
		[ "$RC/$(j "$name" "(d['images']['verdict'], any(r.startswith('$M: ') and \"$words\" in r for r in d['images']['reasons']))")" = "1/('refuse', True)" ]
	restored "$name"
	check "$name: the restore refuses the images too ($RRC), with the same words, and nothing runs" \
		bash -c "[ $RRC != 0 ] && grep -aqF \"$words\" '$WORK/$name/restore.log' && ! kill -0 $WPID 2>/dev/null"
	wait_gone "$WPID"
done
check "the text names the manifest and says what to run" \
	grep -q "^  reason: *$M: .*cudastore verify" "$WORK/branch.txt"

# ---- a well-formed host of another CPU architecture
variant arch set-host arch aarch64
judge arch
check "another CPU architecture: check says no (exit $RC)" [ "$RC/$(j arch "d['images']['verdict']")" = 1/refuse ]
restored arch
check "the restore refuses it with the check's reason, word for word ($RRC)" bash -c "[ $RRC != 0 ] &&
	grep -aqF \"this host cannot restore these images: $(j arch "d['images']['reasons'][0]")\" '$WORK/arch/restore.log' &&
	grep -aqF 'the images come from a aarch64 host and this one is $(uname -m)' '$WORK/arch/restore.log'"
wait_gone "$WPID"

# ---- no facts (format 1.3): judged by UUID
variant nofacts make-1.3
check "the manifest now records no facts" bash -c "'$TOOL' '$WORK/nofacts/$M' show | grep -qx 'gpus 0' &&
	'$TOOL' '$WORK/nofacts/$M' show | grep -qx 'host none'"
judge nofacts
NOTE=$(j nofacts "[n for n in d['images']['notes'] if 'format before 1.4' in n][0]" 2>/dev/null)
said=false
[ "$RC/$(j nofacts "(d['images']['verdict'], len(d['images']['placement']))")" = "0/('restore', 2)" ] && [ -n "$NOTE" ] && said=true
check "no facts, the same GPUs: yes (exit $RC), with a note that the facts are missing" $said
check "the note says the GPUs are judged by their UUIDs" bash -c "grep -q '^  note: .*only their UUIDs and CUDA version are judged' '$WORK/nofacts.txt'"
check "each GPU goes to the one of its UUID" \
	[ "$(j nofacts "sorted((p['from_uuid'] == p['to_uuid'], p['to_uuid']) for p in d['images']['placement'])")" = "[(True, '$C0'), (True, '$C1')]" ]
restored nofacts
said=false
[ "$RRC" = 0 ] && grep -aqF -- "placement: $NOTE" "$WORK/nofacts/restore.log" && said=true
check "the restore succeeds as the check said ($RRC), with the same note" $said
check_verdict w "$WPID" "the process restored from images without facts verified every byte"
wait_gone "$WPID"
judge nofacts CUDASTORE_EMU_UUIDS=$D0,$D1
check "no facts, the UUIDs absent: no (exit $RC): the GPUs cannot be matched" \
	[ "$RC/$(j nofacts "(d['images']['verdict'], any('hold no facts' in r for r in d['images']['reasons']))")" = "1/('refuse', True)" ]
restored nofacts CUDASTORE_EMU_UUIDS=$D0,$D1
check "the restore refuses them with the check's reason, word for word ($RRC), nothing runs" bash -c "[ $RRC != 0 ] &&
	grep -aqF \"this host cannot restore these images: $(j nofacts "d['images']['reasons'][0]")\" '$WORK/nofacts/restore.log' &&
	! kill -0 $WPID 2>/dev/null"
wait_gone "$WPID"

# ---- a manifest the index does not list
cp -a "$WORK/img" "$WORK/stray"
cp "$WORK/img/$M" "$WORK/stray/cudastore-4242.img"
judge stray
check "a manifest the index does not list: still yes (exit $RC), one process judged" \
	[ "$RC/$(j stray "(d['images']['verdict'], d['images']['processes'])")" = "0/('restore', 1)" ]
check "... with a note that a restore ignores it" \
	[ "$(j stray "any(n.startswith('ignoring cudastore-4242.img: not a file of this dump') for n in d['images']['notes'])")" = True ]
done_testing

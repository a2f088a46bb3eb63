#!/bin/bash
# The shapes of cudastore check --images, without criu: tiny images (cs-sparse-images: format
# 1.1, no host facts, GPUs the emulated host does not have) judged on a 2-GPU emulated host.
# Text: the verdict line "this host can restore DIR: yes|no", the images and this host, then each
# placement or every reason, then the notes. JSON: the check's schema-2 object with ok, exit_code
# (error when no) and "images" (dir, verdict, gpu_state, processes, placement, reasons, notes,
# host), each with its type, and nothing of the dump's check. Text and JSON say the same. A
# checkpoint archive is read like its directory; CRIU images without GPU state are a yes; a
# directory without images, or one that does not exist, is no verdict; CUDA_VISIBLE_DEVICES in the
# caller's environment does not hide a GPU from the check (it does not from the restore); without
# --images, check prints what it always did.
. "$top_srcdir/tests/e2e/lib.sh"
setup_work; use_emulator
command -v python3 >/dev/null || skip_all "python3 not installed"
CS=$CUDASTORE_CMD
SPARSE=$top_builddir/tests/cli/cs-sparse-images
export CUDASTORE_EMU_DEVICES=2
plan 17
mkdir -p "$WORK/one" "$WORK/two" "$WORK/cpu" "$WORK/none"
"$SPARSE" "$WORK/one" 7 1 $((1 << 20)) $((2 << 20)) index || bail "cs-sparse-images failed"
"$SPARSE" "$WORK/two" 8 2 $((1 << 20)) $((2 << 20)) index || bail "cs-sparse-images failed"
: >"$WORK/cpu/inventory.img"
tar czf "$WORK/one.tgz" -C "$WORK" one
U1=GPU-01000000-0000-0000-0000-000000000000 # cs-sparse-images' device 0
run() { # run NAME ARGS...: NAME.txt (text), NAME.json (--json), exit status in RC (of --json)
	local name=$1; shift
	"$CS" check "$@" >"$WORK/$name.txt" 2>"$WORK/$name.err"
	"$CS" check --json "$@" >"$WORK/$name.json" 2>>"$WORK/$name.err"
	RC=$?
}
j() { json_get "$WORK/$1.json" "$2"; }

# ---- yes: one GPU, placed
run one --images "$WORK/one"
check "one GPU: exit 0, the verdict line says yes" \
	[ "$RC/$(head -n1 "$WORK/one.txt")" = "0/this host can restore $WORK/one: yes" ]
check "the text: images, this host, the placement, the notes, in that order" python3 - "$WORK/one.txt" "$U1" "$(uname -m)" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()[1:]
want = [r'  images:      1 process\(es\), 1 checkpointed GPU\(s\)$',
        r'  this host:   driver 615\.00\.00 \(CUDA 13\.4, CustomStorage\), ' + sys.argv[3] + r', 2 GPU\(s\)$',
        r'  placement:   checkpointed GPU ' + sys.argv[2] + r' -> GPU 0 here \(GPU-[0-9a-f-]{36}\): .+']
ok = len(lines) > 3 and all(re.match(w, l) for w, l in zip(want, lines))
ok = ok and all(l.startswith('  note:        ') for l in lines[3:])
if not ok:
    print('\n'.join('# ' + l for l in lines))
sys.exit(0 if ok else 1)
PY
check "JSON: the check's object, ok, exit_code 0, no error, nothing of the dump's check" \
	[ "$(j one "(d['schema'], d['command'], d['ok'], d['exit_code'], 'error' in d, 'problems' in d, 'options' in d)")" = \
	"(2, 'check', True, 0, False, False, False)" ]
check "JSON: images with dir, verdict restore, gpu_state, processes, placement, reasons, notes, host" \
	[ "$(j one "(sorted(d['images']), d['images']['dir'], d['images']['verdict'], d['images']['gpu_state'], d['images']['processes'], d['images']['reasons'])")" = \
	"(['dir', 'gpu_state', 'host', 'notes', 'placement', 'processes', 'reasons', 'verdict'], '$WORK/one', 'restore', True, 1, [])" ]
check "JSON: each placement from_uuid, to_uuid, to_ordinal (a number), how" \
	[ "$(j one "[(sorted(p), p['from_uuid'], p['to_ordinal'], len(p['to_uuid']), bool(p['how'])) for p in d['images']['placement']]")" = \
	"[(['from_uuid', 'how', 'to_ordinal', 'to_uuid'], '$U1', 0, 40, True)]" ]
check "JSON: this host's driver, CUDA, architecture and GPUs" \
	[ "$(j one "(lambda h: (h['driver_version'], h['driver_branch'], h['cuda_version'], h['custom_storage'], h['arch'], h['gpus'], h['driver_error']))(d['images']['host'])")" = \
	"('615.00.00', 615, 13040, True, '$(uname -m)', 2, None)" ]
check "text and JSON give the same notes (the missing facts, the CRIU dump not checked)" python3 - "$WORK/one" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + '.json'))['images']
notes = [l[len('  note:        '):] for l in open(sys.argv[1] + '.txt').read().splitlines() if l.startswith('  note:')]
sys.exit(0 if notes == d['notes'] and any('format before 1.4' in n for n in notes)
         and any('of the CRIU dump beside them' in n for n in notes) else 1)
PY

# ---- no: two GPUs without facts, neither here
run two --images "$WORK/two"
check "two GPUs not here, no facts: exit 1, the verdict line says no" \
	[ "$RC/$(head -n1 "$WORK/two.txt")" = "1/this host can restore $WORK/two: no" ]
check "JSON: ok false, error the first reason, verdict refuse, no placement; the text lists the same reasons" python3 - "$WORK/two" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + '.json'))
i = d['images']
text = open(sys.argv[1] + '.txt').read().splitlines()
reasons = [l[len('  reason:      '):] for l in text if l.startswith('  reason:')]
ok = (not d['ok'] and d['exit_code'] == 1 and i['verdict'] == 'refuse' and i['placement'] == []
      and i['reasons'] and d['error'] == i['reasons'][0] and reasons == i['reasons']
      and 'hold no facts' in i['reasons'][0] and not any(l.startswith('  placement:') for l in text))
sys.exit(0 if ok else 1)
PY

# ---- CUDA_VISIBLE_DEVICES: set and empty, it hides every GPU from whoever loads libcuda
CUDA_VISIBLE_DEVICES= run vis --images "$WORK/one"
check "CUDA_VISIBLE_DEVICES='' in the caller's environment: still 2 GPUs, yes (exit $RC)" \
	[ "$RC/$(j vis "(d['images']['verdict'], d['images']['host']['gpus'])")" = "0/('restore', 2)" ]

# ---- an archive
run tgz --images "$WORK/one.tgz"
check "an archive: yes (exit $RC), dir the archive, in_archive where in it the images were" \
	[ "$RC/$(j tgz "(d['images']['verdict'], d['images']['dir'], d['images']['in_archive'])")" = \
	"0/('restore', '$WORK/one.tgz', '$WORK/one.tgz:one')" ]
check "... the text names it as ARCHIVE:DIR" [ "$(head -n1 "$WORK/tgz.txt")" = "this host can restore $WORK/one.tgz:one: yes" ]

# ---- CRIU images without GPU state
run cpu --images "$WORK/cpu"
check "CRIU images without GPU state: yes (exit $RC), no process, a note, no host probed" \
	[ "$RC/$(j cpu "(d['images']['verdict'], d['images']['gpu_state'], d['images']['processes'], 'host' in d['images'], d['images']['notes'][0].startswith('CRIU images without GPU state'))")" = \
	"0/('restore', False, 0, False, True)" ]

# ---- no verdict
run none --images "$WORK/none"
check "a directory without images: exit 1, the error object says so" \
	[ "$RC/$(j none "(d['ok'], d['exit_code'], 'holds no checkpoint images' in d['error'], 'images' in d)")" = "1/(False, 1, True, False)" ]
run missing --images "$WORK/missing"
check "a directory that does not exist: exit 2, named" \
	[ "$RC/$(j missing "(d['exit_code'], '$WORK/missing' in d['error'])")" = "2/(2, True)" ]
run both --images "$WORK/one" --criu /bin/true
check "--images with --criu: exit 2, says to run them apart" \
	[ "$RC/$(grep -c 'run them apart' "$WORK/both.err")" = 2/2 ]

# ---- without --images: the dump's check, as before
run dump --plugin-dir "$WORK/none"
check "without --images: the dump's report (problems, options, libcuda, gpus), no images key" \
	[ "$(j dump "('problems' in d, 'options' in d, 'libcuda' in d, len(d['gpus']), 'images' in d)")" = "(True, True, True, 2, False)" ]
done_testing

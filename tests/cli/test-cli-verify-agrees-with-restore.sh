#!/bin/bash
# cudastore inspect and verify on good images and on every kind of damaged image the suite
# makes (flipped byte, truncated extent, missing extent, escaping extent name, manifest of a
# newer format, a file that is no manifest), then a real restore of the same images: verify
# gives the restore's verdict and names the same file and chunk (its error text is in the
# restore log word for word). Neither command modifies the images; --json is parsed.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
TOOL=$top_builddir/tests/e2e/cs-manifest-tool
CS=$CUDASTORE_CMD
export CUDASTORE_CONFIG=$WORK/cudastore.conf # pinned: nothing in /etc changes what verify reads
echo "chunk_mb = 1" >"$CUDASTORE_CONFIG" # many chunks, some of them all-zero
plan 58
start_workload w --size 8m --buffers 2 --zero-percent 50 --seed 11
criu_dump "$WORK/img" "$WPID"
check "criu dump succeeds" [ $? = 0 ]
wait_gone "$WPID"
M=cudastore-$WPID.img
E=cudastore-$WPID-gpu0.ext
cp -a "$WORK/img" "$WORK/pristine"

# ---- good images
before=$(images_sum "$WORK/img")
"$CS" inspect "$WORK/img" >"$WORK/inspect.txt" 2>&1
check "inspect on good images exits 0" [ $? = 0 ]
check "inspect names mode, driver and the extent with its allocated size" \
	bash -c "grep -q 'mode: *custom' '$WORK/inspect.txt' && grep -q 'CUDA 13.4 (13040)' '$WORK/inspect.txt' &&
		grep -Eq 'extent $E: [0-9]+ bytes, .* allocated' '$WORK/inspect.txt'"
"$CS" inspect --json "$WORK/img" "$WPID" >"$WORK/inspect.json"
check "inspect --json: ok, mode custom, the dump's pid" \
	[ "$(json_get "$WORK/inspect.json" "(d['ok'], d['processes'][0]['mode'], d['processes'][0]['ns_pid'])")" = "(True, 'custom', $WPID)" ]
check "inspect --json: device size = extent file size, chunk table complete" \
	[ "$(json_get "$WORK/inspect.json" "[(x['size'] == x['extent_file']['size'], len(x['chunks']) == x['nchunks']) for x in d['processes'][0]['devices']]")" = "[(True, True)]" ]
size=$(stat -c %s "$WORK/img/$E")
check "inspect --json: the size is the extent's ($size)" \
	[ "$(json_get "$WORK/inspect.json" "d['processes'][0]['devices'][0]['size']")" = "$size" ]
check "inspect --json: zero chunks counted as the manifest flags them (50% zeros asked)" \
	[ "$(json_get "$WORK/inspect.json" "0 < d['processes'][0]['devices'][0]['zero_chunks'] == sum(c['zero'] for c in d['processes'][0]['devices'][0]['chunks'])")" = True ]
check "inspect --json: the dump's phases from the summary" \
	[ "$(json_get "$WORK/inspect.json" "'copy-out' in [p['name'] for p in d['processes'][0]['summary']['phases']]")" = True ]
S=$WORK/img/cudastore-$WPID.json
check "inspect --json: the device's copy account is the summary's (threads, seconds, files and checks, GPU waits)" \
	[ "$(json_get "$WORK/inspect.json" "[round(x['copy'][k], 4) for x in d['processes'][0]['devices'] for k in ('threads', 'seconds', 'io_seconds', 'gpu_wait_seconds')]")" = \
		"$(json_get "$S" "[round(x['copy'][k], 4) for x in d['devices'] for k in ('threads', 'seconds', 'io_seconds', 'gpu_wait_seconds')]")" ]
check "inspect says how the device was copied: threads and the shares of their time" \
	grep -Eq '^    copied in [0-9.]+ s by [0-9]+ threads: [0-9]+% of their time in the files and checks, [0-9]+% waiting for the GPU$' "$WORK/inspect.txt"
# a summary whose copy account is malformed: left out, the rest shown, no error
rm -rf "$WORK/badcopy"; cp -a "$WORK/img" "$WORK/badcopy"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["devices"][0]["copy"]["threads"]="many"; open(sys.argv[1],"w").write(json.dumps(d))' "$WORK/badcopy/cudastore-$WPID.json"
"$CS" inspect "$WORK/badcopy" >"$WORK/badcopy.txt" 2>&1; rc=$?
"$CS" inspect --json "$WORK/badcopy" >"$WORK/badcopy.json" 2>&1
check "a malformed copy account in the summary is left out: inspect exits 0 ($rc), shows the phases, no copy line or key" \
	bash -c "[ $rc = 0 ] && grep -q 'copy-out' '$WORK/badcopy.txt' && ! grep -q 'copied in' '$WORK/badcopy.txt' &&
		[ \"\$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(\"copy\" in d[\"processes\"][0][\"devices\"][0])' '$WORK/badcopy.json')\" = False ]"
rm -rf "$WORK/badcopy"
"$CS" verify "$WORK/img" >"$WORK/verify.txt" 2>"$WORK/verify.err"
check "verify on good images exits 0" [ $? = 0 ]
check "verify says OK, no progress bar when stderr is no terminal" \
	bash -c "grep -q '^verify: OK' '$WORK/verify.txt' && ! grep -q '#' '$WORK/verify.err'"
script -qec "'$CS' verify '$WORK/img'" /dev/null >"$WORK/verify.tty" 2>&1
check "verify on a terminal draws a progress bar and still says OK" \
	bash -c "grep -q '\[#*\] 100%' '$WORK/verify.tty' && grep -q '^verify: OK' '$WORK/verify.tty'"
"$CS" verify --json "$WORK/img" >"$WORK/verify.json"
check "verify --json: ok, every chunk counted" \
	[ "$(json_get "$WORK/verify.json" "(d['ok'], d['processes'][0]['chunks'] > 0)")" = "(True, True)" ]
check "inspect and verify left the images as they were" [ "$before" = "$(images_sum "$WORK/img")" ]
criu_restore "$WORK/img"
check "restore of the images verify passed succeeds" log_has "$WORK/img/restore.log" "pid $WPID: GPU restore done"
check_verdict w "$WPID" "every byte verified after the restore"
wait_gone "$WPID"

# ---- damaged images: NAME INSPECT_RC COMMAND...
damaged() {
	local name=$1 irc=$2 rc; shift 2
	rm -rf "$WORK/$name"; cp -a "$WORK/pristine" "$WORK/$name"
	(cd "$WORK/$name" && eval "$@")
	local sum; sum=$(images_sum "$WORK/$name")
	"$CS" inspect "$WORK/$name" >"$WORK/$name.inspect" 2>&1
	rc=$?
	check "$name: inspect exits $irc ($rc)" [ $rc = "$irc" ]
	"$CS" verify --json "$WORK/$name" >"$WORK/$name.json" 2>"$WORK/$name.err"
	rc=$?
	check "$name: verify exits 1 ($rc), its JSON says not ok" \
		[ "$rc/$(json_get "$WORK/$name.json" "d['ok']")" = 1/False ]
	VERR=$(json_get "$WORK/$name.json" "d['processes'][0]['error']")
	VFILE=$(json_get "$WORK/$name.json" "d['processes'][0]['file']")
	VCHUNK=$(json_get "$WORK/$name.json" "d['processes'][0].get('chunk')")
	check "$name: verify left the images as they were" [ "$sum" = "$(images_sum "$WORK/$name")" ]
	criu_restore "$WORK/$name"
	check "$name: restore refuses them too" log_has "$WORK/$name/restore.log" "GPU restore failed"
	check "$name: the restore logged verify's error word for word ($VERR)" \
		grep -qF -- "$VERR" "$WORK/$name/restore.log"
	sleep 0.2
	wait_gone "$WPID"
}
# a byte in the second stored (non-zero) chunk: zero chunks are holes a restore never reads
off=$(json_get "$WORK/inspect.json" "[i for i, c in enumerate(d['processes'][0]['devices'][0]['chunks']) if not c['zero']][1] * d['processes'][0]['devices'][0]['chunk_size'] + 12345")
damaged flipped-byte 0 'printf "\xa5" | dd of=$E bs=1 seek=$off conv=notrunc 2>/dev/null'
check "flipped-byte: verify names the extent" [ "$VFILE" = "$E" ]
rchunk=$(sed -n "s/.*checksum mismatch in $E, chunk \([0-9]*\) .*/\1/p" "$WORK/flipped-byte/restore.log" | head -n1)
check "flipped-byte: verify and restore name the same chunk ($VCHUNK, $rchunk)" [ -n "$rchunk" ] && [ "$VCHUNK" = "$rchunk" ]
check "flipped-byte: verify's text names file, chunk and offset" \
	bash -c "'$CS' verify '$WORK/flipped-byte' | grep -Eq 'FAILED: checksum mismatch in $E, chunk $VCHUNK \(offset [0-9]+'"
damaged truncated 1 "truncate -s -4096 $E"
check "truncated: verify names the extent" [ "$VFILE" = "$E" ]
damaged missing 1 "rm -f $E"
check "missing: verify names the extent" [ "$VFILE" = "$E" ]
damaged escaping 1 "$TOOL $M set-extent 0 ../../etc/passwd"
check "escaping: verify names the manifest" [ "$VFILE" = "$M" ]
damaged newer-major 1 "$TOOL $M set-major 2"
check "newer-major: verify names the manifest and says to upgrade" \
	bash -c "[ '$VFILE' = '$M' ] && grep -q 'upgrade' '$WORK/newer-major.json'"
damaged not-a-manifest 1 "head -c 4096 /dev/urandom >$M"
check "not-a-manifest: verify names the manifest" [ "$VFILE" = "$M" ]
# The suite's last damage, a self-consistent image one chunk larger than the process's GPU
# mapping, is no defect of the images: only the driver at restore knows the mapping's size.
# verify passes it (every check on the images holds) and restore refuses it on the GPU side.
rm -rf "$WORK/size-mismatch"; cp -a "$WORK/pristine" "$WORK/size-mismatch"
(cd "$WORK/size-mismatch" && "$TOOL" "$M" grow 0 .)
check "size-mismatch: verify passes (the images are consistent)" bash -c "'$CS' verify '$WORK/size-mismatch' >/dev/null"
criu_restore "$WORK/size-mismatch"
check "size-mismatch: restore refuses on the driver's mapping size, which only the GPU knows" \
	log_has "$WORK/size-mismatch/restore.log" "the driver maps .* bytes on GPU .*, the image .* holds"
done_testing

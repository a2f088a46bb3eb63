#!/bin/bash
# cudastore on what users hold after real dumps through criu with the plugin loaded: a CPU-only
# process's images pass verify with "no GPU state" (so 'cudastore verify DIR && criu restore'
# works), and a GPU dump (driver emulator) packed as podman's checkpoint --export packs it
# (images under checkpoint/, tar, tar.gz, tar.zst) is inspected and verified without unpacking
# by hand, leaving nothing behind, and so is a tar of the images directory itself, with its files
# at the top or in one top-level directory (tar czf x.tgz DIR/; before, that one held "no
# checkpoint images"); a hostile archive writes nothing outside its private directory. The
# summary file is schema-1 JSON that inspect reads in any layout; a deleted manifest and a wrong
# pid get messages that name what is there.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work
CS=$CUDASTORE_CMD
export TMPDIR=$WORK/tmp; mkdir -p "$TMPDIR"
plan 28
jget() { json_get "$1" "$2" 2>/dev/null; }

# ---- CPU-only process: criu + plugin, no GPU state in the images
mkdir -p "$WORK/status"
setsid -f "$top_builddir/tests/e2e/cpu-tree" --pidfile "$WORK/pid" --status "$WORK/status" \
	--outfile "$WORK/cpu.out" </dev/null >/dev/null 2>&1
wait_file "$WORK/status/child" || bail "cpu-tree did not start"
CPID=$(cat "$WORK/pid"); PIDS_TO_KILL="$CPID"
CUDASTORE_LIBCUDA=$WORK/no-such-libcuda.so.1 criu_dump "$WORK/cpu" "$CPID"
check "criu dump of a CPU-only process with the plugin loaded succeeds" [ $? = 0 ]
wait_gone "$CPID"
"$CS" verify "$WORK/cpu" >"$WORK/v.txt" 2>&1
check "verify on its images: exit 0, 'no GPU state'" [ $?/$(grep -c 'no GPU state' "$WORK/v.txt") = 0/1 ]
"$CS" verify "$WORK/cpu" --json >"$WORK/v.json"
check "verify --json: ok, gpu_state false" [ "$(jget "$WORK/v.json" "(d['ok'], d['gpu_state'])")" = "(True, False)" ]
"$CS" verify "$WORK/cpu" >/dev/null 2>&1 && CUDASTORE_LIBCUDA=$WORK/no-such-libcuda.so.1 criu_restore "$WORK/cpu"
check "'cudastore verify DIR && criu restore' restores the CPU-only process" alive "$CPID"
kill -9 "$CPID" 2>/dev/null; wait_gone "$CPID"

# ---- a GPU dump on the driver emulator
use_emulator
start_workload w --size 4m --buffers 2 --zero-percent 25 --seed 5
criu_dump "$WORK/img" "$WPID"
check "criu dump of the GPU workload succeeds" [ $? = 0 ]
wait_gone "$WPID"
S=$WORK/img/cudastore-$WPID.json
check "the summary is JSON with schema 1, the pid and its phases" \
	[ "$(jget "$S" "(d['schema'], d['ns_pid'] == $WPID, len(d['phases']) > 0, type(d['devices']))")" = "(1, True, True, <class 'list'>)" ]

# ---- archives in podman's layout: checkpoint/ beside config.dump, spec.dump, rootfs-diff.tar
L=$WORK/layout; mkdir -p "$L/checkpoint"
cp -a "$WORK/img/." "$L/checkpoint/"
echo '{}' >"$L/config.dump"; echo '{}' >"$L/spec.dump"; tar cf "$L/rootfs-diff.tar" -T /dev/null
tar cf "$WORK/ck.tar" -C "$L" .
tar czf "$WORK/ck.tar.gz" -C "$L" .
tar --zstd -cf "$WORK/ck.tar.zst" -C "$L" .
for a in ck.tar ck.tar.gz ck.tar.zst; do
	"$CS" verify --json "$WORK/$a" >"$WORK/$a.json" 2>"$WORK/$a.err"
	check "verify $a: exit 0, ok, the dump's process" \
		[ "$?/$(jget "$WORK/$a.json" "(d['ok'], d['gpu_state'], [p['ns_pid'] for p in d['processes']])")" = "0/(True, True, [$WPID])" ]
done
"$CS" inspect "$WORK/ck.tar.zst" >"$WORK/i.txt" 2>&1
check "inspect ck.tar.zst: exit 0, the manifest named inside the archive" \
	[ "$?/$(grep -c "ck.tar.zst:checkpoint/cudastore-$WPID.img" "$WORK/i.txt")" = 0/1 ]
check "nothing left in TMPDIR after the archives" [ -z "$(ls -A "$TMPDIR")" ]
(cd "$WORK/img" && tar cf "$WORK/flat.tar" .)
"$CS" verify "$WORK/flat.tar" >/dev/null 2>&1
check "a tar of the images directory itself verifies too" [ $? = 0 ]
tar czf "$WORK/dir.tgz" -C "$WORK" img/
"$CS" verify --json "$WORK/dir.tgz" >"$WORK/dir.json" 2>"$WORK/dir.err"
check "a tar of the directory (tar czf dir.tgz img/): exit 0, the dump's process" \
	[ "$?/$(jget "$WORK/dir.json" "(d['ok'], d['images'], [p['ns_pid'] for p in d['processes']])")" = "0/(True, '$WORK/dir.tgz:img', [$WPID])" ]
"$CS" inspect "$WORK/dir.tgz" >"$WORK/dir.txt" 2>&1
check "inspect dir.tgz: exit 0, the manifest named inside the archive's directory" \
	[ "$?/$(grep -c "dir.tgz:img/cudastore-$WPID.img" "$WORK/dir.txt")" = 0/1 ]
mkdir -p "$WORK/two"; cp -a "$WORK/img" "$WORK/two/a"; cp -a "$WORK/img" "$WORK/two/b"
tar cf "$WORK/two.tar" -C "$WORK/two" a b
"$CS" verify "$WORK/two.tar" >"$WORK/two.txt" 2>&1
check "images in two top-level directories: exit 1, both named" \
	[ "$?/$(grep -c "more than one top-level directory (a/, b/)" "$WORK/two.txt")" = 1/1 ]
check "nothing left in TMPDIR after them" [ -z "$(ls -A "$TMPDIR")" ]

# a hostile archive: a link to a file outside, an escaping name, a device node
python3 - "$WORK/evil.tar" "$WORK/img/cudastore-$WPID.img" <<'PY'
import sys, tarfile, io
with tarfile.open(sys.argv[1], "w") as t:
    t.add(sys.argv[2], arcname="checkpoint/inventory.img")
    for name, kind, target in (("checkpoint/cudastore-7.img", tarfile.SYMTYPE, "/etc/passwd"),
                               ("checkpoint/cudastore-8.img", tarfile.LNKTYPE, "/etc/passwd"),
                               ("checkpoint/null", tarfile.CHRTYPE, "")):
        i = tarfile.TarInfo(name); i.type = kind; i.linkname = target; i.devmajor, i.devminor = 1, 3
        t.addfile(i)
    data = b"escaped\n"
    for name in ("../escaped", "checkpoint/../../escaped2", "/tmp/escaped3"):
        i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))
PY
"$CS" verify "$WORK/evil.tar" >"$WORK/evil.txt" 2>&1
check "a hostile archive: links and devices skipped, no GPU state found (exit 0)" \
	[ "$?/$(grep -c 'no GPU state' "$WORK/evil.txt")" = 0/1 ]
check "nothing written outside the private directory, which is gone" \
	[ "$(ls -d "$WORK/escaped" "$TMPDIR/escaped" "$WORK/escaped2" /tmp/escaped3 2>/dev/null; ls -A "$TMPDIR")" = "" ]

# ---- the summary read back with json-c: any layout, and garbage is not timings
cp -a "$WORK/img" "$WORK/pretty"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); json.dump(d, open(sys.argv[1], "w"), indent=4)' "$WORK/pretty/cudastore-$WPID.json"
"$CS" inspect --json "$WORK/pretty" >"$WORK/pretty.json"
check "a pretty-printed summary keeps its phases in inspect --json" \
	[ "$(jget "$WORK/pretty.json" "'copy-out' in [p['name'] for p in d['processes'][0]['summary']['phases']]")" = True ]
echo 'garbage {"seconds":' >"$WORK/pretty/cudastore-$WPID.json"
"$CS" inspect "$WORK/pretty" >"$WORK/garbage.txt" 2>&1
check "a garbage summary is reported unreadable, no made-up timings" \
	bash -c "grep -q 'summary: *unreadable: cudastore-$WPID.json is not valid JSON' '$WORK/garbage.txt' && ! grep -q -- '-1.000 s' '$WORK/garbage.txt'"

# ---- one schema: devices a list in both, 64-bit instants exact, non-ASCII path as is
U=$WORK/é-dir; cp -a "$WORK/img" "$U"
"$CS" inspect "$U" --json >"$WORK/i.json"
"$CS" verify "$U" --json >"$WORK/v2.json"
check "inspect and verify: schema 2, devices a list of the same device objects" \
	[ "$(python3 -c 'import json,sys
i=json.load(open(sys.argv[1])); v=json.load(open(sys.argv[2]))
di=i["processes"][0]["devices"]; dv=v["processes"][0]["devices"]
print(i["schema"], v["schema"], all({k: x[k] for k in y} == y for x, y in zip(di, dv)) and len(di) == len(dv) > 0)' "$WORK/i.json" "$WORK/v2.json")" = "2 2 True" ]
check "created: seconds + nanoseconds + UTC, each within what a double holds" \
	[ "$(jget "$WORK/i.json" "(lambda c: c['seconds'] < 2**53 and 0 <= c['nanoseconds'] < 10**9 and c['utc'].endswith('Z'))(d['processes'][0]['created'])")" = True ]
check "the é-dir path comes back byte for byte" \
	python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1], encoding="utf-8"))["dir"] != sys.argv[2])' "$WORK/i.json" "$U"

# ---- messages that name what is there
"$CS" verify "$WORK/img" 99999 >"$WORK/pid.txt" 2>&1
check "a wrong pid: exit 1, the pids the images hold are listed" \
	[ "$?/$(grep -c "pid 99999 is not in these images; they hold pid(s) $WPID" "$WORK/pid.txt")" = 1/1 ]
cp -a "$WORK/img" "$WORK/nomanifest"; rm "$WORK/nomanifest/cudastore-$WPID.img"
"$CS" verify "$WORK/nomanifest" >"$WORK/nm.txt" 2>&1
check "a deleted manifest with its index and extents: exit 1, not 'no images'" \
	[ "$?/$(grep -c "index (cudastore-index.img) lists pid(s) $WPID, but their manifests" "$WORK/nm.txt")/$(grep -c 'no checkpoint images' "$WORK/nm.txt")" = 1/1/0 ]
"$CS" verify --json "$WORK/nomanifest" >"$WORK/nm.json" 2>/dev/null
check "... as a JSON error too" [ "$(jget "$WORK/nm.json" "(d['ok'], d['exit_code'], 'cudastore-index.img' in d['error'])")" = "(False, 1, True)" ]
check "the images the commands read are restored by criu" criu_restore "$WORK/img"
check_verdict w "$WPID" "the restored workload verified its GPU memory"
done_testing

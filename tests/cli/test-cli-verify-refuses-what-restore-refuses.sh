#!/bin/bash
# cudastore verify and inspect apply exactly the restore's rules on the dump's index and the
# manifests it owns: for an index that is missing, a FIFO, random bytes, empty or a symbolic link,
# a manifest whose ns_pid is not the one its file name says, and a manifest of another dump,
# verify and inspect exit 1 and a real criu restore of the same images refuses them too, logging
# verify's error word for word (inspect gives the same words); a stale manifest the index does not
# list is IGNORED by both, as by the restore. Before, verify passed the five index cases and the
# other dump's manifest ("a restore would accept"), and neither looked at the manifest's ns_pid;
# inspect called all seven consistent (exit 0) and showed the stale manifest as a process.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
TOOL=$top_builddir/tests/e2e/cs-manifest-tool
CS=$CUDASTORE_CMD
export CUDASTORE_CONFIG=$WORK/cudastore.conf
: >"$CUDASTORE_CONFIG"
plan 42
start_workload w --size 2m --buffers 2 --seed 5
criu_dump "$WORK/img" "$WPID" || bail "criu dump failed"
wait_gone "$WPID"
M=cudastore-$WPID.img
IX=cudastore-index.img
check "the dump wrote its index and a manifest" [ -f "$WORK/img/$IX" ] && [ -f "$WORK/img/$M" ]
cp -a "$WORK/img" "$WORK/pristine"
"$CS" verify "$WORK/img" >/dev/null 2>&1
check "verify accepts the intact images" [ $? = 0 ]

# damaged NAME COMMAND...: verify and a real restore both refuse, with the same words
damaged() {
	local name=$1 rc verr; shift
	rm -rf "$WORK/$name"; cp -a "$WORK/pristine" "$WORK/$name"
	(cd "$WORK/$name" && eval "$@")
	"$CS" verify --json "$WORK/$name" >"$WORK/$name.json" 2>"$WORK/$name.err"
	rc=$?
	verr=$(json_get "$WORK/$name.json" "d['processes'][0].get('error', '')" 2>/dev/null)
	check "$name: verify refuses (exit $rc): $verr" [ "$rc" = 1 ] && [ -n "$verr" ]
	"$CS" inspect --json "$WORK/$name" >"$WORK/$name.inspect.json" 2>/dev/null
	rc=$?
	check "$name: inspect calls them inconsistent too (exit $rc), in verify's words" \
		[ "$rc/$(json_get "$WORK/$name.inspect.json" "(d['ok'], d['processes'][0]['consistent'], d['processes'][0].get('error') == '''$verr''')" 2>/dev/null)" = "1/(False, False, True)" ]
	criu_restore "$WORK/$name"
	check "$name: the restore refuses them too" log_has "$WORK/$name/restore.log" "GPU restore failed"
	check "$name: the restore logged verify's reason word for word" \
		grep -qF -- "images $M are unusable: $verr" "$WORK/$name/restore.log"
	VERR=$verr
	sleep 0.2
	wait_gone "$WPID"
}
damaged index-missing "rm -f $IX"
check "index-missing: the reason says the index is missing" grep -q "$IX, and that file is missing" <<<"$VERR"
damaged index-fifo "rm -f $IX && mkfifo -m 0600 $IX"
check "index-fifo: the reason says it is no regular file" grep -q "$IX is not a regular file" <<<"$VERR"
damaged index-random "head -c 300 /dev/urandom >$IX"
check "index-random: the reason names the index" grep -q "index is unusable.*$IX" <<<"$VERR"
damaged index-empty ": >$IX"
check "index-empty: the reason says it is shorter than its header" grep -q "$IX: shorter than its 16-byte header" <<<"$VERR"
damaged index-symlink "rm -f $IX && ln -s ../pristine/$IX $IX"
check "index-symlink: the reason says it is a symbolic link" grep -q "$IX is a symbolic link" <<<"$VERR"
damaged ns-pid-renamed "$TOOL $M set-ns-pid $((WPID + 1))"
check "ns-pid-renamed: the reason names both pids" grep -q "manifest of ns pid $((WPID + 1)), not of ns pid $WPID" <<<"$VERR"
damaged other-dump "$TOOL $M set-dump-id 0123456789abcdef0123456789abcdef"
check "other-dump: the reason says it belongs to another dump" grep -q "$M belongs to another dump (dump id 0123456789abcdef0123456789abcdef" <<<"$VERR"

# a stale manifest beside the dump's own: not listed in the index, so the restore ignores it
STALE=cudastore-$((WPID + 1)).img
rm -rf "$WORK/stale"; cp -a "$WORK/pristine" "$WORK/stale"
cp "$WORK/stale/$M" "$WORK/stale/$STALE" && "$TOOL" "$WORK/stale/$STALE" set-ns-pid $((WPID + 1)) >/dev/null
"$CS" verify "$WORK/stale" >"$WORK/stale.verify" 2>&1
rc=$?
check "a stale manifest: verify exits 0 ($rc) and calls it IGNORED" \
	bash -c "[ $rc = 0 ] && grep -q '$STALE: IGNORED: ignoring $STALE: not a file of this dump' '$WORK/stale.verify'"
"$CS" inspect "$WORK/stale" >"$WORK/stale.inspect" 2>&1
rc=$?
check "... inspect exits 0 too ($rc) and calls it IGNORED in the same words, not a process of the dump" \
	bash -c "[ $rc = 0 ] && grep -q '$STALE: IGNORED: ignoring $STALE: not a file of this dump' '$WORK/stale.inspect' &&
		! grep -q '^  pid: *$((WPID + 1))' '$WORK/stale.inspect'"
"$CS" inspect --json "$WORK/stale" >"$WORK/stale.json" 2>/dev/null
check "... and under --json, 'ignored' with the reason" \
	[ "$(json_get "$WORK/stale.json" "[(p['ns_pid'], 'not a file of this dump' in p.get('ignored', '')) for p in d['processes']]")" = "[($WPID, False), ($((WPID + 1)), True)]" ]

criu_restore "$WORK/pristine"
check "the intact images still restore" log_has "$WORK/pristine/restore.log" "pid $WPID: GPU restore done"
check_verdict w "$WPID" "every byte verified after the restore"
done_testing

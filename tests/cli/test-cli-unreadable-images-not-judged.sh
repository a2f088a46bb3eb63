#!/bin/bash
# cudastore verify and inspect run by a user who may not read the images (criu writes them 0600):
# the file is named with its errno, nothing is called a restore's refusal, and the exit status is
# 2 (not checked), whether the index, a manifest or an extent is the file that cannot be read;
# root gets 0 on the same images. Before, verify said "FAILED: a restore of DIR would refuse
# these images" and exited 1, as for damaged images.
. "$top_srcdir/tests/e2e/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root to run the commands as another user"
command -v setpriv >/dev/null || skip_all "setpriv (util-linux) not installed"
setup_work
CS=$CUDASTORE_CMD
TOOL=$top_builddir/tests/cli/cs-sparse-images
chmod 755 "$WORK"
export CUDASTORE_CONFIG=$WORK/public.conf # readable by the other user
: >"$CUDASTORE_CONFIG"; chmod 644 "$CUDASTORE_CONFIG"
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
plan 14
run() { "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?; }
jget() { json_get "$WORK/out" "$1" 2>/dev/null; }
IMG=$WORK/img
mkdir -p "$IMG"; chmod 755 "$IMG"
"$TOOL" "$IMG" 7 1 $((1 << 20)) $((2 << 20)) index || bail "cs-sparse-images failed"
chmod 600 "$IMG"/*
run "$CS" verify "$IMG"
check "root: verify accepts the images (exit $RC)" [ "$RC" = 0 ]

# ---- the index cannot be read
run $NOBODY "$CS" verify "$IMG"
check "unreadable index: verify exits 2 ($RC), names the file and the errno" \
	[ "$RC/$(grep -c "cannot read $IMG/cudastore-index.img: Permission denied (EACCES): the images were not checked" "$WORK/err")" = 2/1 ]
check "... and does not call it a restore's refusal" bash -c "! grep -qi 'refuse\|FAILED' '$WORK/out' '$WORK/err'"
run $NOBODY "$CS" verify --json "$IMG"
check "... --json: the error object with exit_code 2" \
	[ "$RC/$(jget "(d['ok'], d['exit_code'], 'EACCES' in d['error'])")" = "2/(False, 2, True)" ]
run $NOBODY "$CS" inspect "$IMG"
check "... inspect exits 2 too, naming the file" \
	[ "$RC/$(grep -c "cannot read $IMG/cudastore-index.img: Permission denied (EACCES)" "$WORK/err")" = 2/1 ]

# ---- the manifest cannot be read
chmod 644 "$IMG/cudastore-index.img"
run $NOBODY "$CS" verify "$IMG"
check "unreadable manifest: verify exits 2 ($RC): NOT CHECKED, the manifest and EACCES named" \
	[ "$RC/$(grep -c "cudastore-7.img: NOT CHECKED: cannot read cudastore-7.img: Permission denied (EACCES)" "$WORK/out")" = 2/1 ]
check "... the summary says nothing was judged and who may read them" \
	grep -q "^verify: NOT CHECKED: .* could not be read, so whether a restore would accept them is not known; run as a user who may read them" "$WORK/out"
check "... no 'a restore would refuse'" bash -c "! grep -qi 'refuse\|FAILED' '$WORK/out'"
run $NOBODY "$CS" inspect "$IMG"
check "... inspect exits 2 ($RC), NOT CHECKED, not UNREADABLE or a refusal" \
	bash -c "[ $RC = 2 ] && grep -q 'cudastore-7.img: NOT CHECKED: cannot read cudastore-7.img' '$WORK/out' && ! grep -qi 'refuse\|UNREADABLE' '$WORK/out'"

# ---- the extent cannot be read
chmod 644 "$IMG/cudastore-7.img"
run $NOBODY "$CS" verify "$IMG"
check "unreadable extent: verify exits 2 ($RC), the extent named" \
	[ "$RC/$(grep -c "NOT CHECKED: cannot read cudastore-7-gpu0.ext: Permission denied (EACCES)" "$WORK/out")" = 2/1 ]
run $NOBODY "$CS" verify --json "$IMG"
check "... --json: exit_code 2, the process not ok with the file and errno" \
	[ "$RC/$(jget "(d['ok'], d['exit_code'], d['processes'][0]['ok'], d['processes'][0]['file'], d['processes'][0]['errno'])")" = "2/(False, 2, False, 'cudastore-7-gpu0.ext', 'EACCES')" ]
run $NOBODY "$CS" inspect --json "$IMG"
check "... inspect --json: exit_code 2, errno EACCES" \
	[ "$RC/$(jget "(d['exit_code'], d['processes'][0]['errno'])")" = "2/(2, 'EACCES')" ]

# ---- the directory cannot be opened (as before: exit 2), with the same advice
chmod 700 "$IMG"
run $NOBODY "$CS" verify "$IMG"
check "unreadable directory: exit 2, who may read it" \
	[ "$RC/$(grep -c "cannot open the images directory $IMG: Permission denied; run as a user who may read them" "$WORK/err")" = 2/1 ]
chmod 600 "$IMG"/*; chmod 755 "$IMG"
run "$CS" verify "$IMG"
check "root: the same images still verify (exit $RC)" [ "$RC" = 0 ]
done_testing

#!/bin/bash
# scripts/debian-uri.sh finds the Debian archive in a machine's apt sources as apt reads them:
# the one-line format of sources.list and sources.list.d/*.list (comments, [options] with
# spaces, a trailing slash) and the deb822 format of *.sources (several types, URIs and suites,
# folded lines, lower-case keys, Enabled: no); the entry must list the release's own suite with
# main, so that a vendor's repository and the security archive are passed over; files apt does
# not read (*.list.disabled) are not read; no entry is an error that says where it looked.
# Each case is a fake root (--root) with its own etc/apt and etc/os-release.
. "$top_srcdir/tests/e2e/lib.sh"
plan 8
WORK=$(mktemp -d /tmp/cudastore-test.XXXXXX) # removed by lib.sh at exit
URI=$top_srcdir/scripts/debian-uri.sh

n=0
# root: a fresh fake root for a case, release bookworm
root() {
	n=$((n + 1))
	R=$WORK/root$n
	mkdir -p "$R/etc/apt/sources.list.d"
	echo 'VERSION_CODENAME=bookworm' >"$R/etc/os-release"
}
# expect WHAT URI: debian-uri.sh --root R prints URI and exits 0
expect() {
	local got rc
	got=$("$URI" --root "$R" "${@:3}" 2>"$WORK/err") && rc=0 || rc=$?
	if [ "$rc" = 0 ] && [ "$got" = "$2" ]; then ok "$1"; else
		not_ok "$1: got '$got', exit status $rc, wanted '$2'"
		sed 's/^/#   /' "$WORK/err"
	fi
}

root
cat >"$R/etc/apt/sources.list" <<'EOF'
# deb http://commented.example/debian bookworm main
deb http://sec.example/debian-security bookworm-security main
deb [ signed-by=/usr/share/keyrings/k.gpg arch=amd64 ] http://one.example/debian/ bookworm contrib main # a note
EOF
expect "sources.list: comments, the security suite passed over, options with spaces, no trailing slash" \
	http://one.example/debian

root
echo 'deb https://vendor.example/apt cloud-sdk-bookworm main' >"$R/etc/apt/sources.list.d/vendor.list"
echo 'deb [arch=amd64] http://two.example/debian bookworm main' >"$R/etc/apt/sources.list.d/debian.list"
expect "sources.list.d/*.list: a vendor's repository passed over" http://two.example/debian

root
cat >"$R/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://off.example/debian
Suites: bookworm
Components: main
Enabled: no

# the archive, as a folded stanza in lower case
types: deb-src deb
uris: http://three.example/debian http://three-b.example/debian
suites:
 bookworm-updates
 bookworm
components: contrib
 main
EOF
expect "*.sources: Enabled: no passed over; several types, URIs and folded suites" http://three.example/debian

root
cat >"$R/etc/apt/sources.list.d/vendor.sources" <<'EOF'
Types: deb
URIs: https://nodes.example/node_20.x
Suites: nodistro
Components: main

Types: deb
URIs: http://sec.example/debian-security
Suites: bookworm-security
Components: main
EOF
echo 'deb http://hidden.example/debian bookworm main' >"$R/etc/apt/sources.list.d/old.list.disabled"
echo 'deb http://contrib.example/debian bookworm contrib' >"$R/etc/apt/sources.list"
err=$("$URI" --root "$R" 2>&1 >/dev/null) && rc=0 || rc=$?
check "no entry for bookworm with main: exit status 1 (got $rc)" [ "$rc" = 1 ]
check "and the message names the suite and where it looked" \
	grep -q "no deb entry for suite bookworm with component main in $R/etc/apt/sources.list" <<<"$err"

root
echo 'deb http://four.example/debian trixie main' >"$R/etc/apt/sources.list"
expect "--suite names another suite" http://four.example/debian --suite trixie

root
rm "$R/etc/os-release"
echo 'deb http://five.example/debian bookworm main' >"$R/etc/apt/sources.list"
err=$("$URI" --root "$R" 2>&1 >/dev/null) && rc=0 || rc=$?
grep -q 'VERSION_CODENAME' <<<"$err" || rc="$rc, no reason"
check "no release name in os-release and no --suite: exit status 1 with the reason (got $rc: $err)" [ "$rc" = 1 ]
expect "the same with --suite" http://five.example/debian --suite bookworm
done_testing

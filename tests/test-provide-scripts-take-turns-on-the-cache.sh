#!/bin/bash
# Two set-up runs at once (the demo beside the tests, two clones) take turns on the cache
# (scripts/setup-lib.sh): while another run holds a provide-*.sh script's lock file in the cache,
# the script says for whom and for what it waits, waits, and succeeds once that run lets go;
# and two runs of each script started at once both succeed. The caches are used as they are
# (CUDASTORE_CACHE, default /var/cache/cudastore), so that no run builds anything: a script
# whose run would build is left out with the reason, and the test skips when every one would.
. "$top_srcdir/tests/e2e/lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (the provide-*.sh scripts run as root)"
command -v flock >/dev/null || skip_all "flock (util-linux) is not installed"
CACHE=${CUDASTORE_CACHE:-/var/cache/cudastore}
S=$top_srcdir/scripts

# provide-criu.sh builds nothing when criu >= 4.2.1 is installed with libcriu and CRIU's cuda
# plugin is built in the cached tree (scripts/provide-criu.sh, "fast path")
criu_why() {
	local v ver b libdir
	v=$(/usr/local/sbin/criu --version 2>/dev/null | sed -n 's/^Version: *//p')
	[ -n "$v" ] && dpkg --compare-versions "$v" ge 4.2.1 || { echo "no criu >= 4.2.1 in /usr/local/sbin: it would build CRIU"; return; }
	libdir=/usr/local/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
	[ -e "$libdir/libcriu.so.2" ] && [ -f "$libdir/pkgconfig/criu.pc" ] || { echo "no libcriu in $libdir: it would install it"; return; }
	ver=$(cat /usr/local/include/criu/.cudastore-criu-version 2>/dev/null)
	b=$CACHE/src/criu-$ver/build
	if [ -f "$b/plugins/cuda/cuda_plugin.c" ] && [ -x "$b/compel/compel-host-bin" ] &&
		! [ "$b/plugins/cuda/cuda_plugin.so" -nt "$b/plugins/cuda/cuda_plugin.c" ]; then
		echo "CRIU's cuda plugin is not built in $b: it would build it"
	fi
}
crun_why() {
	/usr/local/lib/cudastore-crun/crun --version 2>/dev/null | grep -q '+CRIU' ||
		echo "no crun with CRIU in /usr/local/lib/cudastore-crun: it would build crun"
}
criu43_why() {
	"$S/provide-criu43.sh" --print >/dev/null 2>&1 || echo "the CRIU 4.3 root is not ready in $CACHE: it would make it"
}

scripts=
for s in criu crun criu43; do
	why=$("${s}_why")
	if [ -n "$why" ]; then diag "provide-$s.sh left out: $why"; else scripts="$scripts provide-$s.sh"; fi
done
[ -n "$scripts" ] || skip_all "every provide-*.sh script would build here (see the reasons above)"
set -- $scripts
plan $(($# * 3))
WORK=$(mktemp -d /tmp/cudastore-test.XXXXXX) # removed by lib.sh at exit

# wait_rc PID SECONDS: the exit status of PID, or 124 (and PID killed) if it still runs after SECONDS
wait_rc() {
	local i
	for i in $(seq $(($2 * 10))); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return; }
		sleep 0.1
	done
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 124
}

for s in "$@"; do
	lock=$CACHE/${s%.sh}.lock
	out=$WORK/$s.held.out
	# hold the script's lock as another run would (a real set-up running now: wait for it)
	exec {fd}>>"$lock"
	flock -w 600 "$fd" || bail "$lock stayed locked for 600 s"
	echo "pid $$, ${0##*/}" >"$lock"
	# the script must not inherit this descriptor, or its lock would outlive this one
	"$S/$s" >"$out" 2>&1 {fd}>&- &
	p=$!
	for i in $(seq 100); do grep -q 'waiting for another run' "$out" && break; sleep 0.1; done
	sleep 1
	if kill -0 "$p" 2>/dev/null && grep -q "waiting for another run (pid $$, ${0##*/}) that holds $lock: " "$out"; then
		ok "$s waits while another run holds $lock and says for whom and what"
	else
		not_ok "$s waits while another run holds $lock and says for whom and what"
		sed 's/^/#   /' "$out"
	fi
	exec {fd}>&-
	wait_rc "$p" 120
	rc=$?
	grep -q 'going on' "$out" || rc="$rc, no word that it goes on"
	check "$s goes on once that run lets go, and succeeds (exit status $rc)" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || sed 's/^/#   /' "$out"

	# two runs at once
	"$S/$s" >"$WORK/$s.1.out" 2>&1 &
	p1=$!
	"$S/$s" >"$WORK/$s.2.out" 2>&1 &
	p2=$!
	wait_rc "$p1" 120
	rc1=$?
	wait_rc "$p2" 120
	rc2=$?
	check "two runs of $s at once both succeed (exit status $rc1 and $rc2)" [ "$rc1$rc2" = 00 ]
	[ "$rc1$rc2" = 00 ] || sed 's/^/#   /' "$WORK/$s.1.out" "$WORK/$s.2.out"
done
done_testing

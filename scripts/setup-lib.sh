# shellcheck shell=bash
# setup-lib.sh - sourced by the set-up scripts (setup-build.sh, setup-debian.sh, provide-*.sh):
# what lets two set-up runs share one machine.
#
# Two set-ups at once (the demo beside the tests, or two clones of the tree) share the cache
# (CUDASTORE_CACHE, default /var/cache/cudastore) and the system's apt. Without locks one run
# deletes or rebuilds a build tree, a source package or a root that the other is using, and a
# second `apt-get update` fails at once on the lock of the first. So each provide-*.sh script
# holds a lock file of its own in the cache for its whole run (cache_lock), every apt-get on
# the system's package state goes through apt_get, and a run that finds a lock taken says what
# it waits for, waits, and then finds the first run's result with nothing left to do.
# Each caller defines log() (a message on stderr, prefixed with the script's name).

CS_CACHE=${CUDASTORE_CACHE:-/var/cache/cudastore}

# lock_fd FD FILE WHAT: take an exclusive flock on FD (open on FILE); while another run holds
# it, say so with WHAT (what that run is doing) and wait; then write this run into FILE
lock_fd() {
	local fd=$1 file=$2 what=$3 holder t0
	if ! flock -n "$fd"; then
		holder=$(cat "$file" 2>/dev/null || true)
		t0=$(date +%s)
		log "waiting for another run (${holder:-pid unknown}) that holds $file: $what"
		flock "$fd"
		log "the other run let go of $file after $(($(date +%s) - t0)) s; going on"
	fi
	echo "pid $$, $0" >"$file"
}

# cache_lock FILE WHAT: FILE (created if need be) locked for the rest of the calling script;
# the descriptor stays open until the script exits
cache_lock() {
	local fd
	mkdir -p "$(dirname "$1")"
	exec {fd}>>"$1"
	lock_fd "$fd" "$1" "$2"
}

# apt_get ARG...: apt-get on the system's package state, one set-up run at a time
# (apt-get update does not wait for another's lock); DPkg::Lock::Timeout waits for other
# users of dpkg (unattended upgrades) instead of failing
apt_get() {
	local file=$CS_CACHE/apt-system.lock fd rc=0
	mkdir -p "$CS_CACHE"
	exec {fd}>>"$file"
	lock_fd "$fd" "$file" "apt-get $1 for its set-up"
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@" || rc=$?
	exec {fd}>&-
	return "$rc"
}

# apt_install WHAT PKG...: install those of PKG that are missing (no recommends), after an
# update; nothing at all, not even the update, when every one is there. WHAT names the set in
# the message (with how long it usually takes).
apt_install() {
	local what=$1 p missing=
	shift
	for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
	[ -n "$missing" ] || return 0
	log "installing $what:$missing"
	apt_get update -qq || log "warning: apt-get update failed; trying the install with the lists there are"
	# shellcheck disable=SC2086
	apt_get install -y -qq --no-install-recommends $missing >/dev/null
}

#!/usr/bin/env bash
# debian-uri.sh - print the URI of the Debian archive this machine's apt configuration uses.
#
# The set-up scripts fetch Debian source packages (provide-criu.sh, provide-crun.sh) and
# bootstrap a Debian root (provide-criu43.sh) from the archive the machine is already
# configured for, so that no mirror is named in the source tree: a machine behind a local
# mirror or proxy uses it, and a fresh one uses what its installer chose.
#
# It reads /etc/apt/sources.list and /etc/apt/sources.list.d/*.list (one-line format:
# `deb [options] URI SUITE COMPONENT...`) and /etc/apt/sources.list.d/*.sources (deb822:
# Types, URIs, Suites, Components, Enabled), and prints the first URI of a `deb` entry that lists
# the release's own suite (VERSION_CODENAME of /etc/os-release, e.g. bookworm; not
# bookworm-security nor bookworm-updates) with the component main. Entries of other archives
# (a vendor's repository, the security archive) list other suites and are passed over; files
# with other endings (*.list.disabled, *.save) are not read, as apt does not read them.
#
# Usage: scripts/debian-uri.sh [--root DIR] [--suite NAME]
#   --root DIR    read DIR/etc/apt and DIR/etc/os-release instead of /etc (tests use it)
#   --suite NAME  the suite the entry must list (default: the release's VERSION_CODENAME)
# Exit status: 0 with the URI (no trailing slash) on stdout; 1 with the reason on stderr.
set -euo pipefail

ROOT=
SUITE=
while [ $# -gt 0 ]; do
	case "$1" in
	--root) ROOT=$2; shift 2 ;;
	--suite) SUITE=$2; shift 2 ;;
	-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "debian-uri: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done

die() { echo "debian-uri: $*" >&2; exit 1; }

if [ -z "$SUITE" ]; then
	# shellcheck disable=SC1091
	SUITE=$( . "$ROOT/etc/os-release" 2>/dev/null && echo "${VERSION_CODENAME:-}" ) || true
	[ -n "$SUITE" ] || die "no VERSION_CODENAME in $ROOT/etc/os-release; name the suite with --suite"
fi

# "TYPE<TAB>URI<TAB>SUITE<TAB>COMPONENTS" for every entry of a one-line sources file
one_line() {
	awk '{ sub(/#.*/, "") }
	     $1 != "deb" && $1 != "deb-src" { next }
	     { i = 2
	       if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
	       if (i + 1 > NF) next
	       comps = ""
	       for (j = i + 2; j <= NF; j++) comps = comps " " $j
	       print $1 "\t" $i "\t" $(i + 1) "\t" comps }' "$1"
}

# the same for every enabled stanza of a deb822 file (one line per type, URI and suite)
deb822() {
	awk 'function flush(   nt, nu, ns, t, u, s, T, U, S) {
	       if (f["enabled"] !~ /^[ \t]*(no|false|0)[ \t]*$/) {
	         nt = split(f["types"], T); nu = split(f["uris"], U); ns = split(f["suites"], S)
	         for (t = 1; t <= nt; t++) for (u = 1; u <= nu; u++) for (s = 1; s <= ns; s++)
	           print T[t] "\t" U[u] "\t" S[s] "\t" f["components"]
	       }
	       split("", f); key = ""
	     }
	     /^#/ { next }
	     /^[ \t]*$/ { flush(); next }
	     /^[ \t]/ { if (key != "") f[key] = f[key] " " $0; next }
	     { key = tolower($0); sub(/:.*/, "", key); v = $0; sub(/^[^:]*:/, "", v); f[key] = v }
	     END { flush() }' "$1"
}

entries() {
	local f
	[ ! -f "$ROOT/etc/apt/sources.list" ] || one_line "$ROOT/etc/apt/sources.list"
	for f in "$ROOT"/etc/apt/sources.list.d/*.list; do
		[ ! -f "$f" ] || one_line "$f"
	done
	for f in "$ROOT"/etc/apt/sources.list.d/*.sources; do
		[ ! -f "$f" ] || deb822 "$f"
	done
}

uri=$(entries | awk -F'\t' -v suite="$SUITE" \
	'$1 == "deb" && $3 == suite && $4 ~ /(^|[ \t])main([ \t]|$)/ { sub(/\/+$/, "", $2); print $2; exit }')
[ -n "$uri" ] || die "no deb entry for suite $SUITE with component main in $ROOT/etc/apt/sources.list or" \
	"$ROOT/etc/apt/sources.list.d/*.{list,sources}: add the Debian archive (or your mirror of it) there"
echo "$uri"

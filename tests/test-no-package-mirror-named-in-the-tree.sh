#!/bin/bash
# No file of the source tree names a package mirror: the set-up scripts take the Debian archive
# from the machine's own apt sources (scripts/debian-uri.sh), so that a machine behind its own
# mirror or proxy is never sent elsewhere, and no host is assumed to be reachable. Refused: the
# hosts of Debian's and Ubuntu's archives (deb, ftp, ftp.CC, http, httpredir, security, snapshot,
# cdn-* under debian.org or debian.net; archive, CC.archive, security, ports and old-releases
# under ubuntu.com) and any URL whose path starts with an archive's directory (/debian,
# /debian-security, /debian-ports, /ubuntu). Hosts under the reserved names .example, .test and
# .invalid (test fixtures) are allowed. Each offending line is named as file:line.
. "$top_srcdir/tests/e2e/lib.sh"
cd "$top_srcdir" || bail "no source tree at $top_srcdir"
plan 2

# what a build or a test run leaves in the tree is not the tree's text
files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files --cached --others --exclude-standard
	else
		find . -type f ! -path './.git/*' ! -path './sanitizers/*' ! -path './autom4te.cache/*' \
			! -name '*.log' ! -name '*.trs' | sed 's|^\./||'
	fi
}
list=$(files | sort)
check "the tree's files are listed ($(wc -l <<<"$list") files)" [ "$(wc -l <<<"$list")" -gt 50 ]

host='(deb|ftp[0-9]*(\.[a-z]{2})?|http|httpredir|security|snapshot|cdn-[a-z0-9]+(\.deb)?)\.debian\.(org|net)'
host="$host|(([a-z]{2}\.)?archive|security|ports|old-releases)\.ubuntu\.com"
url='[a-z+]+://[^/[:space:]"'"'"'<>)]+/(debian|debian-security|debian-ports|ubuntu)([/[:space:]"'"'"'<>)]|$)'
found=$(while IFS= read -r f; do
	[ -f "$f" ] || continue
	grep -HInE "$host|$url" -- "$f" 2>/dev/null
done <<<"$list" | grep -vE '://[^/[:space:]]+\.(example|test|invalid)(:[0-9]+)?/' || true)
check "no package mirror named in the tree" [ -z "$found" ]
[ -z "$found" ] || { diag "name none of these; scripts/debian-uri.sh reads the machine's own archive:"; sed 's/^/#   /' <<<"$found"; }
done_testing

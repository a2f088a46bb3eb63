#!/bin/bash
# scripts/demo.sh sets up only what the build and the demo need: run on a copy of scripts/ with
# apt-get, dpkg, make and the provide-*.sh scripts replaced by recorders (every package looks
# missing, as on a fresh machine), the demo asks apt-get for no package that configure or
# autogen.sh does not need, and runs scripts/provide-criu.sh and no other provide-*.sh script
# (crun, the CRIU 4.3 root and the test suite's packages are scripts/setup-debian.sh's).
# What the build needs is read from configure.ac (each "apt-get install PKG" it prints when
# PKG is missing) and autogen.sh (autoreconf: autoconf and automake), not from the scripts.
. "$top_srcdir/tests/e2e/lib.sh"

command -v flock >/dev/null || skip_all "flock (util-linux) is not installed"
plan 6

WORK=$(mktemp -d /tmp/cudastore-test.XXXXXX) # removed by lib.sh at exit
SANDBOX=$WORK/tree
REC=$WORK/record
BIN=$WORK/bin
mkdir -p "$SANDBOX/scripts" "$BIN" "$REC"
cp "$top_srcdir"/scripts/*.sh "$SANDBOX/scripts/" || bail "cannot copy $top_srcdir/scripts"

# the provide-*.sh scripts: record the run, build nothing
for p in "$SANDBOX"/scripts/provide-*.sh; do
	printf '#!/bin/sh\necho "%s" >>"%s/provide"\nexit 0\n' "${p##*/}" "$REC" >"$p"
	chmod 755 "$p"
done
# apt-get: record what it is asked to do; dpkg -s: nothing is installed; make: record;
# id -u: root, so that the set-up runs as it does for a user
real_dpkg=$(command -v dpkg) || skip_all "dpkg is not installed (not a Debian machine)"
real_id=$(command -v id)
printf '#!/bin/sh\necho "$*" >>"%s/apt-get"\n' "$REC" >"$BIN/apt-get"
printf '#!/bin/sh\n[ "$1" = -s ] && exit 1\nexec %s "$@"\n' "$real_dpkg" >"$BIN/dpkg"
printf '#!/bin/sh\necho "$*" >>"%s/make"\n' "$REC" >"$BIN/make"
printf '#!/bin/sh\n[ "$1" = -u ] && { echo 0; exit 0; }\nexec %s "$@"\n' "$real_id" >"$BIN/id"
chmod 755 "$BIN"/*
# a configured build system (each file newer than what it is made from), so that the set-up
# goes straight to its build step
touch -d '2020-01-01 00:00' "$SANDBOX/configure.ac" "$SANDBOX/Makefile.am"
printf '#!/bin/sh\n' >"$SANDBOX/configure" && chmod 755 "$SANDBOX/configure"
touch -d '2020-01-02 00:00' "$SANDBOX/configure" "$SANDBOX/Makefile.in"
touch -d '2020-01-03 00:00' "$SANDBOX/config.status" "$SANDBOX/Makefile"

# the demo itself; after its set-up it stops where it looks for the plugin this sandbox lacks
(cd "$SANDBOX" && PATH="$BIN:$PATH" CUDASTORE_CACHE=$WORK/cache timeout 120 bash scripts/demo.sh \
	>"$WORK/demo.out" 2>&1 </dev/null) || true
sed 's/^/#   /' "$WORK/demo.out" | head -n 40

check "the demo's set-up went through to the build (make was run)" [ -s "$REC/make" ]

# what the build needs: the packages configure.ac names, and autogen.sh's autotools
needed=$(grep -o 'apt-get install [a-z0-9.+-]*' "$top_srcdir/configure.ac" | awk '{print $3}' | sort -u)
grep -q autoreconf "$top_srcdir/autogen.sh" && needed="$needed autoconf automake"
check "configure.ac names the packages the build needs" [ -n "$needed" ]
diag "the build needs: $(echo $needed)"

# the packages of every "apt-get [OPTIONS] install [OPTIONS] PKG..." call (-o takes a value)
asked=$(awk '{ cmd = ""
	       for (i = 1; i <= NF; i++) {
	         if ($i == "-o") { i++; continue }
	         if ($i ~ /^-/) continue
	         if (cmd == "") { cmd = $i; continue }
	         if (cmd == "install") print $i
	       } }' "$REC/apt-get" 2>/dev/null | sort -u)
diag "the demo's set-up asked apt-get to install: $(echo $asked)"
check "with every package missing, it installs some" [ -n "$asked" ]
extra=
for p in $asked; do
	grep -qxF "$p" <(tr ' ' '\n' <<<"$needed") || extra="$extra $p"
done
check "no package the build does not need${extra:+ (installed:$extra)}" [ -z "$extra" ]

provided=$(sort -u "$REC/provide" 2>/dev/null | tr '\n' ' ')
diag "the demo's set-up ran: ${provided:-no provide-*.sh script}"
check "it runs scripts/provide-criu.sh (CRIU 4.2.1)" grep -qx provide-criu.sh "$REC/provide"
others=$(grep -vx provide-criu.sh "$REC/provide" 2>/dev/null | sort -u | tr '\n' ' ')
check "and no other provide-*.sh script${others:+ (ran: $others)}" [ -z "$others" ]
done_testing

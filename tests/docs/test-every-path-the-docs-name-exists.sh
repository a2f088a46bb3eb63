#!/bin/bash
# Every repository path that the documents (README.md, docs/*.md, docs/results/*.md, man/*.in)
# and the C sources' comments (plugin/, cli/, tests/, bench/) name exists, so that a file moved
# or renamed cannot leave a reader looking for it.
#
# What counts as a path, and what satisfies it:
#   - a token that starts with a top-level directory of the tree (plugin/, cli/, tests/, bench/,
#     docs/, scripts/, man/, include/, proto/), alone or after $VAR/ or $(VAR)/; not one inside
#     another path (/usr/lib/criu/..., out/gpu-artifacts/...). It exists in the source tree, or
#     is a build product that Makefile.am or a *.mk fragment names (bench/cs-bench,
#     tests/emu/lib/libcuda.so.1). "*", "[ch]" and an upper-case placeholder of two letters or
#     more (NAME, PID) are patterns; "test-x-41/42" is test-x-41 and test-x-42;
#   - a document name without a top-level directory (design.md, results/gpu-runs.md): beside
#     the file that names it, in docs/, docs/results/ or the top directory;
#   - a bare C file name (engine_io.c, imgdir.h): some file of the source or build tree has it.
# (The man pages' @DOCDIR@/ names are test-install-under-prefix.sh's: it installs them.)
# EXCEPTIONS lists the few names that are not meant to exist in the tree.
. "$top_srcdir/tests/e2e/lib.sh"

# name -> why it is not in the tree
declare -A EXCEPTIONS=(
	[tests/fuzz/crashes]="created by a fuzz run for the inputs that crashed it"
	[criu-plugin.h]="CRIU's header, from --with-criu-src or the criu package"
	[criu-log.h]="CRIU's header, from --with-criu-src"
	[cuda.h]="the CUDA toolkit's header; libcuda is loaded at run time"
	[xxhash.h]="libxxhash's header (the xxhash package)"
)

cd "$top_srcdir" || bail "cannot enter $top_srcdir"
command -v perl >/dev/null || skip_all "perl is not installed"
files=$(ls README.md docs/*.md man/*.in 2>/dev/null; ls docs/results/*.md 2>/dev/null
	find plugin cli tests bench \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) ! -name '*.pb-c.[ch]' | sort)
[ -n "$files" ] || bail "no documents found under $top_srcdir"
mkfiles=$(ls Makefile.am; find . -name '*.mk' ! -path './.git/*' ! -path './sanitizers/*')
# every file name of the source and the build tree, for the bare C file names
basenames=$( { find . "$top_builddir" \( -name .git -o -name sanitizers \) -prune -o -type f -printf '%f\n'; } | sort -u)

# "FILE<TAB>KIND<TAB>NAME" for every name, once per file
tokens=$(perl -e '
	use strict; use warnings;
	my $top = qr{(?:plugin|cli|tests|bench|docs|scripts|man|include|proto)};
	for my $f (@ARGV) {
		open(my $fh, "<", $f) or die "$f: $!";
		local $/; my $t = <$fh>; close $fh;
		if ($f =~ /\.in$/) { $t =~ s/\\-/-/g; $t =~ s/\\f[BIRP]//g; $t =~ s/\\&//g; }
		if ($f =~ /\.(?:c|h|cu)$/) { # comments only
			my $c = ""; while ($t =~ m{(/\*.*?\*/|//[^\n]*)}gs) { $c .= "$1\n"; }
			$t = $c;
		}
		my %seen;
		while ($t =~ m{(?<![\w./\$\@-])(?:\$\{?\w+\}?/|\$\(\w+\)/)?($top/[\w.*/\[\]-]*[\w*\]])}g) {
			my $p = $1;
			$p =~ s/\][^\[]*$// while ($p =~ tr/]//) > ($p =~ tr/[//); # a markdown link
			$p =~ s/\.$//;
			if ($p =~ m{^(.*-)(\d+)/(\d+)$}) { $seen{"path\t$1$2"} = 1; $seen{"path\t$1$3"} = 1; next; }
			$seen{"path\t$p"} = 1;
		}
		while ($t =~ m{(?<![\w./\@\$-])((?:\.\./|[\w-]+/)*[\w-]+\.md)\b}g) {
			$seen{"doc\t$1"} = 1 unless $1 =~ m{^$top/};
		}
		while ($t =~ m{(?<![\w./\@-])([\w-]+\.[ch])\b(?![\w.-])}g) { $seen{"cfile\t$1"} = 1; }
		print "$f\t$_\n" for sort keys %seen;
	}' $files) || bail "cannot read the documents"

# which files name each NAME
declare -A named_in
while IFS=$'\t' read -r f kind name; do
	named_in["$kind	$name"]+=" $f"
done <<<"$tokens"

exists() { # exists KIND NAME [FILES THAT NAME IT]
	local kind=$1 name=$2 pat d f
	case $kind in
	path)
		pat=$(sed -E 's/(^|[^A-Za-z])[A-Z][A-Z_]+([^A-Za-z]|$)/\1*\2/g' <<<"$name")
		if [[ $pat == *[*[]* ]]; then
			compgen -G "$pat" >/dev/null && return 0
		else
			[ -e "$name" ] && return 0
		fi
		grep -qF -- "$name" $mkfiles ;;
	doc)
		for f in $3; do [ -e "$(dirname "$f")/$name" ] && return 0; done
		for d in docs docs/results .; do [ -e "$d/$name" ] && return 0; done
		return 1 ;;
	cfile) grep -qxF -- "$name" <<<"$basenames" ;;
	esac
}

plan ${#named_in[@]}
for key in $(printf '%s\n' "${!named_in[@]}" | sort | tr '\t' '|'); do
	kind=${key%%|*} name=${key#*|}
	where=${named_in["$kind	$name"]}
	if [ -n "${EXCEPTIONS[$name]:-}" ]; then
		ok "$name (named in$where) is not in the tree: ${EXCEPTIONS[$name]}"
	elif exists "$kind" "$name" "$where"; then
		ok "$name (named in$where) exists"
	else
		not_ok "$name (named in$where) does not exist"
	fi
done
done_testing

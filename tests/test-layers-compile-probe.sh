#!/bin/bash
# Each layer's include path, as the Makefile gives it, lets a source see its own layer and those
# below it and nothing else (docs/design.md, "Module map"). For every library, with the flags
# make compiles that library's sources with (make layer-probe-compile LIB=... PROBE=...):
#   - a probe including one header of a layer the library may not see fails to compile, and the
#     compiler says that header was not found (not some other error): by its name, and by its
#     path from each folder above it ("context.h", "helper/context.h", "plugin/helper/context.h");
#   - a probe including one header of its own layer and of each layer below compiles, so the
#     failures above are not those of a probe that could never compile;
#   - no folder on its include path (make print-layer-includes) holds another layer's folder.
. "$top_srcdir/tests/e2e/lib.sh"
cd "$top_builddir" || bail "no build tree at $top_builddir"
src=$(realpath "$top_srcdir")

LAYERS="base images engine helper criu cli"
declare -A MAY=(
	[base]="base"
	[images]="images base"
	[engine]="engine images base"
	[helper]="helper engine images base"
	[criu]="criu base"
	[cli]="cli engine images base"
)
# each layer's folder and one header of it, found only through that folder
declare -A DIR=([base]=plugin/base [images]=plugin/images [engine]=plugin/engine
	[helper]=plugin/helper [criu]=plugin/criu [cli]=cli)
declare -A HDR=([base]=options.h [images]=manifest.h [engine]=engine.h [helper]=context.h
	[criu]=criu_opts.h [cli]=cli.h)
# the targets whose sources are each layer's (Makefile.am and its fragments)
declare -A TARGETS=([base]=libcsbase_a [images]=libcsimages_a [engine]=libcsengine_a
	[helper]="libcshelper_a cudastore_helper" [criu]="libcscriu_a cudastore_plugin_so" [cli]=cudastore)

WORK=$(mktemp -d /tmp/cs-layer-probe.XXXXXX) || bail "no temporary directory"
trap 'rm -rf "$WORK"' EXIT

# make in the build tree, outside the make that runs this test
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${MAKE:-make} -s -C "$top_builddir" "$@"; }

for l in $LAYERS; do
	for h in ${HDR[$l]}; do
		[ -f "$src/${DIR[$l]}/$h" ] || bail "${DIR[$l]}/$h is gone: name another header of $l here"
	done
done

# probe NAME HEADER... : a probe source including each header
probe() {
	local f=$WORK/$1.c h
	shift
	: >"$f"
	for h in "$@"; do echo "#include \"$h\"" >>"$f"; done
	echo "int cs_layer_probe(void);" >>"$f"
	echo "int cs_layer_probe(void) { return 0; }" >>"$f"
	echo "$f"
}

# every way layer $1's header may be spelled from a folder above it: "context.h",
# "helper/context.h", "plugin/helper/context.h" (an include path holding plugin/ or the top
# would find the longer ones)
spellings() {
	local d=${DIR[$1]} h=${HDR[$1]}
	echo "$h"
	while [ "$d" != . ]; do
		h=${d##*/}/$h
		echo "$h"
		d=$(dirname "$d")
	done
}

# no_layer_below DIR LAYER: DIR (from LAYER's flags) is not an ancestor of another layer's folder
no_layer_below() {
	local d l
	d=$(realpath -m "$1")
	for l in $LAYERS; do
		[ "$l" = "$2" ] && continue
		case "$src/${DIR[$l]}/" in
		"$d"/*) [ "$src/${DIR[$l]}" = "$d" ] || { echo "$1 holds ${DIR[$l]} ($l)"; return 1; } ;;
		esac
	done
}

for l in $LAYERS; do
	for t in ${TARGETS[$l]}; do
		incs=$(mk print-layer-includes LIB="$t") || bail "make print-layer-includes LIB=$t failed"
		[ -n "$incs" ] || bail "$t has no -I in its flags: is $t still a target of Makefile.am?"
		bad=""
		for d in $incs; do
			why=$(no_layer_below "$d" "$l") || bad+="$why; "
		done
		if [ -n "$bad" ]; then
			not_ok "$t ($l): a folder on its include path holds another layer: $bad"
		else
			ok "$t ($l): its include path ($(echo $incs)) holds no other layer's folder"
		fi

		hdrs=""
		for m in ${MAY[$l]}; do hdrs+=" ${HDR[$m]}"; done
		# shellcheck disable=SC2086
		p=$(probe "$t-may" $hdrs)
		if out=$(mk layer-probe-compile LIB="$t" PROBE="$p" 2>&1); then
			ok "$t ($l): a probe including$hdrs compiles"
		else
			while read -r line; do diag "$line"; done <<<"$out"
			not_ok "$t ($l): a probe including$hdrs does not compile: the probes below prove nothing"
		fi

		for f in $LAYERS; do
			case " ${MAY[$l]} " in *" $f "*) continue ;; esac
			for h in $(spellings "$f"); do
				p=$(probe "$t-$f-${h//\//-}" "$h")
				if out=$(mk layer-probe-compile LIB="$t" PROBE="$p" 2>&1); then
					not_ok "$t ($l): #include \"$h\" ($f) compiles; $l may include only ${MAY[$l]}"
				elif grep -q "$h: No such file or directory" <<<"$out"; then
					ok "$t ($l): #include \"$h\" ($f) fails: not found"
				else
					while read -r line; do diag "$line"; done <<<"$out"
					not_ok "$t ($l): #include \"$h\" ($f) fails, but not for want of the header"
				fi
			done
		done
	done
done
echo "1..$T_N"
done_testing

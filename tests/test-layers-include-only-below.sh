#!/bin/bash
# Every #include "..." of every .c and .h under plugin/ and cli/ names a header of the file's own
# layer or of a layer below it (docs/design.md, "Module map"):
#   base (plugin/base) <- images <- engine <- helper;  criu <- base;  cli <- engine, images, base
# One check per layer; each include that breaks the map is named as file:line with the rule.
# The build's include paths refuse the same includes; this names them all at once, and also
# those written as a path ("../engine/engine.h"), which the include paths alone would not stop.
. "$top_srcdir/tests/e2e/lib.sh"
cd "$top_srcdir" || bail "no source tree at $top_srcdir"

LAYERS="base images engine helper criu cli"
declare -A MAY=(
	[base]="base"
	[images]="images base"
	[engine]="engine images base"
	[helper]="helper engine images base"
	[criu]="criu base"
	[cli]="cli engine images base"
)

# the layer of a path relative to the top of the tree; nothing for a file of no layer
layer_of() {
	case "$1" in
	plugin/base/*) echo base ;;
	plugin/images/*) echo images ;;
	plugin/engine/*) echo engine ;;
	plugin/helper/*) echo helper ;;
	plugin/criu/*) echo criu ;;
	plugin/*/*) ;;
	cli/*) echo cli ;;
	proto/cudastore.pb-c.h) echo images ;; # generated: the manifest schema's code
	esac
}

# every header of ours, by its name, for includes found through an include path
declare -A HDR=()
while read -r h; do
	HDR[$(basename "$h")]+="$h "
done < <(find plugin cli -name '*.h' | sort)
HDR[cudastore.pb-c.h]="proto/cudastore.pb-c.h "

# the file an include names: beside the including file first (as the compiler looks), then
# under the top of the tree, then by name among our headers; nothing for a system or CRIU header
resolve() {
	local dir=$1 inc=$2 p
	p=$(realpath -m --relative-to=. "$dir/$inc")
	if [ -e "$p" ]; then echo "$p"; return; fi
	if [ -e "$inc" ]; then realpath -m --relative-to=. "$inc"; return; fi
	p=${HDR[$(basename "$inc")]:-}
	[ -n "$p" ] && echo "${p%% *}"
}

declare -A BAD=()
declare -A NFILES=()
while read -r f; do
	from=$(layer_of "$f")
	[ -n "$from" ] || continue
	NFILES[$from]=$((${NFILES[$from]:-0} + 1))
	while IFS=: read -r line inc; do
		to=$(resolve "$(dirname "$f")" "$inc")
		[ -n "$to" ] || continue
		tl=$(layer_of "$to")
		[ -n "$tl" ] || continue
		case " ${MAY[$from]} " in
		*" $tl "*) ;;
		*) BAD[$from]+="$f:$line: includes \"$inc\" ($to, $tl layer); $from may include only ${MAY[$from]}"$'\n' ;;
		esac
	done < <(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
		sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1:\2/')
done < <(find plugin cli -name '*.[ch]' | sort)

plan 6
for l in $LAYERS; do
	if [ -n "${BAD[$l]:-}" ]; then
		while read -r b; do [ -n "$b" ] && diag "$b"; done <<<"${BAD[$l]}"
		not_ok "$l (${NFILES[$l]:-0} files): an include from a layer above"
	else
		check "$l (${NFILES[$l]:-0} files): every include of its own layer or below (${MAY[$l]})" \
			[ "${NFILES[$l]:-0}" -gt 0 ]
	fi
done
done_testing

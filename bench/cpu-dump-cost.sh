#!/usr/bin/env bash
# cpu-dump-cost.sh - what the plugin costs a dump that has no CUDA process in it. With the plugin
# in criu's plugin directory, every criu run starts cudastore-helper (which loads the driver,
# finds no CUDA process and is stopped); this measures that, beside the same dump without the
# plugin, from one run. Usage (as root, from a built tree):
#
#   bench/cpu-dump-cost.sh [--runs N] [--real] [--criu PATH]
#
# --real uses the host's libcuda (default: the driver emulator of tests/emu when built, so that
# the helper loads a driver as it would on a GPU host). Prints the median whole `criu dump` of a
# CPU-only process without and with the plugin, their difference, and the helper's own start
# time as the plugin's log gives it ("running as pid N, ready in X ms").
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
RUNS=15 REAL= CRIU=${CRIU:-/usr/local/sbin/criu}
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) RUNS=$2; shift 2 ;;
	--real) REAL=1; shift ;;
	--criu) CRIU=$2; shift 2 ;;
	-h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "cpu-dump-cost: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || { echo "cpu-dump-cost: needs root (criu)" >&2; exit 2; }
TMP=$(mktemp -d /tmp/cudastore-cpu-dump-cost.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill -9 $PID 2>/dev/null; rm -rf "$TMP"' EXIT
mkdir -p "$TMP/plugins" "$TMP/none"
cp "$top/cudastore_plugin.so" "$top/cudastore-helper" "$TMP/plugins/" || exit 2
if [ -z "$REAL" ] && [ -e "$top/tests/emu/lib/libcuda.so.1" ]; then
	export CUDASTORE_LIBCUDA=$top/tests/emu/lib/libcuda.so.1 CUDASTORE_LIBNVML=$top/tests/emu/lib/libnvidia-ml.so.1
	driver="the driver emulator"
else
	driver="the host's libcuda"
fi
export CUDASTORE_CONFIG=$TMP/cs.conf
: >"$CUDASTORE_CONFIG"
median() { sort -g | awk '{v[NR]=$1} END {if (!NR) print "-"; else if (NR % 2) print v[(NR+1)/2]; else printf "%.1f\n", (v[NR/2]+v[NR/2+1])/2}'; }

# one dump of a fresh sleeping process, -L DIR; prints its milliseconds (criu leaves it running)
dump_ms() {
	local dir=$1 img=$TMP/img t0 t1
	setsid -f sh -c 'echo $$ >"$1"; exec sleep 1000' sh "$TMP/pid" </dev/null >/dev/null 2>&1
	for _ in $(seq 100); do [ -s "$TMP/pid" ] && break; sleep 0.01; done
	PID=$(cat "$TMP/pid"); rm -f "$TMP/pid"
	rm -rf "$img"; mkdir -p "$img"
	t0=$(date +%s%N)
	"$CRIU" dump -t "$PID" -D "$img" -o dump.log -v4 -L "$dir" -R >/dev/null 2>&1 || { echo fail; return; }
	t1=$(date +%s%N)
	grep -ao 'ready in [0-9.]* ms' "$img/dump.log" | awk '{print $3}' >>"$TMP/ready"
	kill -9 "$PID"; PID=
	echo $(((t1 - t0) / 1000000))
}

: >"$TMP/without"; : >"$TMP/with"; : >"$TMP/ready"
for i in $(seq "$RUNS"); do # alternated, so that both see the same machine
	dump_ms "$TMP/none" >>"$TMP/without"
	dump_ms "$TMP/plugins" >>"$TMP/with"
done
if grep -q fail "$TMP/without" "$TMP/with"; then
	echo "cpu-dump-cost: a criu dump failed" >&2
	exit 1
fi
wo=$(median <"$TMP/without"); wi=$(median <"$TMP/with"); rd=$(median <"$TMP/ready")
echo "criu dump of a CPU-only process, $RUNS runs each, alternated, with $driver:"
echo "  without the plugin: median $wo ms"
echo "  with the plugin:    median $wi ms (cudastore-helper ready in a median $rd ms)"
awk -v a="$wo" -v b="$wi" 'BEGIN { printf "  the plugin costs:   %.0f ms per dump (%.0f %%)\n", b - a, (a > 0 ? 100 * (b - a) / a : 0) }'

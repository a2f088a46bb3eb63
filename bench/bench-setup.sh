# bench-setup.sh - sourced by criu-overlap.sh and tree-bench.sh: the plugin directory criu loads,
# the emulator or the real driver, the files both need checked. Expects top, TMP, PLUGINS, REAL,
# CRIU, WORKLOAD and EMU set; sets PLUGINS (a copy of the build's plugin and helper when empty)
# and, with the emulator, CUDASTORE_LIBCUDA, CUDASTORE_LIBNVML and CUDASTORE_EMU_MEM_MB.
if [ -z "$PLUGINS" ]; then
	PLUGINS=$TMP/plugins
	mkdir -p "$PLUGINS"
	cp "$top/cudastore_plugin.so" "$top/cudastore-helper" "$PLUGINS/" || exit 1
fi
[ "$REAL" = 1 ] && EMU=
for f in "$CRIU" "$WORKLOAD" ${EMU:+"$EMU/libcuda.so.1"} "$PLUGINS/cudastore_plugin.so"; do
	[ -e "$f" ] || { echo "$0: $f not found" >&2; exit 2; }
done
if [ -n "$EMU" ]; then
	export CUDASTORE_LIBCUDA=$EMU/libcuda.so.1 CUDASTORE_LIBNVML=$EMU/libnvidia-ml.so.1
	export CUDASTORE_EMU_MEM_MB=${CUDASTORE_EMU_MEM_MB:-65536}
fi

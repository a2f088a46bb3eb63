#!/bin/bash
# install-zdtm-tests.sh CRIU_TEST_DIR - install cudastore's GPU zdtm tests into CRIU's source
# tree, as test/zdtm/cudastore: the Makefile, the scenario script and a link per scenario, their
# .desc files (flavor h, flags suid crlib), bin/cuda-workload, and in lib/ the plugin (and
# cudastore-helper when the build has one), which criu loads through zdtm's crlib flag
# (--libdir zdtm/cudastore/lib). Run from a built cudastore tree (top_srcdir/top_builddir in the
# environment, else the current directory). Then, in CRIU_TEST_DIR:
#     ./zdtm.py run -t zdtm/cudastore/cuda-workload -f h
set -euo pipefail
[ $# = 1 ] && [ -f "$1/zdtm.py" ] || { echo "usage: $0 CRIU_TEST_DIR (the directory of zdtm.py)" >&2; exit 2; }
src=${top_srcdir:-.}/tests/zdtm/cudastore
build=${top_builddir:-.}
dst=$1/zdtm/cudastore
for f in "$build/tests/workload/cuda-workload" "$build/cudastore_plugin.so"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "$0: $f is not built (make check builds it)" >&2; exit 1; }
done
rm -rf "$dst"
mkdir -p "$dst/bin" "$dst/lib"
cp "$src/Makefile" "$src/cuda-zdtm.sh" "$src"/*.desc "$dst/"
for desc in "$src"/*.desc; do
	ln -s cuda-zdtm.sh "$dst/$(basename "$desc" .desc)"
done
cp "$build/tests/workload/cuda-workload" "$dst/bin/"
cp "$build/cudastore_plugin.so" "$dst/lib/"
[ ! -e "$build/cudastore-helper" ] || cp "$build/cudastore-helper" "$dst/lib/"
echo "installed $(ls "$src"/*.desc | wc -l) GPU zdtm tests in $dst"

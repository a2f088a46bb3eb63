#!/bin/bash
# Every "#key = value" line of the example configuration (docs/cudastore.conf.example), with its
# '#' taken away, is a configuration the plugin accepts: uncommenting one line never makes criu
# fail. Checked through `cudastore verify`, which parses the configuration as a restore does and
# exits 2 on one it refuses (1 on an images directory that holds no images, as here).
. "$top_srcdir/tests/e2e/lib.sh"
EXAMPLE=$top_srcdir/docs/cudastore.conf.example
CMD=$top_builddir/cudastore
[ -x "$CMD" ] || bail "$CMD not built"
lines=$(grep '^#[a-z_0-9]* =' "$EXAMPLE")
[ -n "$lines" ] || bail "no '#key = value' lines in $EXAMPLE"
WORK=$(mktemp -d) || bail "mktemp failed"
mkdir "$WORK/images"
plan "$(wc -l <<<"$lines")"
while IFS= read -r line; do
	printf '%s\n' "${line#\#}" >"$WORK/cudastore.conf"
	chmod 600 "$WORK/cudastore.conf"
	out=$(CUDASTORE_CONFIG="$WORK/cudastore.conf" "$CMD" verify "$WORK/images" 2>&1)
	rc=$?
	[ $rc = 2 ] && diag "$out"
	check "'${line#\#}' uncommented is accepted" [ $rc != 2 ]
done <<<"$lines"
done_testing

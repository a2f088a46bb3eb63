#!/bin/bash
# Root runs cudastore-helper and loads libcuda only when nobody else can change them: a helper
# (beside the plugin, or named by the option) or a libcuda owned by another user, group-writable,
# or in a directory another user owns is refused at init, before any process is touched, and never
# run; so are a relative libcuda path and an over-long helper path. A helper reached through a
# link in root's directories runs.
. "$top_srcdir/tests/e2e/lib.sh"
need_criu; setup_work; use_emulator
plan 17
start_workload w --size 4m
cp "$PLUGINDIR/cudastore-helper" "$WORK/real-helper"
# a helper that leaves a mark when it runs
fake_helper() { # fake_helper FILE MARK
	printf '#!/bin/sh\ntouch %s\nexec %s "$@"\n' "$2" "$WORK/real-helper" >"$1"
	chmod 755 "$1"
}
refused() { # refused DESCRIPTION REGEX MARK: the last dump failed at init for REGEX; MARK not made
	check "$1: the dump is refused" [ "$rc" != 0 ]
	log_has "$WORK/img/dump.log" "$2" ||
		grep -a 'Error: cudastore' "$WORK/img/dump.log" | head -n 3 | cut -c1-300 | sed 's/^/#   /'
	check "$1: the reason is in criu's log" log_has "$WORK/img/dump.log" "$2"
	[ -z "${3:-}" ] || check "$1: it never ran" [ ! -e "$3" ]
}

fake_helper "$PLUGINDIR/cudastore-helper" "$WORK/ran-beside"
chown 65534 "$PLUGINDIR/cudastore-helper"
criu_dump "$WORK/img" "$WPID"; rc=$?
refused "helper beside the plugin owned by uid 65534" "cudastore-helper beside the plugin .*owned by uid 65534, not root" "$WORK/ran-beside"
rm -f "$PLUGINDIR/cudastore-helper"; cp "$WORK/real-helper" "$PLUGINDIR/cudastore-helper"

mkdir -m 755 "$WORK/opt"
fake_helper "$WORK/opt/helper" "$WORK/ran-opt"
chmod 775 "$WORK/opt/helper"
set_config "helper = $WORK/opt/helper"
criu_dump "$WORK/img" "$WPID"; rc=$?
refused "group-writable helper from the option" "helper \(from the helper option\) .*group- or world-writable" "$WORK/ran-opt"

mkdir -m 755 "$WORK/theirs"
fake_helper "$WORK/theirs/helper" "$WORK/ran-theirs"
chown 65534 "$WORK/theirs"
set_config "helper = $WORK/theirs/helper"
criu_dump "$WORK/img" "$WPID"; rc=$?
refused "helper in a directory of uid 65534" "directory $WORK/theirs is owned by uid 65534" "$WORK/ran-theirs"

set_config "helper = /$(printf 'a%.0s' $(seq 300))"
criu_dump "$WORK/img" "$WPID"; rc=$?
refused "a 301-byte helper path" "helper: the path is 301 bytes long, at most 255"

set_config
mkdir -m 755 "$WORK/lib"
cp "$EMU/libcuda.so.1" "$WORK/lib/"
chown 65534 "$WORK/lib/libcuda.so.1"
CRIU_ENV="CUDASTORE_LIBCUDA=$WORK/lib/libcuda.so.1" criu_dump "$WORK/img" "$WPID"; rc=$?
refused "libcuda owned by uid 65534" "libcuda $WORK/lib/libcuda.so.1: file .* owned by uid 65534"

CRIU_ENV="CUDASTORE_LIBCUDA=lib/libcuda.so.1" criu_dump "$WORK/img" "$WPID"; rc=$?
refused "a relative libcuda path" "libcuda: 'lib/libcuda.so.1' is a relative path"

ln -s "$WORK/real-helper" "$WORK/opt/link"
set_config "helper = $WORK/opt/link"
criu_dump "$WORK/img" "$WPID" && wait_gone "$WPID" && criu_restore "$WORK/img"
check "a helper reached through a link in root's directories runs: dump and restore" [ $? = 0 ]
check_verdict w "$WPID" "the process verifies its GPU memory"
done_testing

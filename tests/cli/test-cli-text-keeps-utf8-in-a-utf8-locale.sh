#!/bin/bash
# The text output of the cudastore command in a UTF-8 locale prints a UTF-8 path as it is (é-dir,
# not \xc3\xa9-dir), through inspect, verify and check alike, and escapes only what a terminal
# must not get: bytes that are not valid UTF-8, control characters (ESC), C1 controls and
# bidirectional controls. In the C locale, or one whose character set is not UTF-8, every byte
# above 0x7e is escaped as before. A locale named UTF-8 that is not installed counts as UTF-8.
# Before, every non-ASCII byte was escaped in every locale, and check printed paths unescaped.
. "$top_srcdir/tests/e2e/lib.sh"
setup_work
CS=$CUDASTORE_CMD
TOOL=$top_builddir/tests/cli/cs-sparse-images
export CUDASTORE_LIBCUDA=$WORK/no-libcuda.so CUDASTORE_LIBNVML=$WORK/no-nvml.so
unset LC_ALL LC_CTYPE LANG
plan 12
run() { "$@" >"$WORK/out" 2>"$WORK/err"; RC=$?; }
U=$WORK/é-dir
mkdir -p "$U"
"$TOOL" "$U" 7 1 $((1 << 20)) $((1 << 20)) index || bail "cs-sparse-images failed"

run env LC_ALL=C.UTF-8 "$CS" inspect "$U"
check "inspect, C.UTF-8: the path as it is (exit $RC)" grep -qF "$U/cudastore-7.img" "$WORK/out"
check "... no escape left in it" bash -c "! grep -qF 'xc3' '$WORK/out'"
run env LC_ALL=C.UTF-8 "$CS" verify "$U"
check "verify, C.UTF-8: the path as it is" grep -qF "$U/cudastore-7.img: OK" "$WORK/out"
run env LC_ALL=C "$CS" verify "$U"
check "verify, C locale: escaped as before" grep -qF "$WORK/\\xc3\\xa9-dir/cudastore-7.img: OK" "$WORK/out"
run env -u LC_ALL LANG=xx_YY.UTF-8 "$CS" verify "$U"
check "a UTF-8 locale that is not installed (LANG=xx_YY.UTF-8): the path as it is" \
	grep -qF "$U/cudastore-7.img: OK" "$WORK/out"
run env LC_ALL=C.UTF-8 LC_CTYPE=C "$CS" verify "$U"
check "LC_ALL wins over LC_CTYPE, as in the C library" grep -qF "$U/cudastore-7.img: OK" "$WORK/out"

# what a terminal must not get, in a UTF-8 locale too
for name in $'bad-\xff-dir' $'esc-\x1b[31m-dir' $'c1-\xc2\x9b-dir' $'bidi-\xe2\x80\xae-dir'; do
	mkdir -p "$WORK/$name"
done
run env LC_ALL=C.UTF-8 "$CS" verify "$WORK/"$'bad-\xff-dir'
check "an invalid byte is escaped in a UTF-8 locale" grep -qF 'bad-\xff-dir holds no checkpoint images' "$WORK/err"
run env LC_ALL=C.UTF-8 "$CS" verify "$WORK/"$'esc-\x1b[31m-dir'
check "ESC is escaped in a UTF-8 locale" grep -qF 'esc-\x1b[31m-dir holds' "$WORK/err"
run env LC_ALL=C.UTF-8 "$CS" verify "$WORK/"$'c1-\xc2\x9b-dir'
check "a C1 control (U+009B, CSI) is escaped, both of its bytes" grep -qF 'c1-\xc2\x9b-dir holds' "$WORK/err"
run env LC_ALL=C.UTF-8 "$CS" verify "$WORK/"$'bidi-\xe2\x80\xae-dir'
check "a bidirectional override (U+202E) is escaped" grep -qF 'bidi-\xe2\x80\xae-dir holds' "$WORK/err"

# check's text: escaped as inspect's and verify's now
cp "$CUDASTORE_CONFIG" "$WORK/é.conf"
run env LC_ALL=C.UTF-8 CUDASTORE_CONFIG="$WORK/é.conf" "$CS" check --plugin-dir "$WORK"
check "check, C.UTF-8: the config file's path as it is" grep -qF "options (config file $WORK/é.conf):" "$WORK/out"
cp "$CUDASTORE_CONFIG" "$WORK/"$'esc-\x1b]0;x\x07.conf'
run env LC_ALL=C.UTF-8 CUDASTORE_CONFIG="$WORK/"$'esc-\x1b]0;x\x07.conf' "$CS" check --plugin-dir "$WORK"
check "check: control characters in a path are escaped" \
	bash -c "grep -qF 'esc-\\x1b]0;x\\x07.conf' '$WORK/out' && ! grep -q \$'\\x1b' '$WORK/out'"
done_testing

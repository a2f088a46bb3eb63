#!/bin/bash
# cudastore check runs 'criu check' and shows its last line. Output longer than check's buffer
# keeps its end whole: a stand-in criu prints 16 KiB of padding whose last line straddles the
# point where the buffer once wrapped back to its start, and its last line is shown intact
# (before, only the part after that point was). A failing 'criu check' is reported as failed,
# with its last line.
. "$top_srcdir/tests/e2e/lib.sh"
setup_work
CS=$CUDASTORE_CMD
[ "$(id -u)" = 0 ] || skip_all "cudastore check runs criu check as root only"
export CUDASTORE_LIBCUDA=$WORK/no-libcuda.so CUDASTORE_LIBNVML=$WORK/no-nvml.so
plan 4
jget() { json_get "$WORK/out" "$1" 2>/dev/null; }

# stand_in RC: a criu 4.2.1 whose check prints 16372 bytes of padding (163 lines of 100 bytes
# and one of 72), then its last line, and exits RC
stand_in() {
	cat >"$WORK/criu" <<EOS
#!/bin/sh
case "\$1" in
--version) echo "Version: 4.2.1" ;;
check)
	yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c 16371
	echo
	echo "Looks good: the last line of criu check"
	exit $1 ;;
esac
EOS
	chmod 755 "$WORK/criu"
}

stand_in 0
"$CS" check --json --criu "$WORK/criu" >"$WORK/out" 2>"$WORK/err"
check "criu check ran and passed" [ "$(jget "(d['criu']['check']['run'], d['criu']['check']['ok'])")" = "(True, True)" ]
check "its last line whole, after 16 KiB of output" \
	[ "$(jget "d['criu']['check']['output']")" = "Looks good: the last line of criu check" ]

stand_in 1
"$CS" check --json --criu "$WORK/criu" >"$WORK/out" 2>"$WORK/err"
check "a criu check that exits 1 is reported as failed" [ "$(jget "d['criu']['check']['ok']")" = False ]
check "... with its last line" [ "$(jget "d['criu']['check']['output']")" = "Looks good: the last line of criu check" ]
done_testing

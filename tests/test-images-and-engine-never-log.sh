#!/bin/bash
# The images and engine layers never log: they return 0 or -errno and say what went wrong in an
# (err, errlen) pair or a result field, and the copy engine hands what it notices on the way to
# its caller's note callback (engine.h). The layers above (helper, criu, cli) log, once each.
# Per layer: no call of a logging function (log.h's macros, cs_log_line, printing to stderr or
# stdout, syslog) in any .c or .h, and no #include "log.h"; each offending line is named.
. "$top_srcdir/tests/e2e/lib.sh"
cd "$top_srcdir" || bail "no source tree at $top_srcdir"

LOG_CALL='(^|[^[:alnum:]_])(cs_(err|warn|info|debug|log_line|log_text)|printf|vprintf|perror|puts|syslog|vsyslog|warnx?|errx?)[[:space:]]*\('
STD_CALL='(^|[^[:alnum:]_])(fv?printf|fputs|fputc|putc|fwrite)[[:space:]]*\(.*(stderr|stdout)'
LOG_INC='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]*/)?log\.h[">]'

# the lines of $1's files that match $2, comments left out (a line starting a /* or // comment
# or inside a block comment)
offending() {
	local dir=$1 re=$2
	find "$dir" -name '*.[ch]' | sort | while read -r f; do
		awk -v re="$re" -v f="$f" '
			incom { if (index($0, "*/")) incom = 0; next }
			/^[[:space:]]*\/\*/ { if (!index($0, "*/")) incom = 1; next }
			/^[[:space:]]*(\/\/|\*)/ { next }
			$0 ~ re { print f ":" FNR ": " $0 }' "$f"
	done
}

plan 4
for dir in plugin/images plugin/engine; do
	n=$(find "$dir" -name '*.[ch]' | wc -l)
	bad=$(offending "$dir" "$LOG_CALL"; offending "$dir" "$STD_CALL")
	if [ -n "$bad" ]; then
		while read -r b; do diag "$b"; done <<<"$bad"
		not_ok "$dir ($n files) calls a logging function; return -errno and a message instead"
	else
		check "$dir ($n files): no call of a logging function" [ "$n" -gt 0 ]
	fi
	bad=$(offending "$dir" "$LOG_INC")
	if [ -n "$bad" ]; then
		while read -r b; do diag "$b"; done <<<"$bad"
		not_ok "$dir includes log.h"
	else
		ok "$dir: no file includes log.h"
	fi
done
done_testing

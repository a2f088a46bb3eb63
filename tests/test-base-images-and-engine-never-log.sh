#!/bin/bash
# The base, images and engine layers never log: they return 0 or -errno and say what went wrong
# in an (err, errlen) pair or a result field; the copy engine hands what it notices on the way to
# its caller's note callback (engine.h), the options theirs through cs_options_notes (options.h).
# The layers above (helper, criu, cli) log, once each.
# Per layer: no call of a logging function (log.h's macros, cs_log_line, printing to stderr or
# stdout, syslog) in any .c or .h, and no #include "log.h"; each offending line is named. Base
# holds log.h and log.c, the interface every layer above logs through and its sinks: they are
# the two files left out.
. "$top_srcdir/tests/e2e/lib.sh"
cd "$top_srcdir" || bail "no source tree at $top_srcdir"

LOG_CALL='(^|[^[:alnum:]_])(cs_(err|warn|info|debug|log_line|log_text)|printf|vprintf|perror|puts|syslog|vsyslog|warnx?|errx?)[[:space:]]*\('
STD_CALL='(^|[^[:alnum:]_])(fv?printf|fputs|fputc|putc|fwrite)[[:space:]]*\(.*(stderr|stdout)'
LOG_INC='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]*/)?log\.h[">]'

# the .c and .h files of folder $1, log.h and log.c (the logging interface base holds) left out
layer_files() {
	find "$1" -name '*.[ch]' ! -path plugin/base/log.h ! -path plugin/base/log.c | sort
}

# the lines of $1's files that match $2, comments left out (a line starting a /* or // comment
# or inside a block comment)
offending() {
	local dir=$1 re=$2
	layer_files "$dir" | while read -r f; do
		awk -v re="$re" -v f="$f" '
			incom { if (index($0, "*/")) incom = 0; next }
			/^[[:space:]]*\/\*/ { if (!index($0, "*/")) incom = 1; next }
			/^[[:space:]]*(\/\/|\*)/ { next }
			$0 ~ re { print f ":" FNR ": " $0 }' "$f"
	done
}

plan 6
for dir in plugin/base plugin/images plugin/engine; do
	n=$(layer_files "$dir" | wc -l)
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

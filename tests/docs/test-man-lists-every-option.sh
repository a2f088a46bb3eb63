#!/bin/bash
# cudastore.conf(5) and the example configuration list exactly the keys of the plugin's option
# table (plugin/base/options.c): every key is documented there, and every key they document exists.
. "$top_srcdir/tests/e2e/lib.sh"
MAN=$top_srcdir/man/cudastore.conf.5.in
EXAMPLE=$top_srcdir/docs/cudastore.conf.example
keys=$("$top_builddir/tests/docs/cs-option-keys") || bail "tests/docs/cs-option-keys failed"
[ -n "$keys" ] || bail "the option table is empty"
# the OPTIONS section's entries: .TP, then ".BR key " = ...""
man_keys=$(sed -n '/^\.SH OPTIONS/,/^\.SH /s/^\.BR \([a-z_0-9]*\) " = .*/\1/p' "$MAN")
# the example's entries: "#key = default" lines
example_keys=$(sed -n 's/^#\([a-z_0-9]*\) =.*/\1/p' "$EXAMPLE")
plan $(($(echo "$keys" | wc -l) * 2 + $(echo "$man_keys" | wc -l) + $(echo "$example_keys" | wc -l)))
for k in $keys; do
	check "option '$k' is documented in cudastore.conf(5)" grep -qx "$k" <<<"$man_keys"
	check "option '$k' is in the example configuration" grep -qx "$k" <<<"$example_keys"
done
for k in $man_keys; do
	check "cudastore.conf(5) key '$k' is an option of the plugin" grep -qx "$k" <<<"$keys"
done
for k in $example_keys; do
	check "example configuration key '$k' is an option of the plugin" grep -qx "$k" <<<"$keys"
done
done_testing

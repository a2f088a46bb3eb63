// SPDX-License-Identifier: MIT
/*
 * test-strsafe-utf8-kept-controls-escaped - cs_str_escape_utf8 (strsafe.h), what the cudastore
 * command prints in a UTF-8 locale: valid UTF-8 of shown characters (é, 한, an emoji) is kept as
 * it is; invalid bytes, overlong forms, surrogates, ASCII and C1 controls, bidirectional controls
 * and the line separators are \xNN; the output is never cut inside a sequence; escaping twice
 * gives what escaping once gave; cs_str_escape still escapes every byte above 0x7e.
 */
#include <string.h>

#include "strsafe.h"
#include "tap.h"

static int same(const char *in, const char *want)
{
	char out[256], twice[256];

	cs_str_escape_utf8(in, out, sizeof(out));
	cs_str_escape_utf8(out, twice, sizeof(twice));
	if (strcmp(out, want) || strcmp(twice, out))
		tap_diag("got '%s', then '%s'; wanted '%s'", out, twice, want);
	return !strcmp(out, want) && !strcmp(twice, out);
}

int main(void)
{
	char out[16];
	unsigned cp;

	tap_plan(15);
	tap_ok(same("/srv/\xc3\xa9-dir/x.img", "/srv/\xc3\xa9-dir/x.img"), "é (2 bytes) kept");
	tap_ok(same("\xed\x95\x9c \xf0\x9f\x98\x80", "\xed\x95\x9c \xf0\x9f\x98\x80"), "3- and 4-byte characters kept");
	tap_ok(same("a\xff" "b", "a\\xffb"), "an invalid byte escaped");
	tap_ok(same("\xc3(", "\\xc3("), "a lead byte without its continuation escaped, the next byte kept");
	tap_ok(same("\xc0\xaf", "\\xc0\\xaf"), "an overlong '/' escaped");
	tap_ok(same("\xed\xa0\x80", "\\xed\\xa0\\x80"), "a surrogate escaped");
	tap_ok(same("\x1b[31mred\n", "\\x1b[31mred\\x0a"), "ESC and newline escaped");
	tap_ok(same("\xc2\x9b" "2J", "\\xc2\\x9b2J"), "the C1 control CSI (U+009B) escaped, both bytes");
	tap_ok(same("x\xe2\x80\xaey", "x\\xe2\\x80\\xaey"), "the bidirectional override U+202E escaped");
	tap_ok(same("x\xe2\x80\xa8y", "x\\xe2\\x80\\xa8y"), "the line separator U+2028 escaped");
	tap_ok(same("\xc2\xa0\\x41", "\xc2\xa0\\x41"), "U+00A0 and a literal backslash kept");
	cs_str_escape_utf8("ab\xc3\xa9", out, 4);
	tap_ok(!strcmp(out, "ab"), "cut before a sequence that does not fit: '%s'", out);
	cs_str_escape("\xc3\xa9", out, sizeof(out));
	tap_ok(!strcmp(out, "\\xc3\\xa9"), "cs_str_escape: every byte above 0x7e escaped, as before");
	tap_ok(cs_utf8_seq((const unsigned char *)"\xe2\x82\xac", 3, &cp) == 3 && cp == 0x20ac, "cs_utf8_seq: U+20AC");
	tap_ok(!cs_utf8_seq((const unsigned char *)"\xe2\x82\xac", 2, &cp), "cs_utf8_seq: a sequence longer than n is none");
	return tap_done();
}

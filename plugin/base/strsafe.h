/* SPDX-License-Identifier: MIT */
/*
 * strsafe.h - text read from images (names, versions, phase names, messages quoting them) made
 * safe to print in criu's log and on the operator's terminal.
 *
 * cs_str_escape() copies a string and writes every byte outside printable ASCII (0x20..0x7e),
 * newlines and escape sequences included, as the four characters \xNN. The result holds no
 * control character, so text from an image can neither start a forged log line ("Error ...")
 * nor drive the terminal. Printable text, backslashes included, is copied as it is, so escaping
 * twice gives what escaping once gave.
 *
 * cs_str_escape_utf8() is the same for a terminal that shows UTF-8 (the cudastore command in a
 * UTF-8 locale): a valid UTF-8 sequence of a character that is shown (a path with "é") is copied
 * as it is; every other byte outside printable ASCII is \xNN: invalid or overlong sequences,
 * surrogates, and the characters that drive a terminal or reorder or break what it shows (the C1
 * controls U+0080..U+009F, the bidirectional controls, U+2028 and U+2029). The same guarantees
 * hold: no control character, and escaping twice gives what escaping once gave.
 */
#ifndef CUDASTORE_STRSAFE_H
#define CUDASTORE_STRSAFE_H

#include <stdbool.h>
#include <stddef.h>

/* s escaped into out (outlen > 0 bytes, always terminated, cut at a whole \xNN); returns out */
const char *cs_str_escape(const char *s, char *out, size_t outlen);
/* the same for n bytes that may hold NUL bytes */
const char *cs_mem_escape(const void *s, size_t n, char *out, size_t outlen);
/* true when s holds no byte cs_str_escape would rewrite */
bool cs_str_is_printable(const char *s);
/* s escaped for a UTF-8 terminal into out, as cs_str_escape (never cut inside a sequence) */
const char *cs_str_escape_utf8(const char *s, char *out, size_t outlen);
/*
 * The length of the valid UTF-8 sequence at s (n bytes available) and its code point in *cp; 0
 * when s does not start with one (a stray or missing continuation byte, an overlong form, a
 * surrogate, a code point above U+10FFFF).
 */
size_t cs_utf8_seq(const unsigned char *s, size_t n, unsigned *cp);

#endif /* CUDASTORE_STRSAFE_H */

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

#endif /* CUDASTORE_STRSAFE_H */

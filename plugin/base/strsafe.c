// SPDX-License-Identifier: MIT
/* strsafe.c - escaping text from images for logs and terminals (contract in strsafe.h) */
#include <stdio.h>
#include <string.h>

#include "strsafe.h"

static bool printable(unsigned char c)
{
	return c >= 0x20 && c <= 0x7e;
}

const char *cs_mem_escape(const void *s, size_t n, char *out, size_t outlen)
{
	const unsigned char *p = s;
	size_t o = 0;

	if (!outlen)
		return out;
	for (size_t i = 0; i < n; i++) {
		if (printable(p[i])) {
			if (o + 1 >= outlen)
				break;
			out[o++] = (char)p[i];
			continue;
		}
		if (o + 4 >= outlen)
			break;
		snprintf(out + o, 5, "\\x%02x", p[i]);
		o += 4;
	}
	out[o] = '\0';
	return out;
}

const char *cs_str_escape(const char *s, char *out, size_t outlen)
{
	return cs_mem_escape(s, s ? strlen(s) : 0, out, outlen);
}

bool cs_str_is_printable(const char *s)
{
	for (; *s; s++)
		if (!printable((unsigned char)*s))
			return false;
	return true;
}

size_t cs_utf8_seq(const unsigned char *s, size_t n, unsigned *cp)
{
	size_t len, i;
	unsigned c;

	if (!n)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* no overlong forms, no surrogates, nothing above U+10FFFF */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* a character a UTF-8 terminal shows, that neither drives it nor reorders or breaks the line */
static bool shown(unsigned cp)
{
	if (cp < 0xa0) /* ASCII (printable() decides) and the C1 controls */
		return false;
	if (cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069)) /* bidirectional controls */
		return false;
	return cp != 0x2028 && cp != 0x2029; /* line and paragraph separators */
}

const char *cs_str_escape_utf8(const char *s, char *out, size_t outlen)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = s ? strlen(s) : 0, o = 0, i = 0, len;
	unsigned cp;

	if (!outlen)
		return out;
	while (i < n) {
		len = printable(p[i]) ? 1 : cs_utf8_seq(p + i, n - i, &cp);
		if (len && (len == 1 ? printable(p[i]) : shown(cp))) {
			if (o + len >= outlen)
				break;
			memcpy(out + o, p + i, len);
			o += len;
			i += len;
			continue;
		}
		if (o + 4 >= outlen)
			break;
		snprintf(out + o, 5, "\\x%02x", p[i]);
		o += 4;
		i++;
	}
	out[o] = '\0';
	return out;
}

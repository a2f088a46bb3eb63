// SPDX-License-Identifier: MIT
/* out.c - the cudastore command's text output: messages, sizes, progress bar, plugin log lines */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "log.h"
#include "strsafe.h"

int cli_verbose;
bool cli_utf8;

/* The plugin's modules log through cs_log_line (log.h); main() makes this its sink: stderr with -v. */
void cli_log_sink(unsigned int loglevel, const char *line)
{
	if (!cli_verbose || (int)loglevel > 2 + cli_verbose)
		return;
	fputs(line, stderr);
}

/* fmt with ap, escaped (strsafe.h; UTF-8 kept in a UTF-8 locale), on f: one line without its newline */
static void put_escaped(FILE *f, const char *fmt, va_list ap)
{
	char raw[4096], safe[4 * sizeof(raw)];

	vsnprintf(raw, sizeof(raw), fmt, ap);
	fputs(cli_utf8 ? cs_str_escape_utf8(raw, safe, sizeof(safe)) : cs_str_escape(raw, safe, sizeof(safe)),
	      f);
}

void cli_line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	put_escaped(stdout, fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

/* "cudastore SUB: message" ("cudastore: message" without SUB) on stderr, without the newline */
static void say(const char *sub, const char *fmt, va_list ap)
{
	va_list copy;

	va_copy(copy, ap);
	cli_said_error(fmt, copy); /* the first one, for the JSON error object (said.c) */
	va_end(copy);
	fprintf(stderr, "cudastore%s%s: ", sub ? " " : "", sub ? sub : "");
	put_escaped(stderr, fmt, ap);
}

void cli_err(const char *sub, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(sub, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_err(const char *sub, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(sub, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'cudastore %s --help'.\n", sub);
	return CLI_USAGE;
}

/* ---- sizes, time, progress ---- */

const char *cli_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	unsigned i = 0;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)b);
	else
		snprintf(buf, len, "%.2f %s", v, unit[i]);
	return buf;
}

void cli_progress_begin(struct cli_progress *p, uint64_t total)
{
	p->on = isatty(STDERR_FILENO) && total;
	p->total = total;
	p->t0 = cs_now();
}

void cli_progress_update(struct cli_progress *p, uint64_t done, const char *what)
{
	char bar[41];
	double s = cs_now() - p->t0;
	unsigned i, fill;

	if (!p->on)
		return;
	fill = (unsigned)(done * 40 / p->total);
	for (i = 0; i < 40; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[40] = '\0';
	fprintf(stderr, "\r%-32.32s [%s] %3u%% %7.1f MB/s", what, bar, (unsigned)(done * 100 / p->total),
		s > 0 ? done / s / 1e6 : 0.0);
	fflush(stderr);
}

void cli_progress_end(struct cli_progress *p)
{
	if (p->on)
		fprintf(stderr, "\r%*s\r", 78, "");
	p->on = false;
}

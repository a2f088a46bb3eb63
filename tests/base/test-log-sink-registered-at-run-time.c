// SPDX-License-Identifier: MIT
/*
 * log.c: a program that registers no sink gets the default one (stderr, errors, warnings and
 * information lines, no debug lines); a registered sink gets every line, formatted, with its
 * level, and nothing reaches stderr; a line longer than CS_LOG_LINE_MAX is cut there, still
 * terminated; registering NULL brings the default back.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "tap.h"

static char got[CS_LOG_LINE_MAX + 16];
static unsigned got_level, got_lines;

static void keep(unsigned int loglevel, const char *line)
{
	snprintf(got, sizeof(got), "%s", line);
	got_level = loglevel;
	got_lines++;
}

/* what fn wrote to stderr (fd 2), or "" */
static const char *stderr_of(void (*fn)(void))
{
	static char buf[4096];
	char path[] = "/tmp/cs-log-sink.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	ssize_t n;

	if (fd < 0 || saved < 0)
		tap_bail("cannot capture stderr");
	unlink(path);
	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	return buf;
}

static void log_three(void)
{
	cs_err("pid %d: broken", 7);
	cs_info("note %s", "this");
	cs_debug("hidden %d", 1);
}

int main(void)
{
	static char big[CS_LOG_LINE_MAX * 2];
	const char *out;

	tap_plan(6);
	out = stderr_of(log_three);
	tap_ok(strstr(out, "Error: cudastore: pid 7: broken\n") && strstr(out, "cudastore: note this\n") &&
		   !strstr(out, "hidden"),
	       "default sink: errors and information lines on stderr, no debug line");

	cs_log_set_sink(keep);
	out = stderr_of(log_three);
	tap_ok(!out[0] && got_lines == 3,
	       "a registered sink gets every line, debug included, none on stderr (%u)", got_lines);
	tap_ok(!strcmp(got, "cudastore: hidden 1\n") && got_level == CS_LOG_DEBUG,
	       "formatted, with its level: %.*s", (int)strcspn(got, "\n"), got);
	cs_warn("pid %d: careful", 9);
	tap_ok(!strcmp(got, "Warn: cudastore: pid 9: careful\n") && got_level == CS_LOG_WARN,
	       "a warning: %.*s", (int)strcspn(got, "\n"), got);

	memset(big, 'x', sizeof(big) - 1);
	cs_info("%s", big);
	tap_ok(strlen(got) == CS_LOG_LINE_MAX - 1 && !strncmp(got, "cudastore: xxx", 14),
	       "a line of %zu bytes is cut at %zu", strlen(big), strlen(got));

	cs_log_set_sink(NULL);
	got_lines = 0;
	out = stderr_of(log_three);
	tap_ok(strstr(out, "cudastore: note this\n") && !got_lines, "NULL brings the default sink back");
	return tap_done();
}

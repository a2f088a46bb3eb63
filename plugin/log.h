/* SPDX-License-Identifier: MIT */
/*
 * log.h - logging through cs_log_line, every line prefixed "cudastore: ".
 *
 * cs_log_line (log.c) formats the line and hands it to the sink the program registered at
 * start-up with cs_log_set_sink: inside criu, criu's print_on_level (plugin/criu/log_criu.c);
 * in cudastore-helper, criu's log over the helper's link (plugin/helper/criu_link.c); in the
 * cudastore command, stderr with -v (cli/out.c); tests and the benchmark, stderr at the level
 * CUDASTORE_TEST_LOGLEVEL names (tests/log-stderr.c). A program that registers none gets the
 * default sink: stderr, errors, warnings and information lines.
 */
#ifndef CUDASTORE_LOG_H
#define CUDASTORE_LOG_H

#define CS_LOG_ERROR 1
#define CS_LOG_WARN  2
#define CS_LOG_INFO  3
#define CS_LOG_DEBUG 4

/* the longest line a sink receives, its terminating NUL included: a longer one is cut there */
#define CS_LOG_LINE_MAX (8 * 1024)

/* Receives each line, formatted, with its loglevel; it decides which levels it keeps. */
typedef void cs_log_sink(unsigned int loglevel, const char *line);

/* From now on every line goes to sink; NULL: back to the default sink. */
void cs_log_set_sink(cs_log_sink *sink);
void cs_log_line(unsigned int loglevel, const char *format, ...) __attribute__((format(printf, 2, 3)));

#define cs_err(fmt, ...)   cs_log_line(CS_LOG_ERROR, "Error: cudastore: " fmt "\n", ##__VA_ARGS__)
#define cs_warn(fmt, ...)  cs_log_line(CS_LOG_WARN, "Warn: cudastore: " fmt "\n", ##__VA_ARGS__)
#define cs_info(fmt, ...)  cs_log_line(CS_LOG_INFO, "cudastore: " fmt "\n", ##__VA_ARGS__)
#define cs_debug(fmt, ...) cs_log_line(CS_LOG_DEBUG, "cudastore: " fmt "\n", ##__VA_ARGS__)

/* A line made elsewhere (a copy engine note, engine.h), logged as the macros above would. */
static inline void cs_log_text(unsigned int loglevel, const char *line)
{
	const char *kind = loglevel == CS_LOG_ERROR ? "Error: " : loglevel == CS_LOG_WARN ? "Warn: " : "";

	cs_log_line(loglevel, "%scudastore: %s\n", kind, line);
}

#endif /* CUDASTORE_LOG_H */

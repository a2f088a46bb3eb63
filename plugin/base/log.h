/* SPDX-License-Identifier: MIT */
/*
 * log.h - logging through cs_log_line, every line prefixed "cudastore: ".
 *
 * Each program defines cs_log_line once: inside criu it hands the line to criu's
 * print_on_level (plugin/criu/log_criu.c); cudastore-helper sends it to criu over its link
 * (plugin/helper/relay.c); the cudastore command prints it with -v (cli/out.c); tests and the
 * benchmark link tests/log-stderr.c, which writes it to stderr.
 */
#ifndef CUDASTORE_LOG_H
#define CUDASTORE_LOG_H

#define CS_LOG_ERROR 1
#define CS_LOG_WARN  2
#define CS_LOG_INFO  3
#define CS_LOG_DEBUG 4

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

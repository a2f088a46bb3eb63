/* SPDX-License-Identifier: MIT */
/*
 * log.h - logging through CRIU's print_on_level, every line prefixed "cudastore: ".
 *
 * The installed criu-log.h needs CRIU's uninstalled log.h, so we declare the one function we
 * use ourselves. print_on_level is provided by the criu binary. Code that also runs outside
 * criu (unit tests, benchmark) links tests/log-stderr.c, which provides a stderr version.
 */
#ifndef CUDASTORE_LOG_H
#define CUDASTORE_LOG_H

#define CS_LOG_ERROR 1
#define CS_LOG_WARN  2
#define CS_LOG_INFO  3
#define CS_LOG_DEBUG 4

extern void print_on_level(unsigned int loglevel, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#define cs_err(fmt, ...)   print_on_level(CS_LOG_ERROR, "Error: cudastore: " fmt "\n", ##__VA_ARGS__)
#define cs_warn(fmt, ...)  print_on_level(CS_LOG_WARN, "Warn: cudastore: " fmt "\n", ##__VA_ARGS__)
#define cs_info(fmt, ...)  print_on_level(CS_LOG_INFO, "cudastore: " fmt "\n", ##__VA_ARGS__)
#define cs_debug(fmt, ...) print_on_level(CS_LOG_DEBUG, "cudastore: " fmt "\n", ##__VA_ARGS__)

#endif /* CUDASTORE_LOG_H */

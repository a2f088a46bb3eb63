/* SPDX-License-Identifier: MIT */
/* log_criu.h - the plugin's log lines into criu's own log (log.h's sink, set at init) */
#ifndef CUDASTORE_LOG_CRIU_H
#define CUDASTORE_LOG_CRIU_H

void cs_log_to_criu(void);

#endif /* CUDASTORE_LOG_CRIU_H */

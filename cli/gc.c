// SPDX-License-Identifier: MIT
/*
 * gc.c - cudastore gc --store DIR: remove the chunks of a chunk store that no images directory
 * links any more (link count 1) and the temporary files of dumps that were stopped
 * (docs/image-format.md section 10). It takes the store's lock exclusively without waiting: a
 * dump holds it shared from before its first lock until its last chunk is linked, so gc never
 * removes a chunk a dump is about to link; while one runs, gc says so and removes nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "chunkstore.h"
#include "cli.h"

#define SUB "gc"

static int usage(FILE *f, int rc)
{
	fprintf(f, "Usage: cudastore gc [--json] --store DIR\n"
		   "\n"
		   "Remove from the chunk store DIR (the chunk_store option of chunked dumps) every chunk\n"
		   "no images directory links any more, and the temporary files of dumps that were\n"
		   "stopped. Images directories hold their own links to every chunk they use, so this\n"
		   "never breaks one. Refused, removing nothing, while a dump uses the store.\n"
		   "\n"
		   "  --store DIR  the store\n"
		   "  --json       print the result as JSON on stdout\n"
		   "  -h, --help   this text\n"
		   "\n"
		   "Exit status: 0 done, 1 a dump holds the store or a file could not be removed,\n"
		   "2 usage error or a store that cannot be opened.\n");
	return rc;
}

static int args(int argc, char **argv, const char **store, bool *help)
{
	static const struct option lopts[] = { { "json", no_argument, NULL, 'j' },
					       { "help", no_argument, NULL, 'h' },
					       { "store", required_argument, NULL, 's' },
					       { NULL, 0, NULL, 0 } };
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", lopts, NULL)) != -1) {
		if (c == 'j')
			cli_json = true;
		else if (c == 'h')
			*help = true;
		else if (c == 's')
			*store = optarg;
		else
			return cli_opt_error(SUB, c, argv);
	}
	if (*help)
		return CLI_OK;
	if (optind < argc)
		return cli_usage_err(SUB, "unexpected '%s': the store is given with --store", argv[optind]);
	if (!*store)
		return cli_usage_err(SUB, "expected --store DIR");
	return CLI_OK;
}

static int report(const char *store, int rc, const struct cs_gc_stats *st, const char *why)
{
	char a[32];

	if (cli_json) {
		json_object *out = cli_jreport(SUB);

		cli_jstr(out, "store", store);
		cli_jbool(out, "ok", rc == CLI_OK);
		cli_jint(out, "exit_code", rc);
		if (why)
			cli_jstr(out, "error", why);
		cli_ju64(out, "removed_chunks", st->removed);
		cli_ju64(out, "removed_bytes", st->removed_bytes);
		cli_ju64(out, "kept_chunks", st->kept);
		cli_ju64(out, "removed_temporary_files", st->tmp_removed);
		cli_jprint(out);
	} else if (why) {
		cli_err(SUB, "%s", why);
	} else {
		cli_line("gc: %s: removed %llu unreferenced chunk(s) (%s) and %llu temporary file(s); kept "
			 "%llu chunk(s) that images directories link",
			 store, (unsigned long long)st->removed, cli_bytes(st->removed_bytes, a, sizeof(a)),
			 (unsigned long long)st->tmp_removed, (unsigned long long)st->kept);
	}
	return rc;
}

int cli_gc(int argc, char **argv)
{
	struct cs_gc_stats st = { 0 };
	const char *store = NULL;
	bool help = false;
	char why[768];
	int fd, lock, ret;

	if (args(argc, argv, &store, &help))
		return CLI_USAGE;
	if (help)
		return cli_help(SUB, usage);
	fd = open(store, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, sizeof(why), "cannot open the chunk store %s: %s", store, strerror(errno));
		return report(store, CLI_USAGE, &st, why);
	}
	lock = cs_store_lock(fd, true, false);
	if (lock < 0) {
		snprintf(why, sizeof(why), "%s: %s; nothing was removed: run gc again once the dump is done",
			 store, lock == -EWOULDBLOCK ? "a dump is using the store now" : strerror(-lock));
		close(fd);
		return report(store, CLI_FAIL, &st, why);
	}
	ret = cs_store_gc(fd, &st);
	close(lock);
	close(fd);
	if (ret) {
		snprintf(why, sizeof(why),
			 "%s: removing unreferenced chunks failed: %s (what was removed "
			 "was whole; run gc again)",
			 store, strerror(-ret));
		return report(store, CLI_FAIL, &st, why);
	}
	return report(store, CLI_OK, &st, NULL);
}

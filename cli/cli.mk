# fragment: see Makefile.am
# ===== the cudastore command (cli/cli.h): check, inspect, verify ================================
# Built on the engine, images and base libraries (manifest, imgdir, engine, options); sees cli and those.
bin_PROGRAMS += cudastore
# every source but main.c, which the fuzz target (tests/checks.mk) replaces with its own driver
CLI_SOURCES = \
	cli/cli.h \
	cli/args.c \
	cli/said.c \
	cli/out.c \
	cli/json.c \
	cli/archive.c \
	cli/sumread.c \
	cli/images.c \
	cli/inventory.c \
	cli/hostops.c \
	cli/criu.c \
	cli/check.h \
	cli/check.c \
	cli/check_report.c \
	cli/check_driver.c \
	cli/check_images.c \
	cli/check_criu.c \
	cli/check_text.c \
	cli/check_json.c \
	cli/inspect.c \
	cli/chunks.c \
	cli/gc.c \
	cli/hostfacts.c \
	cli/verify.c
cudastore_SOURCES = cli/main.c $(CLI_SOURCES)
cudastore_CPPFLAGS = $(CS_DEFS) $(CS_CLI_INC) $(LIBARCHIVE_CFLAGS) -DCS_CRIU_PLUGINDIR='"$(criuplugindir)"'
cudastore_LDADD = libcsengine.a libcsimages.a libcsbase.a $(PROTOBUF_C_LIBS) $(JSON_C_LIBS) $(LIBARCHIVE_LIBS) $(LIBCRYPTO_LIBS) -lpthread -ldl
# its bash completion, a file named for the command in bash-completion's completions directory
# (configure: --with-bash-completion-dir)
EXTRA_DIST += cli/completion/cudastore
if INSTALL_BASH_COMPLETION
bashcompletion_DATA = cli/completion/cudastore
endif

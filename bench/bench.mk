# fragment: see Makefile.am
# ----- cs-bench: the copy engine against pinned-PCIe and storage limits (docs/performance.md) -----
noinst_PROGRAMS += bench/cs-bench
bench_cs_bench_SOURCES = bench/cs-bench.c bench/bench-gpu.c bench/bench-chunked.c bench/bench-hash.c bench/bench-io.c bench/bench-pipe.c bench/bench-procs.c bench/bench.h \
	tests/log-stderr.c
bench_cs_bench_LDADD = libcsengine.a libcsimages.a libcsbase.a $(PROTOBUF_C_LIBS) $(LIBCRYPTO_LIBS) -lpthread -ldl
EXTRA_DIST += bench/run-gpu-bench.sh bench/bench-setup.sh bench/cpu-dump-cost.sh bench/criu-overlap.sh \
	bench/run-gpu-perf.sh bench/tree-bench.sh bench/check-images-time.sh

# ----- cs-hash-bench: chunk hashing on this CPU (SSE2 vs AVX2 XXH3) against a plain read -----
noinst_PROGRAMS += bench/cs-hash-bench
bench_cs_hash_bench_SOURCES = bench/cs-hash-bench.c
bench_cs_hash_bench_LDADD = libcsengine.a libcsbase.a -lpthread

# ----- cs-wire-bench: cost of one plugin <-> cudastore-helper request (design.md, "Two processes") -----
noinst_PROGRAMS += bench/cs-wire-bench
bench_cs_wire_bench_SOURCES = bench/cs-wire-bench.c
bench_cs_wire_bench_LDADD = libcsbase.a

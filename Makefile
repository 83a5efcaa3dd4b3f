# pixelbox: PGXS build.  CUDA code in cuda/ is compiled with nvcc when it is
# found (NVCC=... to choose, NVCC= to build CPU-only, with the stubs of its
# interfaces, cuda/*_none.c, instead); the CUDA runtime is linked
# statically so the module loads on machines without a GPU driver.

EXTENSION = pixelbox pixelbox_raster
MODULE_big = pixelbox
DATA = $(wildcard sql/pixelbox--*.sql sql/pixelbox_raster--*.sql)

CORE_SRCS = $(wildcard src/core/base/*.c src/core/geom/*.c src/core/sccg/*.c src/core/raster/*.c)
CORE_HDRS = $(wildcard src/core/*/*.h)
# the file formats users' tools write (src/core/formats), and the libraries
# they are read with: json-c (PostGIS's own JSON library), libtiff, libpng
FORMAT_SRCS = $(wildcard src/core/formats/*.c)
FORMAT_LIBS = -ljson-c -ltiff -lpng
GLUE_SRCS = src/pixelbox.c src/pg_alloc.c src/geom_input.c src/geom_memo.c src/pair_functions.c \
	src/compare_agg.c src/device.c src/set_compare.c src/parallel_handoff.c src/file_input.c \
	src/pair_rows.c src/test_seams.c \
	src/pipeline_run.c src/pipe_seams.c src/tile_compare.c src/raster_io.c src/raster_run.c \
	src/raster_functions.c src/watershed_functions.c src/raster_ops.c \
	src/coverage_read.c src/coverage_write.c src/coverage_functions.c src/toast_par.c \
	src/image_memory.c \
	src/match_stats.c src/match_sets.c src/match_keyed.c src/match_state.c src/tile_agreement.c src/label_input.c src/json_input.c \
	src/progress.c src/raster_report.c \
	src/heatmap_png.c src/state_types.c src/citus_guard.c src/agg_state.c

NVCC ?= $(shell command -v nvcc 2>/dev/null || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; })
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
# explicit targets: Ampere, Hopper, and PTX for later GPUs
NVCC_GENCODE ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90
NVCC_FLAGS = -O3 -std=c++17 -Xcompiler -fPIC $(NVCC_GENCODE)

ifneq ($(NVCC),)
CUDA_SRCS = $(wildcard cuda/*.cu)
CUDA_OBJS = $(CUDA_SRCS:.cu=.o)
SHLIB_LINK += -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
else
# no nvcc: the stubs of pb_gpu.h and pb_raster_gpu.h (no GPU, ever)
CUDA_OBJS =
GPU_STUB_OBJS = cuda/pb_gpu_none.o cuda/pb_raster_gpu_none.o
endif

# pb_load, the client-side loader (libpq): the core's readers, COPY FROM STDIN
CLIENT_SRCS = $(wildcard src/client/*.c)
CLIENT_CORE_OBJS = $(patsubst %.c,%.o,$(wildcard src/core/base/*.c src/core/geom/*.c) $(FORMAT_SRCS))
SCRIPTS_built = src/client/pb_load

OBJS = $(CORE_SRCS:.c=.o) $(FORMAT_SRCS:.c=.o) $(GLUE_SRCS:.c=.o) $(CUDA_OBJS) $(GPU_STUB_OBJS)
# lz4 (as PostgreSQL links it): TOAST values (de)compressed on threads
SHLIB_LINK += -lpthread $(FORMAT_LIBS) -llz4
PG_CFLAGS = -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers

# pg_regress wants <inputdir>/sql and <inputdir>/expected; ours live in
# sql_tests/ and expected/, linked into build/regress.
REGRESS = $(basename $(notdir $(sort $(wildcard sql_tests/*.sql))))
REGRESS_OPTS = --inputdir=build/regress --outputdir=build/regress --no-locale

EXTRA_CLEAN = build src/client/pb_load cuda/pb_gpu_none.o cuda/pb_raster_gpu_none.o tests/pb_core_tests tests/pb_gpu_tests bench/pbgen bench/pbstats bench/bench_core bench/bench_gpu \
	bench/bench_raster bench/bench_watershed bench/bench_tiling bench/bench_pipeline bench/bench_long

# no LLVM bitcode: JIT inlining of this module is not worth a clang dependency
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

cuda/%.o: cuda/%.cu $(wildcard cuda/*.h cuda/*.cuh) $(CORE_HDRS)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

# every object depends on every header (few, small): no stale struct layouts
$(OBJS): $(wildcard src/*.h cuda/*.h) $(CORE_HDRS)

# the client loader: its own sources and the core's PIC objects, with libpq
src/client/pb_load: $(CLIENT_SRCS) $(wildcard src/client/*.h) $(CLIENT_CORE_OBJS)
	$(CC) $(CFLAGS) $(PG_CFLAGS) -I$(includedir) $(CLIENT_SRCS) $(CLIENT_CORE_OBJS) \
		-o $@ -L$(libdir) -lpq $(FORMAT_LIBS) -lm -lpthread

installcheck: build/regress/sql build/regress/expected bench/pbgen

build/regress/sql build/regress/expected:
	mkdir -p build/regress
	ln -sfn ../../sql_tests build/regress/sql
	ln -sfn ../../expected build/regress/expected

# The GPU schedule: sql_tests/gpu, expected/gpu; needs a CUDA device.
GPU_REGRESS = $(basename $(notdir $(sort $(wildcard sql_tests/gpu/*.sql))))

installcheck-gpu: build/regress-gpu/sql build/regress-gpu/expected bench/pbgen
	$(pg_regress_installcheck) --inputdir=build/regress-gpu --outputdir=build/regress-gpu \
		--no-locale $(GPU_REGRESS)

build/regress-gpu/sql build/regress-gpu/expected:
	mkdir -p build/regress-gpu
	ln -sfn ../../sql_tests/gpu build/regress-gpu/sql
	ln -sfn ../../expected/gpu build/regress-gpu/expected

# the layers' include directions (scripts/check-layers), and its own test
check-layers:
	scripts/check-layers
	tests/check-layers-test

# print the nvcc in use (empty for a CPU-only build), for scripts
print-nvcc:
	@echo $(NVCC)

.PHONY: installcheck-gpu print-nvcc check-layers

include tests/Makefile.tests
include tests/fuzz/Makefile.fuzz
include bench/Makefile.bench


# cudalab: `make` builds every exercise into bin/; `make check` prints every score
# table (needs a GPU); `make check_<exercise>` one of them (K=yours scores
# yours.cu, K=<version> any version); `make test` runs the
# tests (GPU tests are skipped without a GPU), `make test_<exercise>` one exercise's;
# `make clean`.
#
# The build prints a short line a file (`make V=1`: each command whole).
# Optimization flags: C_OPT (default -O2) and NVCC_OPT (default -O3), e.g.
# `make NVCC_OPT="-O3 -DSOME_TUNING_MACRO=1"` for an experiment.
# Architecture: the GPU present (nvidia-smi's compute capability), else a fat
# binary (sm_75, sm_80, sm_90 + PTX); `make ARCH=sm_90` overrides, and is remembered
# until `make ARCH=auto` (a GPU's sm_XX: nvidia-smi --query-gpu=compute_cap).
# An exercise is a directory with main.c, gold.c, <name>.cu, <name>.h and an
# exercise.mk naming the libraries it links (see mk/rules.mk).

.DEFAULT_GOAL := all
NO_TOOLKIT_GOALS := clean format format-check lint plots
ifneq ($(filter-out $(NO_TOOLKIT_GOALS),$(or $(MAKECMDGOALS),all)),)
NEED_TOOLKIT := 1
endif

# --- CUDA toolkit -------------------------------------------------------------
NVCC_ON_PATH := $(shell command -v nvcc 2>/dev/null)
CUDA_HOME ?= $(if $(NVCC_ON_PATH),$(patsubst %/bin/nvcc,%,$(realpath $(NVCC_ON_PATH))),/usr/local/cuda)
NVCC := $(CUDA_HOME)/bin/nvcc
ifdef NEED_TOOLKIT
ifeq ($(wildcard $(NVCC)),)
$(error cudalab needs the CUDA toolkit (>= 12): no nvcc on PATH and none at $(NVCC); install it or set CUDA_HOME)
endif
endif

# An ARCH given on the command line is remembered (in ARCH_FILE) for the plain `make`s
# after it, so `make test` or `make check_scan K=yours` does not quietly rebuild
# everything for another target; `make ARCH=auto` forgets it (so does `make clean`).
ARCH_FILE ?= build/arch
# An ARCH must be a target this nvcc compiles for (sm_XX, or sm_XXa / sm_XXf of one), fat
# or auto; another is refused before anything is remembered.
arch_known = $(filter $(patsubst %a,%,$(patsubst %f,%,$(1))),$(shell $(NVCC) --list-gpu-code 2>/dev/null))
arch_refusal = make ARCH=$(1): not a GPU target this nvcc builds for; use auto (the GPU present), fat, or sm_XX from: $(shell $(NVCC) --list-gpu-code 2>/dev/null | tr '\n' ' ')
ifdef NEED_TOOLKIT
ifeq ($(origin ARCH),command line)
ifeq ($(filter auto fat,$(ARCH))$(call arch_known,$(ARCH)),)
$(error $(call arch_refusal,$(ARCH))(nothing remembered))
endif
endif
endif
# A dry run (make -n) or a question (make -q) writes nothing: neither the remembered ARCH
# nor the flags stamp below (else the next real build would rebuild everything).
DRY_RUN := $(findstring n,$(firstword -$(MAKEFLAGS)))$(findstring q,$(firstword -$(MAKEFLAGS)))
ifeq ($(ARCH),auto)
ifeq ($(DRY_RUN),)
$(shell rm -f $(ARCH_FILE))
endif
override undefine ARCH
else ifeq ($(origin ARCH),command line)
ifdef NEED_TOOLKIT
ifeq ($(DRY_RUN),)
$(shell mkdir -p $(dir $(ARCH_FILE)) && echo '$(ARCH)' > $(ARCH_FILE))
endif
endif
endif
ifeq ($(origin ARCH),undefined)
SAVED_ARCH := $(shell cat $(ARCH_FILE) 2>/dev/null)
ifneq ($(SAVED_ARCH),)
ARCH := $(SAVED_ARCH)
ifdef NEED_TOOLKIT
ifeq ($(filter fat,$(ARCH))$(call arch_known,$(ARCH)),)
$(error $(call arch_refusal,$(ARCH))(remembered in $(ARCH_FILE): make ARCH=auto forgets it))
endif
$(info building for ARCH=$(ARCH), as `make ARCH=$(ARCH)` asked before; `make ARCH=auto` builds for the GPU present again)
endif
else
GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | grep -E '^[0-9]+\.[0-9]+$$' | head -n 1 | tr -d .)
ARCH := $(if $(GPU_CC),sm_$(GPU_CC),fat)
endif
endif
ifeq ($(ARCH),fat)
GENCODE := -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 \
           -gencode arch=compute_90,code=[sm_90,compute_90]
else
GENCODE := -arch=$(ARCH)
endif

# --- flags --------------------------------------------------------------------
PNG_LIBS := $(shell pkg-config --libs libpng 2>/dev/null)
PNG_CFLAGS := $(if $(PNG_LIBS),-DCL_HAVE_PNG $(shell pkg-config --cflags libpng))
ifdef NEED_TOOLKIT
ifeq ($(PNG_LIBS),)
$(info note: no libpng found through pkg-config: images are written as PPM only (install pkg-config and libpng-dev for PNG))
endif
endif

# NCCL, for laplace3d and radix_sort --gpus: NCCL_HOME, else the CUDA install, else the nvidia-nccl-cu13
# Python package (PyTorch's: include/nccl.h and lib/libnccl.so.2 in its directory).
# Without NCCL both build without --gpus N > 1.
ifdef NEED_TOOLKIT
NCCL_PIP_DIR = $(shell python3 -c 'import importlib.metadata as m; print(next(f.locate().parent.parent for f in m.files("nvidia-nccl-cu13") if f.name == "nccl.h"))' 2>/dev/null)
NCCL_DIR := $(or $(NCCL_HOME),$(if $(wildcard $(CUDA_HOME)/include/nccl.h),$(CUDA_HOME),$(NCCL_PIP_DIR)))
NCCL_LIB := $(firstword $(wildcard $(addprefix $(NCCL_DIR)/,lib64/libnccl.so lib/libnccl.so lib64/libnccl.so.2 lib/libnccl.so.2)))
ifneq ($(and $(wildcard $(NCCL_DIR)/include/nccl.h),$(NCCL_LIB)),)
NCCL_CFLAGS := -DCL_HAVE_NCCL -isystem $(NCCL_DIR)/include
NCCL_LIBS := -Xlinker $(NCCL_LIB) -Xlinker -rpath=$(dir $(NCCL_LIB))
else
$(info note: no NCCL found (NCCL_HOME, $(CUDA_HOME)/include/nccl.h, pip's nvidia-nccl-cu13): laplace3d and radix_sort build without --gpus)
endif
endif

CC := gcc
C_OPT ?= -O2
CFLAGS := $(C_OPT) -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -fopenmp -Icommon \
          -isystem $(CUDA_HOME)/include $(PNG_CFLAGS) -MMD -MP
NVCC_OPT ?= -O3
NVCCFLAGS := $(NVCC_OPT) -std=c++17 $(GENCODE) -lineinfo -Icommon -Xcompiler -Wall,-Wextra -MMD -MP \
             $(if $(PTXAS_VERBOSE),-Xptxas -v)
LDLIBS := -Xcompiler -fopenmp $(PNG_LIBS) -lm -Xlinker -rpath=$(CUDA_HOME)/lib64

# Objects depend on this stamp, rewritten only when the flags change (e.g. ARCH),
# so a rebuild with nothing changed does nothing.
FLAGS_STAMP := build/flags.stamp
FLAGS_LINE := $(CC) $(CFLAGS) | $(NVCC) $(NVCCFLAGS) | $(LDLIBS) | $(NCCL_CFLAGS) $(NCCL_LIBS)
ifdef NEED_TOOLKIT
ifeq ($(DRY_RUN),)
$(shell mkdir -p $(dir $(FLAGS_STAMP)) && (echo '$(FLAGS_LINE)' | cmp -s - $(FLAGS_STAMP) || echo '$(FLAGS_LINE)' > $(FLAGS_STAMP)))
endif
endif

# Written above on every real run; this rule only lets a dry run on a fresh tree go on.
$(FLAGS_STAMP):
	@mkdir -p $(@D) && echo '$(FLAGS_LINE)' > $@

# The build prints a short line a file; V=1 prints each command whole.
ifeq ($(V),1)
show =
else
show = @printf '  %-5s %s\n' $(1) $(2);
endif

# --- common/ ------------------------------------------------------------------
COMMON_SRC := $(wildcard common/*.c) $(wildcard common/*.cu)
COMMON_OBJ := $(patsubst %,build/%.o,$(basename $(COMMON_SRC)))
LIBCUDALAB := build/libcudalab.a

# The team of GPUs (common/team.c) calls NCCL where the build has it; only binaries that
# use the team (laplace3d) link it.
build/common/team.o: CFLAGS += $(NCCL_CFLAGS)

$(LIBCUDALAB): $(COMMON_OBJ)
	$(call show,AR,$@)ar rcs $@ $^

build/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(call show,CC,$<)$(CC) $(CFLAGS) -c $< -o $@

build/%.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(call show,NVCC,$<)$(NVCC) $(NVCCFLAGS) -c $< -o $@

# --- exercises ----------------------------------------------------------------
EXERCISES := $(patsubst %/exercise.mk,%,$(wildcard */exercise.mk))
include mk/rules.mk
$(foreach ex,$(EXERCISES),$(eval include $(ex)/exercise.mk)$(eval $(call exercise_rules,$(ex))))

# --- tests --------------------------------------------------------------------
# tests/test_common.c tests common/ (tests/test_launch.cu its launch cache, on the GPU);
# tests/test_<exercise>.c tests that exercise's gold.
UNIT_TESTS := bin/tests/test_common bin/tests/test_launch $(foreach ex,$(EXERCISES),$(if $(wildcard tests/test_$(ex).c),bin/tests/test_$(ex)))

# test_launch tests the team's wait too (common/team.c, which calls NCCL where the build has it).
bin/tests/test_launch: LDLIBS += $(NCCL_LIBS)

# bin/tests/gpu_count: how many GPUs the binaries find usable, for the tests that need N.
TEST_TOOLS := bin/tests/gpu_count

bin/tests/test_common bin/tests/test_launch bin/tests/gpu_count: bin/tests/%: build/tests/%.o $(LIBCUDALAB)
	@mkdir -p $(@D)
	$(call show,LINK,$@)$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS)

# A test of exercise X includes "X.h" as its own sources do: -iquote X is searched for
# quoted includes before -Icommon (where common's scan.h would shadow scan's).
$(foreach ex,$(EXERCISES),$(eval build/tests/test_$(ex).o: CFLAGS += -iquote $(ex)))

bin/tests/test_%: build/tests/test_%.o build/%/gold.o $(LIBCUDALAB)
	@mkdir -p $(@D)
	$(call show,LINK,$@)$(NVCC) $(GENCODE) -o $@ $^ $(LDLIBS)

all: $(BINARIES) $(UNIT_TESTS) $(TEST_TOOLS)

# What the build is for: `make ARCH=sm_80 arch` remembers sm_80 and says so, building nothing.
arch:
	@echo "building for $(ARCH) ($(GENCODE))"


# `make test`: every test, the groups at once (tests/run.sh; TEST_JOBS=N caps them).
# `make test_<exercise>` (or `make test EX="scan heat"`): one exercise's unit and
# integration tests, building only what they run.
# V=1: every job's lines, the ones whose tests all needed a GPU that is not there too.
export V
test_prereqs = $(TEST_TOOLS) $(foreach ex,$(1),bin/$(ex) $(filter bin/tests/test_$(ex),$(UNIT_TESTS)))
test: $(if $(EX),$(call test_prereqs,$(filter $(EXERCISES),$(EX))),all)
	bash tests/run.sh $(EX)
$(foreach ex,$(EXERCISES),$(eval test_$(ex): $(call test_prereqs,$(ex)) ; bash tests/run.sh $(ex)))

# Without a usable GPU the first table's one line says so, and the rest are not tried.
check: $(BINARIES)
	@status=0; for ex in $(EXERCISES); do bin/$$ex --check $(if $(K),-k $(K)); rc=$$?; \
	  if [ $$rc -eq 77 ]; then exit 77; fi; [ $$rc -eq 0 ] || status=$$rc; done; exit $$status

clean:
	rm -rf build bin

FORMAT_FILES := $(sort $(wildcard */*.c */*.h */*.cu */*.cuh))
# A tool a target needs, or one line naming it and what to install, and exit 2.
CLANG_FORMAT ?= clang-format
CPPCHECK ?= cppcheck
need_tool = @command -v $(1) >/dev/null || { echo "make $@: needs $(1), which is not installed ($(2))"; exit 2; }

# The tree is formatted by clang-format 14 (.clang-format): `make format` rewrites it,
# `make format-check` (part of `make lint`, and of CI where clang-format is installed)
# fails on any file it would change. An older clang-format is refused; a newer one may
# wrap a few lines otherwise, so it is named.
CLANG_FORMAT_MAJOR := 14
clang_format_major = $(shell $(CLANG_FORMAT) --version 2>/dev/null | sed -n 's/.*clang-format version \([0-9][0-9]*\).*/\1/p')
need_clang_format = $(call need_tool,$(CLANG_FORMAT),e.g. apt-get install clang-format-$(CLANG_FORMAT_MAJOR)); \
	major=$(clang_format_major); \
	if [ -z "$$major" ] || [ "$$major" -lt $(CLANG_FORMAT_MAJOR) ]; then \
	  echo "make $@: $(CLANG_FORMAT) is version $${major:-unknown}; the tree is formatted with clang-format $(CLANG_FORMAT_MAJOR) (CLANG_FORMAT=clang-format-$(CLANG_FORMAT_MAJOR))"; exit 2; fi; \
	if [ "$$major" -gt $(CLANG_FORMAT_MAJOR) ]; then \
	  echo "make $@: note: $(CLANG_FORMAT) is version $$major; the tree is formatted with $(CLANG_FORMAT_MAJOR), which may wrap a few lines otherwise"; fi

format:
	$(need_clang_format)
	$(CLANG_FORMAT) -i $(FORMAT_FILES)

format-check:
	$(need_clang_format)
	@$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_FILES) && echo "format-check: $(words $(FORMAT_FILES)) files as clang-format $(CLANG_FORMAT_MAJOR) formats them"

SHELL_SCRIPTS := scripts/bench-all scripts/profile scripts/gallery scripts/sweep scripts/device-session.sh \
                 tests/run.sh tests/scripts.sh tests/devices.sh $(wildcard tests/exercise_*.sh) .ci/run
lint: format-check
	$(call need_tool,$(CPPCHECK),e.g. apt-get install cppcheck)
	$(CPPCHECK) --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --std=c11 -Icommon -D__GNUC__ --suppress=missingIncludeSystem \
	  $(filter %.c,$(FORMAT_FILES))
	@if command -v shellcheck >/dev/null; then shellcheck $(SHELL_SCRIPTS); \
	 else echo "lint: shellcheck not installed; shell scripts not checked"; fi
	python3 -m py_compile scripts/plot scripts/tables scripts/prose-numbers

# The reference measurements: every score table and ladder into results/ (GPU); the
# plots of the newest results of one GPU (each exercise from its newest results file, by
# the date in its name; GPU=TEXT picks the GPU, RESULTS=file one file, or two files for
# their ratio) into plots/, which git does not track (PLOTS_DIR=results/plots refreshes
# the committed pictures); the pictures into gallery/ (GPU).
PLOTS_DIR ?= plots
# The committed pictures (PLOTS_DIR=results/plots) are the H100's, as the READMEs' first
# tables are; plots/ takes the newest file's GPU. GPU=TEXT picks one either way.
COMMITTED_PLOTS_GPU := H100
PLOTS_GPU = $(or $(GPU),$(if $(filter results/plots,$(PLOTS_DIR)),$(COMMITTED_PLOTS_GPU)))
bench: all
	scripts/bench-all
plots:
	scripts/plot $(or $(RESULTS),--newest$(if $(PLOTS_GPU), --gpu "$(PLOTS_GPU)")) -o $(PLOTS_DIR)
gallery: $(BINARIES)
	scripts/gallery

.PHONY: all arch test check clean format format-check lint bench plots gallery $(addprefix check_,$(EXERCISES)) \
        $(addprefix test_,$(EXERCISES))
.DELETE_ON_ERROR:
.SECONDARY:

-include $(shell find build -name '*.d' 2>/dev/null)

# The rules every exercise gets; instantiated by the top-level Makefile once per
# directory that has an exercise.mk. An exercise.mk sets <name>_LIBS (the CUDA
# libraries it links, e.g. -lcublas) and, for code it shares, <name>_EXTRA_OBJS.
# yours.cu is the learner's version; `make check_<name> K=yours` scores it (K names
# any version, as -k does).

define exercise_rules
$(1)_OBJS := build/$(1)/main.o build/$(1)/gold.o build/$(1)/$(1).o build/$(1)/yours.o \
             $$($(1)_EXTRA_OBJS)
BINARIES += bin/$(1)

bin/$(1): $$($(1)_OBJS) $$(LIBCUDALAB)
	@mkdir -p $$(@D)
	$$(call show,LINK,$$@)$$(NVCC) $$(GENCODE) -o $$@ $$^ $$($(1)_LIBS) $$(LDLIBS)

check_$(1): bin/$(1)
	bin/$(1) --check $$(if $$(K),-k $$(K))
endef

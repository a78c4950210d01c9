matmul_LIBS := -lcublas
matmul_EXTRA_OBJS := build/matmul/wgmma.o build/matmul/reference.o build/matmul/thin.o
# v9 (wgmma.cu) uses wgmma and setmaxnreg, which exist only in sm_90a, the instruction set
# of compute capability 9.0 alone: that file is compiled for sm_90a (and nothing else)
# whenever the build includes sm_90 (ARCH=sm_90, sm_90a or fat), with WGMMA_BUILT defined;
# for other targets it is compiled as they are, its kernel empty, and v9 is refused.
MATMUL_SM90A := -gencode=arch=compute_90a,code=sm_90a -DWGMMA_BUILT=1
ifneq ($(filter sm_90 sm_90a fat,$(ARCH)),)
build/matmul/wgmma.o: NVCCFLAGS := $(filter-out $(GENCODE),$(NVCCFLAGS)) $(MATMUL_SM90A)
endif

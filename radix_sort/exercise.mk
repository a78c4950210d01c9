radix_sort_LIBS := $(NCCL_LIBS)
radix_sort_EXTRA_OBJS := build/radix_sort/splitters.o build/radix_sort/multi_gpu.o \
                         build/radix_sort/scatter.o \
                         build/radix_sort/multi_gpu_kernels.o
build/radix_sort/multi_gpu.o build/radix_sort/scatter.o: CFLAGS += $(NCCL_CFLAGS)
bin/tests/test_radix_sort: build/radix_sort/splitters.o

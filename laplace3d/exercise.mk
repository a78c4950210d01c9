laplace3d_LIBS := $(NCCL_LIBS)
laplace3d_EXTRA_OBJS := build/laplace3d/slabs.o build/laplace3d/multi_gpu.o
build/laplace3d/multi_gpu.o: CFLAGS += $(NCCL_CFLAGS)
bin/tests/test_laplace3d: build/laplace3d/slabs.o

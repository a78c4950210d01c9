fft_LIBS := -lcufft
fft_EXTRA_OBJS := build/fft/factor.o build/fft/fixed.o build/fft/peer.o build/fft/staged.o \
    build/fft/staged_huge.o
# The planner's arithmetic (factor.c) and the codelets (tests/fft_codelets.cu compiles
# them for the host) are unit-tested on the CPU too.
bin/tests/test_fft: build/fft/factor.o build/tests/fft_codelets.o
build/tests/fft_codelets.o: NVCCFLAGS += -Ifft

fft_LIBS := -lcufft
fft_EXTRA_OBJS := build/fft/factor.o build/fft/fixed.o build/fft/peer.o build/fft/staged.o
# The planner's arithmetic (factor.c) is unit-tested on the CPU too.
bin/tests/test_fft: build/fft/factor.o

fft_LIBS := -lcufft
fft_EXTRA_OBJS := build/fft/fixed.o build/fft/peer.o build/fft/staged.o

fft_LIBS := -lcufft
fft_EXTRA_OBJS := build/fft/staged.o

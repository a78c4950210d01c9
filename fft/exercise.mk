fft_LIBS := -lcufft

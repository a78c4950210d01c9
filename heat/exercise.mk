heat_LIBS := -lcufft
heat_EXTRA_OBJS := build/heat/spectral.o

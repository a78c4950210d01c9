transpose_LIBS := -lcublas

matmul_LIBS := -lcublas

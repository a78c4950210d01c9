saxpy_LIBS := -lcublas

tridiag_LIBS := -lcusparse

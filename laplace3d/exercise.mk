laplace3d_LIBS :=

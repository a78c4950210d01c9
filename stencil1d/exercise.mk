stencil1d_LIBS :=

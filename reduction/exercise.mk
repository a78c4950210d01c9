reduction_LIBS :=

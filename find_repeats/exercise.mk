find_repeats_LIBS :=

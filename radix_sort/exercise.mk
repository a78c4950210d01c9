radix_sort_LIBS :=

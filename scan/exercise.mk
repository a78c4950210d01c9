scan_LIBS :=

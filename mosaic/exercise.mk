mosaic_LIBS :=

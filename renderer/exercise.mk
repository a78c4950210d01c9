renderer_EXTRA_OBJS := build/renderer/scenes.o build/radix_sort/radix_sort.o build/radix_sort/yours.o
renderer_LIBS :=
bin/tests/test_renderer: build/renderer/scenes.o

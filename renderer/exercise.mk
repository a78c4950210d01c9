renderer_EXTRA_OBJS := build/renderer/scenes.o
renderer_LIBS :=
bin/tests/test_renderer: build/renderer/scenes.o

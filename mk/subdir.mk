# Included by an exercise's own Makefile so `make -C saxpy check` works: every
# target is built by the top-level Makefile.
EXERCISE := $(notdir $(CURDIR))
all:
	$(MAKE) -C .. bin/$(EXERCISE)
check:
	$(MAKE) -C .. check_$(EXERCISE) $(if $(K),K=$(K))
test:
	$(MAKE) -C .. $@
# This exercise's objects and binary only; `make clean` at the top removes everything.
clean:
	rm -rf ../build/$(EXERCISE) ../bin/$(EXERCISE)
.PHONY: all check test clean

pattern_match_LIBS :=
pattern_match_EXTRA_OBJS := build/pattern_match/inputs.o build/pattern_match/tables.o
bin/tests/test_pattern_match: build/pattern_match/inputs.o build/pattern_match/tables.o

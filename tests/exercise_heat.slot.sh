# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# heat's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_heat.sh; `make test_heat` runs both.

# The probe run before the yours builds: heat's smallest grid is 100 cells a side.
# shellcheck disable=SC2034 # read by expect_yours in tests/run.sh
yours_probe_n=100
expect_learner_slot heat "v1-global (reference)" \
    's/at(x + 1, y), g.k)/at(x + 1, y) + 1e-3f, g.k)/' \
    's/(in, out, s->source_map, \*g)/((float *)nullptr, out, s->source_map, *g)/'
# --verify fft catches a kernel that steps with k 4% low.
expect_yours "heat --verify fft fails a yours with k 4% low" heat 1 'yours: wrong result' \
    's/at(x + 1, y), g.k)/at(x + 1, y), 0.96f * g.k)/' --verify fft -k yours -n 256 --steps 200 -i 1

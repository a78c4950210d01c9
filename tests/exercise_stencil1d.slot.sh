# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# stencil1d's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_stencil1d.sh; `make test_stencil1d` runs both.

expect_learner_slot stencil1d "v2-shared (the notes' kernel)" \
    's/for (int j = 0; j <= 2 \* radius; j++)/for (int j = 0; j < 2 * radius; j++)/' \
    's/(a->in), static_cast<int32_t \*>(a->out)/(a->in), (int32_t *)nullptr/'

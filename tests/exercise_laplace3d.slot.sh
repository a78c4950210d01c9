# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# laplace3d's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_laplace3d.sh; `make test_laplace3d` runs both.

expect_learner_slot laplace3d "v2-3d-blocks (reference)" \
    's/in\[p + plane\]) [*]/in[p + plane] + 1e-3f) */' \
    's/(\*in, \*out, g);/(*in, (float *)nullptr, g);/'

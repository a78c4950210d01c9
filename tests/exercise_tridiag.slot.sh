# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# tridiag's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_tridiag.sh; `make test_tridiag` runs both.

expect_learner_slot tridiag cusparseSgtsv2StridedBatch \
    's/- a\[base + i\] [*] d_prev)/- 0.5f * a[base + i] * d_prev)/' \
    's/(a, b, c, d, x, shape);/(a, b, c, d, (float *)nullptr, shape);/'

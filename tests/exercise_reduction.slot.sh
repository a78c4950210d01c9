# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# reduction's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_reduction.sh; `make test_reduction` runs both.

expect_learner_slot reduction cub::DeviceReduce::Sum \
    's/partial\[threadIdx.x\] = sum;/partial[threadIdx.x] = sum + 1.0f;/' \
    's/(x, n, out);/(x, n, (float *)nullptr);/'

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# find_repeats's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_find_repeats.sh; `make test_find_repeats` runs both.

expect_learner_slot find_repeats cub::DeviceSelect::If \
    's/indices\[found + prefix\[threadIdx.x\] - 1\]/indices[found + prefix[threadIdx.x]]/' \
    's/(a, n, indices, count);/(a, n, indices, (int32_t *)nullptr);/'

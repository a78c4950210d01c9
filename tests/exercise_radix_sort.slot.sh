# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# radix_sort's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_radix_sort.sh; `make test_radix_sort` runs both.

expect_learner_slot radix_sort "cub::DeviceRadixSort::SortKeys" \
    's/keys_out\[to\] = key;/keys_out[to] = key + 1;/' \
    's/(src_keys, n, b, flags);/(src_keys, n, b, (int32_t *)nullptr);/'

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# scan's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_scan.sh; `make test_scan` runs both.

expect_learner_slot scan cub::DeviceScan::ExclusiveSum \
    's/out\[i\] = running;/out[i] = running + (i == n - 1);/' \
    's/reinterpret_cast<uint32_t [*]>(out), n)/(uint32_t *)nullptr, n)/'

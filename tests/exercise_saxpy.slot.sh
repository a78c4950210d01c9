# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# saxpy's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_saxpy.sh; `make test_saxpy` runs both.

# yours starts as v1's loop, already near the copy rate: within 1.2x of the fastest at
# some sizes, so its score may start at full marks (the README says so).
# shellcheck disable=SC2034 # read by expect_learner_slot in tests/run.sh
slot_at_the_roof=1
expect_learner_slot saxpy cublasSaxpy \
    's/a [*] x\[i\] + y\[i\]/a * x[i] - y[i]/' \
    's/(n, a, x, y, z);/(n, a, x, y, (float *)nullptr);/'

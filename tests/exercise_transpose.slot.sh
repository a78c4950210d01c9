# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# transpose's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_transpose.sh; `make test_transpose` runs both.

expect_learner_slot transpose cublasSgeam \
    's/b\[c \* rows + r\] = a\[r \* cols + c\];/b[c * rows + r] = a[r * cols + c] + 1.0f;/' \
    's/<<<grid, dim3(YOURS_SIDE, YOURS_SIDE), 0, stream>>>(a, b,/<<<grid, dim3(YOURS_SIDE, YOURS_SIDE), 0, stream>>>(a, (float *)nullptr,/'

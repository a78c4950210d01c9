# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# mosaic's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_mosaic.sh; `make test_mosaic` runs both.

expect_learner_slot mosaic "v2-staged (reference)" \
    's/(sum\[c\] + w \* h \/ 2)/(sum[c] + w * h \/ 2 + 1)/' \
    's/(in, cell_sums, s);/(in, (unsigned long long *)nullptr, s);/'

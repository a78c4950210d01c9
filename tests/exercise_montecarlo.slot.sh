# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# montecarlo's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_montecarlo.sh; `make test_montecarlo` runs both.

# The wrong yours has rho's sign flipped, which the statistical check must catch.
expect_learner_slot montecarlo "v1 (practical 2's program)" \
    's/m.rho [*] y1/-m.rho * y1/' \
    's/(\*m, sums);/(*m, (double *)nullptr);/' "yours: wrong result: mean"

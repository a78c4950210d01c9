# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# laplace3d's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_laplace3d.sh; `make test_laplace3d` runs both.

# The score table's gold is the CPU's 10 iterations on grids up to 1024^3 (~90 CPU
# seconds a table); 2 iterations test the same, and -n 1000 would be a 1000^3 grid.
# shellcheck disable=SC2034 # read by expect_learner_slot in tests/run.sh
slot_args="--repeat 2" slot_fault_n=100
expect_learner_slot laplace3d "v2-3d-blocks (reference)" \
    's/in\[p + plane\]) [*]/in[p + plane] + 1e-3f) */' \
    's/(\*in, \*out, g);/(*in, (float *)nullptr, g);/'

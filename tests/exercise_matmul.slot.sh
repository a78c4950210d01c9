# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# matmul's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).

expect_learner_slot matmul cublasSgemm \
    's/sum += a\[/sum -= a[/' \
    's/    p[.]c\[at\] = p[.]beta/    p.c[at + ((size_t)1 << 40)] = p.beta/'

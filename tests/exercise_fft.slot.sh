# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# fft's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
expect_learner_slot fft cuFFT \
    's/re += (double)x\[j\].x \* c/re -= (double)x[j].x * c/' \
    's/    out\[idx\] = make_float2/    out[idx + ((size_t)1 << 40)] = make_float2/'

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# pattern_match's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_pattern_match.sh; `make test_pattern_match` runs both.

expect_learner_slot pattern_match "v1-course (reference)" \
    's/atomicAdd(&counts\[w\], 1ull)/atomicAdd(\&counts[w], 2ull)/' \
    's/text, n, pm_device_words_list(dw), nwords, counts)/text, n, pm_device_words_list(dw), nwords, (unsigned long long *)nullptr)/'

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# renderer's integration tests, part slot: the learner's slot (yours.cu) scored, a wrong
# yours caught and a faulting one reported (see expect_learner_slot in tests/run.sh).
# tests/run.sh runs it beside tests/exercise_renderer.sh; `make test_renderer` runs both.

# renderer's score table is its own (the course's 72 points: a scene's marks for a right
# image, then time against the reference renderer), not the common one that scores
# yours against the faster of the peer and the default version.
# shellcheck disable=SC2034 # read by expect_learner_slot in tests/run.sh
slot_ref_is_peer=1
expect_learner_slot renderer "ref (CUB sort-based tiles)" \
    's/render_blend(p, colour, alpha);/render_blend(p, colour, 0.9f * alpha);/' \
    's/(c, image, width, height);/(c, (float4 *)nullptr, width, height);/' \
    "pixels off by more than 1e-4"

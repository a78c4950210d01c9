# shellcheck shell=bash # sourced by tests/run.sh
# renderer's integration tests, part million: part scenes' tests on the scenes of a
# million circles or more.
renderer_scenes="rand1M micro2M"
# shellcheck source=tests/exercise_renderer.scenes.sh
. tests/exercise_renderer.scenes.sh

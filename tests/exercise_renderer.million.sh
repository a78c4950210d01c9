# shellcheck shell=bash # sourced by tests/run.sh
# renderer's integration tests, part million: part scenes' tests on rand1M (a million
# random circles).
renderer_scenes=rand1M
# shellcheck source=tests/exercise_renderer.scenes.sh
. tests/exercise_renderer.scenes.sh

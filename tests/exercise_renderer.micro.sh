# shellcheck shell=bash # sourced by tests/run.sh
# renderer's integration tests, part micro: part scenes' tests on micro2M (two million
# tiny circles).
renderer_scenes=micro2M
# shellcheck source=tests/exercise_renderer.scenes.sh
. tests/exercise_renderer.scenes.sh

# shellcheck shell=bash # sourced by tests/run.sh
# renderer's integration tests, part micro: part scenes' test on micro2M (two million
# tiny circles), seed 1.
renderer_scenes=micro2M renderer_seeds=1
# shellcheck source=tests/exercise_renderer.scenes.sh
. tests/exercise_renderer.scenes.sh

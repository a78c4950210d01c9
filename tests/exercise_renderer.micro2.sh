# shellcheck shell=bash # sourced by tests/run.sh
# renderer's integration tests, part micro2: part scenes' test on micro2M (two million
# tiny circles), seed 2.
renderer_scenes=micro2M renderer_seeds=2
# shellcheck source=tests/exercise_renderer.scenes.sh
. tests/exercise_renderer.scenes.sh

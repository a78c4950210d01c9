# shellcheck shell=bash # sourced by tests/run.sh
# renderer's integration tests, part micro2: part scenes' test on micro2M (two million
# tiny circles), seed 2.
# At 500 x 500 (partial tiles still: 500 = 31 x 16 + 4): v1's and yours' pixel loops
# test every circle at every pixel, seconds of GPU time at 1000 x 1000 that the jobs
# beside this one wait for (the GPU runs one process at a time).
renderer_scenes=micro2M renderer_seeds=2 renderer_size=500
# shellcheck source=tests/exercise_renderer.scenes.sh
. tests/exercise_renderer.scenes.sh

# shellcheck shell=bash # sourced by tests/run.sh
# laplace3d's integration tests, part tblock8: part tblock's tests at --tblock 8.
laplace_tblock=8
# shellcheck source=tests/exercise_laplace3d.tblock.sh
. tests/exercise_laplace3d.tblock.sh

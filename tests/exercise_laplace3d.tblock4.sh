# shellcheck shell=bash # sourced by tests/run.sh
# laplace3d's integration tests, part tblock4: part tblock's tests at --tblock 4.
laplace_tblock=4
# shellcheck source=tests/exercise_laplace3d.tblock.sh
. tests/exercise_laplace3d.tblock.sh

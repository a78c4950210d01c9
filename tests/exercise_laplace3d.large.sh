# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# laplace3d's integration tests, part large: every version on the practical's 512^3 grid
# at REPEAT 1, 3, 7, 10 (a part of its own: ~12 s a run beside the other jobs).
# tests/run.sh runs it beside tests/exercise_laplace3d.sh; `make test_laplace3d` runs both.
lp=bin/laplace3d

for repeat in 1 3 7 10; do
    expect_gpu "laplace3d -k all -n 512 --repeat $repeat" 0 "$lp" -k all -n 512 --repeat "$repeat" -i 2
done

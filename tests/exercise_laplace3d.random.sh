# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# laplace3d's integration tests, part random: every version from a random start.
# tests/run.sh runs it beside tests/exercise_laplace3d.sh; `make test_laplace3d` runs both.
lp=bin/laplace3d

# --input random: every inside point starts at its own value, so a wrong neighbour or
# a stale halo deep inside the grid shows (the practical's start leaves it at 0).
batch "$lp"
for shape in "3 3 3" "1 1 1" "100 77 33" "129 130 131" "512 512 512"; do
    # shellcheck disable=SC2086 # the shape is words
    set -- $shape
    for repeat in 1 3 7 10; do
        batch_gpu "laplace3d -k all --nx $1 --ny $2 --nz $3 --repeat $repeat --input random" 0 -k all --nx "$1" --ny "$2" --nz "$3" --repeat "$repeat" --input random -S 7 -i 2
    done
done
batch_end

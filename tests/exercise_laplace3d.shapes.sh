# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# laplace3d's integration tests, part shapes: every version at edge and non-cubic sizes.
# tests/run.sh runs it beside tests/exercise_laplace3d.sh; `make test_laplace3d` runs both.
lp=bin/laplace3d

# Every version against the CPU at edge and non-cubic sizes, sizes that are not
# multiples of any block, odd REPEAT (v4 pairs iterations, the last one alone).
batch "$lp"
for shape in "3 3 3" "1 1 1" "2 5 3" "4 4 4" "100 77 33" "33 17 65" "129 64 9" "31 33 35" "129 130 131"; do
    # shellcheck disable=SC2086 # the shape is words
    set -- $shape
    for repeat in 1 2 3 7 10; do
        batch_gpu "laplace3d -k all --nx $1 --ny $2 --nz $3 --repeat $repeat" 0 -k all --nx "$1" --ny "$2" --nz "$3" --repeat "$repeat" -i 2
    done
done
batch_end

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# laplace3d's integration tests, part tblock: v6 at --tblock 2 (parts tblock4 and tblock8
# run this file at 4 and 8, each beside the others).
# tests/run.sh runs it beside tests/exercise_laplace3d.sh; `make test_laplace3d` runs all.
lp=bin/laplace3d

# v6 at T iterations a pass (the -k all runs take the default): passes of T, then the rest in
# passes of 4, 2 and 1; z chunks (several at 300 planes), tiles cut by the grid's edge,
# NX not a multiple of 4 (v5's float-a-lane form).
t=${laplace_tblock:-2}
batch "$lp"
for shape in "3 3 3" "1 1 1" "2 5 3" "4 4 4" "100 77 33" "129 130 131" "31 33 35" "200 150 300" "512 512 512"; do
    # shellcheck disable=SC2086 # the shape is words
    set -- $shape
    for repeat in 1 3 7 10 17; do
        batch_gpu "laplace3d -k v6 --tblock $t --nx $1 --ny $2 --nz $3 --repeat $repeat --input random" 0 -k 6 --tblock "$t" --nx "$1" --ny "$2" --nz "$3" --repeat "$repeat" --input random -S 5 -i 1
    done
done
batch_end

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# heat's integration tests, part sizes: every version at edge sizes and steps.
# tests/run.sh runs it beside tests/exercise_heat.sh; `make test_heat` runs both.
ht=bin/heat

# Every version against the CPU, two frames each: the smallest grid, odd and prime
# sizes, sizes just off the tiles (v3 32x16, v4 48x48 written), steps that are not a
# multiple of v4's 8 steps a launch.
# --input random: every cell its own start, so a wrong cell away from the sources shows.
batch "$ht"
for dim in 100 101 127 129 1000 1031; do
    for steps in 1 7 17 90; do
        batch_gpu "heat -k all -n $dim --steps $steps --frames 2" 0 -k all -n "$dim" --steps "$steps" --frames 2 -i 1
        batch_gpu "heat -k all -n $dim --steps $steps --frames 2 --input random" 0 -k all -n "$dim" --steps "$steps" --frames 2 -i 1 --input random -S 5
    done
done
batch_end

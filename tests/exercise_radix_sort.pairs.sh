# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# radix_sort's integration tests, part pairs: every version at edge sizes and inputs.
# tests/run.sh runs it beside tests/exercise_radix_sort.sh; `make test_radix_sort` runs both.
rs=bin/radix_sort

# Every version (v1 to 32 keys, v2 to 1024) on every input at edge sizes, pairs (which
# checks the keys and, through the values, stability); keys alone at some.
batch "$rs"
for n in 1 2 31 32 33 1023 1025 4095 4097 65537 1000003; do
    for input in uniform few sorted reversed zero; do
        batch_gpu "radix_sort -k all --pairs -n $n --input $input" 0 -k all --pairs -n "$n" --input "$input" -i 1
    done
done
for n in 1 33 4097 1000003; do
    batch_gpu "radix_sort -k all -n $n (keys)" 0 -k all -n "$n" -i 1
done
batch_end

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# radix_sort's integration tests, part large: primes around v5's 8192-key tiles, and v4
# at the largest sizes (2^28 is the score table's last row). Part large_v5 runs this
# file for v5 at those sizes, beside it.
# tests/run.sh runs it beside tests/exercise_radix_sort.sh; `make test_radix_sort` runs all.
rs=bin/radix_sort

for n in ${radix_large_primes-8191 16381 999983}; do
    expect_gpu "radix_sort -k v5 --pairs -n $n (prime)" 0 "$rs" -k v5 --pairs -n "$n" -i 1
done
k=${radix_large_version:-v4}
expect_gpu "radix_sort -k $k -n 256M" 0 "$rs" -k "$k" -n 256M -i 2
expect_gpu "radix_sort -k $k --pairs -n 256M" 0 "$rs" -k "$k" --pairs -n 256M -i 2
expect_gpu "radix_sort -k $k --pairs -n 2^28" 0 "$rs" -k "$k" --pairs -n 268435456 -i 2

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# radix_sort's integration tests, sourced by tests/run.sh.
rs=bin/radix_sort

run "$rs" --help
if [ "$rc" -eq 0 ] && grep -q "v4-onesweep" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q -- "--pairs" "$tmp/out"; then pass "radix_sort --help"; else fail "radix_sort --help"; fi
expect_usage "radix_sort -n 0" "-n 0" "$rs" -n 0
expect_usage "radix_sort --bits 0" "--bits 0" "$rs" --bits 0
expect_usage "radix_sort --bits 33" "--bits 33" "$rs" --bits 33
expect_usage "radix_sort --input bogus" "--input bogus" "$rs" --input bogus
expect_usage "radix_sort -k v1 -n 33 (32 keys at most)" "sorts at most 32 keys" "$rs" -k v1 -n 33
expect_usage "radix_sort -k v2 -n 1025 (1024 keys at most)" "sorts at most 1024 keys" "$rs" -k v2 -n 1025
expect_usage "radix_sort --check -k v1" "the table starts at 1M" "$rs" --check -k v1
expect_usage "radix_sort --check -k all" "--check scores one version" "$rs" --check -k all
expect_make_line "make check_radix_sort K=yours" "bin/radix_sort --check -k yours" check_radix_sort K=yours
expect_no_device "radix_sort without a device exits 77" "$rs" -n 1000

# Stability through --bits: every width 1..32 (the last pass narrower than 8 bits,
# or absent), pairs; keys alone at some.
batch "$rs"
for bits in $(seq 1 32); do
    batch_gpu "radix_sort -k all --pairs --bits $bits -n 65537" 0 -k all --pairs --bits "$bits" -n 65537 -i 1
done
for bits in 1 4 7 12 17 31; do
    batch_gpu "radix_sort -k all --bits $bits -n 30" 0 -k all --bits "$bits" -n 30 -i 1
done
batch_end
# 4 MB of input fits in any L2 cache of 2 MB or more three times over: the repeats
# sort other copies of it.
expect_rotated "radix_sort -n 1M times over rotating copies of the keys" 2 "$rs" -n 1M -k v4 -i 3
expect_rotated "radix_sort -n 512K --pairs times over rotating copies" 2 "$rs" -n 512K --pairs -i 3
expect_gpu "radix_sort reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$rs" -n 5000 -i 2
expect_json_lines "radix_sort --json -k all" "$rs" --json -k all -n 3000 -i 2
expect_gpu "radix_sort --dump" 0 "$rs" -n 999 -k v2 -i 2 --dump "$tmp/rs"
if [ "$rc" -eq 0 ] && [ -s "$tmp/rs_output.npy" ] && cmp -s "$tmp/rs_output.npy" "$tmp/rs_gold.npy"; then
    pass "radix_sort --dump output equals gold"
elif [ "$rc" -eq 0 ]; then fail "radix_sort --dump output equals gold"; fi

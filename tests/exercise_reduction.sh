# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# reduction's integration tests, sourced by tests/run.sh.
reduction=bin/reduction

run "$reduction" --help
if [ "$rc" -eq 0 ] && grep -q "v6-float4" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q "260817" "$tmp/out"; then
    pass "reduction --help"; else fail "reduction --help"; fi
expect_usage "reduction -n -3" "-n -3" "$reduction" -n -3
expect_usage "reduction --bogus" "--bogus" "$reduction" --bogus
expect_usage "reduction -k v8" "-k v8" "$reduction" -k v8
expect_usage "reduction --check -k all" "--check scores one version" "$reduction" -k all --check
expect_make_line "make check_reduction K=v2" "bin/reduction --check -k v2" check_reduction K=v2
expect_usage "reduction --input bad" "--input bad" "$reduction" --input bad
expect_usage "reduction -S x" "-S x" "$reduction" -S x
expect_no_device "reduction without a device exits 77" "$reduction"

# Every version, exact (integer input) and within tolerance (uniform), at edge sizes.
batch "$reduction"
for n in 1 2 3 4 5 31 32 33 511 512 513 1023 1024 1025 2049 65537 260817 999983 1048575 1048577; do
    batch_gpu "reduction -k all -n $n" 0 -k all -n "$n" -i 3
done
for n in 7 4097 1000003 16777217; do
    batch_gpu "reduction -k all -n $n --input uniform" 0 -k all -n "$n" -i 3 --input uniform -S 7
done
# Large enough that the sum passes 2^24 (float no longer exact) and v6 still matches.
batch_gpu "reduction -k all -n 5e7" 0 -k all -n 5e7 -i 3
batch_end
# v6 is deterministic: the same bits on every run (its last-block combine is ordered).
expect_gpu "reduction v6 -n 12345679 --json" 0 "$reduction" -k v6 -n 12345679 -i 50 --json --input uniform
if [ "$rc" -eq 0 ]; then
    first=$(grep -o '"result":[^,]*' "$tmp/out" | head -n 1)
    same=1
    for _ in 1 2 3; do
        again=$("$reduction" -k v6 -n 12345679 -i 50 --json --input uniform 2>&1 | grep -o '"result":[^,]*' | head -n 1)
        [ "$again" = "$first" ] || same=0
    done
    if [ "$same" -eq 1 ] && [ -n "$first" ]; then pass "reduction v6 result identical over runs"
    else fail "reduction v6 result identical over runs"; fi
fi
expect_gpu "reduction reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$reduction" -n 1000 -i 2
expect_gpu "reduction -n 1e11 (memory guard)" 3 "$reduction" -n 1e11
expect_json_lines "reduction --json -k all" "$reduction" --json -k all -n 5000 -i 2
expect_gpu "reduction --dump" 0 "$reduction" -n 777 -i 2 --dump "$tmp/rd"
if [ "$rc" -eq 0 ]; then
    if [ -s "$tmp/rd_input.npy" ] && [ -s "$tmp/rd_output.npy" ] && [ -s "$tmp/rd_gold.npy" ]; then
        pass "reduction --dump writes three .npy files"; else fail "reduction --dump writes three .npy files"; fi
fi

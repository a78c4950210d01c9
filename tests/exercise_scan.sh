# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# scan's integration tests, sourced by tests/run.sh.
scan=bin/scan

run "$scan" --help
if [ "$rc" -eq 0 ] && grep -q "v5-lookback" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q -- "--op OP" "$tmp/out"; then
    pass "scan --help"; else fail "scan --help"; fi
expect_usage "scan -n -3" "-n -3" "$scan" -n -3
expect_usage "scan --op bogus" "--op bogus" "$scan" --op bogus
expect_usage "scan -k 8" "-k 8" "$scan" -k 8
expect_usage "scan --check -k all" "--check scores one version" "$scan" --check -k all --extended
expect_make_line "make check_scan K=yours" "bin/scan --check -k yours" check_scan K=yours
expect_usage "scan -n 2e9" "-n 2e9" "$scan" -n 2e9
expect_usage "scan --check --no-peer" "--no-peer" "$scan" --check --no-peer
# A flag that would have no effect is refused, not ignored.
expect_usage "scan --check -n 5 (the table's own sizes)" "--check times its table's own sizes" "$scan" --check -n 5
expect_usage "scan --extended without --check" "give it with --check" "$scan" --extended -n 5
expect_usage "scan --op recurrence --check" "--op recurrence: --check" "$scan" --op recurrence --check
expect_usage "scan --op recurrence -k yours" "--op recurrence: -k" "$scan" --op recurrence -k yours
expect_no_device "scan without a device exits 77" "$scan" -n 100

# Every version, every element checked; tile edges of v3 (1024), v4 (2048), v5 (8192),
# v6 (4096, and tails of 1, 2, 3 words past a 16-byte chunk, which the bulk copy leaves
# to plain loads).
batch "$scan"
for n in 1 2 3 4 5 31 32 33 1023 1024 1025 2047 2048 2049 4095 4096 4097 4098 4099 8191 8192 8193 65537 999983 1048575 1048577; do
    batch_gpu "scan -k all -n $n" 0 -k all -n "$n" -i 2
done
# Many tiles: the look-back chains across thousands of tiles; v3/v4 recurse two levels.
batch_gpu "scan -k all -n 1e7" 0 -k all -n 1e7 -i 2 -S 99
batch_gpu "scan v5 -n 33554433 (2^25+1)" 0 -k v5 -n 33554433 -i 5
batch_end
expect_gpu "scan v6 -n 268435459 (2^28+3)" 0 "$scan" -k v6 -n 268435459 -i 3
if [ "$rc" -eq 0 ] && ! grep -q "v6-bulk runs " "$tmp/out"; then fail "scan says which path v6 ran"; fi
expect_gpu "scan -k all -n 4099 --no-peer" 0 "$scan" -k all -n 4099 -i 2 --no-peer
if [ "$rc" -eq 0 ] && { grep -q "^cub::" "$tmp/out" || ! grep -q "^yours " "$tmp/out"; }; then
    fail "scan --no-peer: every version's row and no peer row"
fi
for n in 1 2 1023 1025 1000003; do
    expect_gpu "scan --op recurrence -n $n" 0 "$scan" --op recurrence -n "$n" -i 2
done
expect_gpu "scan reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$scan" -n 1000 -i 2
expect_json_lines "scan --json -k all" "$scan" --json -k all -n 5000 -i 2
expect_gpu "scan --dump" 0 "$scan" -n 777 -i 2 --dump "$tmp/sc"
if [ "$rc" -eq 0 ] && [ -s "$tmp/sc_output.npy" ] && cmp -s <(tail -c 3108 "$tmp/sc_output.npy") <(tail -c 3108 "$tmp/sc_gold.npy"); then
    pass "scan --dump output equals gold"
elif [ "$rc" -eq 0 ]; then fail "scan --dump output equals gold"; fi

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# montecarlo's integration tests, sourced by tests/run.sh.
mc=bin/montecarlo

run "$mc" --help
if [ "$rc" -eq 0 ] && grep -q "v5-fused-philox" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q -- "--quadratic" "$tmp/out"; then pass "montecarlo --help"; else fail "montecarlo --help"; fi
expect_usage "montecarlo -n 0" "-n 0" "$mc" -n 0
expect_usage "montecarlo --steps -1" "--steps -1" "$mc" --steps -1
expect_usage "montecarlo --steps 0" "--steps 0" "$mc" --steps 0
expect_usage "montecarlo --generator bogus" "--generator bogus" "$mc" --generator bogus
expect_usage "montecarlo --samples 0" "--samples 0" "$mc" --quadratic --samples 0
expect_usage "montecarlo -k 7" "-k 7" "$mc" -k 7
expect_usage "montecarlo --check -k all" "--check scores one version" "$mc" --check -k all
expect_make_line "make check_montecarlo K=yours" "bin/montecarlo --check -k yours" check_montecarlo K=yours
expect_no_device "montecarlo without a device exits 77" "$mc" -n 1000

# The CPU pricer on 10^5 paths, not the default 10^6 (6 CPU seconds a run): in these
# runs of up to 3 x 10^5 paths the check's combined standard error grows at most 1.75x
# (0.0010 to 0.0017 at 3 x 10^5 paths), and each run is also held to the practical's
# published mean in its own standard errors. The run of 10^6 paths keeps the default.
gold=(--gold-paths 100000)
# Every version at edge path counts (whole and partial groups of 128, one path, one
# warp), each checked statistically against the CPU pricer and the practical's figure.
batch "$mc"
for n in 1 2 31 127 128 129 1000 65537; do
    batch_gpu "montecarlo -k all -n $n" 0 -k all -n "$n" -i 2 "${gold[@]}"
done
batch_gpu "montecarlo -k all -n 1000003" 0 -k all -n 1000003 -i 2
# Odd step counts take the fused kernel's two-normal tail; another model (no figure).
for steps in 1 7 100; do
    batch_gpu "montecarlo -k all --steps $steps -n 20001" 0 -k all --steps "$steps" -n 20001 -i 2 -S 5 "${gold[@]}"
done
batch_end
# The host API versions in chunks of paths (the last one partial), every generator.
expect_gpu "montecarlo v1, v2 in 3 chunks" 0 "$mc" -k 1 -n 300001 --chunks 3 -i 2 "${gold[@]}"
if [ "$rc" -eq 0 ] && ! grep -q "in 3 chunk(s) of 100096 paths" "$tmp/out"; then fail "montecarlo says how many chunks ran"; fi
expect_gpu "montecarlo v2 in 7 chunks" 0 "$mc" -k 2 -n 300001 --chunks 7 -i 2 "${gold[@]}"
for gen in philox mrg32k3a; do
    expect_gpu "montecarlo -k 1 --generator $gen" 0 "$mc" -k 1 -n 200000 --generator "$gen" -i 2 "${gold[@]}"
done
# v3 and v4 draw the same XORWOW states: the same payoffs, the same sums.
expect_json_lines "montecarlo --json -k all" "$mc" --json -k all -n 50000 -i 2 "${gold[@]}"
if [ "$rc" -eq 0 ]; then
    v3=$(grep '"kernel":"v3-device-inline"' "$tmp/stdout" | grep -o '"mean":[^,]*')
    v4=$(grep '"kernel":"v4-device-setup"' "$tmp/stdout" | grep -o '"mean":[^,]*')
    if [ -n "$v3" ] && [ "$v3" = "$v4" ]; then pass "montecarlo v3 and v4 give the same mean"
    else echo "    v3 $v3, v4 $v4" >>"$tmp/out"; fail "montecarlo v3 and v4 give the same mean"; fi
fi
batch "$mc"
for s in 1 2 1000001; do
    batch_gpu "montecarlo --quadratic --samples $s" 0 --quadratic --samples "$s" -i 2
done
batch_gpu "montecarlo --quadratic --generator philox" 0 --quadratic --samples 5e6 --generator philox -i 2
batch_end
expect_gpu "montecarlo -n 1e10 (memory guard)" 3 "$mc" -n 1e10 --gold-paths 1000
expect_gpu "montecarlo --dump" 0 "$mc" -n 1000 -k 5 -i 2 --gold-paths 10000 --dump "$tmp/mc"
if [ "$rc" -eq 0 ]; then
    if [ -s "$tmp/mc_input.npy" ] && [ -s "$tmp/mc_output.npy" ] && [ -s "$tmp/mc_gold.npy" ]; then
        pass "montecarlo --dump writes three .npy files"; else fail "montecarlo --dump writes three .npy files"; fi
fi

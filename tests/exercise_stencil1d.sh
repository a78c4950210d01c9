# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# stencil1d's integration tests, sourced by tests/run.sh (.slot.sh: the learner's slot).
stencil=bin/stencil1d

run "$stencil" --help
if [ "$rc" -eq 0 ] && grep -q "v4-shuffle" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q -- "--radius R" "$tmp/out" && grep -q -- "--type TYPE" "$tmp/out"; then
    pass "stencil1d --help"; else fail "stencil1d --help"; fi
expect_usage "stencil1d --radius 0" "--radius 0" "$stencil" --radius 0
expect_usage "stencil1d --radius 65" "--radius 65" "$stencil" --radius 65
expect_usage "stencil1d -n 0" "-n 0" "$stencil" -n 0
expect_usage "stencil1d --type double" "--type double" "$stencil" --type double
expect_usage "stencil1d -k v1 --block 1 -n 2^31 (a grid past 2^31 - 1 blocks)" "past CUDA's 2^31 - 1" "$stencil" -k v1 --block 1 -n 2Gi
expect_usage "stencil1d --block 0" "--block 0" "$stencil" --block 0
expect_usage "stencil1d --check -k all" "--check scores one version" "$stencil" --check -k all
expect_make_line "make check_stencil1d K=yours" "bin/stencil1d --check -k yours" check_stencil1d K=yours
expect_no_device "stencil1d without a device exits 77" "$stencil" -n 1024

# The notes' program: N = 1024 ones, RADIUS 3, BLOCK_SIZE 16: every output 7.
expect_gpu "stencil1d: the notes' program (1024 ones, radius 3, blocks of 16)" 0 \
    "$stencil" -n 1024 --input ones --block 16 -k all -i 2
if [ "$rc" -eq 0 ] && ! grep -q "1024 of 1024 outputs are 7 (2R + 1), as the notes' program prints" "$tmp/out"; then
    fail "stencil1d: the notes' program prints 7s"; fi

# Every version (and v2, the reference) against the gold at odd sizes, radii 1, 3, 16, 64,
# both types; blocks smaller than the radius for v1 and v2.
batch "$stencil"
for type in int float; do
    for r in 1 3 16 64; do
        for n in 1 2 33 1023 1025 1000003; do
            batch_gpu "stencil1d -k all -n $n --radius $r --type $type" 0 -k all -n "$n" --radius "$r" --type "$type" -i 2
        done
    done
    batch_gpu "stencil1d -k all --radius 64 --block 16 --type $type" 0 -k all -n 4099 --radius 64 --block 16 --type "$type" -i 2
    batch_gpu "stencil1d -k all --radius 7 --block 1 --type $type" 0 -k all -n 300 --radius 7 --block 1 --type "$type" -i 2
    batch_gpu "stencil1d -k all -n 2^24 + 5 --radius 5 --type $type" 0 -k all -n 16777221 --radius 5 --type "$type" -i 2
    batch_gpu "stencil1d -k all --input ones --radius 2 --type $type" 0 -k all -n 77777 --input ones --radius 2 --type "$type" -i 2
done
batch_end

expect_gpu "stencil1d reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$stencil" -n 1000 -i 2
expect_gpu "stencil1d reports a wrong float result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$stencil" -n 1000 --type float -i 2
expect_gpu "stencil1d -n 2^34 (memory guard)" 3 "$stencil" -n 16Gi
expect_json_lines "stencil1d --json -k all" "$stencil" --json -k all -n 5000 -i 2
expect_gpu "stencil1d --dump" 0 "$stencil" -n 777 --radius 4 --type float -i 2 --dump "$tmp/st"
if [ "$rc" -eq 0 ]; then
    if [ -s "$tmp/st_input.npy" ] && [ -s "$tmp/st_output.npy" ] && [ -s "$tmp/st_gold.npy" ]; then
        pass "stencil1d --dump writes three .npy files"; else fail "stencil1d --dump writes three .npy files"; fi
fi

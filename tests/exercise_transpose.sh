# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# transpose's integration tests, sourced by tests/run.sh (.slot.sh: the learner's slot).
transpose=bin/transpose

run "$transpose" --help
if [ "$rc" -eq 0 ] && grep -q "v4-float4" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q -- "--in-place" "$tmp/out" && grep -q -- "--m M" "$tmp/out"; then
    pass "transpose --help"; else fail "transpose --help"; fi
expect_usage "transpose -n 0" "-n 0" "$transpose" -n 0
expect_usage "transpose --m 0" "--m 0" "$transpose" --m 0 -n 5
expect_usage "transpose --in-place on a non-square A" "--in-place: A must be square (here 3 x 5)" "$transpose" --in-place --m 3 -n 5
expect_usage "transpose --check --in-place" "--check scores the out-of-place shapes" "$transpose" --check --in-place
expect_usage "transpose --in-place -k 2 (out of place only)" "works out of place only" "$transpose" --in-place -k 2 -n 64
expect_usage "transpose --check -k all" "--check scores one version" "$transpose" --check -k all
expect_make_line "make check_transpose K=yours" "bin/transpose --check -k yours" check_transpose K=yours
expect_no_device "transpose without a device exits 77" "$transpose" -n 64

# Every version and cublasSgeam, bit for bit, at odd shapes: a row, a column, sides one
# past and one short of the tile, sides not a multiple of 4 (no float4), tall and wide.
batch "$transpose"
for shape in 1x1 1x2 2x1 1x100000 100000x1 33x33 31x33 4097x33 33x4097 1023x1025 1025x1023 \
    1024x1024 4x4 36x68 68x36 3x5000 5000x3 2000x4004; do
    batch_gpu "transpose -k all $shape" 0 -k all --m "${shape%x*}" -n "${shape#*x}" -i 2
done
for side in 1 2 31 33 64 100 1023 1024 4096; do
    batch_gpu "transpose -k all -n $side --in-place" 0 -k all -n "$side" --in-place -i 3
done
batch_gpu "transpose -k all 3000000 x 7 (a grid past 65535 rows of blocks)" 0 -k all --m 3000000 -n 7 -i 2
batch_end

expect_gpu "transpose reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$transpose" -n 100 -i 2
expect_gpu "transpose -n 2^31 - 1 (memory guard)" 3 "$transpose" -n 2147483647 --m 1000
expect_json_lines "transpose --json -k all" "$transpose" --json -k all -n 300 -i 2
expect_gpu "transpose --dump" 0 "$transpose" --m 7 -n 5 -i 2 --dump "$tmp/tr"
if [ "$rc" -eq 0 ]; then
    if [ -s "$tmp/tr_input.npy" ] && [ -s "$tmp/tr_output.npy" ] && [ -s "$tmp/tr_gold.npy" ] &&
        grep -q "(5, 7)" "$tmp/tr_output.npy"; then
        pass "transpose --dump writes three .npy files, B as 5 x 7"; else fail "transpose --dump writes three .npy files, B as 5 x 7"; fi
fi

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# matmul's integration tests, sourced by tests/run.sh (tests/exercise_matmul.shapes.sh:
# the large and long shapes; .slot.sh: the learner's slot).
matmul=bin/matmul

run "$matmul" --help
if [ "$rc" -eq 0 ] && grep -q "v8-mma" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q -- "--precision" "$tmp/out" && grep -q -- "--alpha" "$tmp/out" && grep -q -- "--k K" "$tmp/out"; then
    pass "matmul --help"; else fail "matmul --help"; fi

expect_usage "matmul -n 0" "-n 0" "$matmul" -n 0
expect_usage "matmul --m -3" "--m -3" "$matmul" --m -3
expect_usage "matmul --k 0" "--k 0" "$matmul" --k 0
expect_usage "matmul --check --m 5 (the table's own shapes)" "leave out --m and --k" "$matmul" --check --m 5
expect_usage "matmul --check --k 7" "leave out --m and --k" "$matmul" --check --k 7
expect_usage "matmul --check -n 5" "--check times its table's own sizes" "$matmul" --check -n 5
expect_usage "matmul --n 3e9 (past 2^31 - 1)" "3e9: expected a size in 1..2147483647" "$matmul" --n 3e9
expect_usage "matmul --precision fp64" "--precision fp64: expected one of fp32, tf32, bf16, fp16" "$matmul" --precision fp64
expect_usage "matmul -k v3 --precision bf16" "-k v3: v3-shared runs fp32 only (the CUDA cores); --precision bf16 runs v7-wmma, v8-mma, v9-wgmma" "$matmul" -k v3 --precision bf16
expect_usage "matmul -k yours --precision fp16" "yours runs fp32 only" "$matmul" -k yours --precision fp16
expect_usage "matmul -k v8 (fp32)" "-k v8: v8-mma runs on the tensor cores (tf32, bf16, fp16)" "$matmul" -k v8
expect_usage "matmul --alpha nan" "--alpha nan: expected a number" "$matmul" --alpha nan
expect_usage "matmul --beta 1x" "--beta 1x: expected a number" "$matmul" --beta 1x
expect_usage "matmul -k v10" "-k v10: unknown kernel" "$matmul" -k v10
expect_usage "matmul --check -k all" "--check scores one version" "$matmul" --check -k all
expect_make_line "make check_matmul K=yours" "bin/matmul --check -k yours" check_matmul K=yours
expect_no_device "matmul without a device exits 77" "$matmul" -n 64

# Every version of each precision (and cuBLAS), against the CPU gold, at edge sizes and
# with alpha and beta; exit 0 only if every result verified.
batch "$matmul"
for p in fp32 tf32 bf16 fp16; do
    for n in 1 7 33 100 1023; do
        batch_gpu "matmul -k all -n $n --precision $p" 0 -k all -n "$n" -i 2 --precision "$p"
    done
    for k in 1 7 33; do
        batch_gpu "matmul -k all --m 130 -n 257 --k $k --precision $p" 0 -k all --m 130 -n 257 --k "$k" -i 2 --precision "$p"
    done
    batch_gpu "matmul -k all -n 129 --alpha -0.5 --beta 2 --precision $p" 0 -k all -n 129 --alpha -0.5 --beta 2 -i 2 --precision "$p"
    batch_gpu "matmul -k all --m 1 -n 1000 --k 300 --precision $p" 0 -k all --m 1 -n 1000 --k 300 -i 2 --precision "$p"
    # Rows that are not whole 16-byte chunks, copied into padded rows where that pays (v5-v8:
    # A when n >= 1024, B when m >= 1024, m n k >= 2^30; v9 always): both, B alone, and a thin
    # C after a padded one.
    batch_gpu "matmul -k all --m 1030 -n 1025 --k 1021 --alpha -2 --beta 1 --precision $p (A and B padded)" 0 -k all --m 1030 -n 1025 --k 1021 --alpha -2 --beta 1 -i 2 --precision "$p"
    batch_gpu "matmul -k all --m 1500 -n 701 --k 1100 --precision $p (B padded)" 0 -k all --m 1500 -n 701 --k 1100 -i 2 --precision "$p"
    batch_gpu "matmul -k all --m 17 -n 4100 --k 16001 --precision $p (A padded, then thin)" 0 -k all --m 17 -n 4100 --k 16001 -i 2 --precision "$p"
    batch_gpu "matmul -k all --m 1000 -n 1 --k 300 --precision $p" 0 -k all --m 1000 -n 1 --k 300 -i 2 --precision "$p"
    # The column kernel's 2 .. 4 columns and the columns kernels' 5 .. 16 (tf32 and 16-bit:
    # the tensor cores, one group of 8 columns or two), rows whole 16-byte chunks and not, k
    # in pieces; fp32's at a k under 1024 too.
    for c in 2 3 4 5 8 9 16; do
        batch_gpu "matmul -k all --m 300 -n $c --k 2048 --beta 1 --precision $p" 0 -k all --m 300 -n "$c" --k 2048 --beta 1 -i 2 --precision "$p"
        batch_gpu "matmul -k all --m 301 -n $c --k 1029 --alpha -2 --precision $p" 0 -k all --m 301 -n "$c" --k 1029 --alpha -2 -i 2 --precision "$p"
    done
    for c in 3 7 12; do
        batch_gpu "matmul -k all --m 777 -n $c --k 333 --alpha 0.5 --beta 1 --precision $p" 0 -k all --m 777 -n "$c" --k 333 --alpha 0.5 --beta 1 -i 2 --precision "$p"
    done
    batch_gpu "matmul -k all --m 905 -n 9 --k 2 --beta 1 --precision $p (k shorter than a chunk)" 0 -k all --m 905 -n 9 --k 2 --beta 1 -i 2 --precision "$p"
done
batch_end

# Each of v6's tile shapes, whatever the planner would take (CUDALAB_V6_TILE), against the CPU
# gold: odd sides, alpha and beta, and k cut into pieces (split-K's fixup in each shape).
for tile in 256x128 128x128 64x128 256x64; do
    expect_gpu "matmul -k v6 tiles $tile, 1001 x 333 x 777, alpha and beta" 0 env CUDALAB_V6_TILE=$tile "$matmul" -k v6 --m 1001 -n 333 --k 777 --alpha -2 --beta 1 -i 1
    expect_gpu "matmul -k v6 tiles $tile, 130 x 201 x 20001 (k in pieces)" 0 env CUDALAB_V6_TILE=$tile "$matmul" -k v6 --m 130 -n 201 --k 20001 -i 1
done
expect_gpu "matmul -k v6 tiles 64x128 where the thin path would run (33 x 500 x 2000)" 0 env CUDALAB_V6_TILE=64x128 "$matmul" -k v6 --m 33 -n 500 --k 2000 -i 1
expect_gpu "matmul CUDALAB_V6_TILE=100x100 (no such tile, exit 2)" 2 env CUDALAB_V6_TILE=100x100 "$matmul" -k v6 -n 64 -i 1
if [ "$rc" -eq 2 ] && ! grep -q "v6's tiles are 256x128, 128x128, 64x128, 256x64" "$tmp/out"; then fail "matmul CUDALAB_V6_TILE message"; fi
# And each of v9's (CUDALAB_V9_TILE): 128-row tiles, whose consumer warpgroups take 64 rows
# each, and 64-row ones, which take half the columns each; 16-bit B in boxes of 64 columns,
# tf32's tiles of C^T (B's boxes of 32 columns loaded into registers, C written back
# through an exchange of lanes).
for tile in 128x256 128x128 128x64 64x256 64x128; do
    for p in bf16 fp16 tf32; do
        expect_gpu "matmul -k v9 tiles $tile $p, 1001 x 333 x 777, alpha and beta" 0 env CUDALAB_V9_TILE=$tile "$matmul" -k v9 --m 1001 -n 333 --k 777 --alpha -2 --beta 1 --precision "$p" -i 1
    done
    expect_gpu "matmul -k v9 tiles $tile bf16, 130 x 201 x 20001 (k in pieces)" 0 env CUDALAB_V9_TILE=$tile "$matmul" -k v9 --m 130 -n 201 --k 20001 --precision bf16 -i 1
    expect_gpu "matmul -k v9 tiles $tile tf32, 70 x 9 x 3001 (k in pieces, past the thin path)" 0 env CUDALAB_V9_TILE=$tile "$matmul" -k v9 --m 70 -n 9 --k 3001 --precision tf32 -i 1
done
# The last wave's tiles alone cut into pieces of k (64 x 128 tiles: 140 tiles, 132 whole,
# then 8 of 2 pieces; tf32's of C^T), beta read by the piece that writes C.
expect_gpu "matmul -k v9 tiles 64x128 bf16, 640 x 1792 x 2048 (the last wave in pieces)" 0 env CUDALAB_V9_TILE=64x128 "$matmul" -k v9 --m 640 -n 1792 --k 2048 --beta 1 --precision bf16 -i 1
expect_gpu "matmul -k v9 tiles 64x128 tf32, 1792 x 640 x 1024 (the last wave in pieces)" 0 env CUDALAB_V9_TILE=64x128 "$matmul" -k v9 --m 1792 -n 640 --k 1024 --alpha -2 --precision tf32 -i 1
# k under 64: v9 hands the shape to v8's kernel, unless a tile is named (v9's own kernel
# at one slab of k, odd sides, alpha and beta).
for p in bf16 tf32; do
    expect_gpu "matmul -k v9 --m 1771 -n 419 --k 15 $p (v8's kernel)" 0 "$matmul" -k v9 --m 1771 -n 419 --k 15 --beta 1 --precision "$p" -i 1
    expect_gpu "matmul -k v9 tiles 128x128 $p, 130 x 257 x 7 (v9's kernel)" 0 env CUDALAB_V9_TILE=128x128 "$matmul" -k v9 --m 130 -n 257 --k 7 --alpha -2 --beta 1 --precision "$p" -i 1
done
expect_gpu "matmul CUDALAB_V9_TILE=256x128 (no such tile, exit 2)" 2 env CUDALAB_V9_TILE=256x128 "$matmul" -k v9 --precision bf16 -n 64 -i 1
if [ "$rc" -eq 2 ] && ! grep -q "v9's tiles are 128x256, 128x128, 128x64, 64x256, 64x128" "$tmp/out"; then fail "matmul CUDALAB_V9_TILE message"; fi

# A wrong result is caught: element by element against the GPU reference at every size (at
# 4096 Freivalds' check, the second check past the CPU gold's sizes, names its row too).
expect_gpu "matmul reports a wrong result (gold, exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$matmul" -n 100 -i 1
if [ "$rc" -eq 1 ] && ! grep -q "first bad index 5000 of 10000" "$tmp/out"; then fail "matmul wrong-result message (gold)"; fi
expect_gpu "matmul reports a wrong result (reference and Freivalds, 4096^2 C, exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$matmul" -n 4096 -i 1 --no-peer
if [ "$rc" -eq 1 ] && ! { grep -q "Freivalds' check, row 2048 of 4096" "$tmp/out" && grep -q "first bad index 8388608 of 16777216" "$tmp/out"; }; then fail "matmul wrong-result messages (reference and Freivalds)"; fi
expect_gpu "matmul tf32: one dropped product is caught at 1000^3 (exit 1)" 1 env CUDALAB_INJECT_FAULT=term "$matmul" -n 1000 -i 1 --precision tf32
if [ "$rc" -eq 1 ] && ! grep -q "first bad index 500000 of 1000000" "$tmp/out"; then fail "matmul tf32 dropped-product message"; fi
expect_gpu "matmul -n 1e6 (memory guard)" 3 "$matmul" -n 1e6
if [ "$rc" -eq 3 ] && ! grep -qE "needs .* [GT]B of (host|device) memory" "$tmp/out"; then fail "matmul memory guard message"; fi
expect_gpu "matmul -d 99 (no such device)" 2 "$matmul" -d 99 -n 10
expect_json_lines "matmul --json -k all" "$matmul" --json -k all -n 300 -i 2
expect_gpu "matmul --dump" 0 "$matmul" -n 77 --m 50 -i 2 --dump "$tmp/mm"
if [ "$rc" -eq 0 ]; then
    for role in input input_b output gold; do
        if head -c 6 "$tmp/mm_$role.npy" | grep -q NUMPY; then pass "matmul --dump writes $role.npy"
        else fail "matmul --dump writes $role.npy"; fi
    done
fi

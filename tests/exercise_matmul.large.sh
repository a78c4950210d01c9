# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# matmul at the edges of its sizes, sourced by tests/run.sh. 17 GB of device memory, 34 GB
# of host memory.
matmul=bin/matmul
# A side of 2^31 - 1, the most the command line takes: v6, whose tile rows (128 a tile)
# were counted in an int that overflowed there (v1..v5 count C's columns: verified at this
# shape too, 2026-11-28, each a minute of this suite's time). cuBLAS itself fails there
# ("an internal operation failed"): --no-peer.
expect_gpu "matmul -k v6 --m 2^31 - 1 -n 1 --k 1" 0 "$matmul" -k v6 --m 2147483647 -n 1 --k 1 -i 1 --no-peer
# tf32 at k = 2,200,001 (68,751 slabs of 32): every slab of k is covered (2026-11-28: v9
# then wrote B transposed first, through grid.y's 65535 rows of tiles, and a row of tiles
# past the 65535th left out put it ~13x past the allowance). The tensor cores' own adds,
# 2.2M of them an element, drifted past Freivalds' allowance before it took their
# truncations' bound (2026-11-28: v9 1.13x it, v7 2.1x; cuBLAS, which splits k, 0.05x), so
# the run may exit 1; what this asserts is the ratio under 4.
run "$matmul" -k v9 --precision tf32 --m 64 -n 64 --k 2200001 -i 1 --no-peer
ratio=$(awk '$1 == "v9-wgmma" { print $9 }' "$tmp/out")
if [ "$rc" -eq 77 ]; then skip "matmul v9 tf32 --k 2200001 (68,751 slabs of k)"
elif [ "$rc" -le 1 ] && awk -v r="${ratio:-x}" 'BEGIN { exit !(r + 0 == r && r < 4) }'; then
    pass "matmul v9 tf32 --k 2200001 (68,751 slabs of k)"
else
    echo "    exit $rc, v9's error over its allowance '${ratio}', wanted < 4" >>"$tmp/out"
    fail "matmul v9 tf32 --k 2200001 (68,751 slabs of k)"
fi
# One product dropped from one element of an 8192^3 C (moved by |alpha a b| = 1/4 of a
# typical product, CUDALAB_INJECT_FAULT=term) is caught in every precision: the element by
# element check against the GPU's reference in double (Freivalds' check, which sums a row's
# 8192 errors, let it through before, and one whole unit in tf32).
for p in fp32 tf32 bf16 fp16; do
    expect_gpu "matmul 8192^3 $p: one dropped product is caught (exit 1)" 1 env CUDALAB_INJECT_FAULT=term "$matmul" -n 8192 -i 1 --no-peer --precision "$p"
    if [ "$rc" -eq 1 ] && ! grep -q "first bad index 33554432 of 67108864, .* (1 element wrong" "$tmp/out"; then
        fail "matmul 8192^3 $p: the message names the one wrong element"
    fi
done

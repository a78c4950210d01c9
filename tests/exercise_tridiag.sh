# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# tridiag's integration tests, sourced by tests/run.sh.
td=bin/tridiag

run "$td" --help
if [ "$rc" -eq 0 ] && grep -q "v7-batched" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q -- "--systems SIZE" "$tmp/out"; then pass "tridiag --help"; else fail "tridiag --help"; fi
expect_usage "tridiag --nx 0" "--nx 0" "$td" --nx 0
expect_usage "tridiag --check --nx 64 (the table's own shapes)" "leave out --nx" "$td" --check --nx 64
expect_usage "tridiag --nx -5" "--nx -5" "$td" --nx -5
expect_usage "tridiag -k v9: a number past the last version (yours only by name)" "-k v9: unknown kernel" "$td" -k v9
expect_usage "tridiag --nx 1000001" "--nx 1000001" "$td" --nx 1000001
expect_usage "tridiag v8 at NX 1 names its limit" "v8-segments solves NX = 2..1000000" "$td" -k 8 --nx 1
expect_usage "tridiag --niter 0" "--niter 0" "$td" --niter 0
expect_usage "tridiag -n 0" "-n 0" "$td" -n 0
expect_usage "tridiag v1 at NX 64 names its limit" "v1-pcr-128 solves NX = 128 only" "$td" -k 1 --nx 64
expect_usage "tridiag v4 at NX 33 names its limit" "v4-pcr-warp solves NX = 1..32" "$td" -k 4 --nx 33
expect_usage "tridiag v2 at NX 1025 names its limit" "v2-pcr-dynamic solves NX = 1..1024" "$td" -k 2 --nx 1025
expect_usage "tridiag --check -k 1 (one NX only)" "the table needs NX = 32, 128 and 1024" "$td" --check -k 1
expect_usage "tridiag --check -k all" "--check scores one version" "$td" --check -k all
# yours.cu sets its own NX limit (tridiag_yours_max_nx), the program refuses past it.
expect_usage "tridiag -k yours --nx 2000 (yours.cu's limit)" "yours solves NX = 1..1024" bin/tridiag -k yours --nx 2000 -n 10
expect_make_line "make check_tridiag K=yours" "bin/tridiag --check -k yours" check_tridiag K=yours
expect_no_device "tridiag without a device exits 77" "$td" -n 10

batch "$td"
batch_gpu "tridiag v5 --nx 1025 -n 77" 0 -k 5 --nx 1025 -n 77 --input random -i 2
batch_gpu "tridiag v5 --nx 4000 -n 5" 0 -k 5 --nx 4000 -n 5 --input random -i 2
for shape in "32 100003" "100 5001" "128 4099" "300 1001" "512 77" "1000 257" "1023 301" "1024 2001"; do
    # shellcheck disable=SC2086 # the shape is words
    set -- $shape
    batch_gpu "tridiag -k all --nx $1 -n $2 --input random" 0 -k all --nx "$1" -n "$2" --input random -i 2 -S 3
done
for niter in 1 5; do
    batch_gpu "tridiag -k all --niter $niter" 0 -k all --niter "$niter" -n 1000 --input random -i 2
done
batch_end
expect_gpu "tridiag reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$td" -n 100 -i 2
expect_json_lines "tridiag --json -k all" "$td" --json -k all -n 2000 -i 2
expect_gpu "tridiag --dump" 0 "$td" -n 3 --nx 7 -i 2 --dump "$tmp/td"
if [ "$rc" -eq 0 ]; then
    if [ -s "$tmp/td_input.npy" ] && [ -s "$tmp/td_output.npy" ] && [ -s "$tmp/td_gold.npy" ]; then
        pass "tridiag --dump writes three .npy files"; else fail "tridiag --dump writes three .npy files"; fi
fi

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# saxpy's integration tests, sourced by tests/run.sh.
saxpy=bin/saxpy

run "$saxpy" --help
if [ "$rc" -eq 0 ] && grep -q "v4-float4x4" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q -- "--streams" "$tmp/out"; then
    pass "saxpy --help"; else fail "saxpy --help"; fi
# A default its help already gives is not given again ("(default 4) (default 4; 1..64)").
if [ "$rc" -eq 0 ] && tr '\n' ' ' <"$tmp/out" | tr -s ' ' | grep -q "default 4) (1..64)"; then
    pass "saxpy --help: --streams' default said once"; else fail "saxpy --help: --streams' default said once"; fi

expect_usage "saxpy -n -3" "-n -3" "$saxpy" -n -3
expect_usage "saxpy -n 0" "-n 0" "$saxpy" -n 0
expect_usage "saxpy -n 1.5" "-n 1.5" "$saxpy" -n 1.5
expect_usage "saxpy -k v5: a number past the last version (yours only by name)" "-k v5: unknown kernel" "$saxpy" -k v5
expect_usage "saxpy -n 1e300" "-n 1e300" "$saxpy" -n 1e300
expect_usage "saxpy --bogus" "--bogus" "$saxpy" --bogus
expect_usage "saxpy -k v9" "-k v9" "$saxpy" -k v9
expect_usage "saxpy --check -k all" "--check scores one version" "$saxpy" --check -k all
expect_make_line "make check_saxpy K=yours" "bin/saxpy --check -k yours" check_saxpy K=yours
expect_make_line "make -C saxpy check K=yours" "bin/saxpy --check -k yours" -C saxpy check K=yours
expect_usage "saxpy -i -2" "-i -2" "$saxpy" -i -2
expect_usage "saxpy --streams 0" "--streams 0" "$saxpy" --streams 0
expect_usage "saxpy --band 0" "--band 0" "$saxpy" --band 0
expect_usage "saxpy --input bad" "--input bad" "$saxpy" --input bad
expect_usage "saxpy -n (missing value)" "missing value" "$saxpy" -n
expect_no_device "saxpy without a device exits 77" "$saxpy" -n 1000

# Every version (and the peer), exit 0 only if all verified, at edge sizes.
batch "$saxpy"
for n in 1 2 3 4 5 31 32 33 1023 1024 1025 65537 999983 1048575 1048577; do
    batch_gpu "saxpy -k all -n $n (uniform input)" 0 -k all -n "$n" -i 3 --input uniform
done
batch_gpu "saxpy -k all -n 1000 (course input)" 0 -k all -n 1000 -i 3
for k in 1 2 3 4 yours; do
    batch_gpu "saxpy -k $k -n 3333 --streams 3 --managed" 0 -k "$k" -n 3333 -i 2 --streams 3 --managed --input uniform
done
batch_gpu "saxpy -n 1000001 --streams 7 --managed" 0 -n 1000001 -i 2 --streams 7 --managed
batch_gpu "saxpy -n 2 --streams 64" 0 -n 2 -i 2 --streams 64
batch_end
# Bands of 1 MB: four bands of x, y and z, the last one partial, on three streams.
expect_gpu "saxpy -n 1000001 --band 1 --streams 3" 0 "$saxpy" -n 1000001 -i 2 --band 1 --streams 3 --input uniform
if [ "$rc" -eq 0 ] && ! grep -qE "pinned, 1 MB bands, 3 streams .* yes" "$tmp/out"; then fail "saxpy banded row"; fi
if [ "$rc" -eq 0 ] && ! grep -qE "of the PCIe bound \([0-9.]+ ms\)" "$tmp/out"; then fail "saxpy PCIe bound note"; fi
# A wrong result is caught and reported: exit 1 (fault injected into every compare).
expect_gpu "saxpy reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$saxpy" -n 1000 -i 2
if [ "$rc" -eq 1 ] && ! grep -q "first bad index 500 of 1000" "$tmp/out"; then fail "saxpy wrong-result message"; fi
expect_gpu "saxpy -d 99 (no such device)" 2 "$saxpy" -d 99 -n 10
expect_gpu "saxpy -n 1e11 (memory guard)" 3 "$saxpy" -n 1e11
if [ "$rc" -eq 3 ] && ! grep -qE "needs .* [GT]B of (host|device) memory" "$tmp/out"; then fail "saxpy memory guard message"; fi
expect_json_lines "saxpy --json -k all" "$saxpy" --json -k all -n 5000 -i 2 --streams 2
expect_gpu "saxpy --dump" 0 "$saxpy" -n 777 -i 2 --dump "$tmp/sx"
if [ "$rc" -eq 0 ]; then
    for role in input output gold; do
        if head -c 6 "$tmp/sx_$role.npy" | grep -q NUMPY; then pass "saxpy --dump writes $role.npy"
        else fail "saxpy --dump writes $role.npy"; fi
    done
fi

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# find_repeats' integration tests, sourced by tests/run.sh.
fr=bin/find_repeats

run "$fr" --help
if [ "$rc" -eq 0 ] && grep -q "v2-fused" "$tmp/out" && grep -q "^  yours " "$tmp/out"; then pass "find_repeats --help"; else fail "find_repeats --help"; fi
expect_usage "find_repeats -n 0" "-n 0" "$fr" -n 0
expect_usage "find_repeats --bogus" "--bogus" "$fr" --bogus
expect_usage "find_repeats -k 5" "-k 5" "$fr" -k 5
expect_usage "find_repeats --check -k all" "--check scores one version" "$fr" --check -k all
expect_make_line "make check_find_repeats K=yours" "bin/find_repeats --check -k yours" check_find_repeats K=yours
expect_no_device "find_repeats without a device exits 77" "$fr" -n 100

expect_gpu "find_repeats --example -k all" 0 "$fr" --example -k all -i 2
if [ "$rc" -eq 0 ] && ! grep -q "10 elements of rand % 10, 4 repeats" "$tmp/out"; then fail "find_repeats example finds 4"; fi
batch "$fr"
for n in 1 2 3 4 5 31 32 33 1023 1024 1025 4095 4096 4097 4098 4099 8191 8192 8193 65537 999983 1048577; do
    batch_gpu "find_repeats -k all -n $n" 0 -k all -n "$n" -i 2
done
batch_gpu "find_repeats -k all -n 1e7" 0 -k all -n 1e7 -i 2 -S 5
batch_end
expect_gpu "find_repeats v3 -n 268435459 (2^28+3)" 0 "$fr" -k v3 -n 268435459 -i 3
if [ "$rc" -eq 0 ] && ! grep -q "v3-bulk runs " "$tmp/out"; then fail "find_repeats says which path v3 ran"; fi
expect_gpu "find_repeats reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$fr" -n 1000 -i 2
expect_json_lines "find_repeats --json -k all" "$fr" --json -k all -n 5000 -i 2
expect_gpu "find_repeats --dump" 0 "$fr" --example -i 2 --dump "$tmp/fr"
if [ "$rc" -eq 0 ] && command -v python3 >/dev/null && python3 -c 'import numpy' 2>/dev/null; then
    if python3 -c "import numpy, sys; o = numpy.load(sys.argv[1]); assert list(o) == [1, 3, 4, 8], o" "$tmp/fr_output.npy" 2>>"$tmp/out"; then
        pass "find_repeats --dump holds {1,3,4,8}"; else fail "find_repeats --dump holds {1,3,4,8}"; fi
fi

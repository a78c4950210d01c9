# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# heat's integration tests, sourced by tests/run.sh.
ht=bin/heat

run "$ht" --help
if [ "$rc" -eq 0 ] && grep -q "v4-temporal" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q -- "--verify gold|fft" "$tmp/out"; then pass "heat --help"; else fail "heat --help"; fi
expect_usage "heat -n 0" "-n 0" "$ht" -n 0
expect_usage "heat -n 99 (below the source layout's 100)" "100..16384" "$ht" -n 99
expect_usage "heat --size 16M: --size is -n everywhere" "100..16384" "$ht" --size 16M
expect_usage "heat -n 16M: the examples lie in the range" "100..16384 (e.g. 1000, 1e3, 4K, 1Ki)" "$ht" -n 16M
expect_usage "heat --frames 0" "--frames 0" "$ht" --frames 0
# -o into a missing directory: refused before the device is touched (so also without one).
expect_usage "heat -o into a missing directory" "-o $tmp/missing/f: directory" "$ht" -o "$tmp/missing/f"
expect_usage "heat --frames -3" "--frames -3" "$ht" --frames -3
expect_usage "heat --steps 0" "--steps 0" "$ht" --steps 0
expect_usage "heat --verify bogus" "--verify bogus" "$ht" --verify bogus
expect_usage "heat --input bogus" "--input bogus" "$ht" --input bogus
expect_usage "heat --check -k all" "--check scores one version" "$ht" --check -k all
expect_make_line "make check_heat K=yours" "bin/heat --check -k yours" check_heat K=yours
expect_no_device "heat without a device exits 77" "$ht" -n 128

# v4 does one cooperative launch while its tiles fit on the GPU at once (1031^2 on an
# H100), a launch a pass beyond: 2053^2 takes the second path.
expect_gpu "heat -k v4 -n 2053 --steps 17 --frames 2" 0 "$ht" -k v4 -n 2053 --steps 17 --frames 2 -i 1
expect_gpu "heat --verify fft -k all -n 1024 --steps 1000" 0 "$ht" --verify fft -k all -n 1024 --steps 1000 -i 1
expect_gpu "heat --verify fft -k all -n 131 --steps 45 --frames 3" 0 "$ht" --verify fft -k all -n 131 --steps 45 --frames 3 -i 1
expect_gpu "heat --verify fft --input random -k all -n 257 --steps 45 --frames 2" 0 "$ht" --verify fft --input random -k all -n 257 --steps 45 --frames 2 -i 1
expect_gpu "heat reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$ht" -n 128 -i 2
expect_json_lines "heat --json -k all" "$ht" --json -k all -n 128 -i 2

# Frames: three images, named as documented; an unwritable name exits 2 leaving nothing.
expect_gpu "heat --frames 3 -o" 0 "$ht" -n 128 --frames 3 -o "$tmp/frame" -i 1
if [ "$rc" -eq 0 ]; then
    # shellcheck disable=SC2012 # names the test wrote
    if [ "$(ls "$tmp"/frame_000[012].* 2>/dev/null | wc -l)" -eq 3 ] && ! ls "$tmp"/frame_0003.* >/dev/null 2>&1 &&
        ! ls "$tmp"/*.partial >/dev/null 2>&1; then pass "heat -o writes frame_0000..0002"
    else fail "heat -o writes frame_0000..0002"; fi
fi
expect_gpu "heat --dump" 0 "$ht" -n 100 -k v1 -i 2 --dump "$tmp/ht"
if [ "$rc" -eq 0 ] && [ -s "$tmp/ht_output.npy" ] && [ -s "$tmp/ht_gold.npy" ]; then pass "heat --dump writes the arrays"
elif [ "$rc" -eq 0 ]; then fail "heat --dump writes the arrays"; fi

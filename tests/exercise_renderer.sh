# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# renderer's integration tests, sourced by tests/run.sh. -r cpuref needs no GPU.
re=bin/renderer
scenes="rgb rgby rand10k rand100k rand1M micro2M biglittle littlebig pattern snow snowsingle bouncingballs hypnosis fireworks"

run "$re" --help
if [ "$rc" -eq 0 ] && grep -q "v3-binned-f2b" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q "bouncingballs" "$tmp/out"; then pass "renderer --help"; else fail "renderer --help"; fi

# The CPU reference draws every scene (two frames; animated ones move).
for s in $scenes; do
    run "$re" -r cpuref -s 67 -b 0:2 "$s"
    if [ "$rc" -eq 0 ]; then pass "renderer -r cpuref $s"; else fail "renderer -r cpuref $s"; fi
done
run "$re" -r cpuref -s 50 -b 0:3 -f "$tmp/cpusnow" snow
ext=png; pkg-config --exists libpng 2>/dev/null || ext=ppm
if [ "$rc" -eq 0 ] && [ -s "$tmp/cpusnow_0000.$ext" ] && [ -s "$tmp/cpusnow_0002.$ext" ] && [ ! -e "$tmp/cpusnow_0003.$ext" ]; then
    pass "renderer -r cpuref -f writes a file a frame"; else fail "renderer -r cpuref -f writes a file a frame"; fi

# -f NAME.png names the frames NAME_0000.png, not NAME.png_0000.png.
run "$re" -r cpuref -s 20 -f "$tmp/named.png" rgb
if [ "$rc" -eq 0 ] && [ -s "$tmp/named_0000.$ext" ] && [ ! -e "$tmp/named.png_0000.$ext" ]; then
    pass "renderer -f x.png writes x_0000.$ext"; else fail "renderer -f x.png writes x_0000.$ext"; fi

# Bad input: exit 2 with the reason, nothing run.
expect_usage "renderer: unknown scene" "unknown scene 'rand10'" "$re" -r cpuref rand10
expect_usage "renderer -b 3:1" "-b 3:1" "$re" -r cpuref -b 3:1 rgb
expect_usage "renderer -b 3" "-b 3" "$re" -r cpuref -b 3 rgb
expect_usage "renderer -f into /proc: refused before any work" "cannot create a file there" "$re" -r cpuref -f /proc/frame rgb
expect_usage "renderer -f frame.jpg: an extension it cannot write" "unknown extension" "$re" -r cpuref -f "$tmp/frame.jpg" rgb
expect_usage "renderer -b x:4" "-b x:4" "$re" -r cpuref -b x:4 rgb
expect_usage "renderer -b 2:" "-b 2:" "$re" -r cpuref -b 2: rgb
expect_usage "renderer -s 0" "-s 0: expected an integer in 1..16384" "$re" -r cpuref -s 0 rgb
expect_usage "renderer -f into a missing directory" "directory" "$re" -r cpuref -f "$tmp/missing/f" rgb
expect_usage "renderer -c -r cpuref" "-c compares" "$re" -c -r cpuref rgb
expect_usage "renderer -r bogus" "-r bogus" "$re" -r bogus rgb
expect_usage "renderer -r cpuref -k all (a GPU version)" "-k picks a GPU version" "$re" -r cpuref -k all rgb
expect_usage "renderer --dump without -c" "use it with -c" "$re" -r cpuref --dump "$tmp/x" rgb
expect_usage "renderer --check -k all" "--check scores one version" "$re" --check -k all
expect_make_line "make check_renderer K=yours" "bin/renderer --check -k yours" check_renderer K=yours
expect_no_device "renderer without a device exits 77" "$re" rgb

batch "$re"
for size in 1 2 15 17 33; do
    batch_gpu "renderer -c -k all rand10k -s $size" 0 -c -k all -s "$size" rand10k
done
batch_gpu "renderer -c -k all rand100k -n 3000 (v3 binned above 2048 circles)" 0 -c -k all -s 257 -n 3000 rand100k
batch_end
expect_gpu "renderer reports a wrong pixel (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$re" -c -s 100 rgb
expect_json_lines "renderer --json -c" "$re" --json -c -k all -s 100 rgby
expect_gpu "renderer --dump" 0 "$re" -c -k v2 -s 40 --dump "$tmp/re" rand10k
if [ "$rc" -eq 0 ] && [ -s "$tmp/re_output.npy" ] && [ -s "$tmp/re_gold.npy" ]; then pass "renderer --dump writes output and gold"
elif [ "$rc" -eq 0 ]; then fail "renderer --dump writes output and gold"; fi
expect_gpu "renderer -f snow 0:30" 0 "$re" -s 256 -b 0:30 -f "$tmp/snow" snow
if [ "$rc" -eq 0 ]; then
    # shellcheck disable=SC2012 # names the test wrote
    if [ "$(ls "$tmp"/snow_00*."$ext" | wc -l)" -eq 30 ]; then pass "renderer -f snow: 30 frames"; else fail "renderer -f snow: 30 frames"; fi
fi
for r in cuda ref; do
    expect_gpu "renderer -r $r frames 0:3 of snow" 0 "$re" -r "$r" -s 200 -b 0:3 snow
done

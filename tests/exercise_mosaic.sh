# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# mosaic's integration tests, sourced by tests/run.sh. The cpu and openmp modes need no
# GPU and run everywhere.
mo=bin/mosaic

run "$mo" --help
if [ "$rc" -eq 0 ] && grep -q "v4-staged-tiles" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q -- "--mode MODE" "$tmp/out"; then pass "mosaic --help"; else fail "mosaic --help"; fi

# expect_cpu NAME WANT_RC CMD...: a run that needs no GPU.
expect_cpu() {
    local name=$1 want=$2; shift 2
    run "$@"
    if [ "$rc" -eq "$want" ]; then pass "$name"
    else echo "    exit $rc, wanted $want: $*" >>"$tmp/out"; fail "$name"; fi
}

expect_cpu "mosaic --mode cpu -n 1000 --cell 7" 0 "$mo" --mode cpu -n 1000 --cell 7
expect_cpu "mosaic --mode openmp -n 1023 --cell 16 (checked against the gold)" 0 "$mo" --mode openmp -n 1023 --cell 16
# The picture round trip: write the mosaic as PPM and PNG, read each back as --image;
# a mosaic of a mosaic with the same cell is itself.
expect_cpu "mosaic -o PPM" 0 "$mo" --mode cpu -n 300 --cell 20 -o "$tmp/m.ppm"
expect_cpu "mosaic --image PPM -o PPM (a mosaic's mosaic)" 0 "$mo" --mode cpu --image "$tmp/m.ppm" --cell 20 -o "$tmp/m2.ppm"
if cmp -s "$tmp/m.ppm" "$tmp/m2.ppm"; then pass "mosaic: a mosaic's mosaic is itself"; else fail "mosaic: a mosaic's mosaic is itself"; fi
if [ "$(head -c 2 "$tmp/m.ppm")" = "P6" ]; then pass "mosaic -o .ppm writes P6"; else fail "mosaic -o .ppm writes P6"; fi
if pkg-config --exists libpng 2>/dev/null; then
    expect_cpu "mosaic -o PNG, then --image PNG" 0 sh -c "$mo --mode cpu -n 257 --cell 16 -o $tmp/m.png && $mo --mode cpu --image $tmp/m.png --cell 16 -o $tmp/m3.ppm"
fi

# --mode all without a GPU (hidden here): the CPU and OpenMP parts run and write the
# mosaic, then one line says the GPU versions did not run, exit 77.
CUDA_VISIBLE_DEVICES=-1 "$mo" --mode all -n 300 --cell 20 -o "$tmp/all.ppm" >"$tmp/stdout" 2>"$tmp/out"; rc=$?
if [ "$rc" -eq 77 ] && grep -q "^cpu " "$tmp/stdout" && grep -q "^openmp " "$tmp/stdout" &&
    grep -q "the CPU and OpenMP parts ran; the GPU versions did not: " "$tmp/out" &&
    cmp -s "$tmp/all.ppm" "$tmp/m.ppm"; then pass "mosaic --mode all without a GPU: CPU parts, then exit 77"
else echo "    exit $rc, wanted 77" >>"$tmp/out"; fail "mosaic --mode all without a GPU: CPU parts, then exit 77"; fi

# Bad input: exit 2 naming the file and the problem, nothing written.
printf 'P6\n3 2\n255\nabc' >"$tmp/short.ppm"
printf 'P5\n3 2\n255\n' >"$tmp/magic.ppm"
printf 'P6\n3\n' >"$tmp/fields.ppm"
printf 'P6\n-3 2\n255\n' >"$tmp/negative.ppm"
printf 'P6\n3 2\n65535\n' >"$tmp/maxval.ppm"
printf 'not a png' >"$tmp/bad.png"
printf 'x' >"$tmp/photo.jpg"
expect_usage "mosaic --mode cpu -k all (a GPU version)" "-k picks a GPU version" "$mo" --mode cpu -k all
expect_usage "mosaic --mode openmp --json" "--json reports the GPU runs" "$mo" --mode openmp --json
expect_usage "mosaic: missing file" "$tmp/none.ppm: cannot open" "$mo" --mode cpu --image "$tmp/none.ppm"
expect_usage "mosaic -n with --image: the image gives the size" "drop -n" "$mo" --mode cpu -n 100 --image mosaic/images/before.png
expect_usage "mosaic -o into /proc: refused before any work" "cannot create a file there" "$mo" --mode cpu -o /proc/m.png
expect_usage "mosaic: truncated pixel data" "truncated pixel data" "$mo" --mode cpu --image "$tmp/short.ppm"
expect_usage "mosaic: bad magic" "bad magic" "$mo" --mode cpu --image "$tmp/magic.ppm"
expect_usage "mosaic: header fields missing" "bad header" "$mo" --mode cpu --image "$tmp/fields.ppm"
expect_usage "mosaic: negative width" "bad header" "$mo" --mode cpu --image "$tmp/negative.ppm"
expect_usage "mosaic: maxval 65535" "maxval 65535" "$mo" --mode cpu --image "$tmp/maxval.ppm"
expect_usage "mosaic: a PNG libpng rejects" "bad.png" "$mo" --mode cpu --image "$tmp/bad.png"
expect_usage "mosaic: unknown extension" "unknown extension" "$mo" --mode cpu --image "$tmp/photo.jpg"
expect_usage "mosaic --cell 0" "--cell 0" "$mo" --mode cpu --cell 0
expect_usage "mosaic: cell larger than the image" "larger than the image" "$mo" --mode cpu -n 100 --cell 101
expect_usage "mosaic -o into a missing directory" "directory" "$mo" --mode cpu -n 100 -o "$tmp/missing/m.png"
expect_usage "mosaic -o unknown extension" "unknown extension" "$mo" --mode cpu -n 100 -o "$tmp/m.gif"
if ls "$tmp"/missing "$tmp"/m.gif* >/dev/null 2>&1; then fail "mosaic: bad -o wrote nothing"; else pass "mosaic: bad -o wrote nothing"; fi
expect_usage "mosaic --mode bogus" "--mode bogus" "$mo" --mode bogus
expect_usage "mosaic --check -k all" "--check scores one version" "$mo" --check -k all
expect_make_line "make check_mosaic K=yours" "bin/mosaic --check -k yours" check_mosaic K=yours
expect_no_device "mosaic without a device exits 77" "$mo" -n 64

# Every version byte for byte against the gold: odd sizes, partial cells, c = 1.
# 3001 x 5 at c 1: v3 splits the row of cells over blocks; c 600: v4's block a cell.
batch "$mo"
for shape in "1 1 1" "5 3 2" "64 64 64" "1023 769 16" "1023 769 7" "1023 769 5" "1023 769 2" \
    "1023 769 1" "3001 5 1" "1023 769 600" "2048 2048 16" "4096 4096 32" "4096 4096 512"; do
    # shellcheck disable=SC2086 # the shape is words
    set -- $shape
    image="$tmp/shape-$1x$2-c$3.ppm"
    printf 'P6\n%d %d\n255\n' "$1" "$2" >"$image"
    head -c $(($1 * $2 * 3)) /dev/urandom >>"$image"
    batch_gpu "mosaic -k all --mode all ${1}x$2 c $3" 0 -k all --mode all --image "$image" --cell "$3" -i 1
done
batch_gpu "mosaic --streams 7 (bands of 9-pixel cells)" 0 -n 1000 --cell 9 --streams 7 -i 1
batch_end
# 1024^2 (3.1 MB) is within three times any L2 cache of 2 MB or more: the repeats read
# other copies of the image.
expect_rotated "mosaic -n 1024 times over rotating copies of the image" 2 "$mo" -n 1024 -i 3
expect_gpu "mosaic reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$mo" -n 200 -i 2
expect_json_lines "mosaic --json -k all" "$mo" --json -k all -n 300 -i 2
expect_gpu "mosaic --dump" 0 "$mo" -n 99 --cell 10 -k v1 -i 2 --dump "$tmp/mo"
if [ "$rc" -eq 0 ] && cmp -s "$tmp/mo_output.npy" "$tmp/mo_gold.npy"; then pass "mosaic --dump output equals gold"
elif [ "$rc" -eq 0 ]; then fail "mosaic --dump output equals gold"; fi

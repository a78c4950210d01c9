# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# The Makefile's ARCH, part arch: a tree built for an older GPU (make ARCH=sm_80) runs
# right on a newer one. Its kernels run from their sm_80 code (the PTX, compiled for
# this GPU when loaded), where the sm_90-only parts are compiled out, so the paths that
# need them (the bulk-copy scan of scan, find_repeats and the renderer, tridiag's
# prefetching, the sort's dependent launches) must be chosen by what each kernel was
# compiled for, not by the GPU (common/launch.h). Needs a GPU newer than sm_80.

run bin/scan -n 1 -i 1
cc=$(sed -n 's/.*, cc \([0-9]*\)[.]\([0-9]*\),.*/\1\2/p' "$tmp/out" | head -n 1)
if [ "$rc" -eq 77 ]; then
    skip "a tree built for sm_80 runs right on this GPU"
elif [ "${cc:-0}" -le 80 ]; then
    skip "a tree built for sm_80 runs right on this GPU" "this GPU is sm_${cc:-?}: not newer than the build"
else
    arch_tree=$tmp/arch_tree
    mkdir -p "$arch_tree" &&
        tar -C . --exclude=./.git --exclude=./build --exclude=./bin -cf - . | tar -C "$arch_tree" -xf -
    arch_bins=(scan find_repeats radix_sort tridiag renderer)
    if ! make -C "$arch_tree" -j4 ARCH=sm_80 "${arch_bins[@]/#/bin/}" >"$tmp/out" 2>&1; then
        fail "make ARCH=sm_80 ${arch_bins[*]}"
    else
        ab=$arch_tree/bin
        expect_gpu "sm_80 build on sm_$cc: scan" 0 "$ab/scan" -i 2
        if [ "$rc" -eq 0 ] && ! grep -qF "this build's code is for sm_80" "$tmp/out"; then
            fail "sm_80 build on sm_$cc: scan says v6 takes v5's kernel, and why"; fi
        expect_gpu "sm_80 build on sm_$cc: scan --check" 0 "$ab/scan" --check -i 2
        expect_gpu "sm_80 build on sm_$cc: find_repeats" 0 "$ab/find_repeats" -i 2
        expect_gpu "sm_80 build on sm_$cc: find_repeats --check" 0 "$ab/find_repeats" --check -i 2
        expect_gpu "sm_80 build on sm_$cc: radix_sort -k all" 0 "$ab/radix_sort" -k all -n 5000001 -i 2
        expect_gpu "sm_80 build on sm_$cc: radix_sort --pairs" 0 "$ab/radix_sort" --pairs -n 5000001 -i 2
        expect_gpu "sm_80 build on sm_$cc: tridiag -k all" 0 "$ab/tridiag" -k all -n 3000 --nx 1024 -i 2 --no-peer
        expect_gpu "sm_80 build on sm_$cc: renderer -c rand10k" 0 "$ab/renderer" -c -s 512 rand10k
        expect_gpu "sm_80 build on sm_$cc: renderer -c -k all pattern" 0 "$ab/renderer" -c -k all -s 256 pattern
    fi
fi

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# Every exercise on two GPUs in one process (`--batch`, a line each run, alternating -d 0
# and -d 1), sourced by tests/run.sh's common job: nothing about a device may be kept per
# process (common/launch.h: each device has its own answers and its own copy of a
# kernel's shared-memory allowance). Needs two GPUs; skipped otherwise.
declare -A device_runs=(
    [saxpy]="-k all -n 100003 -i 2"
    [scan]="-k all -n 100003 -i 2"
    [find_repeats]="-k all -n 100003 -i 2"
    [renderer]="-c -k all -s 257 -n 3000 rand100k"
    [heat]="-k all -n 257 --steps 17 -i 1"
    [laplace3d]="-k all -n 65 -i 1"
    [reduction]="-k all -n 100003 -i 2"
    [montecarlo]="-k all -n 100003 -i 2 --gold-paths 100000"
    [tridiag]="-k all --nx 1025 -n 77 -i 2"
    [radix_sort]="-k all --pairs -n 65537 -i 1"
    [mosaic]="-k all --mode all -n 1000 -i 1"
    [pattern_match]="-k all -n 100000 -i 1"
    [matmul]="-k all -n 257 -i 2 --precision bf16"
    [fft]="-k all -n 1009 --transforms 3 -i 2"
    [stencil1d]="-k all -n 100003 -i 2"
    [transpose]="-k all -n 257 -i 2"
)
if [ "$(usable_gpus)" -ge 2 ]; then
    for ex in "${!device_runs[@]}"; do
        read -r -a args <<<"${device_runs[$ex]}"
        batch "bin/$ex"
        for d in 0 1 0 1; do
            batch_gpu "$ex --batch: -d $d" 0 "${args[@]}" -d "$d"
        done
        # fft's long lengths too: v5 and v6 passes with more than 48 KB of shared memory.
        [ "$ex" = fft ] && for d in 1 0; do batch_gpu "fft --batch: -n 65536 -d $d" 0 -k all -n 64Ki --transforms 2 -i 2 -d "$d"; done
        [ "$ex" = matmul ] && for d in 1 0; do batch_gpu "matmul --batch: fp32 -d $d" 0 -k all -n 257 -i 2 -d "$d"; done
        batch_end
    done
else
    skip "every exercise under --batch on -d 0 and -d 1" "fewer than 2 GPUs"
fi

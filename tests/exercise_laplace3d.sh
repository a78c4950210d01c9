# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# laplace3d's integration tests, sourced by tests/run.sh.
lp=bin/laplace3d

run "$lp" --help
if [ "$rc" -eq 0 ] && grep -q "v6-temporal-t" "$tmp/out" && grep -q -- "--tblock" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q -- "--sweep" "$tmp/out"; then pass "laplace3d --help"; else fail "laplace3d --help"; fi
expect_usage "laplace3d -n 0" "-n 0" "$lp" -n 0
expect_usage "laplace3d --nx 0" "--nx 0" "$lp" --nx 0
expect_usage "laplace3d --check --nz 64 (the table's own grids)" "leave out --nx, --ny and --nz" "$lp" --check --nz 64
expect_usage "laplace3d --watchdog without --gpus" "--watchdog apply with --gpus" "$lp" --watchdog 5 -n 40
expect_usage "laplace3d --ny -4" "--ny -4" "$lp" --ny -4
expect_usage "laplace3d --repeat 0" "--repeat 0" "$lp" --repeat 0
expect_usage "laplace3d --input bogus" "--input bogus" "$lp" --input bogus
expect_usage "laplace3d --block 8x8x8 -k 1 (v1 is 2D)" "v1's blocks are 2D" "$lp" --block 8x8x8 -k 1
expect_usage "laplace3d --block 64x32 (too many threads)" "at most 1024 threads" "$lp" --block 64x32 -k 1
expect_usage "laplace3d --block 0x4x4" "--block 0x4x4" "$lp" --block 0x4x4 -k 2
expect_usage "laplace3d --block junk" "--block junk" "$lp" --block junk -k 2
expect_usage "laplace3d --block with -k 3" "applies to -k v1" "$lp" --block 16x8 -k 3
expect_usage "laplace3d --tblock 3" "one of auto, 2, 4, 8" "$lp" --tblock 3
expect_usage "laplace3d --tblock 16" "--tblock 16" "$lp" --tblock 16
expect_usage "laplace3d --check -k all" "--check scores one version" "$lp" --check -k all
expect_make_line "make check_laplace3d K=yours" "bin/laplace3d --check -k yours" check_laplace3d K=yours
expect_no_device "laplace3d without a device exits 77" "$lp" -n 16

# The 512^3 grid at REPEAT 1, 3, 7, 10: part large (tests/exercise_laplace3d.large.sh).
expect_gpu "laplace3d -k all -n 200 --repeat 7" 0 "$lp" -k all -n 200 --repeat 7 -i 2
expect_gpu "laplace3d v1 --block 32x4" 0 "$lp" -k 1 --block 32x4 -n 65 -i 2
expect_gpu "laplace3d v2 --block 8x8x8" 0 "$lp" -k 2 --block 8x8x8 -n 65 -i 2
expect_gpu "laplace3d --sweep" 0 "$lp" --sweep -n 64 -i 2
expect_gpu "laplace3d reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$lp" -n 20 -i 2
expect_gpu "laplace3d -n 4096 (memory guard)" 3 "$lp" -n 4096
expect_json_lines "laplace3d --json -k all" "$lp" --json -k all -n 40 -i 2
expect_gpu "laplace3d --dump" 0 "$lp" -n 9 -i 2 --dump "$tmp/lp"
if [ "$rc" -eq 0 ] && [ -s "$tmp/lp_output.npy" ] && cmp -s "$tmp/lp_output.npy" "$tmp/lp_gold.npy"; then
    pass "laplace3d --dump output equals gold"
elif [ "$rc" -eq 0 ]; then fail "laplace3d --dump output equals gold"; fi

# --gpus N: the grid in slabs, one a GPU (laplace3d/multi_gpu.c). Options first (no GPU
# needed), then runs that need two GPUs (exit 77, counted as skipped, on one).
expect_usage "laplace3d --exchange without --gpus" "apply with --gpus" "$lp" --exchange all
expect_usage "laplace3d --gpus 2 -k 5" "do not apply" "$lp" --gpus 2 -k 5
expect_usage "laplace3d --gpus 2 --check" "do not apply" "$lp" --gpus 2 --check
expect_usage "laplace3d --gpus 8 -n 8 (a plane a GPU at least)" "NZ >= 10" "$lp" --gpus 8 -n 8
expect_usage "laplace3d --gpus 2 --repeat 101" "at most 100" "$lp" --gpus 2 --repeat 101
expect_usage "laplace3d --gpus 65" "--gpus 65" "$lp" --gpus 65
expect_usage "one process a GPU without --nccl-id-file" "--nccl-id-file FILE" env RANK=1 WORLD_SIZE=2 "$lp" --gpus 2
expect_usage "one process a GPU: --gpus is not the process count" "one of 3 processes" env RANK=0 WORLD_SIZE=3 "$lp" --gpus 2 --nccl-id-file "$tmp/id"
expect_usage "one process a GPU: --exchange m2-peer" "NCCL only" env RANK=0 WORLD_SIZE=2 "$lp" --gpus 2 --exchange m2-peer --nccl-id-file "$tmp/id"
expect_usage "a malformed RANK" "RANK=x" env RANK=x WORLD_SIZE=2 "$lp" --gpus 2
# Every exchange against one GPU (bit for bit) and the light cones: 1-plane slabs, uneven
# splits, NX not a multiple of 4, both inputs.
for shape in "3 3 4" "64 64 5" "33 17 65" "100 77 33" "129 130 131"; do
    # shellcheck disable=SC2086 # the shape is words
    set -- $shape
    for repeat in 1 3 10; do
        for input in practical random; do
            expect_gpu "laplace3d --gpus 2 --exchange all --nx $1 --ny $2 --nz $3 --repeat $repeat --input $input" 0 "$lp" --gpus 2 --exchange all --nx "$1" --ny "$2" --nz "$3" --repeat "$repeat" --input "$input" -i 1
        done
    done
done
expect_gpu "laplace3d --gpus 2 --exchange all -n 512 --input random" 0 "$lp" --gpus 2 --exchange all -n 512 --input random -i 2
expect_gpu "laplace3d --gpus 2 reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$lp" --gpus 2 -n 20 -i 1
expect_gpu "laplace3d --gpus 2 -n 4096 (memory guard)" 3 "$lp" --gpus 2 -n 4096
expect_json_lines "laplace3d --gpus 2 --json" "$lp" --gpus 2 --exchange all --json -n 40 -i 1
# One process a GPU, as mpirun, srun or torchrun start them: the same checksum as one
# process driving both; a rank that never comes ends the run (exit 3), never a hang.
if [ "$(usable_gpus)" -ge 2 ]; then
    run "$lp" --gpus 2 -n 100 --input random -i 1
    one_process=$(grep "^m3-nccl: checksum" "$tmp/out")
    rm -f "$tmp/nccl_id"
    RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 "$lp" --gpus 2 -n 100 --input random -i 1 --watchdog 60 \
        --nccl-id-file "$tmp/nccl_id" >"$tmp/rank1" 2>&1 &
    rank1=$!
    run env RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 "$lp" --gpus 2 -n 100 --input random -i 1 --watchdog 60 \
        --nccl-id-file "$tmp/nccl_id"
    wait "$rank1"; rank1_rc=$?
    if [ "$rc" -eq 0 ] && [ "$rank1_rc" -eq 0 ] && [ -n "$one_process" ] &&
        [ "$(grep "^m3-nccl: checksum" "$tmp/out")" = "$one_process" ] && ! grep -q checksum "$tmp/rank1"; then
        pass "laplace3d --gpus 2, one process a GPU: the one-process checksum"
    else
        echo "    ranks exited $rc and $rank1_rc; one process: '$one_process'" >>"$tmp/out"
        fail "laplace3d --gpus 2, one process a GPU: the one-process checksum"
    fi
    rm -f "$tmp/nccl_id"
    expect_gpu "laplace3d one process a GPU, rank 1 never starts (exit 3)" 3 env RANK=0 WORLD_SIZE=2 "$lp" --gpus 2 -n 40 -i 1 --watchdog 5 --nccl-id-file "$tmp/nccl_id"
    rm -f "$tmp/nccl_id"
    expect_gpu "laplace3d one process a GPU, rank 0 never starts (exit 3)" 3 env RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 "$lp" --gpus 2 -n 40 -i 1 --watchdog 5 --nccl-id-file "$tmp/nccl_id"
else
    skip "laplace3d --gpus 2, one process a GPU" "fewer than 2 GPUs"
fi
# Fewer GPUs than --gpus: one line saying so, exit 77 (no GPU at all: the usual line).
expect_too_few_gpus "laplace3d --gpus 2 with one GPU visible: exit 77, says so" "$lp" --gpus 2 -n 40 -i 1
# A launcher that shows each task only its own GPU: local rank 1 takes device 0 (its
# rank modulo the GPUs it sees), opens it and waits for rank 0's id (never written
# here: exit 3 after the watchdog), where it used to die asking for device 1.
rm -f "$tmp/nccl_id"
expect_gpu "laplace3d one process a GPU: local rank 1 with one GPU visible takes it" 3 env CUDA_VISIBLE_DEVICES=0 RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 "$lp" --gpus 2 -n 40 -i 1 --watchdog 2 --nccl-id-file "$tmp/nccl_id"
if [ "$rc" -eq 3 ] && ! grep -qF "rank 1: no NCCL id" "$tmp/out"; then
    fail "laplace3d one process a GPU: local rank 1 waits for the id on device 0"; fi

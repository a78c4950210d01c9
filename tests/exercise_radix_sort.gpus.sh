# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# radix_sort --gpus N (radix_sort/multi_gpu.c), sourced by tests/run.sh. Options first
# (no GPU needed), then runs that need two GPUs (exit 77, counted as skipped, on one).
rs=bin/radix_sort

expect_usage "radix_sort --method without --gpus" "apply with --gpus" "$rs" --method all
expect_usage "radix_sort --watchdog without --gpus" "--watchdog apply with --gpus" "$rs" --watchdog 5
expect_usage "radix_sort --gpus 2 -k v5" "do not apply" "$rs" --gpus 2 -k v5
expect_usage "radix_sort --gpus 2 --check" "do not apply" "$rs" --gpus 2 --check
expect_usage "radix_sort --gpus 3 -n 2 (a key a GPU at least)" "cannot give each GPU one" "$rs" --gpus 3 -n 2
expect_usage "radix_sort --gpus 65" "--gpus 65" "$rs" --gpus 65
expect_usage "radix_sort -n 2Gi on one GPU" "at most 1Gi keys on one GPU" "$rs" -n 2Gi
expect_usage "radix_sort --gpus 2 -n 9Gi (a share past the sort's 2^32 - 1)" "gives a GPU" "$rs" --gpus 2 -n 9Gi
expect_usage "radix_sort --gpus 4 --pairs -n 5Gi (32-bit values)" "at most 2^32 pairs" "$rs" --gpus 4 --pairs -n 5Gi
expect_usage "radix_sort --gpus 2 --method bogus" "--method bogus" "$rs" --gpus 2 --method bogus
expect_usage "radix_sort one process a GPU without --nccl-id-file" "--nccl-id-file FILE" env RANK=1 WORLD_SIZE=2 "$rs" --gpus 2
expect_usage "radix_sort one process a GPU: --gpus is not the process count" "one of 3 processes" env RANK=0 WORLD_SIZE=3 "$rs" --gpus 2 --nccl-id-file "$tmp/id"

# Every method against the input's multiset, the order within and between GPUs, and the
# one-GPU sort (positional hash): a key a GPU, odd splits, every input (few and zero:
# cuts inside runs of equal keys, dealt by rank), low bits only, pairs (stability).
for n in 2 3 1000 65537; do
    expect_gpu "radix_sort --gpus 2 -n $n --pairs" 0 "$rs" --gpus 2 -n "$n" --pairs -i 1
done
for input in uniform few sorted reversed zero; do
    expect_gpu "radix_sort --gpus 2 -n 1000003 --pairs --input $input" 0 "$rs" --gpus 2 -n 1000003 --pairs --input "$input" -i 1
done
expect_gpu "radix_sort --gpus 2 -n 300001 --bits 4 --pairs --input few" 0 "$rs" --gpus 2 -n 300001 --bits 4 --pairs --input few -i 1
expect_gpu "radix_sort --gpus 2 -n 4M --bits 17" 0 "$rs" --gpus 2 -n 4M --bits 17 -i 1
expect_gpu "radix_sort --gpus 2 -n 64M" 0 "$rs" --gpus 2 -n 64M -i 2
# m4's scatter through mirrors and copy engines (a share of 2^25 keys or more; the
# smaller runs above store to the peers): pairs, an odd split, runs of equal keys.
expect_gpu "radix_sort --gpus 2 -n 67108867 --pairs --input few (m4's copies)" 0 "$rs" --gpus 2 -n 67108867 --pairs --input few -i 1
expect_gpu "radix_sort --gpus 2 --method m1-gather" 0 "$rs" --gpus 2 --method m1-gather -n 77777 --pairs -i 1
# m4-scatter ran (its verdict line, not a "no row" note: the two GPUs reach each other)
# at every pass count: its last pass alone (8 bits), after one local pass (the keys in
# the workspace's buffer) and after two or three, with runs that cross between GPUs.
for bits in 8 9 16 24 32; do
    name="radix_sort --gpus 2 --method m4-scatter --bits $bits"
    run "$rs" --gpus 2 --method m4-scatter -n 1000003 --pairs --input few --bits "$bits" -i 1
    if [ "$rc" -eq 77 ]; then skip "$name"
    elif [ "$rc" -eq 0 ] && grep -q "^m4-scatter: 0 adjacent pairs out of order on a GPU, 0 between" "$tmp/out" &&
        ! grep -q "WRONG" "$tmp/out"; then pass "$name"
    else fail "$name"; fi
done
# A refining scatter of keys alone whose run starts at a place not on a 16-byte boundary
# and is long enough (245 tiles on GPU 0) for the L2 prefetch of tiles ahead: it faulted
# (misaligned address) while the prefetch rounded offsets rather than addresses.
expect_gpu "radix_sort --gpus 2 m4, a long refined run from an unaligned place" 0 "$rs" --gpus 2 --method m4-scatter -n 16000057 --input few -i 1
expect_gpu "radix_sort --gpus 2 reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$rs" --gpus 2 -n 5000 -i 1
expect_json_lines "radix_sort --gpus 2 --json" "$rs" --gpus 2 --json -n 4000 -i 1

# More than two GPUs where the machine has them: cuts and runs among 3 and 4 shares, down
# to a key a GPU (m4's runs crossing several GPUs in one tile).
if [ "$(usable_gpus)" -ge 4 ]; then
    for g in 3 4; do
        for n in "$g" 1000003; do
            expect_gpu "radix_sort --gpus $g -n $n --pairs --input few" 0 "$rs" --gpus "$g" -n "$n" --pairs --input few -i 1
        done
        expect_gpu "radix_sort --gpus $g -n 3000017 --bits 20" 0 "$rs" --gpus "$g" -n 3000017 --bits 20 -i 1
    done
else
    skip "radix_sort --gpus 3 and 4" "fewer than 4 GPUs"
fi

# One process a GPU, as mpirun, srun or torchrun start them: m2's, m3's and m4's results
# the same as one process driving both (their lines: the hashes; m4 stores through CUDA
# IPC there, and at 67,108,867 pairs copies its runs to IPC pointers in batches); a rank
# that dies ends the other (exit 3).
if [ "$(usable_gpus)" -ge 2 ]; then
    for n in 1000003 67108867; do
        name="radix_sort --gpus 2 -n $n, one process a GPU: the one-process result"
        run "$rs" --gpus 2 -n "$n" --pairs --input few -i 1
        one_process=$(grep -E "^m[234]-(sample|merge|scatter): " "$tmp/out")
        rm -f "$tmp/nccl_id"
        RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 "$rs" --gpus 2 -n "$n" --pairs --input few -i 1 --watchdog 60 \
            --nccl-id-file "$tmp/nccl_id" >"$tmp/rank1" 2>&1 &
        rank1=$!
        run env RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 "$rs" --gpus 2 -n "$n" --pairs --input few -i 1 \
            --watchdog 60 --nccl-id-file "$tmp/nccl_id"
        wait "$rank1"; rank1_rc=$?
        if [ "$rc" -eq 0 ] && [ "$rank1_rc" -eq 0 ] && [[ $one_process == *m4-scatter* ]] &&
            [ "$(grep -E "^m[234]-(sample|merge|scatter): " "$tmp/out")" = "$one_process" ] && ! grep -q "m2-sample" "$tmp/rank1"; then
            pass "$name"
        else
            echo "    ranks exited $rc and $rank1_rc; one process: '$one_process'" >>"$tmp/out"
            fail "$name"
        fi
    done
    # Rank 1 killed while both sort: rank 0 ends with exit 3 within its watchdog.
    rm -f "$tmp/nccl_id"
    RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 "$rs" --gpus 2 -n 256M --pairs -i 64 --watchdog 10 \
        --nccl-id-file "$tmp/nccl_id" >"$tmp/rank1" 2>&1 &
    rank1=$!
    start=$SECONDS
    (sleep 4; kill -9 "$rank1") &
    killer=$!
    run env RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 "$rs" --gpus 2 -n 256M --pairs -i 64 --watchdog 10 \
        --nccl-id-file "$tmp/nccl_id"
    took_s=$((SECONDS - start))
    wait "$killer"; wait "$rank1" 2>/dev/null
    if [ "$rc" -eq 3 ] && [ "$took_s" -lt 40 ]; then
        pass "radix_sort one process a GPU, rank 1 killed mid-run: exit 3 within the watchdog"
    else
        echo "    rank 0 exited $rc after $took_s s" >>"$tmp/out"
        fail "radix_sort one process a GPU, rank 1 killed mid-run: exit 3 within the watchdog"
    fi
    rm -f "$tmp/nccl_id"
    expect_gpu "radix_sort one process a GPU, rank 1 never starts (exit 3)" 3 env RANK=0 WORLD_SIZE=2 "$rs" --gpus 2 -n 4000 -i 1 --watchdog 5 --nccl-id-file "$tmp/nccl_id"
    rm -f "$tmp/nccl_id"
else
    skip "radix_sort --gpus 2, one process a GPU" "fewer than 2 GPUs"
fi
# An id file an earlier run left (an NCCL id alone, not this program's file): rank 1 says
# so at once (exit 2) instead of waiting out its watchdog. One GPU is enough.
head -c 128 /dev/zero >"$tmp/stale_id"
start=$SECONDS
expect_gpu "radix_sort rank 1 and an earlier run's id file: exit 2 at once" 2 env RANK=1 WORLD_SIZE=2 "$rs" --gpus 2 -n 4000 -i 1 --watchdog 60 --nccl-id-file "$tmp/stale_id"
if [ "$rc" -eq 2 ] && { ! grep -q "is an earlier run's" "$tmp/out" || [ $((SECONDS - start)) -ge 30 ]; }; then
    fail "radix_sort rank 1 names the stale id file, within seconds"; fi
rm -f "$tmp/stale_id"
# Fewer GPUs than --gpus: one line saying so, exit 77 (no GPU at all: the usual line).
expect_too_few_gpus "radix_sort --gpus 2 with one GPU visible: exit 77, says so" "$rs" --gpus 2 -n 4000 -i 1

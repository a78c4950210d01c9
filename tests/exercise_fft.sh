# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# fft's integration tests, sourced by tests/run.sh (tests/exercise_fft.large.sh: 2^20,
# 2^20 + 1 and 2^27; .slot.sh: the learner's slot).
fft=bin/fft

run "$fft" --help
if [ "$rc" -eq 0 ] && grep -q "v5-passes" "$tmp/out" && grep -q "^  yours " "$tmp/out" &&
    grep -q -- "--transforms B" "$tmp/out" && grep -q -- "--conv S,F" "$tmp/out" && grep -q -- "--in-place" "$tmp/out"; then
    pass "fft --help"; else fail "fft --help"; fi

expect_usage "fft -n 0" "-n 0" "$fft" -n 0
expect_usage "fft -n 2^27 + 1" "expected a size in 1..134217728" "$fft" -n 134217729
expect_usage "fft --transforms 0" "--transforms 0" "$fft" --transforms 0 -n 64
expect_usage "fft: a batch past 2^31 points" "more than the 2^31 a call takes" "$fft" -n 1Mi --transforms 4096
expect_usage "fft --conv 11,50 (filter longer than the signal)" "a filter of 50 taps is longer than the 11-sample signal" "$fft" --conv 11,50
expect_usage "fft --conv 50" "expected SIGNAL,FILTER" "$fft" --conv 50
expect_usage "fft --conv with --check" "--conv runs one version" "$fft" --conv 50,11 --check
expect_usage "fft --input noise" "--input noise: expected one of random, impulse" "$fft" --input noise
expect_usage "fft --check -k all" "--check scores one version" "$fft" --check -k all
expect_make_line "make check_fft K=yours" "bin/fft --check -k yours" check_fft K=yours
expect_no_device "fft without a device exits 77" "$fft" -n 64
# One flag, one meaning: --batch is always a file of runs (the count is --transforms).
expect_usage "fft --batch 7 is a batch file" "--batch 7: cannot read it" "$fft" --batch 7
expect_usage "fft --batch -1 is a batch file" "--batch -1: cannot read it" "$fft" --batch -1
expect_no_device "fft --transforms 7" "$fft" --transforms 7
# Flags that would have no effect, and limits a version has on any GPU, before the device.
expect_usage "fft --conv with -n" "leave out -n" "$fft" --conv 50,11 -n 64
expect_usage "fft --conv with --transforms" "leave out --transforms" "$fft" --conv 50,11 --transforms 4
expect_usage "fft --conv with --inverse" "leave out --inverse" "$fft" --conv 50,11 --inverse
expect_usage "fft --check --transforms 4" "leave out --transforms" "$fft" --check --transforms 4
expect_usage "fft --check -n 64" "--check times its table's own sizes" "$fft" --check -n 64
expect_usage "fft -k v1 -n 5000 (n^2 work: 4096 at most)" "above 4096" "$fft" -k v1 -n 5000
expect_usage "fft -k yours -n 8192 (yours.cu's limit)" "above fft_yours_max_n" "$fft" -k yours -n 8192
expect_usage "fft -k v1 --in-place" "out of place only" "$fft" -k v1 -n 64 --in-place
expect_usage "fft --conv 1M,4Ki -k v1 (its transforms past v1's limit)" "above 4096" "$fft" --conv 1M,4Ki -k v1
expect_usage "fft --conv 1x,5 (sizes as -n takes them)" "two lengths in 1..2^27" "$fft" --conv 1x,5
expect_usage "fft --conv 1Gi,5 (past 2^27)" "two lengths in 1..2^27" "$fft" --conv 1Gi,5
# --sweep: its list of lengths, and what it leaves out.
expect_usage "fft --sweep 0..5" "not a length or a range A..B within 1..2^27" "$fft" --sweep 0..5
expect_usage "fft --sweep 9..3" "not a length or a range" "$fft" --sweep 9..3
expect_usage "fft --sweep 2..3,,5" "comma-separated" "$fft" --sweep 2..3,,5
expect_usage "fft --sweep with -n" "--sweep LIST gives the lengths" "$fft" --sweep 2..8 -n 16
expect_usage "fft --sweep -k all" "--sweep LIST gives the lengths" "$fft" --sweep 2..8 -k all

# Every version and cuFFT against the reference (the CPU transform in double), Parseval
# and the round trip, at edge lengths, batches 1 and 7; exit 0 only if every result
# verified (versions that do not do a length say so and are left out). Bluestein's
# lengths 11, 31, 61, 97, 251, 509, 1009, 2003, 4095 run v6's one-kernel Bluestein on
# every m from 32 to 8192.
batch "$fft"
for n in 1 2 3 5 7 11 16 31 32 56 61 64 97 128 251 256 509 512 1000 1009 2003 2048 4095 4096 \
    8192 16384; do
    for b in 1 7; do
        batch_gpu "fft -k all -n $n --transforms $b" 0 -k all -n "$n" --transforms "$b" -i 2
    done
done
for n in 8 56 1000 1009 4095; do
    batch_gpu "fft -k all -n $n --inverse" 0 -k all -n "$n" --transforms 5 --inverse -i 2
    batch_gpu "fft -k all -n $n --in-place" 0 -k all -n "$n" --transforms 5 --in-place -i 2
    batch_gpu "fft -k all -n $n --input impulse" 0 -k all -n "$n" --transforms 3 --input impulse -i 2
done
batch_gpu "fft -k all -n 2^15 --in-place --inverse (3 passes in place)" 0 -k all -n 32Ki --transforms 3 --in-place --inverse -i 2
batch_gpu "fft -k all -n 65536 (2 passes)" 0 -k all -n 64Ki --transforms 2 -i 2
batch_gpu "fft -k all -n 10007 (prime)" 0 -k all -n 10007 --transforms 2 -i 2
# v7's staged kernel at lengths no other test names: one stage from registers (3), one
# stage copied in and out (6, 11, 12, 16), two stages with a short run copied out (22 =
# 11 2), whole transforms of several radices (60, 625 = 5^4, 1001 = 7 11 13, 3000, 12000,
# 12005 = 7^4 5 on 1024 threads), columns (100000 = 250 x 400, 5 x 10^6 in three passes),
# two buffers without pads where the padded ones do not fit (13720 = 2^3 5 7^3, 13718 = 2
# 19^3, 13760 = 43 320, 14450 = 2 5^2 17^2), whole transforms in one buffer, their stages in place, past two
# buffers' room (15625 = 5^6, 27000, 27216 = 2^4 3^5 7 the longest that fits; 27440 takes
# two passes), Bluestein in one staged kernel (53 on 105, 2120 = 2^3 5 53, 629 = 17 37: a
# large radix beside a huge prime, 2399 on 4800, 4097 on 8232, 6007 on 12096; in place: 9973
# on 20000, 13001 on 26244) and in three staged passes
# with the products in them, the middle one its turn (65537 on 131220, 14375 on 28800);
# prime stages of 17 .. 31 (17, 323 = 17 19, 961 = 31^2, 1740 = 29 60, 11500 = 23 500), in
# place (17408 = 17 2^10, 15283 = 17 29 31, 27132 = 2^2
# 3 7 17 19), in passes over columns (28900 = 170 x 170, 34816 = 17 2^11), and past what
# two-stage passes split (29791 = 31^3: Bluestein); large composite stages (400 = 20^2,
# 3780 = 18 15 14, 8000 = 20^3; 27000 = 30^3 in place, 100000's 400-point pass); prime
# stages of 37 .. 47, the HUGE kernels (37 and 47 alone, 2064 = 43 8 6, 1517 = 41 37, 2209
# = 47^2; in place 24064 = 47 512; in passes over columns 37888 = 37
# 2^10); inverse and in place.
for n in 400 3780 8000 3 6 11 12 16 17 22 60 323 625 961 1001 1740 3000 11500 12000 12005 13720 15625 27000 27216 27440 100000 53 2120 629 2399 4097 6007 9973 13001 65537 14375 13718 14450 17408 15283 27132 28900 34816 29791 37 47 2064 1517 2209 13760 24064 37888; do
    batch_gpu "fft -k v7 -n $n" 0 -k v7 -n "$n" --transforms 3 -i 2
    batch_gpu "fft -k v7 -n $n --inverse --in-place" 0 -k v7 -n "$n" --transforms 2 --inverse --in-place -i 2
done
batch_gpu "fft -k v7 -n 5000000 (three staged passes)" 0 -k v7 -n 5000000 --transforms 1 -i 2
batch_gpu "fft -k v7 -n 2^21 + 1 (Bluestein on three passes, the products in six)" 0 -k v7 -n 2097153 --transforms 1 -i 2
batch_gpu "fft the default run" 0 -i 2
batch_end
# The in-place kernels are the ones that run past two buffers' room, 14,528 points (the
# plan says so, in the JSON: the table's plan column may cut it short); below it, two
# buffers (without pads where the padded ones do not fit).
for n in 15625 13001 17408 24064; do
    expect_gpu "fft -k v7 -n $n runs in place" 0 "$fft" -k v7 -n "$n" --transforms 2 -i 1 --json
    if [ "$rc" -eq 0 ] && ! grep -q '"plan": *"[^"]*, in place"' "$tmp/out"; then fail "fft -k v7 -n $n: its plan says in place"; fi
done
for n in 13720 13718 13760 14520; do
    expect_gpu "fft -k v7 -n $n runs in two buffers" 0 "$fft" -k v7 -n "$n" --transforms 2 -i 1 --json
    if [ "$rc" -eq 0 ] && grep -q '"plan": *"[^"]*, in place"' "$tmp/out"; then fail "fft -k v7 -n $n: its plan says two buffers"; fi
done
# A power of two there takes v6's two passes, not the in-place kernel (which is slower).
expect_gpu "fft -k v7 -n 16384 runs v6's two passes" 0 "$fft" -k v7 -n 16384 --transforms 2 -i 1 --json
if [ "$rc" -eq 0 ] && ! grep -q '"plan": *"2 passes (128 x 128)' "$tmp/out"; then fail "fft -k v7 -n 16384: its plan says 2 passes (128 x 128)"; fi

# The practical's program: its line, and the long one against the direct convolution.
expect_gpu "fft --conv 50,11 (the practical)" 0 "$fft" --conv 50,11 -i 2
if [ "$rc" -eq 0 ] && { [ "$(grep -c "PASSED" "$tmp/out")" -ne 3 ] || ! grep -q "padded to 56 points" "$tmp/out"; }; then
    fail "fft --conv 50,11 prints three PASSED rows and the 56 points"; fi
expect_gpu "fft --conv 1M,4097 (the suite's size forms)" 0 "$fft" --conv 1M,4097 -i 2
# The sweep: a row a length, each verified (its first transform) against the CPU's.
expect_gpu "fft --sweep 2..40,1000,1009,4095,65537" 0 "$fft" --sweep 2..40,1000,1009,4095,65537 -i 2
if [ "$rc" -eq 0 ] && [ "$(grep -cE '^v7-any +[0-9]+ ' "$tmp/out")" -ne 43 ]; then
    fail "fft --sweep: a row for each of the 43 lengths"; fi
expect_json_lines "fft --sweep --json" "$fft" --sweep 2..9,4096 -i 2 --json
expect_gpu "fft --conv 50,11 -k v2" 0 "$fft" --conv 50,11 -k v2 -i 2 --no-peer

# A wrong result is caught: against the reference, and in the convolution.
expect_gpu "fft reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$fft" -n 1000 --transforms 4 -i 1
if [ "$rc" -eq 1 ] && ! grep -q "first bad index 2000 of 4000 (transform 2, point 0)" "$tmp/out"; then fail "fft wrong-result message"; fi
expect_gpu "fft --conv reports a wrong result (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$fft" --conv 50,11 -i 1
# One output of 10^6 off by 1: the relative L2 error moves by ~1e-6, under the practical's
# 1e-5; each output's own allowance (0.32 here) catches it.
expect_gpu "fft --conv 1M,4097: one wrong output is caught (exit 1)" 1 env CUDALAB_INJECT_FAULT=1 "$fft" --conv 1M,4097 -i 1
if [ "$rc" -eq 1 ] && ! grep -q "allowed a point" "$tmp/out"; then fail "fft --conv names the output past its allowance"; fi
expect_gpu "fft -d 99 (no such device)" 2 "$fft" -d 99 -n 10
expect_json_lines "fft --json -k all" "$fft" --json -k all -n 300 --transforms 4 -i 2
expect_gpu "fft --dump" 0 "$fft" -n 56 --transforms 3 -i 2 --dump "$tmp/f"
if [ "$rc" -eq 0 ]; then
    for role in input output gold; do
        if head -c 6 "$tmp/f_$role.npy" | grep -q NUMPY; then pass "fft --dump writes $role.npy"
        else fail "fft --dump writes $role.npy"; fi
    done
fi

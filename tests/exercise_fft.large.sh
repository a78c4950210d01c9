# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# fft's integration tests, part large: long transforms against the CPU transform in
# double, batches 1 and 7: 10^6 (v6: 1000 x 1000), 2^20 (two passes), 2^22 and 2^24
# (v6: 2048^2 and 4096^2), 2^20 + 1 = 17 x 61681 (Bluestein), 2^27 (three passes; 7 of
# them: 0.94 G points, 7.5 GB in and 7.5 GB out).
batch bin/fft
for n in 1e6 1Mi 4Mi 16Mi 1048577 128Mi; do
    for b in 1 7; do
        batch_gpu "fft -k all -n $n --transforms $b" 0 -k all -n "$n" --transforms "$b" -i 1
    done
done
# v6's Bluestein with its products in the passes (2^20 + 1 on 1080 x 1944): the inverse in
# place (its conjugates at both ends). (No impulse at this length: its round trip puts
# all of ||x|| in coherent sums, past the round trip's bound for cuFFT as for v6; README.)
batch_gpu "fft -k v6 -n 2^20 + 1 --inverse --in-place" 0 -k v6 -n 1048577 --transforms 3 --inverse --in-place -i 1
batch_end

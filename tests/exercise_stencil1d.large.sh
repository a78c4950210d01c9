# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# stencil1d past 2^31 threads, sourced by tests/run.sh: every index is 64-bit. v1 at the
# largest grid CUDA takes (2^31 - 1 blocks of one thread), and every version past 2^31
# outputs (16 GB of device memory, 35 GB of host memory).
stencil=bin/stencil1d
expect_gpu "stencil1d -k v1 --block 1 -n 2^31 - 1 (the largest grid)" 0 "$stencil" -k v1 --block 1 -n 2147483647 -i 1 --no-peer
expect_gpu "stencil1d -k all -n 2^31 + 33" 0 "$stencil" -k all -n 2147483681 -i 1 --radius 5

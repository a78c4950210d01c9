# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# matmul at the edges of its sizes, sourced by tests/run.sh: a side of 2^31 - 1 (the most
# the command line takes: tile counts computed without overflow), and tf32 with k past
# 65535 x 32 (v9's transpose of B loops over grid.y's 65535 rows of tiles). 17 GB of
# device memory, 34 GB of host memory.
matmul=bin/matmul
expect_gpu "matmul -k all --m 2^31 - 1 -n 1 --k 1" 0 "$matmul" -k all --m 2147483647 -n 1 --k 1 -i 1
expect_gpu "matmul -k all --precision tf32 --m 64 -n 64 --k 2200001" 0 "$matmul" -k all --precision tf32 --m 64 -n 64 --k 2200001 -i 1

# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# matmul's integration tests, part shapes: the large and lopsided shapes, checked
# by Freivalds' check (the CPU gold would take minutes), every version of each precision.
matmul=bin/matmul
batch "$matmul"
for p in fp32 tf32 bf16 fp16; do
    batch_gpu "matmul -k all -n 4097 --precision $p" 0 -k all -n 4097 -i 1 --precision "$p"
    batch_gpu "matmul -k all -n 4095 --beta 1 --precision $p" 0 -k all -n 4095 --beta 1 -i 1 --precision "$p"
    batch_gpu "matmul -k all --m 16384 -n 64 --k 4096 --precision $p" 0 -k all --m 16384 -n 64 --k 4096 -i 1 --precision "$p"
done
# The thin path (thin.cu), v6's (fp32: m <= 32: B streamed a group of 16 rows at a time, k
# split into pieces), vectorized and not, with alpha and beta.
batch_gpu "matmul -k v6 --m 5 -n 3001 --k 20000 --beta 1" 0 -k v6 --m 5 -n 3001 --k 20000 --beta 1 -i 1
batch_gpu "matmul -k v6 --m 32 -n 4096 --k 4096" 0 -k v6 --m 32 -n 4096 --k 4096 -i 1
batch_gpu "matmul -k v6 --m 17 -n 1030 --k 1333 --alpha -2" 0 -k v6 --m 17 -n 1030 --k 1333 --alpha -2 -i 1
batch_gpu "matmul -k v6 --m 30 -n 777 --k 1500 --beta 1 (two groups of rows)" 0 -k v6 --m 30 -n 777 --k 1500 --beta 1 -i 1
# ... and for columns (n <= 16, m past 32 or past n): A streamed once.
batch_gpu "matmul -k v6 --m 3001 -n 5 --k 20000 --beta 1" 0 -k v6 --m 3001 -n 5 --k 20000 --beta 1 -i 1
batch_gpu "matmul -k v6 --m 4096 -n 16 --k 4096" 0 -k v6 --m 4096 -n 16 --k 4096 -i 1
batch_gpu "matmul -k v6 --m 1030 -n 15 --k 1333 --alpha -2" 0 -k v6 --m 1030 -n 15 --k 1333 --alpha -2 -i 1
batch_gpu "matmul -k v6 --m 777 -n 30 --k 1501 --beta 1 (past the thin rule: 256 x 64 tiles)" 0 -k v6 --m 777 -n 30 --k 1501 --beta 1 -i 1
batch_gpu "matmul -k v6 --m 30 -n 12 --k 3000 (both thin: columns)" 0 -k v6 --m 30 -n 12 --k 3000 -i 1
# v9's (m or n <= 16 where its rule says so): every element type read as floats, tf32
# rounded.
batch_gpu "matmul -k v9 --m 7 -n 1030 --k 333 --beta 1 --precision bf16" 0 -k v9 --m 7 -n 1030 --k 333 --beta 1 --precision bf16 -i 1
batch_gpu "matmul -k v9 --m 301 -n 9 --k 777 --alpha -2 --precision fp16 (thin, 16 columns)" 0 -k v9 --m 301 -n 9 --k 777 --alpha -2 --precision fp16 -i 1
batch_gpu "matmul -k v9 --m 1001 -n 9 --k 777 --alpha -2 --precision fp16 (tiles)" 0 -k v9 --m 1001 -n 9 --k 777 --alpha -2 --precision fp16 -i 1
batch_gpu "matmul -k v9 --m 16 -n 16 --k 5000 --precision tf32" 0 -k v9 --m 16 -n 16 --k 5000 --precision tf32 -i 1
# tf32's columns on the tensor cores at a size the tiles took before (A of 2^22.6 elements),
# rows on 16 bytes and not.
batch_gpu "matmul -k v9 --m 4099 -n 13 --k 1600 --beta 1 --precision tf32" 0 -k v9 --m 4099 -n 13 --k 1600 --beta 1 --precision tf32 -i 1
batch_gpu "matmul -k v9 --m 4099 -n 6 --k 1601 --alpha -2 --precision tf32" 0 -k v9 --m 4099 -n 6 --k 1601 --alpha -2 --precision tf32 -i 1
# The tensor-core columns kernel's form for a small A (warps along k, 16 rows a block):
# beta, and k in pieces across blocks (split-K's fixup by warp 0).
batch_gpu "matmul -k v9 --m 300 -n 14 --k 300 --beta 1 --precision bf16 (warps along k)" 0 -k v9 --m 300 -n 14 --k 300 --beta 1 --precision bf16 -i 1
batch_gpu "matmul -k v9 --m 33 -n 5 --k 20001 --precision fp16 (warps along k, k in pieces)" 0 -k v9 --m 33 -n 5 --k 20001 --precision fp16 -i 1
# ... past 4 MiB of A at up to 8 columns, where 128-row blocks would leave SMs idle: 64
# pieces of k, rows not on 16 bytes (fp16), and tf32.
batch_gpu "matmul -k v9 --m 96 -n 8 --k 77777 --beta -1 --precision fp16 (warps along k, 15 MB)" 0 -k v9 --m 96 -n 8 --k 77777 --beta -1 --precision fp16 -i 1
batch_gpu "matmul -k v9 --m 700 -n 6 --k 2000 --precision tf32 (warps along k, 5.6 MB)" 0 -k v9 --m 700 -n 6 --k 2000 --precision tf32 -i 1
# v9's product launched behind its copies into padded rows (a dependent launch: fewer
# tiles than SMs), repeated back to back with C read each time.
batch_gpu "matmul -k v9 --m 500 -n 500 --k 500 --beta 1 --precision fp16 (dependent launch, 30 repeats)" 0 -k v9 --m 500 -n 500 --k 500 --beta 1 --precision fp16 -i 30
batch_gpu "matmul -k v9 --m 301 -n 299 --k 303 --alpha -1 --precision tf32 (dependent launch, 30 repeats)" 0 -k v9 --m 301 -n 299 --k 303 --alpha -1 --precision tf32 -i 30
# tf32's rows where B's rows are not whole 16-byte chunks (thin), and where they are (v9's
# tiles of C^T, m the tile's 64 columns; odd m, beta).
batch_gpu "matmul -k v9 --m 5 -n 1031 --k 2000 --precision tf32 (rows thin)" 0 -k v9 --m 5 -n 1031 --k 2000 --precision tf32 -i 1
batch_gpu "matmul -k v9 --m 7 -n 4096 --k 3333 --beta 1 --precision tf32 (tiles)" 0 -k v9 --m 7 -n 4096 --k 3333 --beta 1 --precision tf32 -i 1
batch_gpu "matmul -k v9 --m 3000 -n 3 --k 100 --beta 1 --precision tf32" 0 -k v9 --m 3000 -n 3 --k 100 --beta 1 --precision tf32 -i 1
batch_gpu "matmul -k v9 --m 5566 -n 1 --k 1166 --precision bf16" 0 -k v9 --m 5566 -n 1 --k 1166 --precision bf16 -i 1
batch_gpu "matmul -k v9 --m 12 -n 8192 --k 8192 --precision fp16" 0 -k v9 --m 12 -n 8192 --k 8192 --precision fp16 -i 1
# v9's copies onto rows of 128 bytes where rows sit on 16 bytes but not 32 (wgmma.cu,
# v9_plan): both operands (bf16), the wide one only (fp16's B; tf32's A, odd sides).
batch_gpu "matmul -k v9 -n 3000 --beta 1 --precision bf16 (A and B realigned)" 0 -k v9 -n 3000 --beta 1 --precision bf16 -i 1
batch_gpu "matmul -k v9 --m 1800 -n 1800 --k 1800 --alpha -2 --precision fp16 (B realigned)" 0 -k v9 --m 1800 -n 1800 --k 1800 --alpha -2 --precision fp16 -i 1
batch_gpu "matmul -k v9 --m 1601 -n 2004 --k 1604 --beta 1 --precision tf32 (A realigned)" 0 -k v9 --m 1601 -n 2004 --k 1604 --beta 1 --precision tf32 -i 1
# v6's smaller tiles where the planner takes them: 128 x 128 for 128 rows, 256 x 64 for 64
# columns.
batch_gpu "matmul -k v6 --m 128 -n 8192 --k 8192 --beta 1 (128 x 128 tiles)" 0 -k v6 --m 128 -n 8192 --k 8192 --beta 1 -i 1
batch_gpu "matmul -k v6 --m 8191 -n 64 --k 8193 (256 x 64 tiles)" 0 -k v6 --m 8191 -n 64 --k 8193 -i 1
# Long k and one tile: 64 pieces, the fixup's two levels (8 groups of 8).
batch_gpu "matmul -k v6 --m 100 -n 100 --k 60000 --beta 1" 0 -k v6 --m 100 -n 100 --k 60000 --beta 1 -i 1
for p in tf32 bf16; do
    batch_gpu "matmul -k v9 --m 64 -n 64 --k 100000 --precision $p" 0 -k v9 --m 64 -n 64 --k 100000 --precision "$p" -i 1
done
# The LLM projection (0.8 TFLOP a run): the tiled versions only.
for k in v5 v6; do
    batch_gpu "matmul -k $k --m 8192 -n 12288 --k 4096" 0 -k "$k" --m 8192 -n 12288 --k 4096 -i 1
done
for p in tf32 bf16 fp16; do
    batch_gpu "matmul -k all --m 8192 -n 12288 --k 4096 --precision $p" 0 -k all --m 8192 -n 12288 --k 4096 -i 1 --precision "$p"
done
batch_end

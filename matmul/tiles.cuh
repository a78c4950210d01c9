// matmul's pieces that both kernel files (matmul.cu, wgmma.cu) use: the tile a block
// computes, how a result is written with alpha and beta, and the tensor-core launchers'
// choice of kernel by precision.
#ifndef MATMUL_TILES_CUH
#define MATMUL_TILES_CUH

#include <stddef.h>

#include "check.h"
#include "matmul.h"

// Tiles of b that cover a >= 0 (no overflow for a near INT_MAX, which the sides may be).
inline __host__ __device__ int ceil_div(int a, int b) { return a / b + (a % b != 0); }

// One element of C: alpha * sum + beta * C (C is not read when beta is 0, so a C never
// written before, even NaN, gives alpha * sum).
__device__ __forceinline__ void store_result(float *c, size_t at, float sum, float alpha,
                                             float beta)
{
    c[at] = beta == 0.0f ? alpha * sum : alpha * sum + beta * c[at];
}

// The tile (row, column of tiles) block blockIdx.x computes, tiles numbered along rows.
struct tile_coord {
    int row, col;
};
__device__ __forceinline__ tile_coord row_major_tile(int tiles_n)
{
    return {(int)(blockIdx.x / tiles_n), (int)(blockIdx.x % tiles_n)};
}

// From v6 on: tile `id` (the block's number; in v9 the tile a block takes next) counted
// in groups of GROUP_ROWS tile rows, down each group's columns, so blocks running at
// once share rows of A and columns of B in L2 (a wave of 264 blocks covers an 8 x 33
// patch of tiles, not 1 x 264 rows of B).
enum { GROUP_ROWS = 8 };
__device__ __forceinline__ tile_coord grouped_tile(int id, int tiles_m, int tiles_n)
{
    const int per_group = GROUP_ROWS * tiles_n;
    const int first_row = id / per_group * GROUP_ROWS;
    const int rows = min(tiles_m - first_row, (int)GROUP_ROWS);
    const int in_group = id % per_group;
    return {first_row + in_group % rows, in_group / rows};
}

// The tensor-core launchers pick the kernel compiled for the precision.
#define TENSOR_LAUNCHER(name, as)                                                                  \
    static void name(const matmul_args *p, cudaStream_t s)                                         \
    {                                                                                              \
        switch (p->precision) {                                                                    \
        case MATMUL_TF32:                                                                          \
            as<MATMUL_TF32>(p, s);                                                                 \
            break;                                                                                 \
        case MATMUL_BF16:                                                                          \
            as<MATMUL_BF16>(p, s);                                                                 \
            break;                                                                                 \
        case MATMUL_FP16:                                                                          \
            as<MATMUL_FP16>(p, s);                                                                 \
            break;                                                                                 \
        default:                                                                                   \
            cl_die(CL_EXIT_USAGE, #name ": no fp32 kernel (it runs tf32, bf16, fp16)");            \
        }                                                                                          \
    }

#endif

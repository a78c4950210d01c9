// matmul: C = alpha*A*B + beta*C, row-major (A is m x k, B k x n, C m x n), the Oxford
// course's practical 5 (simpleCUBLAS: a host simple_sgemm beside cublasSgemm) made a
// ladder from a thread an element to the tensor cores.
//
// Versions (fp32 on the CUDA cores):
//   v1-naive        a thread an element, consecutive threads on consecutive rows: the
//                   course's i, j, k loop on the GPU (A's reads and C's writes strided)
//   v2-coalesced    consecutive threads on consecutive columns: a warp reads one row of
//                   A (a broadcast) and 32 neighbours of B, writes 128 contiguous bytes
//   v3-shared       32 x 32 tiles of A and B staged in shared memory, each element read
//                   from DRAM once a tile instead of once a product
//   v4-column       64 x 64 tiles, each thread a column of 8 results (1D register
//                   blocking): one shared load of B serves 8 multiply-adds
//   v5-block8x8     128 x 128 tiles, each thread an 8 x 8 block of results, float4 loads,
//                   A's tile stored transposed so a thread reads its 8 A values as 2 float4
//   v6-warptile     each warp a 64 x 64 piece of a 256 x 128 tile (warp tiling), 16 x 8
//                   results a thread, double-buffered cp.async copies: the next k-slab
//                   loads while this one is multiplied; where C has few tiles, smaller
//                   tiles (128 x 128, 64 x 128, 256 x 64) and split-K, whichever the
//                   planner finds soonest; a C of few rows or columns takes the thin path
//                   (thin.cu), streaming the long operand once
// Tensor cores (tf32, bf16, fp16 in; fp32 accumulation and C):
//   v7-wmma         the WMMA API (nvcuda::wmma): 16 x 16 fragments, 8 warps on a 128 x 128
//                   tile, synchronous loads into padded shared memory
//   v8-mma          mma.sync m16n8k16 (tf32: m16n8k8) fed by ldmatrix from swizzled shared
//                   memory, a 4-stage cp.async pipeline
//   v9-wgmma        Hopper (sm_90a, in wgmma.cu): TMA tile copies, wgmma 64 x 256 x 16
//                   from shared memory, a producer and two consumer warpgroups, persistent;
//                   tiles of 128 or 64 rows by 256, 128 or 64 columns, planned as v6's; a
//                   C of few rows or columns takes the thin path (thin.cu)
//
// Napkin math (H100 SXM, 4096^3, 137 GFLOP): fp32 at its 67 TFLOPS peak takes 2.05 ms;
// bf16/fp16 at 989, 0.14 ms. A, B and C are 201 MB in fp32 (3.3 TB/s: 0.06 ms), so a
// kernel that reuses each loaded element enough is bound by arithmetic: an element
// loaded into a BM x BN tile serves BN (or BM) multiply-adds, and a 128 x 128 tile
// needs k * 256 * 4 B of loads per 128 * 128 * k FMA: 16 FMA per byte from L2/DRAM.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include "bulk_copy.cuh"
#include "check.h"
#include "check_libs.h"
#include "device.h"
#include "launch.h"
#include "matmul.h"
#include "tiles.cuh"

#include <cublas_v2.h>

// --- pieces every version uses ------------------------------------------------------

// The tensor-core kernels and cp.async need compute capability 8.0 (CL_SM80,
// bulk_copy.cuh); a fat build also compiles this file for 7.5, where those kernels are
// stubs the host never launches (main.c refuses tf32/bf16/fp16 below 8.0) and v6 copies
// without cp.async.

// --- v1: a thread an element, the course's loop ------------------------------------

enum { NAIVE_TILE = 32 }; // v1-v3: 32 x 32 threads a block, an element each

// Element (i, j) of C straight from A and B in global memory: v1's and v2's whole work.
__device__ __forceinline__ void element_from_global(const matmul_args &p, int i, int j)
{
    if (i >= p.m || j >= p.n)
        return;
    const float *a = (const float *)p.a, *b = (const float *)p.b;
    float sum = 0.0f;
    for (int l = 0; l < p.k; l++)
        sum += a[(size_t)i * p.k + l] * b[(size_t)l * p.n + j];
    store_result(p.c, (size_t)i * p.n + j, sum, p.alpha, p.beta);
}

// v1: the course's simple_sgemm loop body with i and j from the thread's indices.
// Consecutive threads (threadIdx.x) take consecutive rows i, so a warp's 32 loads of A
// are k floats apart (32 transactions for 128 useful bytes) and so are its stores of C.
// Napkin math: 2k loads a result, no reuse but what L1/L2 catch; ~1 TFLOPS at best.
__global__ void matmul_v1_kernel(matmul_args p)
{
    const tile_coord t = row_major_tile(ceil_div(p.n, NAIVE_TILE));
    element_from_global(p, t.row * NAIVE_TILE + threadIdx.x, t.col * NAIVE_TILE + threadIdx.y);
}

// v2: the same loop with consecutive threads on consecutive columns j. A warp now reads
// one element of A (a broadcast), 32 neighbouring floats of B (one 128-byte line) and
// writes 128 contiguous bytes of C. Why faster than v1: every DRAM/L2 transaction
// carries 32 useful floats instead of one.
__global__ void matmul_v2_kernel(matmul_args p)
{
    const tile_coord t = row_major_tile(ceil_div(p.n, NAIVE_TILE));
    element_from_global(p, t.row * NAIVE_TILE + threadIdx.y, t.col * NAIVE_TILE + threadIdx.x);
}

// v3: shared-memory tiles (CUDA by Example's and every course's next step). The block
// loads a 32 x 32 tile of A and of B (one element a thread each), then each thread
// does 32 multiply-adds from shared memory. Why faster than v2: each element of A and B
// comes from L2/DRAM once a tile, i.e. 32 times less often; shared memory serves the rest.
// Napkin math: 2 shared loads an FMA, so shared-memory bandwidth now bounds it.
__global__ void matmul_v3_kernel(matmul_args p)
{
    __shared__ float a_tile[NAIVE_TILE][NAIVE_TILE], b_tile[NAIVE_TILE][NAIVE_TILE];
    const tile_coord t = row_major_tile(ceil_div(p.n, NAIVE_TILE));
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = t.row * NAIVE_TILE + ty, j = t.col * NAIVE_TILE + tx;
    const float *a = (const float *)p.a, *b = (const float *)p.b;
    float sum = 0.0f;
    for (int l0 = 0; l0 < p.k; l0 += NAIVE_TILE) {
        a_tile[ty][tx] = i < p.m && l0 + tx < p.k ? a[(size_t)i * p.k + l0 + tx] : 0.0f;
        b_tile[ty][tx] = l0 + ty < p.k && j < p.n ? b[(size_t)(l0 + ty) * p.n + j] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int l = 0; l < NAIVE_TILE; l++)
            sum += a_tile[ty][l] * b_tile[l][tx]; // a_tile: one address a warp (broadcast)
        __syncthreads();
    }
    if (i < p.m && j < p.n)
        store_result(p.c, (size_t)i * p.n + j, sum, p.alpha, p.beta);
}

// --- v4: a column of results a thread ----------------------------------------------

enum { V4_TILE = 64, V4_SLAB = 8, V4_ROWS = 8, V4_THREADS = V4_TILE * V4_TILE / V4_ROWS };

// v4: 1D register blocking. A 64 x 64 tile of C, 512 threads, each thread 8 results of
// one column (rows r*8..r*8+7). Per k step a thread loads one B value from shared
// memory and uses it for 8 multiply-adds with 8 A values (one address a warp:
// broadcasts). Why faster than v3: 9 shared loads per 8 FMA instead of 16, and a 64-wide
// tile halves the DRAM/L2 traffic per FMA again.
__global__ void __launch_bounds__(V4_THREADS) matmul_v4_kernel(matmul_args p)
{
    __shared__ float a_tile[V4_TILE][V4_SLAB], b_tile[V4_SLAB][V4_TILE];
    const tile_coord t = row_major_tile(ceil_div(p.n, V4_TILE));
    const int tid = threadIdx.x;
    const int col = tid % V4_TILE, row_group = tid / V4_TILE;
    const int row0 = t.row * V4_TILE, col0 = t.col * V4_TILE;
    const float *a = (const float *)p.a, *b = (const float *)p.b;
    float sum[V4_ROWS] = {};
    for (int l0 = 0; l0 < p.k; l0 += V4_SLAB) {
        // One element of each tile a thread: A's 64 x 8, B's 8 x 64.
        const int ar = row0 + tid / V4_SLAB, ac = l0 + tid % V4_SLAB;
        a_tile[tid / V4_SLAB][tid % V4_SLAB] =
            ar < p.m && ac < p.k ? a[(size_t)ar * p.k + ac] : 0.0f;
        const int br = l0 + tid / V4_TILE, bc = col0 + tid % V4_TILE;
        b_tile[tid / V4_TILE][tid % V4_TILE] =
            br < p.k && bc < p.n ? b[(size_t)br * p.n + bc] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int l = 0; l < V4_SLAB; l++) {
            const float b_value = b_tile[l][col];
#pragma unroll
            for (int r = 0; r < V4_ROWS; r++)
                sum[r] += a_tile[row_group * V4_ROWS + r][l] * b_value;
        }
        __syncthreads();
    }
    const int j = col0 + col;
#pragma unroll
    for (int r = 0; r < V4_ROWS; r++) {
        const int i = row0 + row_group * V4_ROWS + r;
        if (i < p.m && j < p.n)
            store_result(p.c, (size_t)i * p.n + j, sum[r], p.alpha, p.beta);
    }
}

// --- v5: an 8 x 8 block of results a thread -----------------------------------------

// Four consecutive floats of a row-major rows x cols matrix at (row, col..col+3), zeros
// outside it; one 16-byte load when the row's length keeps them aligned (vec).
__device__ __forceinline__ float4 load_four(operand mat, int rows, int cols, int row, int col)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (row >= rows)
        return v;
    const float *at = static_cast<const float *>(mat.base) + (size_t)row * mat.pitch + col;
    if (mat.vec && col + 3 < cols)
        return *reinterpret_cast<const float4 *>(at);
    if (col < cols)
        v.x = at[0];
    if (col + 1 < cols)
        v.y = at[1];
    if (col + 2 < cols)
        v.z = at[2];
    if (col + 3 < cols)
        v.w = at[3];
    return v;
}

enum { V5_TILE = 128, V5_SLAB = 8, V5_THREADS = 256 };

// v5: 2D register blocking. A 128 x 128 tile, 256 threads, each an 8 x 8 block of C:
// rows {4r + e, 64 + 4r + e} and columns {4c + e, 64 + 4c + e} (r, c = the thread's
// place in a 16 x 16 grid, e = 0..3). Per k step a thread reads 8 A and 8 B values as
// four float4 and does 64 FMA: 16 FMA a shared load. A's slab is stored transposed
// (k-major) so a thread's A values are contiguous; the 64-apart halves keep a quarter
// warp's 16-byte reads on distinct banks. Global loads are float4 too.
// Why faster than v4: 4x the FMA per shared-memory load, a quarter of the load
// instructions, and 128-wide tiles halve L2 traffic again.
__global__ void __launch_bounds__(V5_THREADS, 2)
    matmul_v5_kernel(matmul_args p, operand a, operand b, bool vec_c)
{
    __shared__ __align__(16) float a_tile[V5_SLAB][V5_TILE]; // transposed: [k][m]
    __shared__ __align__(16) float b_tile[V5_SLAB][V5_TILE];
    const tile_coord t = row_major_tile(ceil_div(p.n, V5_TILE));
    const int tid = threadIdx.x, tr = tid / 16, tc = tid % 16;
    const int row0 = t.row * V5_TILE, col0 = t.col * V5_TILE;
    float sum[8][8] = {};
    for (int l0 = 0; l0 < p.k; l0 += V5_SLAB) {
        // A's 128 x 8 slab and B's 8 x 128: 256 float4 each, one a thread.
        const float4 av = load_four(a, p.m, p.k, row0 + tid / 2, l0 + (tid % 2) * 4);
        const int ak = (tid % 2) * 4, am = tid / 2;
        a_tile[ak + 0][am] = av.x, a_tile[ak + 1][am] = av.y;
        a_tile[ak + 2][am] = av.z, a_tile[ak + 3][am] = av.w;
        *reinterpret_cast<float4 *>(&b_tile[tid / 32][(tid % 32) * 4]) =
            load_four(b, p.k, p.n, l0 + tid / 32, col0 + (tid % 32) * 4);
        __syncthreads();
#pragma unroll
        for (int l = 0; l < V5_SLAB; l++) {
            float a_reg[8], b_reg[8];
            *reinterpret_cast<float4 *>(&a_reg[0]) =
                *reinterpret_cast<const float4 *>(&a_tile[l][tr * 4]);
            *reinterpret_cast<float4 *>(&a_reg[4]) =
                *reinterpret_cast<const float4 *>(&a_tile[l][64 + tr * 4]);
            *reinterpret_cast<float4 *>(&b_reg[0]) =
                *reinterpret_cast<const float4 *>(&b_tile[l][tc * 4]);
            *reinterpret_cast<float4 *>(&b_reg[4]) =
                *reinterpret_cast<const float4 *>(&b_tile[l][64 + tc * 4]);
#pragma unroll
            for (int r = 0; r < 8; r++)
#pragma unroll
                for (int c = 0; c < 8; c++)
                    sum[r][c] += a_reg[r] * b_reg[c];
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < 8; r++) {
        const int row = row0 + (r < 4 ? tr * 4 + r : 64 + tr * 4 + r - 4);
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const float *s = &sum[r][half * 4];
            store_four(p, row, col0 + half * 64 + tc * 4, make_float4(s[0], s[1], s[2], s[3]),
                       vec_c);
        }
    }
}

// --- the tile-copy layer: 16-byte chunks of a tile into shared memory ---------------

// cp.async's wrappers (copy_async_16, copy_async_4, commit, wait): common/bulk_copy.cuh.

// Copies the 16-byte chunk at (row, col..) of a row-major rows x cols matrix of
// ELEM-byte elements (rows mat.pitch elements apart) to `shared`, zeros where the chunk
// leaves the matrix. mat.vec: the rows start on 16 bytes, so the chunk is aligned and one
// cp.async moves it; otherwise floats one cp.async each (still in the background),
// 16-bit elements synchronously (cp.async moves 4 bytes at least, and an odd row's pairs
// straddle 4-byte words). Where that costs more than a copy, the launcher first copies
// the matrix into padded rows (place_operands, tiles.cuh).
template <int ELEM>
__device__ __forceinline__ void copy_chunk(char *shared, operand mat, int rows, int cols, int row,
                                           int col)
{
    constexpr int per_chunk = 16 / ELEM;
    const int valid = row < rows ? max(0, min(per_chunk, cols - col)) : 0;
    const char *base = static_cast<const char *>(mat.base);
    const char *src = valid ? base + ((size_t)row * mat.pitch + col) * ELEM : base;
    if (mat.vec) {
        copy_async_16(shared, src, valid * ELEM);
        return;
    }
    if constexpr (ELEM == 4) {
#pragma unroll
        for (int e = 0; e < per_chunk; e++)
            copy_async_4(shared + 4 * e, e < valid ? src + 4 * e : src, e < valid ? 4 : 0);
    } else {
#pragma unroll
        for (int e = 0; e < per_chunk; e++)
            reinterpret_cast<uint16_t *>(shared)[e] =
                e < valid ? reinterpret_cast<const uint16_t *>(src)[e] : 0;
    }
}

// Shared-memory layouts of a tile of ROW_BYTES-byte rows, as the byte offset of 16-byte
// chunk `chunk` of row `row`.
// Padded: each row followed by PAD bytes, so rows that a warp reads together start on
// different banks.
template <int ROW_BYTES, int PAD> struct padded_layout {
    __host__ __device__ static constexpr int bytes(int rows) { return rows * (ROW_BYTES + PAD); }
    __device__ static int offset(int row, int chunk)
    {
        return row * (ROW_BYTES + PAD) + chunk * 16;
    }
};
// Swizzled: no padding; the chunk index is XORed with the row's low bits, so the 8
// chunks that ldmatrix reads from 8 consecutive rows at one column lie in 8 different
// 16-byte bank groups (4 chunks a row: two rows share a 128-byte line, so row / 2 picks).
template <int ROW_BYTES> struct swizzled_layout {
    static constexpr int chunks = ROW_BYTES / 16;
    __host__ __device__ static constexpr int bytes(int rows) { return rows * ROW_BYTES; }
    __device__ static int offset(int row, int chunk)
    {
        const int phys = chunks >= 8 ? chunk ^ (row & 7) : chunk ^ ((row >> 1) & (chunks - 1));
        return row * ROW_BYTES + phys * 16;
    }
};

// A ROWS x CHUNKS-chunk tile at (row0, col0) of the matrix, into `shared` laid out by
// Layout; the block's THREADS threads take the chunks in turn (consecutive threads,
// consecutive chunks of a row: coalesced).
template <int ELEM, int ROWS, int CHUNKS, int THREADS, class Layout>
__device__ __forceinline__ void copy_tile(char *shared, operand mat, int rows, int cols, int row0,
                                          int col0)
{
#pragma unroll
    for (int c = threadIdx.x; c < ROWS * CHUNKS; c += THREADS) {
        const int r = c / CHUNKS, chunk = c % CHUNKS;
        copy_chunk<ELEM>(shared + Layout::offset(r, chunk), mat, rows, cols, row0 + r,
                         col0 + chunk * (16 / ELEM));
    }
}

// --- v6: warp tiling, double-buffered cp.async --------------------------------------

// v6's tile shapes (MATMUL_V6_SHAPES in matmul.h: 256 x 128, 128 x 128, 64 x 128, 256 x 64):
// a thread holds ROWS x 8 results, a warp's lanes 4 x 8 of them (4 ROWS x 64), the block's 8
// warps (8 / ACROSS) x ACROSS. The planner (matmul_plan_tiles) picks the shape and the
// pieces of k a problem finishes soonest with.
enum { V6_SLAB = 16, V6_THREADS = MATMUL_V6_THREADS, V6_STAGES = 2 };
template <int ROWS, int ACROSS> struct v6_shape {
    static constexpr int rows = ROWS, groups = ROWS / 4, warp_m = 4 * ROWS, warp_n = 64;
    static constexpr int tile_m = MATMUL_V6_TILE_M(ROWS, ACROSS), tile_n = MATMUL_V6_TILE_N(ACROSS);
    static constexpr int blocks_per_sm = MATMUL_V6_BLOCKS_PER_SM(ROWS);
    // A k-major, [k][m]: rows of tile_m + 4 floats (16-byte aligned, and the transposing
    // 4-byte copies of 16 k of a row land 4 banks apart); B [k][n].
    static constexpr int a_pitch = tile_m + 4;
    static constexpr int a_bytes = V6_SLAB * a_pitch * 4;
    static constexpr int stage_bytes = a_bytes + V6_SLAB * tile_n * 4;
    // A's slab, copied a float at a time: element (r, j) of the tile_m x 16 slab by thread
    // r * 16 + j mod 256, so a warp reads two rows' 64-byte runs.
    static constexpr int a_copies = tile_m * V6_SLAB / V6_THREADS;
};

// v6: warp tiling with double-buffered cp.async (CUTLASS's SIMT GEMM in miniature). In the
// 256 x 128 tile the 8 warps split it 4 x 2; a warp's lanes, 4 x 8, each hold 16 x 8
// results: rows {w + 16 g + 4 (lane / 8) + e} and columns {lane%8 * 4 + e, 32 + lane%8 * 4
// + e} (g, e = 0..3). A is stored k-major in shared memory, so a k-step's fragments are
// 4 + 2 float4 loads (the thread's 16 rows, its 8 columns) for 128 FMA, and the next
// k-step's are loaded while this one's are multiplied (two sets in registers): each
// shared load has 128 FMA of time to arrive. cp.async transposes A a float at a time (16
// copies a thread a slab, the row's validity known once); B's rows are copied 16 bytes at
// a time. While the block multiplies slab s, cp.async fills slab s + 1's buffer.
// 16 x 8 results a thread, 255 registers (no spill), one block (8 warps) an SM, as
// cuBLAS's own fp32 kernel runs (256 x 128 tiles, 254 registers). H200, 4096^3: 3.50 ms,
// 39 TFLOPS (cuBLAS 2.68); ncu: issue on 73% of cycles (A row-major, fragments loaded
// as used: 65%, 3.87 ms), FMA pipe 62%; cuBLAS 88% and 80%.
// Why faster than v5: no register round trip for the loads (v5's warps stall on them:
// ncu's long-scoreboard stalls 1.34 an issue, v6 0.02), loads overlapped with math, twice
// the FMA a shared load, and grouped tile order for L2 reuse.
// Split-K (tiles.cuh): grid.y is the piece of k; a tile's last piece writes C.
template <class S>
__global__ void __launch_bounds__(V6_THREADS, S::blocks_per_sm)
    matmul_v6_kernel(matmul_args p, operand a, operand b, bool vec_c, split_k_space space)
{
    using b_layout = padded_layout<S::tile_n * 4, 0>;
    extern __shared__ __align__(16) char buffers[]; // V6_STAGES stages of S::stage_bytes
    const int tiles_m = ceil_div(p.m, S::tile_m), tiles_n = ceil_div(p.n, S::tile_n);
    const tile_coord t = grouped_tile((int)blockIdx.x, tiles_m, tiles_n);
    const int row0 = t.row * S::tile_m, col0 = t.col * S::tile_n;
    constexpr int warps_n = S::tile_n / S::warp_n;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_m = (warp / warps_n) * S::warp_m, warp_n = (warp % warps_n) * S::warp_n;
    const int tm = lane / 8, tn = lane % 8;
    const slab_range range = split_k_slabs(ceil_div(p.k, V6_SLAB), blockIdx.y, gridDim.y);

    // This thread's A copies: column j of the slab, rows r_first + i (V6_THREADS / 16).
    constexpr int row_step = V6_THREADS / V6_SLAB;
    const int j = threadIdx.x % V6_SLAB, r_first = threadIdx.x / V6_SLAB;
    const float *a_rows = static_cast<const float *>(a.base) + (size_t)(row0 + r_first) * a.pitch;
    unsigned rows_inside = 0; // bit i: row r_first + i row_step of the tile is inside A
#pragma unroll
    for (int i = 0; i < S::a_copies; i++)
        rows_inside |= (unsigned)(row0 + r_first + i * row_step < p.m) << i;

    auto load_slab = [&](int buffer, int slab) {
        char *stage = buffers + buffer * S::stage_bytes;
        const int l = slab * V6_SLAB + j;
        const bool col_inside = l < p.k;
        float *a_dst = reinterpret_cast<float *>(stage) + j * S::a_pitch + r_first;
#pragma unroll
        for (int i = 0; i < S::a_copies; i++) {
            const bool inside = col_inside && (rows_inside >> i & 1);
            copy_async_4(a_dst + i * row_step,
                         inside ? a_rows + (size_t)i * row_step * a.pitch + l
                                : static_cast<const float *>(a.base),
                         inside ? 4 : 0);
        }
        copy_tile<4, V6_SLAB, S::tile_n / 4, V6_THREADS, b_layout>(stage + S::a_bytes, b, p.k, p.n,
                                                                   slab * V6_SLAB, col0);
        copy_async_commit();
    };

    // A k-step's fragments: the thread's rows (groups of 4) and columns (two runs of 4).
    float a_frag[2][S::rows], b_frag[2][8];
    auto load_fragments = [&](const char *stage, int k, float(&af)[S::rows], float(&bf)[8]) {
        const float *a_row = reinterpret_cast<const float *>(stage) + k * S::a_pitch;
#pragma unroll
        for (int g = 0; g < S::groups; g++)
            *reinterpret_cast<float4 *>(&af[4 * g]) =
                *reinterpret_cast<const float4 *>(a_row + warp_m + 16 * g + 4 * tm);
        const float *b_row = reinterpret_cast<const float *>(stage + S::a_bytes) + k * S::tile_n;
        *reinterpret_cast<float4 *>(&bf[0]) =
            *reinterpret_cast<const float4 *>(b_row + warp_n + tn * 4);
        *reinterpret_cast<float4 *>(&bf[4]) =
            *reinterpret_cast<const float4 *>(b_row + warp_n + 32 + tn * 4);
    };

    float sum[S::rows][8] = {};
#pragma unroll
    for (int i = 0; i < V6_STAGES - 1; i++) {
        if (range.first + i < range.end)
            load_slab((range.first + i) % V6_STAGES, range.first + i);
        else
            copy_async_commit();
    }
    for (int s = range.first; s < range.end; s++) {
        copy_async_wait<V6_STAGES - 2>(); // slab s is in
        __syncthreads(); // ... for every thread, and slab s - 1's buffer is read by all
        if (s + V6_STAGES - 1 < range.end)
            load_slab((s + V6_STAGES - 1) % V6_STAGES, s + V6_STAGES - 1);
        else
            copy_async_commit(); // an empty group, so the wait above means the same
        const char *stage = buffers + (s % V6_STAGES) * S::stage_bytes;
        load_fragments(stage, 0, a_frag[0], b_frag[0]);
#pragma unroll
        for (int k = 0; k < V6_SLAB; k++) {
            if (k + 1 < V6_SLAB) // the next k-step's fragments, in flight under this one's FMA
                load_fragments(stage, k + 1, a_frag[(k + 1) % 2], b_frag[(k + 1) % 2]);
#pragma unroll
            for (int r = 0; r < S::rows; r++)
#pragma unroll
                for (int c = 0; c < 8; c++)
                    sum[r][c] += a_frag[k % 2][r] * b_frag[k % 2][c];
        }
    }
    if (gridDim.y > 1 &&
        !split_k_fixup(reinterpret_cast<float(&)[S::rows * 8]>(sum), space, blockIdx.x, blockIdx.y,
                       gridDim.y, V6_THREADS, threadIdx.x, [] { __syncthreads(); }))
        return;
#pragma unroll
    for (int r = 0; r < S::rows; r++) {
        const int row = row0 + warp_m + 16 * (r / 4) + 4 * tm + r % 4;
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const float *v = &sum[r][half * 4];
            store_four(p, row, col0 + warp_n + half * 32 + tn * 4,
                       make_float4(v[0], v[1], v[2], v[3]), vec_c);
        }
    }
}

// --- tensor cores: the element types ------------------------------------------------

// What a precision keeps in memory (raw bits for the 16-bit types) and which WMMA
// fragment element type multiplies it.
template <matmul_precision P> struct precision_traits;
template <> struct precision_traits<MATMUL_TF32> {
    static constexpr int elem = 4, wmma_k = 8;
#if CL_SM80
    using wmma_type = nvcuda::wmma::precision::tf32;
#else
    using wmma_type = float; // 7.5 has no tf32 fragments (v7 is a stub there)
#endif
    using memory_type = float;
};
template <> struct precision_traits<MATMUL_BF16> {
    static constexpr int elem = 2, wmma_k = 16;
    using wmma_type = __nv_bfloat16;
    using memory_type = __nv_bfloat16;
};
template <> struct precision_traits<MATMUL_FP16> {
    static constexpr int elem = 2, wmma_k = 16;
    using wmma_type = __half;
    using memory_type = __half;
};

// --- v7: WMMA ---------------------------------------------------------------------

enum { TC_TILE = 128, TC_THREADS = 256, TC_SLAB_BYTES = 64 }; // a slab: 64 bytes of k
enum { V7_WARP_M = 64, V7_WARP_N = 32 };                      // 2 x 4 warps

// v7: the WMMA API, the tensor cores as CUDA C++ first offers them. 8 warps share a
// 128 x 128 tile; each warp owns 64 x 32 of it as 4 x 2 accumulator fragments of 16 x 16
// and, per 16 (tf32: 8) of k, loads 4 A and 2 B fragments from shared memory and issues
// 8 fragment multiplies. The block loads each 64-byte slab of k synchronously into
// padded shared memory (rows 16 bytes longer, as load_matrix_sync's ldm allows) and
// waits for it. Why faster than v6: a tensor-core instruction does 16 x 8 x 16 FMA at
// once. What holds it back on Hopper: each WMMA fragment multiply is an mma.sync whose
// operands pass through registers, the loads are not overlapped with the math, and
// Hopper's full tensor-core rate needs wgmma.
template <matmul_precision P>
__global__ void __launch_bounds__(TC_THREADS) matmul_v7_kernel(matmul_args p, operand a, operand b)
{
#if !CL_SM80
    __trap();
#else
    using traits = precision_traits<P>;
    using namespace nvcuda;
    constexpr int elem = traits::elem, slab = TC_SLAB_BYTES / elem, wk = traits::wmma_k;
    constexpr int a_ld = (TC_SLAB_BYTES + 16) / elem, b_ld = (TC_TILE * elem + 16) / elem;
    using a_layout = padded_layout<TC_SLAB_BYTES, 16>;
    using b_layout = padded_layout<TC_TILE * elem, 16>;
    __shared__ __align__(32) char a_tile[a_layout::bytes(TC_TILE)];
    __shared__ __align__(32) char b_tile[b_layout::bytes(slab)];
    __shared__ __align__(32) float scratch[TC_THREADS / 32][16 * 16]; // a warp's epilogue
    using mem_t = typename traits::memory_type;

    const int tiles_m = ceil_div(p.m, TC_TILE), tiles_n = ceil_div(p.n, TC_TILE);
    const tile_coord t = grouped_tile((int)blockIdx.x, tiles_m, tiles_n);
    const int row0 = t.row * TC_TILE, col0 = t.col * TC_TILE;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_m = (warp / 4) * V7_WARP_M, warp_n = (warp % 4) * V7_WARP_N;

    wmma::fragment<wmma::accumulator, 16, 16, wk, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);

    for (int l0 = 0; l0 < p.k; l0 += slab) {
        copy_tile<elem, TC_TILE, TC_SLAB_BYTES / 16, TC_THREADS, a_layout>(a_tile, a, p.m, p.k,
                                                                           row0, l0);
        copy_tile<elem, slab, TC_TILE * elem / 16, TC_THREADS, b_layout>(b_tile, b, p.k, p.n, l0,
                                                                         col0);
        copy_async_commit();
        copy_async_wait<0>();
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < slab; kk += wk) {
            wmma::fragment<wmma::matrix_a, 16, 16, wk, typename traits::wmma_type, wmma::row_major>
                af[4];
            wmma::fragment<wmma::matrix_b, 16, 16, wk, typename traits::wmma_type, wmma::row_major>
                bf[2];
#pragma unroll
            for (int i = 0; i < 4; i++) {
                wmma::load_matrix_sync(
                    af[i], reinterpret_cast<const mem_t *>(a_tile) + (warp_m + i * 16) * a_ld + kk,
                    a_ld);
                if constexpr (P == MATMUL_TF32)
#pragma unroll
                    for (int e = 0; e < af[i].num_elements; e++)
                        af[i].x[e] = wmma::__float_to_tf32(af[i].x[e]);
            }
#pragma unroll
            for (int j = 0; j < 2; j++) {
                wmma::load_matrix_sync(
                    bf[j], reinterpret_cast<const mem_t *>(b_tile) + kk * b_ld + warp_n + j * 16,
                    b_ld);
                if constexpr (P == MATMUL_TF32)
#pragma unroll
                    for (int e = 0; e < bf[j].num_elements; e++)
                        bf[j].x[e] = wmma::__float_to_tf32(bf[j].x[e]);
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], af[i], bf[j], acc[i][j]);
        }
        __syncthreads();
    }
    // Epilogue: a fragment's element order is opaque, so each goes through the warp's
    // 16 x 16 scratch, from which every lane writes 8 results of C (bounds, alpha, beta).
    float *mine = scratch[warp];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
            wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                const int row = row0 + warp_m + i * 16 + e / 16,
                          col = col0 + warp_n + j * 16 + e % 16;
                if (row < p.m && col < p.n)
                    store_result(p.c, (size_t)row * p.n + col, mine[e], p.alpha, p.beta);
            }
            __syncwarp();
        }
#endif
}

// --- v8: mma.sync, ldmatrix, swizzled shared memory, a cp.async pipeline -------------

enum { V8_STAGES = 4, V8_WARP_M = 64, V8_WARP_N = 32 }; // 2 x 4 warps

// ldmatrix: the warp loads four 8 x 8 matrices of 16-bit elements (lane l gives the
// address of row l % 8 of matrix l / 8), each lane receiving its fragment registers.
// .trans delivers them transposed: how B's [k][n] rows become mma's column-major B.
__device__ __forceinline__ void load_matrix_x4(unsigned (&r)[4], unsigned address)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}
__device__ __forceinline__ void load_matrix_x4_trans(unsigned (&r)[4], unsigned address)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}

template <matmul_precision P> struct v8_shape {
    static constexpr int elem = precision_traits<P>::elem;
    static constexpr int slab = TC_SLAB_BYTES / elem; // k a stage: 32 (16-bit) or 16 (tf32)
    static constexpr int mma_k = elem == 2 ? 16 : 8;  // k an mma: 32 bytes either way
    using a_layout = swizzled_layout<TC_SLAB_BYTES>;  // [m][k], 64-byte rows
    using b_layout = swizzled_layout<TC_TILE * elem>; // [k][n]
    static constexpr int a_bytes = a_layout::bytes(TC_TILE), b_bytes = b_layout::bytes(slab);
    static constexpr int stage_bytes = a_bytes + b_bytes; // 16 KB
    static constexpr int shared_bytes = V8_STAGES * stage_bytes;
};

// v8: mma.sync fed by ldmatrix (CUTLASS's sm_80 GEMM in miniature). The same 128 x 128
// tile and 8 warps as v7, each warp 64 x 32 as 4 x 4 mma tiles of 16 x 8, but:
//  - a 4-stage cp.async pipeline: three 64-byte k-slabs are in flight while the warps
//    multiply the fourth, so the tensor cores rarely wait on memory;
//  - ldmatrix loads a warp's 16 x 16 operand in one instruction (x4), transposing B on
//    the way (.trans), instead of WMMA's loads through opaque fragments;
//  - swizzled shared memory (the XOR in swizzled_layout): ldmatrix's 8 row reads and
//    cp.async's writes both hit 8 different bank groups, with no padding bytes;
//  - the epilogue writes each lane's accumulators straight to C (float2 pairs).
// tf32's B fragment has 32-bit elements, which ldmatrix cannot transpose: read with
// plain 32-bit shared loads instead. Why faster than v7: loads overlap the math, and
// fewer, wider shared-memory instructions feed each mma.
template <matmul_precision P>
__global__ void __launch_bounds__(TC_THREADS) matmul_v8_kernel(matmul_args p, operand a, operand b)
{
    using shape = v8_shape<P>;
    constexpr int elem = shape::elem;
    extern __shared__ __align__(128) char stages[];
    const int tiles_m = ceil_div(p.m, TC_TILE), tiles_n = ceil_div(p.n, TC_TILE);
    const tile_coord t = grouped_tile((int)blockIdx.x, tiles_m, tiles_n);
    const int row0 = t.row * TC_TILE, col0 = t.col * TC_TILE;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int warp_m = (warp / 4) * V8_WARP_M, warp_n = (warp % 4) * V8_WARP_N;
    const int slabs = ceil_div(p.k, shape::slab);

    auto load_slab = [&](int slab) {
        if (slab < slabs) {
            char *stage = stages + (slab % V8_STAGES) * shape::stage_bytes;
            const int l0 = slab * shape::slab;
            copy_tile<elem, TC_TILE, TC_SLAB_BYTES / 16, TC_THREADS, typename shape::a_layout>(
                stage, a, p.m, p.k, row0, l0);
            copy_tile<elem, shape::slab, TC_TILE * elem / 16, TC_THREADS, typename shape::b_layout>(
                stage + shape::a_bytes, b, p.k, p.n, l0, col0);
        }
        copy_async_commit(); // empty past the end: the group count stays in step
    };

    float acc[4][4][4] = {};
    for (int s = 0; s < V8_STAGES - 1; s++)
        load_slab(s);
    for (int s = 0; s < slabs; s++) {
        copy_async_wait<V8_STAGES - 2>(); // slab s has landed
        __syncthreads();                  // ... for every thread; and slab s - 1 is done with
        load_slab(s + V8_STAGES - 1);     // into slab s - 1's stage
        const char *a_tile = stages + (s % V8_STAGES) * shape::stage_bytes;
        const char *b_tile = a_tile + shape::a_bytes;
#pragma unroll
        for (int ks = 0; ks < shape::slab / shape::mma_k; ks++) {
            unsigned a_frag[4][4], b_frag[4][2];
            // A: rows lane % 16 of each 16-row piece, chunk 2ks + lane / 16 (32 bytes of k).
#pragma unroll
            for (int i = 0; i < 4; i++)
                load_matrix_x4(a_frag[i], shared_address(a_tile + shape::a_layout::offset(
                                                                      warp_m + i * 16 + lane % 16,
                                                                      ks * 2 + lane / 16)));
            if constexpr (elem == 2) {
                // B: k rows lane % 16, n chunks (two 8-column mma tiles) lane / 16.
#pragma unroll
                for (int j = 0; j < 4; j += 2) {
                    unsigned r[4];
                    load_matrix_x4_trans(
                        r, shared_address(
                               b_tile + shape::b_layout::offset(ks * 16 + lane % 16,
                                                                (warp_n + j * 8) / 8 + lane / 16)));
                    b_frag[j][0] = r[0], b_frag[j][1] = r[1], b_frag[j + 1][0] = r[2],
                    b_frag[j + 1][1] = r[3];
                }
            } else {
                // tf32 B: lane (g, t) = (lane / 4, lane % 4) holds B[t][g] and B[t + 4][g].
                const int g = lane / 4, tq = lane % 4;
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    const int col = warp_n + j * 8 + g;
#pragma unroll
                    for (int h = 0; h < 2; h++)
                        b_frag[j][h] = *reinterpret_cast<const unsigned *>(
                            b_tile + shape::b_layout::offset(ks * 8 + tq + 4 * h, col / 4) +
                            (col % 4) * 4);
                }
            }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    mma_16x8<P>(acc[i][j], a_frag[i], b_frag[j]);
        }
    }
    // Lane (g, t) holds rows g and g + 8, columns 2t and 2t + 1 of each 16 x 8 mma tile.
    const int g = lane / 4, tq = lane % 4;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                store_pair(p, row0 + warp_m + i * 16 + g + 8 * h, col0 + warp_n + j * 8 + 2 * tq,
                           acc[i][j][2 * h], acc[i][j][2 * h + 1]);
}

// --- launchers ----------------------------------------------------------------------

static unsigned tiles(const matmul_args *p, int tile_m, int tile_n)
{
    return cl_ceil_div(p->m, tile_m) * cl_ceil_div(p->n, tile_n);
}

static void launch_v1(const matmul_args *p, cudaStream_t s)
{
    matmul_v1_kernel<<<tiles(p, NAIVE_TILE, NAIVE_TILE), dim3(NAIVE_TILE, NAIVE_TILE), 0, s>>>(*p);
    CL_LAUNCH_CHECK();
}

static void launch_v2(const matmul_args *p, cudaStream_t s)
{
    matmul_v2_kernel<<<tiles(p, NAIVE_TILE, NAIVE_TILE), dim3(NAIVE_TILE, NAIVE_TILE), 0, s>>>(*p);
    CL_LAUNCH_CHECK();
}

static void launch_v3(const matmul_args *p, cudaStream_t s)
{
    matmul_v3_kernel<<<tiles(p, NAIVE_TILE, NAIVE_TILE), dim3(NAIVE_TILE, NAIVE_TILE), 0, s>>>(*p);
    CL_LAUNCH_CHECK();
}

static void launch_v4(const matmul_args *p, cudaStream_t s)
{
    matmul_v4_kernel<<<tiles(p, V4_TILE, V4_TILE), V4_THREADS, 0, s>>>(*p);
    CL_LAUNCH_CHECK();
}

// The copies of A and B into padded rows, where they pay (plan_operands): v5 to v8's
// workspace, and the first part of v6's, which copies A a float at a time itself
// (a_in_chunks false).
static size_t padded_bytes(const matmul_args *p, bool a_in_chunks)
{
    return plan_operands(p, matmul_element_bytes(p->precision), a_in_chunks).bytes();
}
static size_t padded_workspace(const matmul_args *p) { return padded_bytes(p, true); }

static void launch_v5(const matmul_args *p, cudaStream_t s)
{
    const tiled_operands o = place_operands(p, 4, true, s);
    matmul_v5_kernel<<<tiles(p, V5_TILE, V5_TILE), V5_THREADS, 0, s>>>(
        *p, o.a, o.b, rows_vectorize(p->c, p->n, 4));
    CL_LAUNCH_CHECK();
}

extern "C" const char *matmul_forced_tile(const char *variable)
{
    const char *forced = getenv(variable);
    return forced && *forced ? forced : NULL;
}

extern "C" matmul_tile_plan matmul_plan_version(const char *version, const char *variable,
                                                const matmul_tile_shape *shapes, int count,
                                                long long m, long long n, int slabs, int sms)
{
    const char *forced = matmul_forced_tile(variable);
    if (!forced)
        return matmul_plan_tiles(shapes, count, m, n, slabs, sms);
    char names[256] = "";
    for (int i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "%dx%d", shapes[i].tile_m, shapes[i].tile_n);
        if (strcmp(forced, name) == 0) { // the planner offered this shape alone
            matmul_tile_plan plan = matmul_plan_tiles(&shapes[i], 1, m, n, slabs, sms);
            plan.shape = i;
            return plan;
        }
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", name);
    }
    cl_die(CL_EXIT_USAGE, "%s=%s: %s's tiles are %s", variable, forced, version, names);
}

// v6's plan for a problem: its tile shape and pieces of k (matmul_plan_tiles).
// CUDALAB_V6_TILE=MxN (256x128, 128x128, 64x128, 256x64) takes that shape whatever the
// planner or the thin path's rule would: to measure each shape against the others.
static bool v6_thin(const matmul_args *p)
{
    return !matmul_forced_tile("CUDALAB_V6_TILE") && matmul_thin_taken(p);
}

static matmul_tile_plan v6_plan(const matmul_args *p)
{
    return matmul_plan_version("v6", "CUDALAB_V6_TILE", matmul_v6_shapes, MATMUL_V6_SHAPE_COUNT,
                               p->m, p->n, (int)cl_ceil_div(p->k, V6_SLAB), sm_count());
}

static size_t v6_split_bytes(const matmul_args *p, matmul_tile_plan plan)
{
    const matmul_tile_shape &shape = matmul_v6_shapes[plan.shape];
    return split_k_bytes(tiles(p, shape.tile_m, shape.tile_n), plan.splits, V6_THREADS,
                         shape.tile_m * shape.tile_n / V6_THREADS);
}

// v6's workspace: its padded copy (B's alone) and split-K's sums after it.
static size_t v6_workspace(const matmul_args *p)
{
    if (v6_thin(p))
        return matmul_thin_workspace(p);
    return padded_bytes(p, false) + v6_split_bytes(p, v6_plan(p));
}

template <class S> static void launch_v6_as(const matmul_args *p, int splits, cudaStream_t s)
{
    const tiled_operands o = place_operands(p, 4, false, s); // A is copied a float at a time
    const unsigned tile_count = tiles(p, S::tile_m, S::tile_n);
    const void *kernel = (const void *)matmul_v6_kernel<S>;
    cl_kernel_fit_for(kernel, V6_THREADS, V6_STAGES * S::stage_bytes);
    matmul_v6_kernel<S><<<dim3(tile_count, splits), V6_THREADS, V6_STAGES * S::stage_bytes, s>>>(
        *p, o.a, o.b, rows_vectorize(p->c, p->n, 4),
        split_k_carve((unsigned char *)p->workspace + o.bytes(), tile_count, splits, V6_THREADS,
                      S::rows * 8));
    CL_LAUNCH_CHECK();
}

static void launch_v6(const matmul_args *p, cudaStream_t s)
{
    if (v6_thin(p)) {
        matmul_thin_launch(p, s); // checks its own workspace
        return;
    }
    const matmul_tile_plan plan = v6_plan(p);
    const size_t needed = padded_bytes(p, false) + v6_split_bytes(p, plan);
    if (needed > p->workspace_bytes)
        cl_die(CL_EXIT_CUDA, "v6: needs %zu bytes of workspace, was given %zu", needed,
               p->workspace_bytes);
    int shape = 0; // the kernel compiled for the plan's shape, in MATMUL_V6_SHAPES's order
#define V6_LAUNCH(rows, across, alone, full)                                                       \
    if (plan.shape == shape++)                                                                     \
        return launch_v6_as<v6_shape<rows, across>>(p, plan.splits, s);
    MATMUL_V6_SHAPES(V6_LAUNCH)
#undef V6_LAUNCH
}

template <matmul_precision P> static void launch_v7_as(const matmul_args *p, cudaStream_t s)
{
    const tiled_operands o = place_operands(p, matmul_element_bytes(P), true, s);
    matmul_v7_kernel<P><<<tiles(p, TC_TILE, TC_TILE), TC_THREADS, 0, s>>>(*p, o.a, o.b);
    CL_LAUNCH_CHECK();
}

template <matmul_precision P> static void launch_v8_as(const matmul_args *p, cudaStream_t s)
{
    const tiled_operands o = place_operands(p, matmul_element_bytes(P), true, s);
    const void *kernel = (const void *)matmul_v8_kernel<P>;
    cl_kernel_fit_for(kernel, TC_THREADS, v8_shape<P>::shared_bytes); // raises the 48 KB limit
    matmul_v8_kernel<P>
        <<<tiles(p, TC_TILE, TC_TILE), TC_THREADS, v8_shape<P>::shared_bytes, s>>>(*p, o.a, o.b);
    CL_LAUNCH_CHECK();
}

TENSOR_LAUNCHER(launch_v7, launch_v7_as)
TENSOR_LAUNCHER(launch_v8, launch_v8_as)

// v9 hands v8 a k shorter than its slabs (wgmma.cu).
extern "C" void matmul_launch_v8(const matmul_args *p, cudaStream_t s) { launch_v8(p, s); }
extern "C" size_t matmul_v8_workspace(const matmul_args *p) { return padded_workspace(p); }

static const unsigned fp32_only = MATMUL_BIT(MATMUL_FP32);

// clang-format off
// Each version's tile (the block's piece of C, for the intensity column; 1 x 1: none, each
// product loads its two inputs), its scratch, whether it is sm_90a code, and whether it
// hands tf32 raw floats to the tensor cores (truncation: its own allowance, matmul.h).
extern "C" const matmul_version matmul_versions[] = {
    {{"v1-naive", "a thread an element, threads down a column: the course's loop"},
     launch_v1, fp32_only, {1, 1}, NULL, false, false},
    {{"v2-coalesced", "a thread an element, threads along a row: coalesced"},
     launch_v2, fp32_only, {1, 1}, NULL, false, false},
    {{"v3-shared", "32 x 32 tiles of A and B in shared memory"},
     launch_v3, fp32_only, {NAIVE_TILE, NAIVE_TILE}, NULL, false, false},
    {{"v4-column", "64 x 64 tiles, 8 results of a column a thread"},
     launch_v4, fp32_only, {V4_TILE, V4_TILE}, NULL, false, false},
    {{"v5-block8x8", "128 x 128 tiles, an 8 x 8 block a thread, float4"},
     launch_v5, fp32_only, {V5_TILE, V5_TILE}, padded_workspace, false, false},
    {{"v6-warptile", "warp tiling, double-buffered cp.async, tile shape and split-K planned; few rows or columns: thin path"},
     launch_v6, fp32_only, {MATMUL_V6_TILE_M(16, 2), MATMUL_V6_TILE_N(2)}, v6_workspace, false, false},
    {{"v7-wmma", "tensor cores through WMMA fragments"},
     launch_v7, MATMUL_TENSOR_PRECISIONS, {TC_TILE, TC_TILE}, padded_workspace, false, false},
    {{"v8-mma", "mma.sync + ldmatrix, swizzled, 4-stage cp.async; tf32 truncated"},
     launch_v8, MATMUL_TENSOR_PRECISIONS, {TC_TILE, TC_TILE}, padded_workspace, false, true},
    {{"v9-wgmma", "TMA + wgmma, warp-specialized, persistent (sm_90a), tile shape and split-K planned; tf32 truncated; m or n <= 16: thin path; k < 64: v8"},
     matmul_launch_v9, MATMUL_TENSOR_PRECISIONS, {MATMUL_V9_TILE_M, MATMUL_V9_TILE_N},
     matmul_v9_workspace, true, true},
    {{"yours", matmul_yours_idea}, matmul_yours, matmul_yours_precisions, {0, 0}, NULL, false,
     false},
};
// clang-format on
extern "C" const int matmul_version_count = sizeof matmul_versions / sizeof matmul_versions[0];
extern "C" const char matmul_fastest_version[] = "v6-warptile";
extern "C" const char matmul_fastest_tensor_version[] = "v9-wgmma";
extern "C" const char matmul_portable_tensor_version[] = "v8-mma";

// --- the peer: cuBLAS ---------------------------------------------------------------

struct matmul_peer {
    cublasHandle_t handle;
};

extern "C" matmul_peer *matmul_peer_create(void)
{
    matmul_peer *peer = new matmul_peer;
    CL_CUBLAS_CHECK(cublasCreate(&peer->handle));
    CL_CUBLAS_CHECK(cublasSetStream(peer->handle, 0));
    return peer;
}

extern "C" const char *matmul_peer_name(matmul_precision p)
{
    return p == MATMUL_FP32 ? "cublasSgemm" : "cublasGemmEx";
}

// cuBLAS is column-major. Row-major C = A B, read as column-major, is C^T = B^T A^T with
// B^T an n x k column-major matrix (ld n) and A^T k x m (ld k): the same bytes, so the
// peer gets (n, m, k) and B before A, and nothing is copied.
extern "C" void matmul_peer_run(matmul_peer *peer, const matmul_args *p)
{
    if (p->precision == MATMUL_FP32) {
        CL_CUBLAS_CHECK(cublasSgemm(peer->handle, CUBLAS_OP_N, CUBLAS_OP_N, p->n, p->m, p->k,
                                    &p->alpha, (const float *)p->b, p->n, (const float *)p->a, p->k,
                                    &p->beta, p->c, p->n));
        return;
    }
    const cudaDataType in = p->precision == MATMUL_TF32   ? CUDA_R_32F
                            : p->precision == MATMUL_BF16 ? CUDA_R_16BF
                                                          : CUDA_R_16F;
    const cublasComputeType_t compute =
        p->precision == MATMUL_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    CL_CUBLAS_CHECK(cublasGemmEx(peer->handle, CUBLAS_OP_N, CUBLAS_OP_N, p->n, p->m, p->k,
                                 &p->alpha, p->b, in, p->n, p->a, in, p->k, &p->beta, p->c,
                                 CUDA_R_32F, p->n, compute, CUBLAS_GEMM_DEFAULT));
}

extern "C" void matmul_peer_destroy(matmul_peer *peer)
{
    CL_CUBLAS_CHECK(cublasDestroy(peer->handle));
    delete peer;
}

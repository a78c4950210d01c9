// transpose: B = A^T for any M x N float matrix - the CUDA-basics notes' advice made an
// exercise: "work along rows; when you need columns, transpose first", and shared-memory
// bank conflicts (pad the tile).
//
// Versions:
//   v1-naive    a thread an element: reads along A's rows (coalesced), writes down B's
//               columns (each warp's 32 stores land in 32 different rows)
//   v2-tile     a 32 x 32 tile through shared memory: read rows of A, write rows of B; the
//               tile is read down its columns, 32 threads in one bank (32-way conflicts)
//   v3-padded   the tile 33 columns wide: a column's 32 values fall in 32 banks
//   v4-float4   a strip of 2 tiles a block, 16-byte loads and stores, 8 elements a
//               thread; also in place for square matrices (tile pairs swapped)
//   yours       yours.cu: the learner's slot
//
// Napkin math for every version: M N floats read and M N written, 8 bytes an element;
// 16384^2 moves 2.15 GB: 0.64 ms at the H100's ~3.35 TB/s, 0.45 ms at the H200's
// ~4.8 TB/s. The device copy (the same bytes, no reordering) is the roof. What costs
// is DRAM's granularity: a warp that writes 32 floats 4*M bytes apart touches 32 sectors
// of 32 bytes to store 128 bytes, and the other 7/8 of each sector must come from
// the same thread's neighbours later, through L2.
#include <stdint.h>

#include <cublas_v2.h>

#include "check.h"
#include "check_libs.h"
#include "device.h"
#include "transpose.h"

enum { TILE = 32 };

// The tile of A a block works on: blocks are numbered along A's rows of tiles (1D, so
// shapes like 1 x 10^9 fit the grid).
struct tile_origin {
    size_t row, col; // A's first row and column of the tile
};
__device__ __forceinline__ tile_origin tile_of_block(size_t cols)
{
    const size_t tiles_across = (cols + TILE - 1) / TILE;
    return {blockIdx.x / tiles_across * TILE, blockIdx.x % tiles_across * TILE};
}

static unsigned tile_count(size_t rows, size_t cols)
{
    return cl_ceil_div(rows, TILE) * cl_ceil_div(cols, TILE);
}

// v1: a thread an element.
// Idea: the direct mapping, threads of a warp along a row of A. The reads are coalesced
// (128 bytes a warp); the writes go down a column of B: 32 stores each in its own 32-byte
// sector, 4 useful bytes each. L2 gathers the sectors before DRAM sees them, but the
// traffic between the SMs and L2 is 8x what the data needs, and v1 runs at a small
// fraction of the copy rate (README.md). Blocks of 32 x 8 threads cover a 32 x 32 tile
// in 4 steps.
__global__ void transpose_v1_kernel(const float *a, float *b, size_t rows, size_t cols)
{
    const tile_origin t = tile_of_block(cols);
    const size_t c = t.col + threadIdx.x % TILE;
    if (c >= cols)
        return;
    for (size_t r = t.row + threadIdx.x / TILE; r < t.row + TILE && r < rows;
         r += blockDim.x / TILE)
        b[c * rows + r] = a[r * cols + c];
}

// v1 in place (square): the thread of element (r, c) above the diagonal swaps it with
// (c, r); half the threads idle, and both accesses of a swap are as strided as v1's write.
__global__ void transpose_v1_in_place_kernel(float *a, size_t side)
{
    const tile_origin t = tile_of_block(side);
    const size_t c = t.col + threadIdx.x % TILE;
    if (c >= side)
        return;
    for (size_t r = t.row + threadIdx.x / TILE; r < t.row + TILE && r < c; r += blockDim.x / TILE) {
        const float upper = a[r * side + c];
        a[r * side + c] = a[c * side + r];
        a[c * side + r] = upper;
    }
}

// v2 (PAD 0) and v3 (PAD 1): the tile through shared memory, a thread an element.
// Idea: a block of 32 x 32 threads reads a tile of A along its rows into shared memory,
// waits at the barrier, and writes B's rows from the tile's columns: both global
// accesses coalesced. The catch is shared memory's 32 banks (4-byte words, bank = word
// index mod 32): with rows of 32 floats a column's 32 values all sit in one bank, so
// v2's column read is serialized 32 ways. v3 pads each row to 33 floats: value (r, c)
// sits in bank (33 r + c) mod 32 = (r + c) mod 32, so a column's 32 values fall in 32
// different banks and the read takes one pass (ncu: l1tex__data_bank_conflicts_pipe_lsu_
// mem_shared_op_ld.sum, see the README).
template <int PAD>
__global__ void __launch_bounds__(TILE *TILE)
    transpose_tile_kernel(const float *a, float *b, size_t rows, size_t cols)
{
    __shared__ float tile[TILE][TILE + PAD];
    const tile_origin t = tile_of_block(cols);
    const int x = threadIdx.x % TILE, y = threadIdx.x / TILE;
    if (t.row + y < rows && t.col + x < cols)
        tile[y][x] = a[(t.row + y) * cols + t.col + x];
    __syncthreads();
    // Thread (x, y) writes B's row t.col + y, column t.row + x: A's element (t.row + x, t.col + y).
    if (t.col + y < cols && t.row + x < rows)
        b[(t.col + y) * rows + t.row + x] = tile[x][y];
}

// v4: a strip of 2 tiles a block, 16-byte accesses.
// Idea: 256 threads move a strip of 2 tiles down A (64 rows x 32 columns), which is 32
// rows of B 256 bytes long. Thread (x, y), x in 0..7, y in 0..31, loads A's rows y and
// y + 32 at columns 4x..4x+3 as two float4 - both issued before the barrier, 32 bytes in
// flight a thread where v3 has 4 - and stores B's row y at columns 4x..4x+3 of each tile
// as two float4. A quarter of v3's memory instructions, and 8x the bytes in flight a
// thread: enough to keep DRAM busy (Little's law: ~3.35 TB/s x ~0.7 us ~ 2.3 MB in
// flight, 18 KB an SM: 8 blocks of 8 KB resident).
// Strips are numbered down A's columns, so consecutive blocks (running at the same time)
// write the same 32 rows of B side by side, and the 32-byte sectors of a row of B fill
// while they are still in L2: faster than the first strips (4 tiles, numbered along A's
// rows) at every size measured, which were faster than 1 tile a block; 8 tiles a strip
// were slower (fewer blocks resident). The commit messages hold the times.
// The padded tiles keep both shared-memory sides conflict-free: the loads put (y, 4x + k)
// in bank (y + 4x + k) mod 32, the stores read (4x + k, y) from the same banks, and a
// warp's 32 threads have 4 values of y and 8 of x: 32 different banks.
// 16-byte accesses need 16-byte aligned rows: both sides a multiple of 4 (a cudaMalloc'd
// matrix starts aligned). Strips that overhang the matrix, and matrices with a side not a
// multiple of 4, move one float at a time in v3's pattern (32 threads along a row, 8
// rows a step), still coalesced.
enum { V4_THREADS = 256, V4_TILES = 2 };
template <int TILES> struct tile_strip {
    float (*cell)[TILE][TILE + 1];
    __device__ explicit tile_strip(float (*shared)[TILE][TILE + 1]) : cell(shared) {}

    // Whether the strip at t moves by float4: aligned rows and the whole strip inside A.
    __device__ static bool by_vector(size_t rows, size_t cols, tile_origin t)
    {
        return rows % 4 == 0 && cols % 4 == 0 && t.row + TILES * TILE <= rows &&
               t.col + TILE <= cols;
    }

    // The strip of A (rows x cols) whose first tile is at t.
    __device__ void load(const float *a, size_t rows, size_t cols, tile_origin t, bool vector)
    {
        if (vector) {
            const int x = threadIdx.x % 8, y = threadIdx.x / 8;
            float4 v[TILES];
#pragma unroll
            for (int j = 0; j < TILES; j++)
                v[j] = *reinterpret_cast<const float4 *>(a + (t.row + j * TILE + y) * cols + t.col +
                                                         4 * x);
#pragma unroll
            for (int j = 0; j < TILES; j++) {
                cell[j][y][4 * x] = v[j].x, cell[j][y][4 * x + 1] = v[j].y;
                cell[j][y][4 * x + 2] = v[j].z, cell[j][y][4 * x + 3] = v[j].w;
            }
            return;
        }
        const int x = threadIdx.x % TILE, y = threadIdx.x / TILE;
        const size_t c = t.col + x;
#pragma unroll
        for (int j = 0; j < TILES; j++)
#pragma unroll
            for (int i = y; i < TILE; i += V4_THREADS / TILE) {
                const size_t r = t.row + j * TILE + i;
                if (r < rows && c < cols)
                    cell[j][i][x] = a[r * cols + c];
            }
    }

    // The strip's columns as rows of B (cols x rows): B's row t.col + i gets A's column.
    __device__ void store(float *b, size_t rows, size_t cols, tile_origin t, bool vector) const
    {
        if (vector) {
            const int x = threadIdx.x % 8, y = threadIdx.x / 8;
#pragma unroll
            for (int j = 0; j < TILES; j++) {
                const float4 v = {cell[j][4 * x][y], cell[j][4 * x + 1][y], cell[j][4 * x + 2][y],
                                  cell[j][4 * x + 3][y]};
                *reinterpret_cast<float4 *>(b + (t.col + y) * rows + t.row + j * TILE + 4 * x) = v;
            }
            return;
        }
        const int x = threadIdx.x % TILE, y = threadIdx.x / TILE;
#pragma unroll
        for (int j = 0; j < TILES; j++)
#pragma unroll
            for (int i = y; i < TILE; i += V4_THREADS / TILE) {
                const size_t r = t.col + i, c = t.row + j * TILE + x; // in B
                if (r < cols && c < rows)
                    b[r * rows + c] = cell[j][x][i];
            }
    }
};

__global__ void __launch_bounds__(V4_THREADS)
    transpose_v4_kernel(const float *a, float *b, size_t rows, size_t cols)
{
    __shared__ float shared[V4_TILES][TILE][TILE + 1];
    tile_strip<V4_TILES> strip(shared);
    const size_t strips_down = (rows + V4_TILES * TILE - 1) / (V4_TILES * TILE);
    const tile_origin t = {blockIdx.x % strips_down * V4_TILES * TILE,
                           blockIdx.x / strips_down * TILE};
    const bool vector = strip.by_vector(rows, cols, t);
    strip.load(a, rows, cols, t, vector);
    __syncthreads();
    strip.store(b, rows, cols, t, vector);
}

// v4 in place (square): the block of tile (i, j), i < j, loads it and its mirror (j, i)
// into two shared tiles, waits, and writes each one's transpose where the other was; a
// tile on the diagonal is loaded, transposed and written back. Every tile is read and
// written by one block only, and all its reads come before the barrier, so no block
// overwrites what another still has to read. Blocks below the diagonal leave at once.
__global__ void __launch_bounds__(V4_THREADS) transpose_v4_in_place_kernel(float *a, size_t side)
{
    __shared__ float shared[2][TILE][TILE + 1];
    const tile_origin t = tile_of_block(side);
    if (t.row > t.col)
        return;
    const tile_origin mirror = {t.col, t.row};
    typedef tile_strip<1> tile;
    const bool vector = tile::by_vector(side, side, t) && tile::by_vector(side, side, mirror);
    tile upper(shared), lower(shared + 1);
    upper.load(a, side, side, t, vector);
    if (t.row != t.col)
        lower.load(a, side, side, mirror, vector);
    __syncthreads();
    upper.store(a, side, side, t, vector); // writes the mirror's place
    if (t.row != t.col)
        lower.store(a, side, side, mirror, vector);
}

// --- launchers ------------------------------------------------------------------------

enum { V1_THREADS = 256 };

static void launch_v1(const float *a, float *b, size_t rows, size_t cols, cudaStream_t s)
{
    transpose_v1_kernel<<<tile_count(rows, cols), V1_THREADS, 0, s>>>(a, b, rows, cols);
    CL_LAUNCH_CHECK();
}

static void launch_v1_in_place(float *a, size_t side, cudaStream_t s)
{
    transpose_v1_in_place_kernel<<<tile_count(side, side), V1_THREADS, 0, s>>>(a, side);
    CL_LAUNCH_CHECK();
}

static void launch_v2(const float *a, float *b, size_t rows, size_t cols, cudaStream_t s)
{
    transpose_tile_kernel<0><<<tile_count(rows, cols), TILE * TILE, 0, s>>>(a, b, rows, cols);
    CL_LAUNCH_CHECK();
}

static void launch_v3(const float *a, float *b, size_t rows, size_t cols, cudaStream_t s)
{
    transpose_tile_kernel<1><<<tile_count(rows, cols), TILE * TILE, 0, s>>>(a, b, rows, cols);
    CL_LAUNCH_CHECK();
}

static void launch_v4(const float *a, float *b, size_t rows, size_t cols, cudaStream_t s)
{
    const unsigned strips = cl_ceil_div(rows, V4_TILES * TILE) * cl_ceil_div(cols, TILE);
    transpose_v4_kernel<<<strips, V4_THREADS, 0, s>>>(a, b, rows, cols);
    CL_LAUNCH_CHECK();
}

static void launch_v4_in_place(float *a, size_t side, cudaStream_t s)
{
    transpose_v4_in_place_kernel<<<tile_count(side, side), V4_THREADS, 0, s>>>(a, side);
    CL_LAUNCH_CHECK();
}

extern "C" const transpose_version transpose_versions[] = {
    {{"v1-naive", "a thread an element: coalesced reads, strided writes"},
     launch_v1,
     launch_v1_in_place},
    {{"v2-tile", "32 x 32 shared tile: coalesced both ways, 32-way bank conflicts"},
     launch_v2,
     NULL},
    {{"v3-padded", "the tile padded to 33 columns: no bank conflicts"}, launch_v3, NULL},
    {{"v4-float4", "2 padded tiles a block, float4 loads and stores, 8 elements a thread"},
     launch_v4,
     launch_v4_in_place},
    {{"yours", transpose_yours_idea}, transpose_yours, NULL},
};
extern "C" const int transpose_version_count =
    sizeof transpose_versions / sizeof transpose_versions[0];
extern "C" const char transpose_fastest_version[] = "v4-float4";

// --- the peer: cuBLAS ------------------------------------------------------------------

struct transpose_peer {
    cublasHandle_t handle;
};

extern "C" transpose_peer *transpose_peer_create(void)
{
    transpose_peer *peer = new transpose_peer;
    CL_CUBLAS_CHECK(cublasCreate(&peer->handle));
    CL_CUBLAS_CHECK(cublasSetStream(peer->handle, 0));
    return peer;
}

// cuBLAS is column-major: row-major A (rows x cols) is a column-major cols x rows matrix
// with leading dimension cols, and row-major B is column-major rows x cols with leading
// dimension rows, so B = op(A) with op the transpose. beta = 0: the second operand
// (given as B itself, which geam allows when it is not transposed) is not read.
extern "C" void transpose_peer_run(transpose_peer *peer, const float *a, float *b, size_t rows,
                                   size_t cols)
{
    const float one = 1.0f, zero = 0.0f;
    CL_CUBLAS_CHECK(cublasSgeam(peer->handle, CUBLAS_OP_T, CUBLAS_OP_N, (int)rows, (int)cols, &one,
                                a, (int)cols, &zero, b, (int)rows, b, (int)rows));
}

extern "C" void transpose_peer_destroy(transpose_peer *peer)
{
    CL_CUBLAS_CHECK(cublasDestroy(peer->handle));
    delete peer;
}

// matmul's thin kernels (device code): the rows, columns, column and tensor-core columns
// kernels that thin.cu lists and plans, with the element loads they share. Included by
// thin.cu alone.
#ifndef MATMUL_THIN_KERNELS_CUH
#define MATMUL_THIN_KERNELS_CUH

#include <stdint.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <type_traits>

#include "matmul.h"
#include "tiles.cuh"

enum {
    THIN_THREADS = 256,
    THIN_GROUP = MATMUL_THIN_GROUP,
    // columns: a warp 4 rows, a block 32; a lane 4 steps of k (a float4), a warp 128
    THIN_COLS_ROWS_WARP = 4,
    THIN_COLS_ROWS = THIN_COLS_ROWS_WARP * THIN_THREADS / 32,
    THIN_COLS_STEPS = 4,
    THIN_COLS_SLAB = 32 * THIN_COLS_STEPS,
};

// --- elements: what the operands hold in memory, read as floats --------------------------

template <matmul_precision P>
using thin_element =
    typename std::conditional<P == MATMUL_BF16 || P == MATMUL_FP16, unsigned short, float>::type;

// tf32 keeps 10 of float's 23 fraction bits: round the 13 dropped ones to nearest, ties
// away from zero (cvt.rna's rule), by adding half their weight and clearing them; a carry
// moves into the exponent as rounding up should. Infinities and NaNs are left as they are.
// (cvt.rna.tf32.f32 itself, and a mask, measured slower in the thin path of few rows: 1 x
// 4096 x 4096 42 us against 30, 1 x 8192 x 8192 127 against 109.)
__device__ __forceinline__ float round_to_tf32(float x)
{
    const unsigned bits = __float_as_uint(x);
    if ((bits & 0x7F800000u) == 0x7F800000u)
        return x;
    return __uint_as_float((bits + 0x1000u) & 0xFFFFE000u);
}

template <matmul_precision P> __device__ __forceinline__ float to_float(thin_element<P> raw)
{
    if constexpr (P == MATMUL_BF16)
        return __bfloat162float(__ushort_as_bfloat16(raw));
    else if constexpr (P == MATMUL_FP16)
        return __half2float(__ushort_as_half(raw));
    else if constexpr (P == MATMUL_TF32)
        return round_to_tf32(raw);
    else
        return raw;
}

// Four elements as they lie in memory: 16 bytes of floats, 8 of 16-bit elements.
template <matmul_precision P>
using thin_quad = typename std::conditional<sizeof(thin_element<P>) == 4, float4, ushort4>::type;

// How a load treats the caches: a stream read once is evicted first (__ldcs); what every
// warp reads, as one column of B, is kept in L1 and L2 (__ldg).
enum thin_cache { THIN_STREAM, THIN_KEEP };
template <thin_cache K, class T> __device__ __forceinline__ T load_as(const T *at)
{
    if constexpr (K == THIN_STREAM)
        return __ldcs(at);
    else
        return __ldg(at);
}

// Elements at..at+3 of a row with `valid` of them left in it (zeros past the end): one
// vector load when `vec` says the row's groups of 4 are aligned. Kept raw until used:
// 16-bit loads in flight take half the registers.
template <matmul_precision P, thin_cache K = THIN_STREAM>
__device__ __forceinline__ thin_quad<P> load_quad(const thin_element<P> *at, int valid, bool vec)
{
    if (vec && valid >= 4)
        return load_as<K>(reinterpret_cast<const thin_quad<P> *>(at));
    const thin_element<P> zero = 0;
    thin_quad<P> q;
    q.x = valid > 0 ? load_as<K>(at) : zero;
    q.y = valid > 1 ? load_as<K>(at + 1) : zero;
    q.z = valid > 2 ? load_as<K>(at + 2) : zero;
    q.w = valid > 3 ? load_as<K>(at + 3) : zero;
    return q;
}

// Elements at..at+7 of a row of 16-bit elements with `valid` left in it (zeros past the
// end): one 16-byte load when `vec` says the row's groups of 8 are aligned. Element 2i in
// the low half of word i, as memory holds them.
template <thin_cache K = THIN_STREAM>
__device__ __forceinline__ uint4 load_octet(const unsigned short *at, int valid, bool vec)
{
    if (vec && valid >= 8)
        return load_as<K>(reinterpret_cast<const uint4 *>(at));
    unsigned w[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const unsigned lo = 2 * i < valid ? load_as<K>(at + 2 * i) : 0u;
        const unsigned hi = 2 * i + 1 < valid ? load_as<K>(at + 2 * i + 1) : 0u;
        w[i] = lo | hi << 16;
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

// load_octet for a row that does not start on 16 bytes: where 16 elements or more are
// left in it, the two aligned 16-byte words that hold at..at+7 (both inside the row),
// shifted together by the row's offset (2 to 14 bytes), instead of 8 loads of 2 bytes.
template <thin_cache K = THIN_STREAM>
__device__ __forceinline__ uint4 load_octet_shifted(const unsigned short *at, int valid)
{
    if (valid < 16)
        return load_octet<K>(at, valid, false);
    const uintptr_t address = reinterpret_cast<uintptr_t>(at);
    const uint4 *word = reinterpret_cast<const uint4 *>(address & ~(uintptr_t)15);
    const uint4 x = load_as<K>(word), y = load_as<K>(word + 1);
    const unsigned w[8] = {x.x, x.y, x.z, x.w, y.x, y.y, y.z, y.w};
    const int q = (address & 15) / 4;        // whole words to skip
    const unsigned bits = (address & 2) * 8; // and a half word, or none
    unsigned out[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const unsigned lo = q == 0 ? w[i] : q == 1 ? w[i + 1] : q == 2 ? w[i + 2] : w[i + 3];
        const unsigned hi = q == 0 ? w[i + 1] : q == 1 ? w[i + 2] : q == 2 ? w[i + 3] : w[i + 4];
        out[i] = __funnelshift_r(lo, hi, bits);
    }
    return make_uint4(out[0], out[1], out[2], out[3]);
}

template <matmul_precision P> __device__ __forceinline__ float4 to_float4(thin_quad<P> q)
{
    return make_float4(to_float<P>(q.x), to_float<P>(q.y), to_float<P>(q.z), to_float<P>(q.w));
}

// --- rows: a C of few rows streams B once -------------------------------------------------

// A block takes 128 columns of C and up to 16 of its rows (R: the group's rows rounded up
// to a power of two); each lane 4 columns of R rows, and the block's 8 warps divide k among
// themselves: in each slab of 64 steps, which the block stages from A in shared memory,
// warp w takes steps w, w + 8, ... Its 8 loads of B (4 elements of a row each, streamed:
// read once, evict first) are issued before the barrier that waits for A's staging, so
// they wait on memory together. At the end warp 0 adds the other warps' sums (through
// shared memory, in warp order) and alone hands its sums to split-K's fixup and C. With
// lanes along n and warps along k the grid holds n / 128 x (pieces of k) blocks of 8
// warps: a thread 4 columns and all of a piece (the first version) left n / 4 x pieces
// threads, 142 x 55 at 1 x 565 x 7040, too few to keep B's loads in flight. Past 16 rows,
// grid.z takes groups of 16 and B is read once a group.
// Napkin math (H200, fp32 1 x 8192 x 8192): 256 MB of B at ~4 TB/s, 64 us; cuBLAS 67 us,
// v6's tiles 960 us. At m = 16 the multiply-adds, 1.1 G, take ~32 us of 33 TFMA/s.
// 16 steps a warp for 16-bit elements (as many bytes in flight as floats) measured slower:
// 1 x 8192 x 8192 bf16 128 us against 99 with 8.
enum {
    THIN_ROWS_COLS = 4 * 32, // columns of C a block
    THIN_ROWS_WARPS = THIN_THREADS / 32,
    THIN_ROWS_STEPS = 8,                                // a warp's steps of k a slab
    THIN_ROWS_SLAB = THIN_ROWS_STEPS * THIN_ROWS_WARPS, // the block's
};

template <matmul_precision P, int R>
__global__ void __launch_bounds__(THIN_THREADS)
    matmul_thin_rows_kernel(matmul_args p, bool vec_b, bool vec_c, split_k_space space)
{
    constexpr int pitch = R % 4 == 0 ? R + 4 : R; // rows of a_s 16-byte aligned
    constexpr int N = R * 4;                      // a lane's sums
    constexpr int CHUNK = N < 16 ? N : 16;        // sums a round of warp 0's reduction
    constexpr int STEPS = THIN_ROWS_STEPS, SLAB = THIN_ROWS_SLAB;
    __shared__ __align__(16) float a_s[SLAB][pitch];          // A's slab, [step][row]
    __shared__ float partial[THIN_ROWS_WARPS - 1][CHUNK][32]; // other warps' sums, a round
    const int row0 = blockIdx.z * THIN_GROUP;
    const thin_element<P> *a = static_cast<const thin_element<P> *>(p.a) + (size_t)row0 * p.k;
    const thin_element<P> *b = static_cast<const thin_element<P> *>(p.b);
    const int rows = p.m - row0; // this group's rows: R at most
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int col = blockIdx.x * THIN_ROWS_COLS + 4 * lane;
    const slab_range range = split_k_slabs(ceil_div(p.k, SLAB), blockIdx.y, gridDim.y);
    float acc[N] = {};
    for (int s = range.first; s < range.end; s++) {
        const int l0 = s * SLAB;
        thin_quad<P> bq[STEPS];
#pragma unroll
        for (int t = 0; t < STEPS; t++) {
            const int l = l0 + warp + t * THIN_ROWS_WARPS;
            bq[t] = load_quad<P>(b + (size_t)l * p.n + col, l < p.k ? p.n - col : 0, vec_b);
        }
        __syncthreads(); // the last slab is read
        for (int e = threadIdx.x; e < SLAB * R; e += THIN_THREADS) {
            const int i = e / SLAB, l = e % SLAB; // a warp along a row of A
            a_s[l][i] = i < rows && l0 + l < p.k ? to_float<P>(a[(size_t)i * p.k + l0 + l]) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int t = 0; t < STEPS; t++) {
            const int l = warp + t * THIN_ROWS_WARPS;
            const float4 bv = to_float4<P>(bq[t]);
            float a_l[R];
            if constexpr (R % 4 == 0) {
#pragma unroll
                for (int i = 0; i < R; i += 4)
                    *reinterpret_cast<float4 *>(a_l + i) =
                        *reinterpret_cast<const float4 *>(&a_s[l][i]);
            } else {
#pragma unroll
                for (int i = 0; i < R; i++)
                    a_l[i] = a_s[l][i];
            }
#pragma unroll
            for (int i = 0; i < R; i++) {
                acc[4 * i] += a_l[i] * bv.x, acc[4 * i + 1] += a_l[i] * bv.y;
                acc[4 * i + 2] += a_l[i] * bv.z, acc[4 * i + 3] += a_l[i] * bv.w;
            }
        }
    }
    // Warp 0 adds warps 1..7's sums, CHUNK of a lane's at a time, in warp order.
#pragma unroll
    for (int c = 0; c < N; c += CHUNK) {
        __syncthreads(); // a_s and the last round's partials are read
        if (warp > 0)
#pragma unroll
            for (int i = 0; i < CHUNK; i++)
                partial[warp - 1][i][lane] = acc[c + i];
        __syncthreads();
        if (warp == 0)
#pragma unroll
            for (int w = 0; w < THIN_ROWS_WARPS - 1; w++)
#pragma unroll
                for (int i = 0; i < CHUNK; i++)
                    acc[c + i] += partial[w][i][lane];
    }
    if (warp > 0)
        return;
    if (gridDim.y > 1 && !split_k_fixup(acc, space, (long long)blockIdx.z * gridDim.x + blockIdx.x,
                                        blockIdx.y, gridDim.y, 32, lane, [] { __syncwarp(); }))
        return;
    if (col >= p.n)
        return;
#pragma unroll
    for (int i = 0; i < R; i++)
        store_four(p, row0 + i, col,
                   make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]), vec_c);
}

// --- columns: a C of few columns streams A once -------------------------------------------

// The end of a columns block: its pieces of k added up (split-K's fixup), then each warp
// adds its lanes' parts of every sum across the warp (every lane ends with every total)
// and lane i writes total i, i + 32, ... of its R rows x C columns.
template <int R, int C>
__device__ __forceinline__ void cols_finish(float (&acc)[R * C], const matmul_args &p,
                                            const split_k_space &space, int row0, int col0,
                                            int cols, int lane)
{
    if (gridDim.y > 1 &&
        !split_k_fixup(acc, space, (long long)blockIdx.z * gridDim.x + blockIdx.x, blockIdx.y,
                       gridDim.y, THIN_THREADS, threadIdx.x, [] { __syncthreads(); }))
        return;
#pragma unroll
    for (int i = 0; i < R * C; i++)
#pragma unroll
        for (int offset = 16; offset > 0; offset /= 2)
            acc[i] += __shfl_xor_sync(0xFFFFFFFFu, acc[i], offset);
#pragma unroll
    for (int i = 0; i < R * C; i++) {
        const int row = row0 + i / C, j = i % C;
        if (i % 32 == lane && row < p.m && j < cols)
            store_result(p.c, (size_t)row * p.n + col0 + j, acc[i], p.alpha, p.beta);
    }
}

// fp32, 5 to 16 columns (tf32 takes the tensor cores, below). A warp takes 4 rows of A,
// its lanes 4 steps of k each, one 16-byte load a row (a warp reads 512 contiguous bytes
// of a row), times B's values for those steps, which the block stages in shared memory a
// slab (128 steps) at a time, transposed ([column][step]): lane l's 4 steps at 4 l, read
// as a float4. Each lane sums 4 rows x C columns over its steps; at the end the warp adds
// its lanes' sums by shuffles. A slab's A rows are loaded before the barrier that lets B's
// staging begin, so they wait on memory together with it. (Software pipelined, the next
// slab's loads issued before this slab's multiply-adds, it lost on tall shapes: 99999 x 16
// x 500 130 -> 147 us, 50000 x 11 x 1024 111 -> 124: 2 blocks an SM where 3 ran at 8
// columns, spills at 16.)
// Napkin math (H200, 4096 x 16 x 4096): 64 MB of A at ~4 TB/s, 16 us; 16 multiply-adds an
// element, 268 M, 8 us on the CUDA cores; cuBLAS 45 us. The registers are left to ptxas,
// which takes 80 at 8 columns (3 blocks an SM), 100 at 12 and 128 at 16 (2).
template <int C>
__global__ void __launch_bounds__(THIN_THREADS)
    matmul_thin_cols_kernel(matmul_args p, bool vec_a, split_k_space space)
{
    constexpr int E = THIN_COLS_STEPS, SLAB = THIN_COLS_SLAB, PITCH = SLAB + 4,
                  R = THIN_COLS_ROWS_WARP;
    __shared__ __align__(16) float bt[C][PITCH]; // B's slab, [column][step, as above]
    const float *a = static_cast<const float *>(p.a);
    const float *b = static_cast<const float *>(p.b);
    const int col0 = blockIdx.z * THIN_GROUP, cols = min(C, p.n - col0);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = blockIdx.x * THIN_COLS_ROWS + warp * R;
    const slab_range range = split_k_slabs(ceil_div(p.k, SLAB), blockIdx.y, gridDim.y);
    float acc[R * C] = {};
    for (int s = range.first; s < range.end; s++) {
        const int l = s * SLAB + E * lane;
        float4 av[R];
#pragma unroll
        for (int r = 0; r < R; r++)
            av[r] = load_quad<MATMUL_FP32>(a + (size_t)(row0 + r) * p.k + l,
                                           row0 + r < p.m ? p.k - l : 0, vec_a);
        __syncthreads(); // the last slab is read
        // value e of the slab: step e / C, column e % C (along B's rows: coalesced)
        for (int e = threadIdx.x; e < SLAB * C; e += THIN_THREADS) {
            const int step = s * SLAB + e / C, j = e % C;
            bt[j][e / C] = step < p.k && j < cols ? b[(size_t)step * p.n + col0 + j] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < C; j++) {
            const float4 b4 = *reinterpret_cast<const float4 *>(&bt[j][E * lane]);
#pragma unroll
            for (int r = 0; r < R; r++)
                acc[r * C + j] += av[r].x * b4.x + av[r].y * b4.y + av[r].z * b4.z + av[r].w * b4.w;
        }
    }
    cols_finish<R, C>(acc, p, space, row0, col0, cols, lane);
}

// --- one column: a matrix-vector product ---------------------------------------------------

// 16 bytes of a row as they lie in memory: 8 16-bit elements (element 2i in the low half
// of word i) or 4 floats.
template <matmul_precision P>
using thin_chunk = typename std::conditional<sizeof(thin_element<P>) == 2, uint4, float4>::type;

template <matmul_precision P, thin_cache K>
__device__ __forceinline__ thin_chunk<P> load_chunk(const thin_element<P> *at, int valid, bool vec)
{
    if constexpr (sizeof(thin_element<P>) == 2)
        return load_octet<K>(at, valid, vec);
    else
        return load_quad<P, K>(at, valid, vec);
}

// Element i (a constant once unrolled) of a chunk, as a float.
template <matmul_precision P>
__device__ __forceinline__ float chunk_at(const thin_chunk<P> &c, int i)
{
    if constexpr (sizeof(thin_element<P>) == 2) {
        const unsigned w = i < 2 ? c.x : i < 4 ? c.y : i < 6 ? c.z : c.w;
        return to_float<P>((unsigned short)(i % 2 ? w >> 16 : w & 0xFFFFu));
    } else {
        return to_float<P>(i == 0 ? c.x : i == 1 ? c.y : i == 2 ? c.z : c.w);
    }
}

// The columns up to which B's few columns are read straight (the column kernel below).
enum { THIN_COLUMN_MAX = 4 };

// Blocks an SM the registers are capped for, and slabs a loop turn keeps in flight. N
// columns' sums and B's N chunks a slab take 8 N registers more than one column's 64
// (16384 x N x 16384 bf16, H200, 2026-11-30): up to 3 columns fit 64 registers (4 blocks;
// 3 columns with one slab a turn, two spilled 12 to 44 bytes: 16384 x 3 x 16384 126.7 us,
// 131.0 spilled, 141.1 at 80 registers), 4 columns 80 (3 blocks: 149.1 us, 162.3 at 64
// registers spilling 40 to 84 bytes; 165.2 at 2 blocks).
__host__ __device__ constexpr int thin_column_blocks(int columns) { return columns <= 3 ? 4 : 3; }
__host__ __device__ constexpr int thin_column_unroll(int columns) { return columns == 3 ? 1 : 2; }

// n = N <= 4 (one column: a matrix-vector product): every element of A is read once for
// 2 N flops, so memory's rate is the whole story. A warp takes 4 rows as in the columns
// kernel, but B's N columns lie k rows of N elements in a row, so a lane's E steps of
// them are E N contiguous elements: it reads them, N chunks of 16 bytes (kept in L1 and
// L2: every warp reads them), as it reads A's (streamed), with no staging in shared
// memory and no barrier. Loads stay raw until the multiply (one column: 20 registers a
// slab), and the loop unrolled twice keeps two slabs in flight (3 columns: one, above).
// Napkin math (H200, bf16 16384 x N x 16384): 537 MB of A at ~4.2 TB/s (fp32's rate in
// the columns kernel), 128 us. Measured: 1 column 126.8 us (cuBLAS 126.4; staged like the
// columns kernel 231, read straight at 80 registers 198), 2 columns 125.0 (cuBLAS 174.4;
// the columns kernel 264.9), 3 126.7 (479.8), 4 149.1 (3.6 TB/s; cuBLAS 176.3).
template <matmul_precision P, int N>
__global__ void __launch_bounds__(THIN_THREADS, thin_column_blocks(N))
    matmul_thin_column_kernel(matmul_args p, bool vec_a, split_k_space space)
{
    constexpr int E = 16 / sizeof(thin_element<P>), SLAB = 32 * E, R = THIN_COLS_ROWS_WARP;
    const thin_element<P> *a = static_cast<const thin_element<P> *>(p.a);
    const thin_element<P> *b = static_cast<const thin_element<P> *>(p.b);
    const bool vec_b = ((size_t)b & 15) == 0;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = blockIdx.x * THIN_COLS_ROWS + warp * R;
    const slab_range range = split_k_slabs(ceil_div(p.k, SLAB), blockIdx.y, gridDim.y);
    float acc[R * N] = {};
#pragma unroll(thin_column_unroll(N))
    for (int s = range.first; s < range.end; s++) {
        const int l = s * SLAB + E * lane;
        thin_chunk<P> av[R], bv[N];
#pragma unroll
        for (int r = 0; r < R; r++)
            av[r] = load_chunk<P, THIN_STREAM>(a + (size_t)(row0 + r) * p.k + l,
                                               row0 + r < p.m ? p.k - l : 0, vec_a);
#pragma unroll
        for (int c = 0; c < N; c++)
            bv[c] =
                load_chunk<P, THIN_KEEP>(b + (size_t)l * N + c * E, (p.k - l) * N - c * E, vec_b);
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
            for (int e = 0; e < E; e++) {
                const float x = chunk_at<P>(av[r], e);
#pragma unroll
                for (int j = 0; j < N; j++)
                    acc[r * N + j] += x * chunk_at<P>(bv[(e * N + j) / E], (e * N + j) % E);
            }
    }
    cols_finish<R, N>(acc, p, space, row0, 0, N, lane);
}

// --- 5 to 16 columns in tf32, bf16 and fp16: the tensor cores ----------------------------

// A warp takes 16 rows of A (mma's m), a block 128; k goes in slabs of 256 (split-K's
// unit: a piece may be one slab), each of chunks of 64 bytes a row (32 16-bit elements:
// two mma of k = 16; 16 tf32 ones: two of k = 8), 4 chunks' loads issued at once; B is
// staged a window of chunks at a time (32 KB: 64 chunks of one group of 8 columns, 32 of
// two).
enum {
    THIN_MMA_ROWS = 16 * THIN_THREADS / 32,
    THIN_MMA_SPLIT_ROWS = 16, // the form with warps along k: one mma's m a block
    THIN_MMA_SLAB = 256,
    THIN_MMA_WINDOW = 64,
    THIN_MMA_UNROLL = 4,
};

// Blocks an SM the registers are capped for: 3 (80 registers) where A's rows lie on 16
// bytes, 4 (64) where they are loaded in shifted pairs (H200, 2026-11-30: 7777 x 8 x 7777
// bf16 65.2 us against 77.6 at 3, 65432 x 10 x 1234 fp16 83.0 against 119.8; aligned rows at
// 4 blocks spilled and ran up to a tenth slower, 16384 x 8 x 16384 fp16 167.5 against 148.8).
__host__ __device__ constexpr int thin_mma_blocks(bool aligned) { return aligned ? 3 : 4; }

// n = 5 .. 16 in bf16 or fp16: 2 n flops an element of A, too many for the CUDA cores'
// conversions (the column kernel at 8 columns, each of B's elements turned to a float once
// a row: 8192 x 8 x 8192 107 us, cuBLAS 41), so mma.sync m16n8k16 does the multiply-adds,
// a group of 8 columns (G of them) as its n. Lane (g, t) reads 16 bytes of rows g and g +
// 8 at k = 8 t .. 8 t + 7 of each chunk: a warp's 4 lanes a row read 64 contiguous bytes,
// and no element is converted or moved between lanes. mma wants a lane's registers at k =
// 2 t, 2 t + 1 and 2 t + 8, 2 t + 9; since a sum does not care in which order its k come,
// the kernel lets logical k 2 t + i stand for 8 t + i and 2 t + 8 + i for 8 t + 2 + i in
// the chunk's first mma (8 t + 4 .. 8 t + 7 in its second), and stages B in that order:
// lane (g, t)'s 16 bytes of a chunk are B's column g at k = 8 t .. 8 t + 7, gathered once a
// block (B is k rows of n elements: the column's values lie n apart).
// tf32 the same with 4 elements in 16 bytes: mma.sync m16n8k8 wants k = t and t + 4,
// which stand for 4 t and 4 t + 1 in the chunk's first mma (4 t + 2, 4 t + 3 in its
// second); B's 16 bytes of a chunk are its column g at k = 4 t .. 4 t + 3. Both operands
// are rounded to tf32 as the CUDA cores' kernels round them (4 instructions an element).
// Napkin math (H200, bf16 16384 x 8 x 16384): 537 MB of A at ~4.2 TB/s, 128 us; measured
// 149 (3.6 TB/s; cuBLAS 136, v9's tiles 159). The loads of 4 chunks go out before their
// first mma: one chunk at a time (two loads in flight a lane) ran at 2.2 TB/s. tf32 16384 x
// 8 x 16384: 1074 MB, 259 us (4.1 TB/s; cuBLAS 335, v9's tiles 257); 99999 x 16 x 3001,
// 1200 MB: 406 us (3.0 TB/s; cuBLAS 459, tiles 872; the CUDA cores' columns kernel 970).
// The k of a chunk: 64 bytes of a row, 16 of them a lane.
template <matmul_precision P> __host__ __device__ constexpr int thin_mma_chunk()
{
    return 64 / sizeof(thin_element<P>);
}

// A row's 16 bytes for the tensor-core kernel: rows on 16 bytes (V) one load; 16-bit
// elements otherwise two loads shifted together, floats one load each. A row of floats on
// 16 bytes holds whole chunks of 4, so `valid` is 4 or more, or none: one predicated load,
// no branch to a scalar tail (behind which the compiler rounded each chunk as it came,
// waiting for its load before the next went out: 4096 x 8 x 4096 50.2 us against 26.0).
template <matmul_precision P, bool V>
__device__ __forceinline__ uint4 load_row_chunk(const thin_element<P> *at, int valid)
{
    if constexpr (sizeof(thin_element<P>) == 4 && V)
        return valid > 0 ? __ldcs(reinterpret_cast<const uint4 *>(at)) : make_uint4(0, 0, 0, 0);
    else if constexpr (sizeof(thin_element<P>) == 4) {
        const float4 q = load_quad<P>(at, valid, false);
        return make_uint4(__float_as_uint(q.x), __float_as_uint(q.y), __float_as_uint(q.z),
                          __float_as_uint(q.w));
    } else if constexpr (V)
        return load_octet<THIN_STREAM>(at, valid, true);
    else
        return load_octet_shifted<THIN_STREAM>(at, valid);
}

// An mma operand as the tensor cores take it: tf32 rounded to nearest, 16-bit as it lies.
template <matmul_precision P> __device__ __forceinline__ unsigned mma_operand(unsigned raw)
{
    if constexpr (P == MATMUL_TF32)
        return __float_as_uint(round_to_tf32(__uint_as_float(raw)));
    else
        return raw;
}

// Lane (g, t)'s 16 bytes of B for a chunk and group of 8 columns: column col (8 h + g) at
// k0 .. k0 + 3 (tf32, rounded) or k0 .. k0 + 7 (16-bit, two a word, the lower k in the low
// half), k0 the chunk's k + E t; zeros outside B. B is k rows of n elements: a column's
// values lie n apart.
template <matmul_precision P>
__device__ __forceinline__ uint4 b_chunk(const thin_element<P> *b, int n, int k_end, int k0,
                                         int col)
{
    unsigned w[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if constexpr (P == MATMUL_TF32) {
            const int k = k0 + i;
            w[i] = col < n && k < k_end
                       ? mma_operand<P>(__float_as_uint(__ldg(b + (size_t)k * n + col)))
                       : 0u;
        } else {
            const int k = k0 + 2 * i;
            const unsigned lo = col < n && k < k_end ? __ldg(b + (size_t)k * n + col) : 0u;
            const unsigned hi =
                col < n && k + 1 < k_end ? __ldg(b + (size_t)(k + 1) * n + col) : 0u;
            w[i] = lo | hi << 16;
        }
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

// One chunk's multiply-adds for a group of 8 columns: rows g and g + 8's 16 bytes (lo, hi)
// against B's 16 bytes for the lane, two mma.sync in the k order described above.
template <matmul_precision P>
__device__ __forceinline__ void mma_chunk(float (&acc)[4], uint4 lo, uint4 hi, uint4 b)
{
    mma_16x8<P>(
        acc,
        {mma_operand<P>(lo.x), mma_operand<P>(hi.x), mma_operand<P>(lo.y), mma_operand<P>(hi.y)},
        {b.x, b.y});
    mma_16x8<P>(
        acc,
        {mma_operand<P>(lo.z), mma_operand<P>(hi.z), mma_operand<P>(lo.w), mma_operand<P>(hi.w)},
        {b.z, b.w});
}

// A lane's mma sums into C: acc[h] holds rows row and row + 8, columns 8 h + 2 t and 8 h +
// 2 t + 1.
template <int G>
__device__ __forceinline__ void mma_store(const float (&acc)[G][4], const matmul_args &p, int row,
                                          int t)
{
#pragma unroll
    for (int h = 0; h < G; h++)
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int r = row + 8 * (i / 2), col = 8 * h + 2 * t + i % 2;
            if (r < p.m && col < p.n)
                store_result(p.c, (size_t)r * p.n + col, acc[h][i], p.alpha, p.beta);
        }
}

template <matmul_precision P, int G, bool V>
__global__ void __launch_bounds__(THIN_THREADS, thin_mma_blocks(V))
    matmul_thin_mma_kernel(matmul_args p, split_k_space space)
{
    constexpr int CHUNK = thin_mma_chunk<P>(), E = CHUNK / 4, W = THIN_MMA_WINDOW / G,
                  CHUNKS = THIN_MMA_SLAB / CHUNK, U = THIN_MMA_UNROLL;
    __shared__ uint4 bw[W][G][32]; // B's window, a chunk's fragments by lane
    const thin_element<P> *a = static_cast<const thin_element<P> *>(p.a);
    const thin_element<P> *b = static_cast<const thin_element<P> *>(p.b);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int row = blockIdx.x * THIN_MMA_ROWS + warp * 16 + g;
    const thin_element<P> *a_lo = a + (size_t)row * p.k, *a_hi = a_lo + (size_t)8 * p.k;
    const int k_lo = row < p.m ? p.k : 0, k_hi = row + 8 < p.m ? p.k : 0;
    const slab_range range = split_k_slabs(ceil_div(p.k, THIN_MMA_SLAB), blockIdx.y, gridDim.y);
    const int last = min(range.end * CHUNKS, ceil_div(p.k, CHUNK));
    float acc[G][4] = {};
    for (int w0 = range.first * CHUNKS; w0 < last; w0 += W) {
        const int chunks = min(W, last - w0);
        __syncthreads(); // every warp is done with the last window
        for (int e = threadIdx.x; e < chunks * G * 32; e += THIN_THREADS) {
            const int l = e % 32, h = e / 32 % G, col = 8 * h + l / 4;
            const int k0 = (w0 + e / (32 * G)) * CHUNK + E * (l % 4);
            bw[e / (32 * G)][h][l] = b_chunk<P>(b, p.n, p.k, k0, col);
        }
        __syncthreads();
        // U chunks' loads issued before their first multiply: 4 KB of A in flight a warp
        for (int c0 = 0; c0 < chunks; c0 += U) {
            uint4 lo[U], hi[U];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int k = (w0 + c0 + u) * CHUNK + E * t;
                const bool in = c0 + u < chunks;
                lo[u] = load_row_chunk<P, V>(a_lo + k, in ? k_lo - k : 0);
                hi[u] = load_row_chunk<P, V>(a_hi + k, in ? k_hi - k : 0);
            }
#pragma unroll
            for (int u = 0; u < U; u++)
                if (c0 + u < chunks)
#pragma unroll
                    for (int h = 0; h < G; h++)
                        mma_chunk<P>(acc[h], lo[u], hi[u], bw[c0 + u][h][lane]);
        }
    }
    // The pieces of k added up (split-K's fixup), then stored.
    if (gridDim.y > 1 &&
        !split_k_fixup(reinterpret_cast<float(&)[4 * G]>(acc), space,
                       (long long)blockIdx.z * gridDim.x + blockIdx.x, blockIdx.y, gridDim.y,
                       THIN_THREADS, threadIdx.x, [] { __syncthreads(); }))
        return;
    mma_store<G>(acc, p, row, t);
}

// The same multiply-adds for a small A, whose 128-row blocks would leave most SMs idle
// and each warp a chain of waits (B staged, A's chunks 4 at a time, split-K's fixup): a
// block takes 16 rows, its 8 warps divide k (warp w chunks w, w + 8, ... of its piece),
// each reads B's fragments for its chunks straight from memory (small, so L1 and L2 hold
// it: no staging, no barrier), and warp 0 adds the warps' sums through shared memory.
template <matmul_precision P, int G, bool V>
__global__ void __launch_bounds__(THIN_THREADS, 2)
    matmul_thin_mma_split_kernel(matmul_args p, split_k_space space)
{
    constexpr int CHUNK = thin_mma_chunk<P>(), E = CHUNK / 4, CHUNKS = THIN_MMA_SLAB / CHUNK,
                  WARPS = THIN_THREADS / 32, U = 2;
    __shared__ float4 partial[WARPS - 1][G][32];
    const thin_element<P> *a = static_cast<const thin_element<P> *>(p.a);
    const thin_element<P> *b = static_cast<const thin_element<P> *>(p.b);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int row = blockIdx.x * THIN_MMA_SPLIT_ROWS + g;
    const thin_element<P> *a_lo = a + (size_t)row * p.k, *a_hi = a_lo + (size_t)8 * p.k;
    const int k_lo = row < p.m ? p.k : 0, k_hi = row + 8 < p.m ? p.k : 0;
    const slab_range range = split_k_slabs(ceil_div(p.k, THIN_MMA_SLAB), blockIdx.y, gridDim.y);
    const int last = min(range.end * CHUNKS, ceil_div(p.k, CHUNK));
    float acc[G][4] = {};
    for (int c0 = range.first * CHUNKS + warp; c0 < last; c0 += U * WARPS) {
        uint4 lo[U], hi[U], bv[U][G];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int c = c0 + u * WARPS, k = c * CHUNK + E * t;
            const bool in = c < last;
            lo[u] = load_row_chunk<P, V>(a_lo + k, in ? k_lo - k : 0);
            hi[u] = load_row_chunk<P, V>(a_hi + k, in ? k_hi - k : 0);
#pragma unroll
            for (int h = 0; h < G; h++)
                bv[u][h] = b_chunk<P>(b, p.n, in ? p.k : 0, k, 8 * h + g);
        }
#pragma unroll
        for (int u = 0; u < U; u++)
            if (c0 + u * WARPS < last)
#pragma unroll
                for (int h = 0; h < G; h++)
                    mma_chunk<P>(acc[h], lo[u], hi[u], bv[u][h]);
    }
    if (warp > 0)
#pragma unroll
        for (int h = 0; h < G; h++)
            partial[warp - 1][h][lane] = make_float4(acc[h][0], acc[h][1], acc[h][2], acc[h][3]);
    __syncthreads();
    if (warp > 0)
        return;
#pragma unroll
    for (int w = 0; w < WARPS - 1; w++)
#pragma unroll
        for (int h = 0; h < G; h++) {
            const float4 q = partial[w][h][lane];
            acc[h][0] += q.x, acc[h][1] += q.y, acc[h][2] += q.z, acc[h][3] += q.w;
        }
    if (gridDim.y > 1 && !split_k_fixup(reinterpret_cast<float(&)[4 * G]>(acc), space,
                                        (long long)blockIdx.z * gridDim.x + blockIdx.x, blockIdx.y,
                                        gridDim.y, 32, lane, [] { __syncwarp(); }))
        return;
    mma_store<G>(acc, p, row, t);
}

#endif

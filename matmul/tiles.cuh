// matmul's pieces that its kernel files (matmul.cu, wgmma.cu, thin_kernels.cuh) share:
// the tile a block computes, how a result is written with alpha and beta, split-K's
// fixup, the tensor-core launchers' choice of kernel by precision, and mma.sync (v8 and
// the thin path's columns in tf32, bf16 and fp16).
#ifndef MATMUL_TILES_CUH
#define MATMUL_TILES_CUH

#include <stddef.h>

#include "bulk_copy.cuh"
#include "check.h"
#include "dependent_launch.cuh"
#include "device.h"
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

// Four results at (row, col..col+3) of C: one 16-byte store (and load, for beta) when
// aligned and inside, else element by element.
__device__ __forceinline__ void store_four(const matmul_args &p, int row, int col, float4 sum,
                                           bool vec)
{
    if (row >= p.m)
        return;
    const size_t at = (size_t)row * p.n + col;
    if (vec && col + 3 < p.n) {
        float4 out =
            make_float4(p.alpha * sum.x, p.alpha * sum.y, p.alpha * sum.z, p.alpha * sum.w);
        if (p.beta != 0.0f) {
            const float4 old = *reinterpret_cast<const float4 *>(p.c + at);
            out.x += p.beta * old.x, out.y += p.beta * old.y;
            out.z += p.beta * old.z, out.w += p.beta * old.w;
        }
        *reinterpret_cast<float4 *>(p.c + at) = out;
        return;
    }
    const float s[4] = {sum.x, sum.y, sum.z, sum.w};
    for (int e = 0; e < 4 && col + e < p.n; e++)
        store_result(p.c, at + e, s[e], p.alpha, p.beta);
}

inline bool aligned16(const void *ptr) { return ((uintptr_t)ptr & 15u) == 0; }

// Rows of `cols` elements of `elem` bytes from an aligned base keep every 16-byte chunk aligned.
inline bool rows_vectorize(const void *base, int cols, size_t elem)
{
    return aligned16(base) && (cols * elem) % 16 == 0;
}

// The tensor-core epilogue (v8, v9): elements (row, col) and (row, col + 1) of C from a
// lane's pair of accumulators, col even (both kernels' fragments hold even-odd column
// pairs). When n is even the pair is one aligned float2; otherwise one at a time, the
// second only inside C. Outside C: nothing.
__device__ __forceinline__ void store_pair(const matmul_args &p, int row, int col, float s0,
                                           float s1)
{
    if (row >= p.m || col >= p.n)
        return;
    const size_t at = (size_t)row * p.n + col;
    if (p.n % 2 == 0) {
        float2 out = make_float2(p.alpha * s0, p.alpha * s1);
        if (p.beta != 0.0f) {
            const float2 old = *reinterpret_cast<const float2 *>(p.c + at);
            out.x += p.beta * old.x, out.y += p.beta * old.y;
        }
        *reinterpret_cast<float2 *>(p.c + at) = out;
        return;
    }
    store_result(p.c, at, s0, p.alpha, p.beta);
    if (col + 1 < p.n)
        store_result(p.c, at + 1, s1, p.alpha, p.beta);
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

// --- split-K: every SM busy when C has few tiles (the planner: matmul.h) ---------------

// A C of few tiles (a skinny one, 64 x 8192, or a small square) leaves most SMs idle while
// each of its tiles runs the whole of k. Split-K cuts k into pieces, a piece of a tile a
// block's work, and adds the pieces' sums: Osama, Merrill, Cecka, Garland and Owens's
// Stream-K (PPoPP 2023) is the same fixup with pieces of any length.

// The workspace split-K uses: ticket counters (zero between launches: the workspace
// arrives zeroed, and the last piece through each sets it back), a tile SPLIT_K_TICKETS of
// them, one a group of SPLIT_K_GROUP pieces and one for the groups; each piece's sums; and
// each group's. Sums are stored in the order of the threads' accumulators: float4 number
// i of thread t at i threads + t, so a warp's 16-byte stores and loads cover 512
// contiguous bytes and each thread reads back exactly the elements it holds.
enum { SPLIT_K_GROUP = 8, SPLIT_K_TICKETS = SPLIT_K_MAX / SPLIT_K_GROUP + 1 };

struct split_k_space {
    unsigned *tickets;
    float4 *pieces, *groups;
};

// The current GPU's SMs, for the planner.
inline int sm_count(void)
{
    int device, sms;
    CL_CUDA_CHECK(cudaGetDevice(&device));
    CL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
}

// Each piece of the workspace (split-K's tickets and sums, a padded operand) starts on 256
// bytes.
inline size_t workspace_round(size_t bytes) { return (bytes + 255) / 256 * 256; }

inline size_t split_k_bytes(long long tiles, int splits, int threads, int accumulators)
{
    if (splits == 1)
        return 0;
    const size_t piece = (size_t)threads * accumulators * sizeof(float);
    const int groups = splits > SPLIT_K_GROUP ? (splits + SPLIT_K_GROUP - 1) / SPLIT_K_GROUP : 0;
    return workspace_round((size_t)tiles * SPLIT_K_TICKETS * sizeof(unsigned)) +
           workspace_round((size_t)tiles * splits * piece) + (size_t)tiles * groups * piece;
}

inline split_k_space split_k_carve(void *workspace, long long tiles, int splits, int threads,
                                   int accumulators)
{
    unsigned char *w = (unsigned char *)workspace;
    const size_t piece = (size_t)threads * accumulators * sizeof(float);
    const size_t tickets = workspace_round((size_t)tiles * SPLIT_K_TICKETS * sizeof(unsigned));
    return {(unsigned *)w, (float4 *)(w + tickets),
            (float4 *)(w + tickets + workspace_round((size_t)tiles * splits * piece))};
}

// acc = the sum of `count` pieces' sums from `from` on, in piece order, read back from L2
// CHUNK float4s of every piece at a time: a chunk's loads are independent, so a thread
// has 16 in flight at once (one at a time, each waiting out L2's latency, bf16 1024^3
// took 47 us instead of 20).
template <int N>
__device__ __forceinline__ void split_k_sum(float (&acc)[N], const float4 *from, int count,
                                            size_t piece_stride, int threads)
{
    constexpr int CHUNK = N / 4 < 16 ? N / 4 : 16;
    constexpr int PIECES_AT_ONCE = 16 / CHUNK; // a few pieces' loads in flight when N is small
    static_assert(N / 4 % CHUNK == 0, "whole chunks");
#pragma unroll
    for (int c = 0; c < N / 4; c += CHUNK) {
#pragma unroll
        for (int i = c; i < c + CHUNK; i++)
            acc[4 * i] = acc[4 * i + 1] = acc[4 * i + 2] = acc[4 * i + 3] = 0.0f;
#pragma unroll PIECES_AT_ONCE
        for (int piece = 0; piece < count; piece++) {
#pragma unroll
            for (int i = c; i < c + CHUNK; i++) {
                const float4 v = __ldcg(from + piece * piece_stride + i * threads);
                acc[4 * i] += v.x, acc[4 * i + 1] += v.y, acc[4 * i + 2] += v.z,
                    acc[4 * i + 3] += v.w;
            }
        }
    }
}

// The thread's sums to `to`, made visible device-wide, then a ticket from `ticket` (an
// atomic counter, so no block waits for another): true for the last of `count` to come.
template <int N, class Barrier>
__device__ __forceinline__ bool split_k_hand_in(const float (&acc)[N], float4 *to, int threads,
                                                unsigned *ticket, int count, int thread,
                                                Barrier barrier)
{
    __shared__ unsigned last;
#pragma unroll
    for (int i = 0; i < N / 4; i++)
        __stcg(to + i * threads,
               make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]));
    __threadfence(); // the sums are visible device-wide before the ticket says so
    barrier();
    if (thread == 0)
        last = atomicAdd(ticket, 1u) == (unsigned)count - 1;
    barrier();
    const bool mine = last;
    if (mine)
        __threadfence(); // and the others' sums are read after it
    return mine;
}

// A piece of a tile is done: its sums (acc, N a thread, `threads` threads numbered
// `thread` taking part, synchronised by `barrier`) go to the workspace. The last piece of
// its group of 8 to finish adds the group's pieces; with more than one group, the group's
// sum goes to the workspace too and the last group to finish adds the groups. Every
// other block returns false; that last one gets true with acc holding the tile's sum,
// added in piece order whichever finished last (the result does not change from run to
// run). Two levels, so no block reads back more than 8 pieces (64 pieces in one level
// took one block 64 tiles' worth of reads while the rest of the GPU waited).
template <int N, class Barrier>
__device__ __forceinline__ bool split_k_fixup(float (&acc)[N], split_k_space w, long long tile,
                                              int split, int splits, int threads, int thread,
                                              Barrier barrier)
{
    static_assert(N % 4 == 0, "accumulators in float4s");
    const size_t piece_stride = (size_t)threads * (N / 4); // float4s a piece
    const int group = split / SPLIT_K_GROUP, first = group * SPLIT_K_GROUP;
    const int groups = (splits + SPLIT_K_GROUP - 1) / SPLIT_K_GROUP;
    const int in_group = min((int)SPLIT_K_GROUP, splits - first);
    unsigned *const tickets = w.tickets + tile * SPLIT_K_TICKETS;
    float4 *const pieces = w.pieces + (size_t)tile * splits * piece_stride + thread;
    if (!split_k_hand_in(acc, pieces + split * piece_stride, threads, &tickets[group], in_group,
                         thread, barrier))
        return false;
    split_k_sum(acc, pieces + first * piece_stride, in_group, piece_stride, threads);
    if (thread == 0)
        tickets[group] = 0; // for the next launch
    if (groups == 1)
        return true;
    float4 *const sums = w.groups + (size_t)tile * groups * piece_stride + thread;
    if (!split_k_hand_in(acc, sums + group * piece_stride, threads, &tickets[SPLIT_K_TICKETS - 1],
                         groups, thread, barrier))
        return false;
    split_k_sum(acc, sums, groups, piece_stride, threads);
    if (thread == 0)
        tickets[SPLIT_K_TICKETS - 1] = 0;
    return true;
}

// --- operands: rows a whole number of 16-byte chunks -----------------------------------

// An operand as a tiled kernel reads it: rows `pitch` elements apart; vec when every
// 16-byte chunk of a row starts aligned (one 16-byte copy a chunk; otherwise an element
// at a time).
struct operand {
    const void *base;
    int pitch;
    bool vec;
};

// CUDA's limit on grid.y (and z): the copies below loop over what is past it.
constexpr unsigned MAX_GRID_Y = 65535;

// Bytes of a row of `cols` elements padded to whole chunks of `chunk` bytes (16: a vector
// load's; v9 pads to 128, a TMA box row's).
inline size_t padded_row(int cols, size_t elem, size_t chunk = 16)
{
    return ((size_t)cols * elem + chunk - 1) / chunk * chunk;
}

// A matrix of rows x cols elements (packed) to copy into rows pitch_bytes apart (a
// multiple of 16), each row's tail past cols zeroed.
struct pad_job {
    const void *src;
    int rows, cols;
    void *dst;
    size_t pitch_bytes;
};

// Row `row` of a pad_job, a thread a 16-byte chunk of it (chunk), one store from 16 /
// sizeof(T) loads; a warp's loads cover 512 contiguous bytes of the source row, so both
// sides coalesce: 2 rows cols sizeof(T) bytes of traffic. (A thread an element, as this
// copy first was, spent 0.16 ms on 4095^3 bf16's 134 MB: ~0.8 TB/s.) T is uint4 where the
// source's rows are whole chunks (cols then counts chunks).
template <class T>
__device__ __forceinline__ void pad_chunk(const T *src, int cols, uint4 *dst, int chunks, int row,
                                          int chunk)
{
    constexpr int per_chunk = 16 / sizeof(T);
    const int col0 = chunk * per_chunk;
    union {
        T e[per_chunk];
        uint4 v;
    } out;
    const T *from = src + (size_t)row * cols + col0;
#pragma unroll
    for (int e = 0; e < per_chunk; e++)
        out.e[e] = col0 + e < cols ? from[e] : T{};
    dst[(size_t)row * chunks + chunk] = out.v;
}

// The rows of a pad_job a block copies together: one where a row has as many chunks as the
// block has threads or more, else as many whole rows as its threads cover (500 fp16
// elements: 63 chunks, 4 rows), so short rows do not leave most threads idle.
__host__ __device__ inline int pad_rows_a_block(int chunks, int threads)
{
    return chunks >= threads ? 1 : threads / chunks;
}

// Both operands' copies in one launch (blockIdx.z: which), elements of type T: a launch
// costs ~2.5 us where the copies are small (H200, two launches against one: 500 x 500 x
// 500 fp16 12.9 -> 10.4 us, 250 x 250 x 250 13.5 -> 9.8, 301 x 301 x 301 tf32 13.9 ->
// 11.6). v9 launches its product as a dependent of this kernel (dependent_launch.cuh).
template <class T> __global__ void pad_rows_kernel(pad_job first, pad_job second)
{
    let_next_grid_launch();
    const pad_job job = blockIdx.z == 0 ? first : second;
    const int chunks = (int)(job.pitch_bytes / 16);
    const int rows_a_block = pad_rows_a_block(chunks, blockDim.x);
    const int chunk =
        rows_a_block == 1 ? blockIdx.x * blockDim.x + threadIdx.x : threadIdx.x % chunks;
    const int row0 = rows_a_block == 1 ? 0 : threadIdx.x / chunks;
    if (chunk >= chunks || row0 >= rows_a_block || (rows_a_block > 1 && blockIdx.x > 0))
        return;
    const bool whole_chunks = (size_t)job.cols * sizeof(T) % 16 == 0;
    for (int row = blockIdx.y * rows_a_block + row0; row < job.rows;
         row += gridDim.y * rows_a_block) {
        if (whole_chunks)
            pad_chunk((const uint4 *)job.src, (int)((size_t)job.cols * sizeof(T) / 16),
                      (uint4 *)job.dst, chunks, row, chunk);
        else
            pad_chunk((const T *)job.src, job.cols, (uint4 *)job.dst, chunks, row, chunk);
    }
}

// The copies of `count` (1 or 2) pad_jobs of elements of `elem` bytes (4: fp32 and tf32;
// 2: bf16 and fp16), one launch.
inline void pad_rows(const pad_job *jobs, int count, size_t elem, cudaStream_t s)
{
    enum { THREADS = 256 };
    size_t blocks_x = 0, blocks_y = 0;
    for (int i = 0; i < count; i++) {
        const size_t chunks = jobs[i].pitch_bytes / 16;
        const int rows_a_block = pad_rows_a_block((int)chunks, THREADS);
        const size_t x = rows_a_block == 1 ? cl_ceil_div(chunks, THREADS) : 1;
        const size_t y = cl_ceil_div(jobs[i].rows, rows_a_block);
        blocks_x = x > blocks_x ? x : blocks_x;
        blocks_y = y > blocks_y ? y : blocks_y;
    }
    const dim3 grid(cl_grid_blocks(blocks_x * THREADS, THREADS, "the copy into padded rows"),
                    blocks_y < MAX_GRID_Y ? (unsigned)blocks_y : MAX_GRID_Y, count);
    const pad_job second = count > 1 ? jobs[1] : jobs[0];
    if (elem == 4)
        pad_rows_kernel<float><<<grid, THREADS, 0, s>>>(jobs[0], second);
    else
        pad_rows_kernel<unsigned short><<<grid, THREADS, 0, s>>>(jobs[0], second);
    CL_LAUNCH_CHECK();
}

// A and B, each where its destination is given (NULL: read in place), into rows a_pitch
// and b_pitch bytes apart: one launch for both.
inline void pad_operands(const matmul_args *p, size_t elem, void *a_dst, size_t a_pitch,
                         void *b_dst, size_t b_pitch, cudaStream_t s)
{
    pad_job jobs[2];
    int count = 0;
    if (a_dst)
        jobs[count++] = {p->a, p->m, p->k, a_dst, a_pitch};
    if (b_dst)
        jobs[count++] = {p->b, p->k, p->n, b_dst, b_pitch};
    if (count)
        pad_rows(jobs, count, elem, s);
}

// v5 to v8 read an operand whose rows are not whole 16-byte chunks (A when k is not a
// multiple of 4 floats or 8 halves, B when n is not) an element at a time: 4x the copy
// instructions, 8x for 16-bit elements (synchronous: cp.async moves 4 bytes at least),
// and each warp's requests spread over more 32-byte sectors. 4097^3 fp32 on an H200: v6
// 4.42 ms, 4096^3 3.75 (TFLOPS 15% lower). Copying the operand into padded rows first
// costs reading and writing it once, ~2.7 ps an fp32 element at 3 TB/s, where each
// element of A is used by n multiply-adds (of B by m) and the element-wise copy costs
// each ~7% more (half the 15%): ~0.004 ps a multiply-add at 36 TFLOPS, so the copy pays
// from ~650 on: taken from PAD_PAYS_FROM on, with margin. And a copy is a launch, a few us
// (fp32 3370 x 1 x 1: 7.3 us in place, 11.0 with B copied; 354 x 1220 x 2: 8.4, 11.0), so
// only where 7% of the multiply-adds' time is more: m n k at least PAD_MIN_WORK (~60 us).
enum { PAD_PAYS_FROM = 1024 };
constexpr double PAD_MIN_WORK = 1 << 30;
struct tiled_operands {
    operand a, b;
    size_t a_bytes, b_bytes; // workspace each copy takes (0: read in place)
    size_t bytes() const { return a_bytes + b_bytes; } // the copies', from the workspace's start
};

// The plan for A and B: where each copy pays, into the workspace's start (A, then B). A
// kernel that reads A a float at a time (v6: it transposes A) leaves a_in_chunks false.
inline tiled_operands plan_operands(const matmul_args *p, size_t elem, bool a_in_chunks)
{
    tiled_operands o = {{p->a, p->k, rows_vectorize(p->a, p->k, elem)},
                        {p->b, p->n, rows_vectorize(p->b, p->n, elem)},
                        0,
                        0};
    const bool large = (double)p->m * p->n * p->k >= PAD_MIN_WORK;
    if (a_in_chunks && !o.a.vec && p->n >= PAD_PAYS_FROM && large) {
        o.a = {NULL, (int)(padded_row(p->k, elem) / elem), true}; // base: place_operands
        o.a_bytes = workspace_round(padded_row(p->k, elem) * p->m);
    }
    if (!o.b.vec && p->m >= PAD_PAYS_FROM && large) {
        o.b = {NULL, (int)(padded_row(p->n, elem) / elem), true};
        o.b_bytes = workspace_round(padded_row(p->n, elem) * p->k);
    }
    return o;
}

// The plan's copies, launched on s (part of the version's time): the operands to read.
inline tiled_operands place_operands(const matmul_args *p, size_t elem, bool a_in_chunks,
                                     cudaStream_t s)
{
    tiled_operands o = plan_operands(p, elem, a_in_chunks);
    if (o.bytes() > p->workspace_bytes)
        cl_die(CL_EXIT_CUDA,
               "the copy into padded rows needs %zu bytes of workspace, was given %zu", o.bytes(),
               p->workspace_bytes);
    unsigned char *w = (unsigned char *)p->workspace;
    if (o.a_bytes)
        o.a.base = w;
    if (o.b_bytes)
        o.b.base = w + o.a_bytes;
    pad_operands(p, elem, o.a_bytes ? w : NULL, (size_t)o.a.pitch * elem,
                 o.b_bytes ? w + o.a_bytes : NULL, (size_t)o.b.pitch * elem, s);
    return o;
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

// One warp-wide tensor-core multiply-add, d += a * b: m16n8k16 for bf16/fp16, m16n8k8
// for tf32 (4 A registers, 2 B registers, 4 fp32 accumulators a lane).
template <matmul_precision P>
__device__ __forceinline__ void mma_16x8(float (&d)[4], const unsigned (&a)[4],
                                         const unsigned (&b)[2])
{
#if !CL_SM80
    __trap();
#else
    if constexpr (P == MATMUL_BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else if constexpr (P == MATMUL_FP16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

#endif

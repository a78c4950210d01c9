// matmul: C = alpha*A*B + beta*C, row-major. The C interface between main.c, gold.c
// and the kernels (matmul.cu, yours.cu).
#ifndef MATMUL_H
#define MATMUL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "cli.h"
#include "verify.h"

// Functions both the host and the kernels use (inline, below).
#ifdef __CUDACC__
#define MATMUL_HOST_DEVICE __host__ __device__
#else
#define MATMUL_HOST_DEVICE
#endif

#ifdef __cplusplus
extern "C" {
#endif

// The inputs' number format. fp32 runs on the CUDA cores; tf32, bf16 and fp16 on the
// tensor cores, which multiply the rounded inputs exactly and add in fp32. C is fp32
// always. A and B are stored as float for fp32 and tf32 (the tensor cores read a
// float's top 19 bits), as 16-bit words for bf16 and fp16.
typedef enum {
    MATMUL_FP32,
    MATMUL_TF32,
    MATMUL_BF16,
    MATMUL_FP16,
    MATMUL_PRECISIONS
} matmul_precision;

extern const char *const matmul_precision_names[]; // "fp32", ..., NULL

// Bytes an element of A or B takes in memory.
static inline size_t matmul_element_bytes(matmul_precision p)
{
    return p == MATMUL_BF16 || p == MATMUL_FP16 ? 2 : 4;
}

// One multiply: A is m x k, B is k x n, C is m x n, each row-major and packed (a row of
// A holds k elements, of B and C n). Device pointers.
typedef struct {
    int m, n, k;
    float alpha, beta; // beta == 0: C is written without being read
    matmul_precision precision;
    const void *a, *b;
    float *c;
    void *workspace; // device scratch for the versions that need some (their `workspace`):
                     // zeroed before a version's first launch; it leaves its counters zero
    size_t workspace_bytes;
} matmul_args;

typedef void (*matmul_launcher)(const matmul_args *args, cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    matmul_launcher launch;
    unsigned precisions; // bit p set: runs precision p
    struct {
        int m, n; // the piece of C a block computes (0 x 0: not known, as for yours)
    } tile;
    // Device bytes of scratch the version needs for these sizes (NULL: none).
    size_t (*workspace)(const matmul_args *args);
    bool hopper_only; // sm_90a code: runs where matmul_hopper_refusal finds nothing to say
    // tf32: the tensor cores are handed raw floats and use their top 19 bits (truncation
    // toward zero, a bias of its own in the allowed error); false: rounded to nearest first.
    bool tf32_truncates;
} matmul_version;

#define MATMUL_BIT(p) (1u << (p))
#define MATMUL_TENSOR_PRECISIONS                                                                   \
    (MATMUL_BIT(MATMUL_TF32) | MATMUL_BIT(MATMUL_BF16) | MATMUL_BIT(MATMUL_FP16))

extern const matmul_version matmul_versions[];
extern const int matmul_version_count;
extern const char matmul_fastest_version[];         // the default for fp32
extern const char matmul_fastest_tensor_version[];  // the default for the tensor-core precisions
extern const char matmul_portable_tensor_version[]; // ... where that one cannot run

// matmul.cu: v8 (mma.sync), which v9 takes for a short k.
void matmul_launch_v8(const matmul_args *args, cudaStream_t stream);
size_t matmul_v8_workspace(const matmul_args *args);

// wgmma.cu: v9, Hopper's TMA + wgmma kernel (sm_90a). matmul_v9_built: this build
// compiled it (the build included sm_90); otherwise its kernel is empty.
extern const bool matmul_v9_built;
enum { MATMUL_V9_TILE_M = 128, MATMUL_V9_TILE_N = 256 };
void matmul_launch_v9(const matmul_args *args, cudaStream_t stream);
size_t matmul_v9_workspace(const matmul_args *args);

// thin.cu: the thin paths for a C of few rows or few columns (the long operand streamed
// once by the CUDA cores), which v6 and v9 take where matmul_thin_rule says so.
typedef enum { MATMUL_THIN_NONE, MATMUL_THIN_ROWS, MATMUL_THIN_COLS } matmul_thin_side;
enum { MATMUL_THIN_GROUP = 16 }; // rows (columns) of C a thread's accumulators cover at most

// Which path a shape takes, from the H200's sweep against the tiled versions. fp32 (v6):
// m <= 32 for rows; n <= 16 for columns at any k (2026-11-30, thin against tiled: 99999 x 8
// x 500 76 us, 181; 29999 x 16 x 777 74, 99; 9999 x 12 x 300 19, 25; 1111 x 5 x 300 8, 14;
// every one of 46 shapes of 5 .. 16 columns, k 300 .. 16384, ran faster thin; the rule
// before took the tiles below k = 1024). Past
// those v6's smaller tiles win: 64 x 4096 x 4096 86 us in 64 x 128 tiles, 152 thin; 4096 x
// 32 x 4096 82 us in 256 x 64 tiles, 105 thin. At 32 rows they tie (32 x 4096 x 4096: 85
// tiled, 89 thin; the tile is half padding), at 16 the thin path wins (16 x 4096 x 4096:
// 59 thin, 85 tiled; 4096 x 16 x 4096: 64 thin, 82 tiled). bf16 and fp16 (v9), whose tiles
// do the multiply-adds 16 times faster: rows for m <= 8 where B has at most 2^23
// elements. Past that the tiles won: 16 x 4096 x 4096 bf16 71 us thin, 28 tiled, and 1 x
// 8192 x 8192 bf16 128 us thin, 102 tiled (ncu: DRAM 20% busy, warps waiting on their
// loads: too few bytes in flight); below it the thin path won (8 x 1319 x 41: 9 us thin,
// 26 tiled). Rows 9 .. 16 take the thin path's 16-row kernel at twice 8 rows' work: 9 x
// 1968 x 430 bf16 19 us thin, 12 tiled; 16 x 4740 x 814 24 and 18 (2026-11-29). Columns
// (2026-11-30, H200, thin.cu's column kernel to 4 and tensor-core kernel from 5): up to
// 12 at any size, 13 .. 16 for an A of at most 2^25 elements (thin against tiled: 12345 x
// 8 x 6789 bf16 90 us, 154; 100000 x 12 x 500 62, 94; 65432 x 10 x 1234 fp16 83, 141;
// 2668 x 15 x 2289 19, 24; but 8192 x 16 x 8192 49, 43; 16384 x 16 x 16384 fp16 152, 137;
// 20000 x 13 x 3000 fp16 47, 48). tf32's columns 5 .. 16 take the thin path
// (2026-11-30, H200, 134 shapes of 5 .. 16 columns, m 100 .. 99999, k 300 .. 16384;
// thin.cu's tensor-core kernel; thin against tiled: 99999 x 16 x 3001 406 us, 872; 16384 x 16 x
// 16383 344, 762; 9999 x 10 x 777 19, 40; 4096 x 16 x 4096 26, 32; 300 x 12 x 300 7.9, 12.2; 16384
// x 8 x 16384 259, 257) but at 9 .. 16 columns past 2^25 elements of A whose rows lie on 16 bytes,
// where the tiles read A as it lies at its full rate (8192 x 16 x 8192 84, 78; 16384 x 12 x 16384
// 271, 262). Elsewhere the tiles won only at k = 300 and m of 3000 to 10000, by up to 1.6 us (2999
// x 16 x 300 10.8, 9.2; 9999 x 16 x 300 13.2, 11.7). tf32 (2026-11-29, v9's tiles of C^T): rows for
// m <= 16 only where B's rows are not whole 16-byte chunks (n % 4 != 0), which v9's tiles would
// first copy (5 x 7659 x 2319: 60 us thin, 72 tiled; 1 x 565 x 7040: 19, 26); with B as it lies the
// tiles won at every size tried (16 x 8192 x 8192: 229 thin, 73 tiled; 9 x 1968 x 430: 19, 13; 1 x
// 4096 x 4096: 29, 25). Up to 4 columns (the CUDA cores) for an A of at most 2^23 elements, and
// where A's rows are not whole chunks (k % 4 != 0: 5566 x 1 x 1166 19 thin, 35 tiled); past that
// the tiles won (16384 x 1 x 16384: 342, 279; 8192 x 1 x 8192: 113, 84). Where both sides are thin
// the longer operand is the one streamed. Up to 4 columns have a kernel of their own (thin.cu); for
// one column it changed the count (2026-11-30, H200, thin against tiled): fp32 takes it at every k
// (2500 x 1 x 333 6.2 us, 20.6; 50000 x 1 x 333 22.6, 84.9; 961 x 1 x 55 5.0, 10.0); tf32 for an A
// of at most 2^27 elements (3000 x 1 x 3000 19.8, 31.4; 4096 x 1 x 4096 26.3, 36.6; 8192 x 1 x
// 8192 80.4, 84.8; 2500 x 1 x 25000 90.3, 100.1), past which tf32's rounding of every element cost
// more than the tiles (16384 x 1 x 16384 293, 273; 50000 x 1 x 7000 398, 362).
static inline matmul_thin_side matmul_thin_rule(matmul_precision precision, long long m,
                                                long long n, long long k)
{
    const long long a_size = m * k, b_size = k * n;
    bool rows, cols;
    switch (precision) {
    case MATMUL_FP32:
        rows = m <= 2 * MATMUL_THIN_GROUP;
        cols = n <= MATMUL_THIN_GROUP;
        break;
    case MATMUL_TF32:
        rows = m <= MATMUL_THIN_GROUP && n % 4 != 0;
        cols = n <= MATMUL_THIN_GROUP &&
               (k % 4 != 0 || (n > 4 ? n <= 8 || a_size <= 1LL << 25
                                     : a_size <= 1LL << 23 || (n == 1 && a_size <= 1LL << 27)));
        break;
    default:
        rows = m <= MATMUL_THIN_GROUP / 2 && b_size <= 1LL << 23;
        cols = n <= 12 || (n <= MATMUL_THIN_GROUP && a_size <= 1LL << 25);
    }
    if (rows && (!cols || n >= m))
        return MATMUL_THIN_ROWS;
    return cols ? MATMUL_THIN_COLS : MATMUL_THIN_NONE;
}
bool matmul_thin_taken(const matmul_args *args);
size_t matmul_thin_workspace(const matmul_args *args);
void matmul_thin_launch(const matmul_args *args, cudaStream_t stream);

// yours.cu: the learner's version, listed last as "yours", and the precisions it takes
// (MATMUL_BIT(p) set: it runs precision p; fp32 as it comes).
extern const char matmul_yours_idea[];
extern const unsigned matmul_yours_precisions;
void matmul_yours(const matmul_args *args, cudaStream_t stream);

// The peer: cublasSgemm (fp32) or cublasGemmEx (tf32, bf16, fp16 in; fp32 out and
// accumulation), given the transposed column-major problem so no copy is made.
typedef struct matmul_peer matmul_peer;
matmul_peer *matmul_peer_create(void);
const char *matmul_peer_name(matmul_precision p);
void matmul_peer_run(matmul_peer *peer, const matmul_args *args);
void matmul_peer_destroy(matmul_peer *peer);

// --- split-K: every SM busy when C has few tiles (the planner; the fixup in tiles.cuh) ---

enum {
    SPLIT_K_MAX = 64,
    // The fixup's cost in slabs of k: a piece writes its sums (a tile's worth of floats)
    // and the last one reads the others' back, about the bytes of 4 slabs of A and B.
    SPLIT_K_FIXUP_SLABS = 4,
};

// The pieces that cutting `slabs` slabs of k into at most `splits` equal ones makes (each
// ceil(slabs / splits) long): fewer than `splits` where the last would be empty.
static inline int split_k_pieces(int slabs, int splits)
{
    const int per = (slabs + splits - 1) / splits;
    return (slabs + per - 1) / per;
}

// A tile shape a planner may choose: the tile's sides, the blocks an SM holds at once, the
// cost of split-K's fixup in slabs, and the time of a slab (each block multiplying one k-slab of
// its tile) with one block an SM (alone) and with blocks_per_sm of them (full), relative to one
// block of the largest shape alone: a smaller tile alone does fewer multiply-adds but uses less of
// the SM.
typedef struct {
    int tile_m, tile_n, blocks_per_sm, fixup;
    double alone, full;
} matmul_tile_shape;

// v6's shapes, X(rows a thread, warps across, alone, full): a thread holds rows x 8 results,
// a warp 4 rows of lanes x 8 (4 rows x 64 columns), the 8 warps (8 / across) x across
// (matmul.cu's v6_shape): 256 x 128, 128 x 128, 64 x 128, 256 x 64. 16 rows a thread take
// ~240 registers (one block an SM), 8 about half (two), 4 three. The slab times, H200
// (2026-11-29): 128 x 128 alone 0.59 (128 x 128 x 65536 in 64 pieces: 0.158 ms to 256 x
// 128's 0.267), two an SM 1.02 (4096^3: 3.88 ms to 3.80); 64 x 128 alone 0.40 (0.107 ms),
// three 0.86 (128 x 8192 x 8192 in one wave of 384: 0.572 ms to 256 x 128's 0.971 in
// 128). 256 x 64 is taken to be 128 x 128's until measured.
#define MATMUL_V6_SHAPES(X)                                                                        \
    X(16, 2, 1.0, 1.0) X(8, 2, 0.59, 1.02) X(4, 2, 0.40, 0.86) X(8, 1, 0.59, 1.02)
#define MATMUL_V6_THREADS 256
#define MATMUL_V6_TILE_M(rows, across) (MATMUL_V6_THREADS / 32 / (across)*4 * (rows))
#define MATMUL_V6_TILE_N(across) (64 * (across))
#define MATMUL_V6_BLOCKS_PER_SM(rows) ((rows) >= 16 ? 1 : (rows) >= 8 ? 2 : 3)
#define MATMUL_V6_SHAPE_ENTRY(rows, across, alone, full)                                           \
    {MATMUL_V6_TILE_M(rows, across),                                                               \
     MATMUL_V6_TILE_N(across),                                                                     \
     MATMUL_V6_BLOCKS_PER_SM(rows),                                                                \
     SPLIT_K_FIXUP_SLABS,                                                                          \
     alone,                                                                                        \
     full},
static const matmul_tile_shape matmul_v6_shapes[] = {MATMUL_V6_SHAPES(MATMUL_V6_SHAPE_ENTRY)};
enum { MATMUL_V6_SHAPE_COUNT = sizeof matmul_v6_shapes / sizeof matmul_v6_shapes[0] };

// v9's shapes, X(rows, columns, slab time 16-bit, slab time tf32): one block an SM (its
// stages take the shared memory), so alone and full are one. 128-row tiles give each
// consumer warpgroup 64 rows, 64-row tiles half the columns each; a consumer's wgmma is 64
// x (its columns) x 16 (tf32: 8; tf32's tiles are of C^T). The slab times, H200, each
// shape forced (CUDALAB_V9_TILE) at 8192 x 8192 x 4096: time / (waves x slabs a tile)
// against 128 x 256's, bf16 0.71 us (2026-11-29), tf32 0.69 us (2026-11-29, B^T's
// fragments loaded from shared memory by the consumers, 16 KB a slab more of its
// traffic: the narrower tiles, whose wgmma read less a slab, lose more to it).
// The fixup: a piece's 128 KB of sums (128 x 256 floats) written and read back takes ~8
// of those slabs at an SM's share of the memory's rate (~3.5 TB/s / 132); smaller tiles
// move fewer bytes and have shorter slabs, the same count.
#define MATMUL_V9_SHAPES(X)                                                                        \
    X(128, 256, 1.0, 1.0)                                                                          \
    X(128, 128, 0.52, 0.63) X(128, 64, 0.45, 0.47) X(64, 256, 0.58, 0.61) X(64, 128, 0.35, 0.42)
enum { MATMUL_V9_FIXUP_SLABS = 8 };
#define MATMUL_V9_SHAPE_ENTRY(rows, columns, time, tf32_time)                                      \
    {rows, columns, 1, MATMUL_V9_FIXUP_SLABS, time, time},
#define MATMUL_V9_TF32_SHAPE_ENTRY(rows, columns, time, tf32_time)                                 \
    {rows, columns, 1, MATMUL_V9_FIXUP_SLABS, tf32_time, tf32_time},
static const matmul_tile_shape matmul_v9_shapes[] = {MATMUL_V9_SHAPES(MATMUL_V9_SHAPE_ENTRY)};
static const matmul_tile_shape matmul_v9_tf32_shapes[] = {
    MATMUL_V9_SHAPES(MATMUL_V9_TF32_SHAPE_ENTRY)};
enum { MATMUL_V9_SHAPE_COUNT = sizeof matmul_v9_shapes / sizeof matmul_v9_shapes[0] };

// The time of `tiles` tiles of shape s, each tile's `slabs` slabs of k cut into `splits`
// pieces, on `sms` SMs, in the largest shape's slabs: the full waves (every SM holding
// blocks_per_sm blocks) at s->full each, the last at the time of the blocks an SM it
// leaves (between alone and full), times the slabs a piece plus the fixup's.
static inline double matmul_tile_time(const matmul_tile_shape *s, long long tiles, int slabs,
                                      int sms, int splits)
{
    const long long blocks = tiles * splits, slots = (long long)sms * s->blocks_per_sm;
    double waves = (double)(blocks / slots) * s->full;
    const long long rest = blocks % slots;
    if (rest > 0) {
        const long long on_an_sm = (rest + sms - 1) / sms; // 1 .. blocks_per_sm
        waves += s->blocks_per_sm == 1 ? s->full
                                       : s->alone + (s->full - s->alone) * (double)(on_an_sm - 1) /
                                                        (s->blocks_per_sm - 1);
    }
    const int per = (slabs + splits - 1) / splits + (splits > 1 ? s->fixup : 0);
    return waves * per;
}

// The shape (an index into shapes) and pieces of k an m x n C with `slabs` slabs of k
// finishes soonest with on `sms` SMs (matmul_tile_time); of equal times the first shape and
// the fewest pieces. A C of few tiles takes smaller ones that fill the SMs (128 x 8192 x
// 8192: a 256 x 128 tile is half padding) where a large C keeps the largest (4096^3: 512
// tiles, 4 waves either way, and the largest does the most a load).
typedef struct {
    int shape, splits;
} matmul_tile_plan;
static inline matmul_tile_plan matmul_plan_tiles(const matmul_tile_shape *shapes, int count,
                                                 long long m, long long n, int slabs, int sms)
{
    matmul_tile_plan best = {0, 1};
    double best_time = -1.0;
    for (int i = 0; i < count; i++) {
        const matmul_tile_shape *s = &shapes[i];
        const long long tiles =
            ((m + s->tile_m - 1) / s->tile_m) * ((n + s->tile_n - 1) / s->tile_n);
        for (int splits = 1; splits <= SPLIT_K_MAX && splits <= slabs; splits++) {
            if (split_k_pieces(slabs, splits) != splits) // a piece would be empty
                continue;
            const double time = matmul_tile_time(s, tiles, slabs, sms, splits);
            if (best_time < 0 || time < best_time) {
                best.shape = i;
                best.splits = splits;
                best_time = time;
            }
        }
    }
    return best;
}

// The pieces of k (1..most, none empty) that finish `placed` blocks of `slabs` slabs
// soonest on a GPU that holds `resident` of them at once, where a piece's fixup costs
// little (the thin path's one column: 4 KB a piece): time ~ waves x (slabs a piece + 1),
// the 1 a block's fixed cost (its first wait on memory, the fixup); of equal times the
// fewest pieces. H200: 8192 x 1 x 8192 bf16, 256 blocks of 32 slabs, 528 held: 2 pieces,
// one wave of 17 (3 pieces, two waves of 12, took 54 us against 39); fp32 30000 x 1 x 3000,
// 938 blocks of 24 slabs: whole, 2 waves of 25 (5 pieces, 9 waves of 6, took 103 us
// against 87, which the model without the 1 chose).
static inline int matmul_wave_splits(long long placed, int slabs, int most, long long resident)
{
    int splits = 1;
    long long best = -1;
    for (int s = 1; s <= most && s <= slabs; s++) {
        if (split_k_pieces(slabs, s) != s)
            continue;
        const long long time = (placed * s + resident - 1) / resident * ((slabs + s - 1) / s + 1);
        if (best < 0 || time < best)
            best = time, splits = s;
    }
    return splits;
}

// A persistent grid (v9: a block an SM, taking units of work in turn) can cut the last
// wave's tiles alone: the tiles of whole waves run whole, and the rest (tiles % sms, the
// last wave's) each into `splits` pieces, the most one wave holds and each at least
// MATMUL_TAIL_PIECE_SLABS long. 3000^3 tf32 in 128 x 256 tiles: 288 tiles of 94 slabs, 2
// waves of 132 whole, then 24 tiles in 5 pieces of 19 slabs, where uniform plans run a
// third wave of 24 tiles on 132 SMs or cut every tile. `whole` the tiles that run whole
// (they come first), `time` in matmul_tile_time's units; splits 1 where there is no last
// wave to cut or no two pieces of it fit.
//
// Pieces shorter than 16 slabs ran slower than this model says (H200, against the uniform
// plan: 1536^3 bf16 in 8 pieces of 3 slabs 1.05x, 300 x 7000 x 2000 in 16 of 2 slabs 1.40x,
// 900 x 2600 x 1500 in 3 of 8 slabs 1.24x): a unit's fixed costs, the pipeline's fill and
// the fixup's, outweigh the few slabs such a piece saves.
enum { MATMUL_TAIL_PIECE_SLABS = 16 };
typedef struct {
    long long whole;
    int splits;
    double time;
} matmul_tail_plan;
static inline matmul_tail_plan matmul_plan_tail(const matmul_tile_shape *s, long long tiles,
                                                int slabs, int sms)
{
    matmul_tail_plan t = {tiles, 1, 0.0};
    const long long rest = tiles % sms;
    if (tiles < sms || rest == 0)
        return t;
    long long splits = sms / rest;
    splits = splits < (long long)SPLIT_K_MAX ? splits : (long long)SPLIT_K_MAX;
    splits = splits < slabs / MATMUL_TAIL_PIECE_SLABS ? splits : slabs / MATMUL_TAIL_PIECE_SLABS;
    while (splits > 1 && split_k_pieces(slabs, (int)splits) != splits)
        splits--;
    if (splits < 2)
        return t;
    t.whole = tiles - rest;
    t.splits = (int)splits;
    t.time = (double)(tiles / sms) * s->full * slabs +
             s->full * ((slabs + t.splits - 1) / t.splits + s->fixup);
    return t;
}

// The tile shape an environment variable names (CUDALAB_V6_TILE=128x128), NULL when unset:
// a version then takes that shape whatever its planner or the thin path's rule would, to
// measure each shape against the others.
const char *matmul_forced_tile(const char *variable);

// A version's plan (matmul_plan_tiles over its shapes), or, where `variable` names one of
// them (matmul_forced_tile), that shape with the pieces of k it would take; a name that is
// none of them ends the run (exit 2) with the version's shapes.
matmul_tile_plan matmul_plan_version(const char *version, const char *variable,
                                     const matmul_tile_shape *shapes, int count, long long m,
                                     long long n, int slabs, int sms);

// Slabs [first, end) of k piece `split` of `splits` takes.
typedef struct {
    int first, end;
} slab_range;
static inline MATMUL_HOST_DEVICE slab_range split_k_slabs(int slabs, int split, int splits)
{
    const int per = (slabs + splits - 1) / splits, end = (split + 1) * per;
    slab_range r;
    r.first = split * per;
    r.end = end < slabs ? end : slabs;
    return r;
}

// --- gold.c: the CPU side, and the error model the GPU reference shares -----------

// Round-to-nearest-even conversions of the inputs (bf16, fp16: 16-bit words).
uint16_t matmul_float_to_bf16(float x);
uint16_t matmul_float_to_fp16(float x);
float matmul_bf16_to_float(uint16_t h);
float matmul_fp16_to_float(uint16_t h);

// Why a version built for sm_90a (v9) cannot run: not built (the build's ARCH left
// out sm_90), or a GPU other than compute capability 9.0 (wgmma is Hopper's alone);
// NULL when it can.
const char *matmul_hopper_refusal(int cc_major, int cc_minor, bool built);

// The rounding a precision's result carries, as relative errors (see the model below).
typedef struct {
    double input;           // spread (standard deviation) of an input's error as the multiplier
                            // sees it: tf32 2^-11 / sqrt 3, the uniform error of dropping 13 bits
    double input_bias;      // its mean: 2^-11 when tf32 truncates, 0 when it rounds
    double accumulate;      // of one fp32 addition, 2^-23: a rounding or a truncation
    double accumulate_bias; // the tensor cores' truncation of a block's sum into the fp32
                            // sum, at most 2^-23 of the sum; 0 on the CUDA cores (rounded)
} matmul_roundoff;
matmul_roundoff matmul_roundoff_of(matmul_precision p, bool tf32_truncates);

// The error model: each element's error is the sum of many small independent errors,
// one for each product's inputs (tf32 only) and each fp32 addition, so its spread is
//   sigma_ij^2 = (2 input^2 + (k + 2) accumulate^2) alpha^2 sum_l (a_il b_lj)^2
//                + accumulate^2 (beta c0_ij)^2
// and an element passes within MATMUL_SIGMAS sigma, plus, where tf32 truncates, the bias
// that truncation moves every product by: 2 input_bias |alpha sum_l a_il b_lj|, plus, on
// the tensor cores, the bound of their truncations: each block of MATMUL_TENSOR_BLOCK
// products is added to the fp32 sum rounded toward zero, which moves it by less than one
// unit in the last place, 2^-23 of it, always toward zero, so these errors add up rather
// than cancel: accumulate_bias |alpha| drift_ij, drift_ij = sum over the blocks of
// |sum_l a_il b_lj| after each (the partial sums, in k's order). A random walk's partial
// sums grow as sqrt(l), so the bound grows as k^1.5 where sigma grows as k: at k = 65536
// the truncations alone moved elements by 1.0-1.06 sigma x MATMUL_SIGMAS (v8, bf16,
// H200), past what the spread allowed.
// Freivalds' row i passes within MATMUL_SIGMAS times the spread of sum_j e_ij x_j, i.e.
// sqrt(sum_j sigma_ij^2 + (2 input_bias alpha c_ij)^2).
// MATMUL_TENSOR_BLOCK: the shortest k a tensor-core instruction sums (tf32's m16n8k8;
// bf16 and fp16 take 16), so the most truncations any of them makes.
enum { MATMUL_SIGMAS = 12, MATMUL_TENSOR_BLOCK = 8 };

// MATMUL_SIGMAS sigma_ij of an element: squares = sum_l (a_il b_lj)^2, old = beta c0_ij.
// One formula for the CPU gold (gold.c) and the GPU reference (reference.cu).
static inline MATMUL_HOST_DEVICE double
matmul_allowed_spread(matmul_roundoff r, int k, double alpha, double squares, double old)
{
    const double weight = 2.0 * r.input * r.input + (k + 2.0) * r.accumulate * r.accumulate;
    return MATMUL_SIGMAS *
           sqrt(weight * alpha * alpha * squares + r.accumulate * r.accumulate * old * old);
}

// Whether product l (of k) ends a block of the tensor cores' sums, after which the drift
// takes |the partial sum|; and the allowance that drift (sum of those) adds.
static inline MATMUL_HOST_DEVICE bool matmul_block_ends(int l, int k)
{
    return l % MATMUL_TENSOR_BLOCK == MATMUL_TENSOR_BLOCK - 1 || l == k - 1;
}
static inline MATMUL_HOST_DEVICE double matmul_allowed_drift(matmul_roundoff r, double alpha,
                                                             double drift)
{
    return r.accumulate_bias * fabs(alpha) * drift;
}

// Gold (double, every core, blocked): c_out = alpha*a*b + beta*c0 (c0 may be NULL when
// beta == 0), and each element's allowed error. a and b are the inputs as the GPU reads
// them (already rounded to the precision), as floats.
void matmul_gold(int m, int n, int k, double alpha, const float *a, const float *b, double beta,
                 const float *c0, matmul_roundoff r, double *c_out, double *tol_out);

// Freivalds' check: for `vectors` random x of +-1 (from seed), compares C x with
// alpha A (B x) + beta C0 x row by row, in double, O(m n + m k + k n) per vector.
// Returns the worst row's error over its allowed error (pass: <= 1); its row and
// error in *worst_row, *worst_err, *worst_tol. NaN in c gives infinity.
double matmul_freivalds(int m, int n, int k, double alpha, const float *a, const float *b,
                        double beta, const float *c0, const float *c, matmul_roundoff r,
                        int vectors, uint64_t seed, long *worst_row, double *worst_err,
                        double *worst_tol);

// --- reference.cu: the reference every result is checked against ----------------------

// C in double on the GPU, element by element, with each element's allowed error: v3's plain
// shared-memory tiling (the CUDA C Programming Guide's), 16 x 16, every product exact in
// double. Where the CPU gold is computed too, main.c checks one against the other.
typedef struct {
    double *want;     // alpha sum_l a_il b_lj + beta c0_ij
    float *spread;    // matmul_allowed_spread of the element, plus matmul_allowed_drift
    float *magnitude; // |alpha sum_l a_il b_lj|, for truncated tf32's bias
    size_t count;     // m n
} matmul_reference;

// Device bytes the reference of an m x n C takes.
size_t matmul_reference_bytes(size_t m, size_t n);
// Computes it from args' a and b (as the precision stores them) and, when beta != 0, C0 in
// args' c. Allocates; matmul_reference_free gives it back.
matmul_reference matmul_reference_compute(const matmul_args *args, matmul_roundoff r);
void matmul_reference_free(matmul_reference *ref);
// Every element of the device result c against the reference within its allowance,
// spread + 2 input_bias magnitude: the count wrong, the first, the worst error over its
// allowance (NaN counts as infinitely wrong), as every other exercise's compare reports.
cl_compare matmul_reference_compare(const matmul_reference *ref, const float *c, double input_bias);

#ifdef __cplusplus
}
#endif

#endif

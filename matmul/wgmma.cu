// matmul v9: Hopper's own path to the tensor cores. A file of its own because wgmma and
// setmaxnreg exist only in the sm_90a instruction set (the "a" is for
// architecture-specific: code built for it runs on compute capability 9.0 alone, not on
// later GPUs); exercise.mk compiles this file for sm_90a when the build includes sm_90,
// and as a stub otherwise (matmul_v9_built says which).
//
// v9-wgmma: the pieces CUTLASS's Hopper GEMMs are built from, in one kernel:
//  - TMA (cp.async.bulk.tensor): one thread asks the copy engine for a whole 2D tile,
//    which lands in shared memory already swizzled, zeros past the matrix's edges;
//  - wgmma: a warpgroup (4 warps) multiplies a 64 x 256 x 16 block in one asynchronous
//    instruction, both operands read by the tensor cores straight from shared memory
//    (no ldmatrix, no operand registers), the accumulators in registers;
//  - warp specialization: one warpgroup only loads (its registers given up with
//    setmaxnreg), two only multiply, handing 4 shared-memory stages back and forth
//    through mbarriers (full: the copy engine has landed a stage; empty: both consumer
//    warpgroups are done reading it);
//  - a persistent grid: one block an SM walks the tiles, so the loads of its next tile
//    start while it writes the last one.
#include <cuda.h>
#include <cudaTypedefs.h>

#include "bulk_copy.cuh"
#include "check.h"
#include "device.h"
#include "launch.h"
#include "matmul.h"
#include "tiles.cuh"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WGMMA_CODE 1
#else
#define WGMMA_CODE 0
#endif

// A 128 x 256 tile of C a block (two consumer warpgroups of 64 x 256), k in slabs of 128
// bytes (64 bf16/fp16 or 32 tf32: one swizzled row), 4 stages of 16 + 32 KB.
enum {
    V9_TILE_M = MATMUL_V9_TILE_M,
    V9_TILE_N = MATMUL_V9_TILE_N,
    V9_SLAB_BYTES = 128,
    V9_STAGES = 4,
    V9_THREADS = 384, // a producer warpgroup, two consumers
    V9_A_BYTES = V9_TILE_M * V9_SLAB_BYTES,
    V9_B_BYTES = V9_TILE_N * V9_SLAB_BYTES,
    V9_STAGE_BYTES = V9_A_BYTES + V9_B_BYTES,
    V9_SHARED_BYTES = V9_STAGES * V9_STAGE_BYTES + 1024, // + alignment to 1024 bytes
    V9_B_BOX_N = 64, // 16-bit B: 64 columns (128 bytes) a TMA box, 4 boxes a slab
};

// --- wgmma and its shared-memory descriptors ------------------------------------------

#if WGMMA_CODE
// A wgmma operand in shared memory: start address, then LBO and SBO (bytes, >> 4), and
// 128-byte swizzling (bit 62), the layout TMA's SWIZZLE_128B writes: 8 rows of 128
// bytes form a 1024-byte atom, the 16-byte chunks of row r XORed with r % 8.
//  - K-major (A; B for tf32): rows along m (n), k contiguous; SBO = 1024, the step to
//    the next 8 rows; LBO unused (one instruction's k, 32 bytes, stays in a row).
//  - MN-major (16-bit B, k rows of n): LBO = the step to the next 64 columns (the next
//    TMA box), SBO = 1024, the step to the next 8 k rows.
__device__ __forceinline__ unsigned long long smem_descriptor(const void *start, unsigned lbo,
                                                              unsigned sbo)
{
    const unsigned long long address = shared_address(start);
    return ((address & 0x3FFFF) >> 4) | (unsigned long long)(lbo >> 4) << 16 |
           (unsigned long long)(sbo >> 4) << 32 | 1ull << 62;
}

__device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most PENDING of this warpgroup's committed wgmma groups are in flight.
template <int PENDING> __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(PENDING) : "memory");
}

#define WGMMA_D8(i)                                                                                \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]),    \
        "+f"(d[i + 6]), "+f"(d[i + 7])
#define WGMMA_D32(i) WGMMA_D8(i), WGMMA_D8(i + 8), WGMMA_D8(i + 16), WGMMA_D8(i + 24)
#define WGMMA_D128 WGMMA_D32(0), WGMMA_D32(32), WGMMA_D32(64), WGMMA_D32(96)
#define WGMMA_D_LIST                                                                               \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                      \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "             \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "             \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "             \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "             \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "             \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, "       \
    "%111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, "         \
    "%125, %126, %127}"

// d (64 x 256, fp32, 128 a thread) += A (64 x k) B (k x 256), k = 16 (bf16, fp16; B
// MN-major: the transpose bit) or 8 (tf32; B K-major, the only layout tf32 takes).
// Accumulator layout, as mma.sync's: warp w of the group holds rows 16w + lane / 4
// (d[4j], d[4j + 1]) and 8 below (d[4j + 2], d[4j + 3]), at columns 8j + 2 (lane % 4) + {0, 1}.
template <matmul_precision P>
__device__ __forceinline__ void wgmma_64x256(float (&d)[128], unsigned long long a,
                                             unsigned long long b)
{
    if constexpr (P == MATMUL_BF16)
        asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " WGMMA_D_LIST
                     ", %128, %129, 1, 1, 1, 0, 1;"
                     : WGMMA_D128
                     : "l"(a), "l"(b));
    else if constexpr (P == MATMUL_FP16)
        asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " WGMMA_D_LIST
                     ", %128, %129, 1, 1, 1, 0, 1;"
                     : WGMMA_D128
                     : "l"(a), "l"(b));
    else
        asm volatile("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " WGMMA_D_LIST
                     ", %128, %129, 1, 1, 1;"
                     : WGMMA_D128
                     : "l"(a), "l"(b));
}

template <int REGISTERS> __device__ __forceinline__ void registers_decrease()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGISTERS));
}
template <int REGISTERS> __device__ __forceinline__ void registers_increase()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGISTERS));
}
#endif

// --- v9 ---------------------------------------------------------------------------------

// v9: TMA + wgmma, a producer warpgroup and two consumer warpgroups, persistent.
// k a slab: 128 bytes of it, 64 elements of bf16 or fp16, 32 of tf32.
__host__ __device__ constexpr int v9_slab_k(matmul_precision p)
{
    return V9_SLAB_BYTES / (p == MATMUL_TF32 ? 4 : 2);
}

// Tile 128 x 256, k-slab 128 bytes: per slab the producer's one thread waits for the
// stage to be empty, announces its 48 KB on the stage's full barrier and issues the TMA
// copies (A: one 128 x 128-byte box; B: four 64-column boxes, or for tf32 one box of
// the transposed B); each consumer warpgroup waits for full, issues 4 wgmma (its 64 rows
// of A against all 256 columns, 16 (tf32: 8) of k each), waits for them and says empty.
// Registers: 384 threads start with 168 each; the producer drops to 24 and the consumers
// rise to 240, room for their 128 accumulators (24 x 128 + 240 x 256 = 64,512 of 65,536).
// Why faster than v8: mma.sync's operands pass through registers, loaded by ldmatrix
// from shared memory, and its 16 x 8 x 16 blocks reach about a third of Hopper's
// tensor-core rate; wgmma reads shared memory directly in 64 x 256 x 16 blocks, and no
// consumer thread spends an instruction on addresses or copies.
// Napkin math (H100, 4096^3 bf16): 137 GFLOP at 989 TFLOPS is 0.14 ms. A tile reads
// (128 + 256) x 2 B per k for 128 x 256 multiply-adds: 85 flops a byte of L2 traffic,
// 12.6 GB of it in all (A read 16 times, B 32 times), 4.6 TB/s over 0.14 ms, which the
// L2 carries; DRAM reads A and B once (64 MB) and writes C (64 MB) in ~0.04 ms.
#if WGMMA_CODE
// The producer (one thread of warpgroup 0): each unit's slabs of A and B into the stages
// in turn, a stage refilled once the consumers have given it back (empty[s]; full[s] then
// counts the copy engine's bytes in).
template <matmul_precision P>
__device__ __forceinline__ void
v9_produce(const CUtensorMap &map_a, const CUtensorMap &map_b, unsigned char *stages,
           unsigned long long (&full)[V9_STAGES], unsigned long long (&empty)[V9_STAGES],
           int tiles_m, int tiles_n, int slabs, int units, int splits)
{
    constexpr int slab = v9_slab_k(P); // k a stage
    int stage = 0;
    unsigned phase = 0;
    for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
        const tile_coord t = grouped_tile(unit / splits, tiles_m, tiles_n);
        const slab_range range = split_k_slabs(slabs, unit % splits, splits);
        for (int s = range.first; s < range.end; s++) {
            mbarrier_wait_parity(&empty[stage], phase ^ 1); // a fresh barrier passes
            unsigned char *a = stages + stage * V9_STAGE_BYTES, *b = a + V9_A_BYTES;
            mbarrier_arrive_expect_bytes(&full[stage], V9_STAGE_BYTES);
            tensor_load_2d(a, &map_a, s * slab, t.row * V9_TILE_M, &full[stage]);
            if constexpr (P == MATMUL_TF32) // B^T, n rows of k
                tensor_load_2d(b, &map_b, s * slab, t.col * V9_TILE_N, &full[stage]);
            else
                for (int box = 0; box < V9_TILE_N / V9_B_BOX_N; box++)
                    tensor_load_2d(b + box * (V9_B_BYTES / 4), &map_b,
                                   t.col * V9_TILE_N + box * V9_B_BOX_N, s * slab, &full[stage]);
            if (++stage == V9_STAGES) {
                stage = 0;
                phase ^= 1;
            }
        }
    }
}

// A consumer warpgroup's slabs [range) of one unit into its 64 x 256 accumulators d: per
// slab, wait for the stage (full), issue its 4 wgmma, and give the slab before back
// (empty) once its wgmma have finished; the last slab's stage after the last wait. stage,
// previous and phase carry over from unit to unit.
template <matmul_precision P>
__device__ __forceinline__ void
v9_consume(float (&d)[128], unsigned char *stages, unsigned long long (&full)[V9_STAGES],
           unsigned long long (&empty)[V9_STAGES], slab_range range, int consumer, int lane,
           int &stage, int &previous, unsigned &phase)
{
    constexpr int elem = P == MATMUL_TF32 ? 4 : 2;
    constexpr int mma_k = 32 / elem;         // k a wgmma: 32 bytes of a row
    constexpr int mmas = V9_SLAB_BYTES / 32; // wgmma a stage, 4
#pragma unroll
    for (int i = 0; i < 128; i++)
        d[i] = 0.0f;
    for (int s = range.first; s < range.end; s++) {
        mbarrier_wait_parity(&full[stage], phase);
        const unsigned char *a = stages + stage * V9_STAGE_BYTES + consumer * 64 * 128;
        const unsigned char *b = stages + stage * V9_STAGE_BYTES + V9_A_BYTES;
        wgmma_fence();
#pragma unroll
        for (int i = 0; i < mmas; i++) {
            const unsigned long long a_desc = smem_descriptor(a + i * 32, 16, 1024);
            const unsigned long long b_desc =
                P == MATMUL_TF32 ? smem_descriptor(b + i * 32, 16, 1024)
                                 : smem_descriptor(b + i * mma_k * 128, V9_B_BYTES / 4, 1024);
            wgmma_64x256<P>(d, a_desc, b_desc);
        }
        wgmma_commit();
        // This slab's wgmma stay in flight while the last slab's, now finished, give
        // their stage back: the tensor cores never wait for the warpgroup to issue.
        wgmma_wait<1>();
        if (s > range.first && lane == 0)
            mbarrier_arrive(&empty[previous]);
        previous = stage;
        if (++stage == V9_STAGES) {
            stage = 0;
            phase ^= 1;
        }
    }
    wgmma_wait<0>();
    if (lane == 0)
        mbarrier_arrive(&empty[previous]);
}

// The epilogue: each lane's pairs of the consumer's 64 x 256 piece of tile t straight to C
// (the producer is already loading the next unit's slabs).
__device__ __forceinline__ void v9_store_tile(const matmul_args &p, const float (&d)[128],
                                              tile_coord t, int consumer, int warp, int lane)
{
    const int row0 = t.row * V9_TILE_M + consumer * 64 + warp * 16 + lane / 4;
    const int col0 = t.col * V9_TILE_N + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < 32; j++)
#pragma unroll
        for (int half = 0; half < 2; half++)
            store_pair(p, row0 + 8 * half, col0 + 8 * j, d[4 * j + 2 * half],
                       d[4 * j + 2 * half + 1]);
}
#endif

template <matmul_precision P>
__global__ void __launch_bounds__(V9_THREADS, 1)
    matmul_v9_kernel(const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b, matmul_args p, int splits,
                     split_k_space split_space)
{
#if WGMMA_CODE
    constexpr int slab = v9_slab_k(P); // k a stage
    extern __shared__ unsigned char shared_raw[];
    __shared__ unsigned long long full[V9_STAGES], empty[V9_STAGES];
    // 128-byte swizzling repeats every 1024 bytes; the atoms must start on that boundary.
    unsigned char *stages = shared_raw + ((1024 - (shared_address(shared_raw) & 1023)) & 1023);

    const int warpgroup = threadIdx.x / 128;
    const int tiles_m = ceil_div(p.m, V9_TILE_M), tiles_n = ceil_div(p.n, V9_TILE_N);
    const int tiles = tiles_m * tiles_n, slabs = ceil_div(p.k, slab), units = tiles * splits;
    if (threadIdx.x == 0) {
        for (int s = 0; s < V9_STAGES; s++) {
            mbarrier_init(&full[s], 1);  // the producer's arrival (and the TMA bytes)
            mbarrier_init(&empty[s], 8); // lane 0 of each consumer warp
        }
        mbarrier_init_fence();
    }
    __syncthreads();

    if (warpgroup == 0) {
        registers_decrease<24>();
        if (threadIdx.x != 0)
            return;
        v9_produce<P>(map_a, map_b, stages, full, empty, tiles_m, tiles_n, slabs, units, splits);
        return;
    }

    registers_increase<240>();
    const int consumer = warpgroup - 1, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    int stage = 0, previous = 0;
    unsigned phase = 0;
    for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
        const int tile = unit / splits, split = unit % splits;
        const tile_coord t = grouped_tile(tile, tiles_m, tiles_n);
        const slab_range range = split_k_slabs(slabs, split, splits);
        float d[128];
        v9_consume<P>(d, stages, full, empty, range, consumer, lane, stage, previous, phase);
        // A piece of k: all but the tile's last piece to finish leave their sums in the
        // workspace; the last adds them up and writes C. The consumers' own barrier (1):
        // the producer does not take part.
        if (splits > 1 &&
            !split_k_fixup(d, split_space, tile, split, splits, 256, threadIdx.x - 128, [] {
                asm volatile("bar.sync 1, 256;" ::: "memory");
            }))
            continue;
        v9_store_tile(p, d, t, consumer, warp, lane);
    }
#endif
}

// --- tf32's B, transposed -----------------------------------------------------------------

// wgmma takes tf32 operands K-major only, and B is k x n row-major (n contiguous): v9
// first writes B^T (n rows of k, the row length `ld`, past k unwritten: TMA reads zeros
// beyond the map's k) through 32 x 32 tiles of shared memory, both sides coalesced (a
// row of the tile padded by one float, so the column reads hit 32 different banks).
// Napkin math: reads and writes 4 k n bytes; 4096^2 at ~3 TB/s: 45 us (tf32's v9 at 4096^3
// takes ~0.35 ms).
enum { TRANSPOSE_TILE = 32, TRANSPOSE_ROWS = 8 };
// grid.y is capped at 65535 (CUDA's limit): a block takes every gridDim.y-th row of tiles,
// so k past 65535 x 32 (~2.1M) is covered too.
__global__ void __launch_bounds__(TRANSPOSE_TILE *TRANSPOSE_ROWS)
    transpose_kernel(const float *b, int k, int n, float *bt, int ld)
{
    __shared__ float tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];
    const int j0 = blockIdx.x * TRANSPOSE_TILE;
    for (long long l0 = (long long)blockIdx.y * TRANSPOSE_TILE; l0 < k;
         l0 += (long long)gridDim.y * TRANSPOSE_TILE) {
        for (int r = threadIdx.y; r < TRANSPOSE_TILE; r += TRANSPOSE_ROWS) {
            const long long l = l0 + r;
            const int j = j0 + threadIdx.x;
            if (l < k && j < n)
                tile[r][threadIdx.x] = b[(size_t)l * n + j];
        }
        __syncthreads();
        for (int r = threadIdx.y; r < TRANSPOSE_TILE; r += TRANSPOSE_ROWS) {
            const int j = j0 + r;
            const long long l = l0 + threadIdx.x;
            if (l < k && j < n)
                bt[(size_t)j * ld + l] = tile[threadIdx.x][r];
        }
        __syncthreads(); // the tile is read before the next row of tiles is written into it
    }
}

// --- host: operands TMA can describe, tensor maps, the launch -------------------------

// TMA needs each row to start on 16 bytes: a row of A holds k elements, of B n (tf32:
// B^T's k). Where that fails the launcher first copies the matrix into rows padded to
// 16 bytes in the workspace (the copy is part of v9's time); tf32's B^T always goes there.

struct v9_operands {
    size_t a_pitch, b_pitch; // bytes a row (A: k elements; B: n, or B^T: k)
    bool a_copied, b_copied; // into the workspace
    size_t a_bytes, b_bytes; // workspace each takes
    long long tiles;
    int splits;         // pieces of k a tile (split_k_count)
    size_t split_bytes; // workspace split-K takes, after the copies
    size_t workspace() const { return a_bytes + b_bytes + split_bytes; }
};

static v9_operands v9_plan(const matmul_args *p)
{
    const size_t elem = matmul_element_bytes(p->precision);
    v9_operands o = {};
    o.a_pitch = padded_row(p->k, elem);
    o.a_copied = o.a_pitch != (size_t)p->k * elem;
    o.a_bytes = o.a_copied ? workspace_round(o.a_pitch * p->m) : 0;
    if (p->precision == MATMUL_TF32) {
        o.b_pitch = padded_row(p->k, elem);
        o.b_copied = true;
        o.b_bytes = workspace_round(o.b_pitch * p->n);
    } else {
        o.b_pitch = padded_row(p->n, elem);
        o.b_copied = o.b_pitch != (size_t)p->n * elem;
        o.b_bytes = o.b_copied ? workspace_round(o.b_pitch * p->k) : 0;
    }
    o.tiles = (long long)cl_ceil_div(p->m, V9_TILE_M) * cl_ceil_div(p->n, V9_TILE_N);
    // One block an SM: its shared memory takes the SM.
    o.splits = split_k_count(o.tiles, cl_ceil_div(p->k, v9_slab_k(p->precision)), sm_count());
    o.split_bytes = split_k_bytes(o.tiles, o.splits, 256, 128);
    return o;
}

extern "C" size_t matmul_v9_workspace(const matmul_args *p)
{
    if (matmul_thin_taken(p))
        return matmul_thin_workspace(p);
    return v9_plan(p).workspace();
}

#if WGMMA_BUILT
extern "C" const bool matmul_v9_built = true;
#else
extern "C" const bool matmul_v9_built = false;
#endif

static PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    if (!encode) {
        cudaDriverEntryPointQueryResult found;
        CL_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode,
                                                       12000, cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess || !encode)
            cl_die(CL_EXIT_CUDA, "v9: the driver has no cuTensorMapEncodeTiled (TMA needs a "
                                 "CUDA 12 driver)");
    }
    return encode;
}

// A tensor map of a row-major rows x cols matrix (rows `pitch` bytes apart), boxes of
// box_cols x box_rows, 128-byte swizzled in shared memory, zeros outside the matrix.
static CUtensorMap tensor_map(const void *base, int rows, int cols, size_t pitch, int box_cols,
                              int box_rows, matmul_precision p)
{
    CUtensorMap map;
    const CUtensorMapDataType type = p == MATMUL_BF16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                     : p == MATMUL_FP16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                        : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)pitch};
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUresult r = tensor_map_encoder()(
        &map, type, 2, const_cast<void *>(base), dims, strides, box, element_strides,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        cl_die(CL_EXIT_CUDA, "v9: cuTensorMapEncodeTiled failed (error %d) for a %d x %d matrix",
               (int)r, rows, cols);
    return map;
}

template <matmul_precision P> static void launch_v9_as(const matmul_args *p, cudaStream_t s)
{
    const size_t elem = matmul_element_bytes(P);
    const v9_operands o = v9_plan(p);
    const size_t needed = o.workspace();
    if (needed > p->workspace_bytes)
        cl_die(CL_EXIT_CUDA, "v9: needs %zu bytes of workspace, was given %zu", needed,
               p->workspace_bytes);
    unsigned char *workspace = (unsigned char *)p->workspace;
    const void *a = p->a, *b = p->b;
    if (o.a_copied) {
        pad_rows(p->a, p->m, p->k, elem, workspace, o.a_pitch, s);
        a = workspace;
    }
    if (o.b_copied) {
        void *dst = workspace + o.a_bytes;
        if (P == MATMUL_TF32) {
            const size_t tile_rows = cl_ceil_div(p->k, TRANSPOSE_TILE);
            const dim3 grid(cl_grid_blocks(p->n, TRANSPOSE_TILE, "v9's transpose of B"),
                            tile_rows < MAX_GRID_Y ? (unsigned)tile_rows : MAX_GRID_Y);
            transpose_kernel<<<grid, dim3(TRANSPOSE_TILE, TRANSPOSE_ROWS), 0, s>>>(
                (const float *)p->b, p->k, p->n, (float *)dst, (int)(o.b_pitch / elem));
            CL_LAUNCH_CHECK();
        } else {
            pad_rows(p->b, p->k, p->n, elem, dst, o.b_pitch, s);
        }
        b = dst;
    }
    const int slab = v9_slab_k(P);
    const CUtensorMap map_a = tensor_map(a, p->m, p->k, o.a_pitch, slab, V9_TILE_M, P);
    const CUtensorMap map_b = P == MATMUL_TF32
                                  ? tensor_map(b, p->n, p->k, o.b_pitch, slab, V9_TILE_N, P)
                                  : tensor_map(b, p->k, p->n, o.b_pitch, V9_B_BOX_N, slab, P);
    const void *kernel = (const void *)matmul_v9_kernel<P>;
    const cl_kernel_fit fit = cl_kernel_fit_for(kernel, V9_THREADS, V9_SHARED_BYTES);
    if (fit.resident == 0)
        cl_die(CL_EXIT_CUDA,
               "v9: no block of %d threads and %d bytes of shared memory fits an SM of this GPU",
               V9_THREADS, V9_SHARED_BYTES);
    const long long units = o.tiles * o.splits;
    const int grid = units < fit.resident ? (int)units : fit.resident;
    const split_k_space space =
        split_k_carve(workspace + o.a_bytes + o.b_bytes, o.tiles, o.splits, 256, 128);
    matmul_v9_kernel<P>
        <<<grid, V9_THREADS, V9_SHARED_BYTES, s>>>(map_a, map_b, *p, o.splits, space);
    CL_LAUNCH_CHECK();
}

TENSOR_LAUNCHER(launch_v9, launch_v9_as)

extern "C" void matmul_launch_v9(const matmul_args *p, cudaStream_t s)
{
    if (matmul_thin_taken(p))
        matmul_thin_launch(p, s);
    else
        launch_v9(p, s);
}

// matmul v9: Hopper's own path to the tensor cores. A file of its own because wgmma and
// setmaxnreg exist only in the sm_90a instruction set (the "a" is for
// architecture-specific: code built for it runs on compute capability 9.0 alone, not on
// later GPUs); exercise.mk compiles this file for sm_90a when the build includes sm_90,
// and as a stub otherwise (matmul_v9_built says which).
//
// v9-wgmma: the pieces CUTLASS's Hopper GEMMs are built from, in one kernel:
//  - TMA (cp.async.bulk.tensor): one thread asks the copy engine for a whole 2D tile,
//    which lands in shared memory already swizzled, zeros past the matrix's edges;
//  - wgmma: a warpgroup (4 warps) multiplies a 64 x 256 (128, 64) x 16 block in one asynchronous
//    instruction, both operands read by the tensor cores straight from shared memory
//    (no ldmatrix, no operand registers), the accumulators in registers; tf32, which
//    wgmma reads from shared memory only with k contiguous, computes C^T = B^T A^T
//    instead, B^T's fragments loaded into registers (the one operand wgmma takes from
//    there) and A read from shared memory as it lies;
//  - warp specialization: one warpgroup only loads (its registers given up with
//    setmaxnreg), two only multiply, handing 4 shared-memory stages back and forth
//    through mbarriers (full: the copy engine has landed a stage; empty: both consumer
//    warpgroups are done reading it);
//  - a persistent grid: one block an SM walks the tiles, so the loads of its next tile
//    start while it writes the last one; where the tiles leave the last wave part empty,
//    that wave's tiles alone are cut into pieces of k that fill it (the whole waves run
//    whole: Stream-K's "data-parallel + one tile per SM" hybrid, Osama et al. 2023).
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

// k in slabs of 128 bytes (64 bf16/fp16 or 32 tf32: one swizzled row); a tile's stages
// take 192 KB of shared memory, as many as fit (4 of 48 KB for 128 x 256, 8 of 24 KB for
// 128 x 64): a smaller tile multiplies a stage sooner, and more stages keep as many bytes
// in flight.
enum {
    V9_SLAB_BYTES = 128,
    V9_STAGE_SPACE = 192 * 1024,
    V9_THREADS = 384, // a producer warpgroup, two consumers
};

// A tile shape of v9: TM x TN of the product a block computes, C (bf16, fp16) or C^T
// (tf32: TM columns of C by TN rows). The two consumer warpgroups take 64 rows each of a
// 128-row tile, or half the columns each of a 64-row one; either way a consumer's piece
// is 64 x piece_n, one wgmma of n = piece_n a k-step. A stage holds the slab of the
// tile's row operand (A, or tf32's B) and of its column operand (B, or tf32's A).
__host__ __device__ constexpr int v9_piece_n(int tile_m, int tile_n)
{
    return tile_m == 128 ? tile_n : tile_n / 2;
}
template <int TM, int TN> struct v9_tile {
    static_assert(TM == 128 || TM == 64, "v9: tiles of 128 or 64 rows");
    static constexpr int tile_m = TM, tile_n = TN;
    static constexpr bool split_rows = TM == 128;
    static constexpr int piece_n = v9_piece_n(TM, TN);
    static constexpr int accumulators = piece_n / 2; // a consumer thread's (64 x piece_n / 128)
    static constexpr int a_bytes = TM * V9_SLAB_BYTES, b_bytes = TN * V9_SLAB_BYTES;
    static constexpr int stage_bytes = a_bytes + b_bytes;
    static constexpr int stages = V9_STAGE_SPACE / stage_bytes;
    static constexpr int shared_bytes = stages * stage_bytes + 1024; // + alignment to 1024
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
// A wgmma's accumulators as asm operands, by their count: 32, 64 or 128.
#define WGMMA_OUT32 WGMMA_D32(0)
#define WGMMA_OUT64 WGMMA_D32(0), WGMMA_D32(32)
#define WGMMA_OUT128 WGMMA_D32(0), WGMMA_D32(32), WGMMA_D32(64), WGMMA_D32(96)
#define WGMMA_LIST32                                                                               \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "       \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define WGMMA_LIST64                                                                               \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "       \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "        \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "        \
    "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define WGMMA_LIST128                                                                              \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "       \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "        \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "        \
    "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, "        \
    "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, "        \
    "%87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, "          \
    "%103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, "         \
    "%117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"

// One wgmma of n = N columns: its accumulator list and the two descriptors after it; B
// MN-major (the transpose bit, which 16-bit types alone have).
#define WGMMA_16BIT(N, TYPE, REGS)                                                                 \
    asm volatile("wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE                   \
                 " " WGMMA_LIST##REGS ", %" #REGS ", %" WGMMA_NEXT_##REGS ", 1, 1, 1, 0, 1;"       \
                 : WGMMA_OUT##REGS                                                                 \
                 : "l"(a), "l"(b))
#define WGMMA_NEXT_32 "33"
#define WGMMA_NEXT_64 "65"
#define WGMMA_NEXT_128 "129"
// tf32 with A's four fragments in registers (operands REGS .. REGS + 3), B's descriptor after.
#define WGMMA_TF32_REGISTERS(N, REGS, A0, A1, A2, A3, B)                                           \
    asm volatile("wgmma.mma_async.sync.aligned.m64n" #N "k8.f32.tf32.tf32 " WGMMA_LIST##REGS       \
                 ", {%" A0 ", %" A1 ", %" A2 ", %" A3 "}, %" B ", 1, 1, 1;"                        \
                 : WGMMA_OUT##REGS                                                                 \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b))

// d (64 x N, fp32, N / 2 a thread) += A (64 x k) B (k x N), k = 16 (bf16, fp16) or 8
// (tf32), N = 256, 128 or 64. Accumulator layout, as mma.sync's: warp w of the group
// holds rows 16w + lane / 4 (d[4j], d[4j + 1]) and 8 below (d[4j + 2], d[4j + 3]), at
// columns 8j + 2 (lane % 4) + {0, 1}.
template <matmul_precision P, int N>
__device__ __forceinline__ void wgmma_64xn(float (&d)[N / 2], unsigned long long a,
                                           unsigned long long b)
{
    static_assert(N == 256 || N == 128 || N == 64, "wgmma_64xn: n of 256, 128 or 64");
    static_assert(P != MATMUL_TF32, "wgmma_64xn: tf32 takes A from registers (wgmma_64xn_tf32)");
    constexpr bool bf16 = P == MATMUL_BF16;
    if constexpr (N == 256) {
        if constexpr (bf16)
            WGMMA_16BIT(256, "bf16", 128);
        else
            WGMMA_16BIT(256, "f16", 128);
    } else if constexpr (N == 128) {
        if constexpr (bf16)
            WGMMA_16BIT(128, "bf16", 64);
        else
            WGMMA_16BIT(128, "f16", 64);
    } else {
        if constexpr (bf16)
            WGMMA_16BIT(64, "bf16", 32);
        else
            WGMMA_16BIT(64, "f16", 32);
    }
}

// The same in tf32 with A's 64 x 8 from registers: warp w of the group holds rows 16w +
// lane / 4 and 8 below, at columns lane % 4 and 4 to the right, in the order (row,
// col), (row + 8, col), (row, col + 4), (row + 8, col + 4) (mma.sync m16n8k8's A
// fragment, a warp's 16 rows of the 64).
template <int N>
__device__ __forceinline__ void wgmma_64xn_tf32(float (&d)[N / 2], const unsigned (&a)[4],
                                                unsigned long long b)
{
    static_assert(N == 256 || N == 128 || N == 64, "wgmma_64xn_tf32: n of 256, 128 or 64");
    if constexpr (N == 256)
        WGMMA_TF32_REGISTERS(256, 128, "128", "129", "130", "131", "132");
    else if constexpr (N == 128)
        WGMMA_TF32_REGISTERS(128, 64, "64", "65", "66", "67", "68");
    else
        WGMMA_TF32_REGISTERS(64, 32, "32", "33", "34", "35", "36");
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
// B (k rows of n) comes in TMA boxes of a slab's k rows by 128 bytes of n: 64 x 64 of a
// 16-bit type, 32 x 32 of tf32, each box an 8 (4) KB block of the stage.
__host__ __device__ constexpr int v9_box_bytes(matmul_precision p)
{
    return v9_slab_k(p) * V9_SLAB_BYTES;
}

// Tile 128 x 256 (the largest), k-slab 128 bytes: per slab the producer's one thread
// waits for the stage to be empty, announces its 48 KB on the stage's full barrier and
// issues the TMA copies (A: one 128 x 128-byte box; B: four 64-column boxes); each
// consumer warpgroup waits for full, issues 4 wgmma (its 64 rows of A against all 256
// columns, 16 (tf32: 8) of k each), waits for them and says empty. Registers: 384
// threads start with 168 each; the producer drops to 24 and the consumers rise to 240,
// room for their 128 accumulators (24 x 128 + 240 x 256 = 64,512 of 65,536).
// Why faster than v8: mma.sync's operands pass through registers, loaded by ldmatrix
// from shared memory, and its 16 x 8 x 16 blocks reach about a third of Hopper's
// tensor-core rate; wgmma reads shared memory directly in 64 x 256 x 16 blocks, and no
// consumer thread spends an instruction on addresses or copies.
// Napkin math (H100, 4096^3 bf16): 137 GFLOP at 989 TFLOPS is 0.14 ms. A tile reads
// (128 + 256) x 2 B per k for 128 x 256 multiply-adds: 85 flops a byte of L2 traffic,
// 12.6 GB of it in all (A read 16 times, B 32 times), 4.6 TB/s over 0.14 ms, which the
// L2 carries; DRAM reads A and B once (64 MB) and writes C (64 MB) in ~0.04 ms.
// The smaller shapes (128 x 128, 128 x 64, 64 x 256, 64 x 128) are for a C of few tiles
// (the planner, v9_plan): 64 x 8192 is 32 tiles of 128 x 256, three quarters padding, on
// 132 SMs, and 128 tiles of 64 x 128.
// tf32: wgmma reads tf32 from shared memory only K-major (k contiguous), and B is k x n
// with n contiguous. So v9 multiplies C^T = B^T A^T: the tile's rows are C's columns,
// B^T's fragments (wgmma's A) are loaded into registers by the consumers, 16 4-byte
// shared loads a thread a slab against 4 wgmma of 64 x 256 x 8 (~512 tensor cycles), and
// A is wgmma's B, K-major as it lies. (Until 2026-11-29 v9 first wrote B^T to global
// memory: 4 k n bytes each way, which at 64 x 8192 x 8192 took 3x the multiply.)
// Napkin math (128 x 256, a slab of 32 k): the two consumers' 8 wgmma take ~1024 cycles
// of the SM's tensor cores (64 x 256 x 8 at ~1024 tf32 multiply-adds a cycle: 128 each);
// meanwhile shared memory takes TMA's 48 KB in, wgmma's 8 reads of A's 8 KB and the
// fragment loads' 16 KB out: 128 KB, ~125 bytes a cycle of its 128. tf32's largest tile
// runs at shared memory's rate; the narrower ones, whose wgmma do less a slab for the
// same fragment loads, lose more (their slab times, matmul.h).
#if WGMMA_CODE
// A block's unit of work: a tile, or a piece of one. Tiles before `whole` run whole; each
// from `whole` on is cut into `splits` pieces of k (v9_operands: all of them, or the last
// wave's alone), its pieces numbered one after another.
struct v9_unit {
    int tile, split, splits;
};
__device__ __forceinline__ v9_unit v9_unit_of(int unit, int whole, int splits)
{
    if (unit < whole)
        return {unit, 0, 1};
    const int piece = unit - whole;
    return {whole + piece / splits, piece % splits, splits};
}

// The producer (one thread of warpgroup 0): each unit's slabs of A and B into the stages
// in turn, a stage refilled once the consumers have given it back (empty[s]; full[s] then
// counts the copy engine's bytes in). A's slab is one box of the tile's rows of A by 128
// bytes of k; B's, boxes of its columns (tf32: the tile's rows are B's columns and come
// first in the stage).
template <matmul_precision P, class T>
__device__ __forceinline__ void
v9_produce(const CUtensorMap &map_a, const CUtensorMap &map_b, unsigned char *stages,
           unsigned long long (&full)[T::stages], unsigned long long (&empty)[T::stages],
           int tiles_m, int tiles_n, int slabs, int units, int whole, int splits)
{
    constexpr int slab = v9_slab_k(P); // k a stage
    constexpr bool transposed = P == MATMUL_TF32;
    constexpr int b_cols = transposed ? T::tile_m : T::tile_n; // B's columns a tile
    int stage = 0;
    unsigned phase = 0;
    for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
        const v9_unit u = v9_unit_of(unit, whole, splits);
        const tile_coord t = grouped_tile(u.tile, tiles_m, tiles_n);
        const slab_range range = split_k_slabs(slabs, u.split, u.splits);
        const int a_row = transposed ? t.col * T::tile_n : t.row * T::tile_m;
        const int b_col = transposed ? t.row * T::tile_m : t.col * T::tile_n;
        for (int s = range.first; s < range.end; s++) {
            mbarrier_wait_parity(&empty[stage], phase ^ 1); // a fresh barrier passes
            unsigned char *rows = stages + stage * T::stage_bytes, *cols = rows + T::a_bytes;
            unsigned char *a = transposed ? cols : rows, *b = transposed ? rows : cols;
            mbarrier_arrive_expect_bytes(&full[stage], T::stage_bytes);
            tensor_load_2d(a, &map_a, s * slab, a_row, &full[stage]);
            for (int box = 0; box < b_cols / slab; box++)
                tensor_load_2d(b + box * v9_box_bytes(P), &map_b, b_col + box * slab, s * slab,
                               &full[stage]);
            if (++stage == T::stages) {
                stage = 0;
                phase ^= 1;
            }
        }
    }
}

// A consumer's turn through the stages: which stage is next, the one whose slab it
// multiplied last (given back once its wgmma have finished) and the barriers' phase.
// It carries over from unit to unit.
struct v9_ring {
    int stage, previous;
    unsigned phase;
};

// Slab s of range: wait for the stage (full), multiply it (multiply(stage's bytes), which
// issues the wgmma), and give the slab before back (empty) once its wgmma have finished:
// this slab's wgmma stay in flight while the last slab's, now finished, give their stage
// back, so the tensor cores never wait for the warpgroup to issue.
template <class T, class Multiply>
__device__ __forceinline__ void
v9_slab(int s, slab_range range, unsigned char *stages, unsigned long long (&full)[T::stages],
        unsigned long long (&empty)[T::stages], int lane, v9_ring &ring, Multiply multiply)
{
    mbarrier_wait_parity(&full[ring.stage], ring.phase);
    multiply(stages + ring.stage * T::stage_bytes);
    wgmma_commit();
    wgmma_wait<1>();
    if (s > range.first && lane == 0)
        mbarrier_arrive(&empty[ring.previous]);
    ring.previous = ring.stage;
    if (++ring.stage == T::stages) {
        ring.stage = 0;
        ring.phase ^= 1;
    }
}

// After a unit's last slab: its wgmma finish and its stage goes back.
template <class T>
__device__ __forceinline__ void v9_last_slab_done(unsigned long long (&empty)[T::stages], int lane,
                                                  const v9_ring &ring)
{
    wgmma_wait<0>();
    if (lane == 0)
        mbarrier_arrive(&empty[ring.previous]);
}

// A consumer warpgroup's slabs [range) of one unit into its 64 x piece_n accumulators d,
// 4 wgmma a slab. A consumer's rows of A (128-row tiles) or columns of B (64-row tiles)
// start consumer x 64 rows (piece_n columns) in: 128 bytes a row of A, and a 64-column box
// of 16-bit B is 64 x 128 bytes.
template <matmul_precision P, class T>
__device__ __forceinline__ void v9_consume(float (&d)[T::accumulators], unsigned char *stages,
                                           unsigned long long (&full)[T::stages],
                                           unsigned long long (&empty)[T::stages], slab_range range,
                                           int consumer, int lane, v9_ring &ring)
{
    constexpr int mma_k = 16;                // k a wgmma: 32 bytes of a row
    constexpr int mmas = V9_SLAB_BYTES / 32; // wgmma a stage, 4
    const int a_offset = T::split_rows ? consumer * 64 * V9_SLAB_BYTES : 0;
    const int b_offset = T::a_bytes + (T::split_rows ? 0 : consumer * T::piece_n * V9_SLAB_BYTES);
    for (int s = range.first; s < range.end; s++)
        v9_slab<T>(s, range, stages, full, empty, lane, ring, [&](const unsigned char *stage) {
            wgmma_fence();
#pragma unroll
            for (int i = 0; i < mmas; i++)
                wgmma_64xn<P, T::piece_n>(
                    d, smem_descriptor(stage + a_offset + i * 32, 16, 1024),
                    smem_descriptor(stage + b_offset + i * mma_k * 128, v9_box_bytes(P), 1024));
        });
    v9_last_slab_done<T>(empty, lane, ring);
}

// Where a consumer thread's tf32 fragments lie in its 64 rows of B^T, as byte offsets in
// a slab's stage. Those rows are two boxes of 32 columns of B (4 KB each: 32 rows of k,
// 128 bytes of n, the 16-byte chunks of k row r XORed with r % 8). Which column of B a
// fragment row stands for is free (C^T's rows are written back by the same rule), so
// it is chosen against bank conflicts: warp w, fragment row lane / 4 + 8 h takes from
// box w / 2 the chunk c = 2 (w % 2) + h + 4 (lane / 16), element lane / 4 % 4 of it.
// A load's 32 lanes then read k rows t = lane % 4 (+ 4) in chunks {c, c + 4} ^ t: all 8
// chunks once, 32 banks, one wavefront (the plain order, 8 adjacent columns, is 2-way).
// offset[q], in wgmma_64xn_tf32's fragment order; the i-th k-step of a slab adds 8 rows.
struct v9_tf32_fragments {
    int offset[4];
    __device__ __forceinline__ v9_tf32_fragments(int warp, int lane, int first_box)
    {
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const int h = q % 2, k = lane % 4 + 4 * (q / 2);
            const int chunk = 2 * (warp % 2) + h + 4 * (lane / 16);
            offset[q] = (first_box + warp / 2) * 4096 + k * V9_SLAB_BYTES + (chunk ^ k) * 16 +
                        lane / 4 % 4 * 4;
        }
    }
};

// tf32's consumer: C^T = B^T A^T, so a consumer's rows are 64 columns of B (128-row
// tiles: consumer x 64 in, two 4 KB boxes) and its columns piece_n rows of A (64-row
// tiles: consumer x piece_n in). A slab's fragments are loaded, then multiplied; they
// alternate between two sets of registers, so one slab's loads do not wait for the last
// slab's wgmma, which still read theirs.
template <class T>
__device__ __forceinline__ void
v9_consume_tf32(float (&d)[T::accumulators], unsigned char *stages,
                unsigned long long (&full)[T::stages], unsigned long long (&empty)[T::stages],
                slab_range range, int consumer, int warp, int lane, v9_ring &ring)
{
    constexpr int mmas = V9_SLAB_BYTES / 32; // wgmma a stage, 4 of k 8
    const v9_tf32_fragments where(warp, lane, T::split_rows ? consumer * 2 : 0);
    const int a_offset = T::a_bytes + (T::split_rows ? 0 : consumer * T::piece_n * V9_SLAB_BYTES);
    auto multiply = [&](const unsigned char *stage, unsigned(&f)[mmas][4]) {
#pragma unroll
        for (int i = 0; i < mmas; i++)
#pragma unroll
            for (int q = 0; q < 4; q++)
                f[i][q] = *reinterpret_cast<const unsigned *>(stage + where.offset[q] +
                                                              i * 8 * V9_SLAB_BYTES);
        wgmma_fence();
#pragma unroll
        for (int i = 0; i < mmas; i++)
            wgmma_64xn_tf32<T::piece_n>(d, f[i],
                                        smem_descriptor(stage + a_offset + i * 32, 16, 1024));
    };
    unsigned even[mmas][4], odd[mmas][4];
    auto with_even = [&](const unsigned char *stage) { multiply(stage, even); };
    auto with_odd = [&](const unsigned char *stage) { multiply(stage, odd); };
    int s = range.first;
    for (; s + 1 < range.end; s += 2) {
        v9_slab<T>(s, range, stages, full, empty, lane, ring, with_even);
        v9_slab<T>(s + 1, range, stages, full, empty, lane, ring, with_odd);
    }
    if (s < range.end)
        v9_slab<T>(s, range, stages, full, empty, lane, ring, with_even);
    v9_last_slab_done<T>(empty, lane, ring);
}

// The epilogue: each lane's accumulators of the consumer's 64 x piece_n piece of tile t
// straight to C (the producer is already loading the next unit's slabs). In 16-bit types a
// lane holds pairs of adjacent columns; where C's rows are whole 16-byte chunks, two lanes
// trade a pair so each stores four columns (16 bytes), and a warp's store covers 64 bytes
// of each of 8 rows, not 32: L2 takes half the requests for C. At a short k, where
// writing C is most of the work, 8192 x 8192 x 64 bf16 went from 103 us to 78 (ncu, pairs:
// DRAM 45% busy writing 244 MB, L2 79%; cuBLAS 76 us, DRAM 67%). Staging the warp's rows
// in shared memory and writing each 128-byte row by a bulk copy was slower (1.34 -> 1.47
// of cuBLAS's time there): 16 small copies a chunk, each chunk waiting for the last to be
// read. tf32's piece is of C^T: a lane holds, for each of its rows of C, the
// columns of v9_tf32_fragments' rows lane / 4 and + 8, which lie 4 apart; the 8 lanes of
// a row hold two runs of 8 columns, each run half in the low lanes (lane / 4 < 4) and half
// in the high ones. One exchange (lane ^ 16) gives each lane one element of each run, so
// a warp's store covers 4 rows with a whole 32-byte sector each (the columns as they
// were, 16 bytes of a sector a store, took 2.7x the time at 8192 x 8192 x 16).
template <matmul_precision P, class T>
__device__ __forceinline__ void v9_store_tile(const matmul_args &p,
                                              const float (&d)[T::accumulators], tile_coord t,
                                              int consumer, int warp, int lane)
{
    const int row0 = t.row * T::tile_m + (T::split_rows ? consumer * 64 : 0);
    const int col0 =
        t.col * T::tile_n + (T::split_rows ? 0 : consumer * T::piece_n) + 2 * (lane % 4);
    if constexpr (P == MATMUL_TF32) {
        const bool high = lane >= 16;
        const int first = row0 + warp / 2 * 32 + warp % 2 * 8 + lane / 4, second = first + 16;
#pragma unroll
        for (int j = 0; j < T::piece_n / 8; j++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const float near = d[4 * j + e], far = d[4 * j + 2 + e];
                const float other = __shfl_xor_sync(0xffffffffu, high ? near : far, 16);
                const int row = col0 + 8 * j + e;
                if (row >= p.m)
                    continue;
                float *c = p.c + (size_t)row * p.n;
                if (first < p.n)
                    store_result(c, first, high ? other : near, p.alpha, p.beta);
                if (second < p.n)
                    store_result(c, second, high ? far : other, p.alpha, p.beta);
            }
    } else if (p.n % 4 == 0 && ((size_t)p.c & 15) == 0) {
        // Pairs of lanes (lane ^ 1) trade a pair of columns so each holds four adjacent
        // ones: the even lane of groups j's, the odd one of j + 1's; a warp's store then
        // covers 64 bytes of each of 8 rows where pairs covered 32.
        const bool odd = lane & 1;
#pragma unroll
        for (int j = 0; j < T::piece_n / 8; j += 2)
#pragma unroll
            for (int half = 0; half < 2; half++) {
                const float *mine = &d[4 * j + 2 * half], *next = &d[4 * (j + 1) + 2 * half];
                const float gx = __shfl_xor_sync(0xffffffffu, odd ? mine[0] : next[0], 1);
                const float gy = __shfl_xor_sync(0xffffffffu, odd ? mine[1] : next[1], 1);
                const int row = row0 + warp * 16 + lane / 4 + 8 * half;
                const int col = odd ? col0 + 8 * (j + 1) - 2 : col0 + 8 * j;
                if (row >= p.m || col >= p.n)
                    continue;
                float4 out = odd ? make_float4(gx, gy, next[0], next[1])
                                 : make_float4(mine[0], mine[1], gx, gy);
                out.x *= p.alpha, out.y *= p.alpha, out.z *= p.alpha, out.w *= p.alpha;
                float4 *at = reinterpret_cast<float4 *>(p.c + (size_t)row * p.n + col);
                if (p.beta != 0.0f) {
                    const float4 old = *at;
                    out.x += p.beta * old.x, out.y += p.beta * old.y;
                    out.z += p.beta * old.z, out.w += p.beta * old.w;
                }
                *at = out;
            }
    } else {
#pragma unroll
        for (int j = 0; j < T::piece_n / 8; j++)
#pragma unroll
            for (int half = 0; half < 2; half++)
                store_pair(p, row0 + warp * 16 + lane / 4 + 8 * half, col0 + 8 * j,
                           d[4 * j + 2 * half], d[4 * j + 2 * half + 1]);
    }
}
#endif

template <matmul_precision P, class T>
__global__ void __launch_bounds__(V9_THREADS, 1)
    matmul_v9_kernel(const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b, matmul_args p, int whole,
                     int splits, split_k_space split_space)
{
#if WGMMA_CODE
    constexpr int slab = v9_slab_k(P); // k a stage
    extern __shared__ unsigned char shared_raw[];
    __shared__ unsigned long long full[T::stages], empty[T::stages];
    // 128-byte swizzling repeats every 1024 bytes; the atoms must start on that boundary.
    unsigned char *stages = shared_raw + ((1024 - (shared_address(shared_raw) & 1023)) & 1023);

    const int warpgroup = threadIdx.x / 128;
    // The product's rows and columns: C's, or C^T's for tf32.
    const int rows = P == MATMUL_TF32 ? p.n : p.m, cols = P == MATMUL_TF32 ? p.m : p.n;
    const int tiles_m = ceil_div(rows, T::tile_m), tiles_n = ceil_div(cols, T::tile_n);
    const int tiles = tiles_m * tiles_n, slabs = ceil_div(p.k, slab);
    const int units = whole + (tiles - whole) * splits;
    if (threadIdx.x == 0) {
        for (int s = 0; s < T::stages; s++) {
            mbarrier_init(&full[s], 1);  // the producer's arrival (and the TMA bytes)
            mbarrier_init(&empty[s], 8); // lane 0 of each consumer warp
        }
        mbarrier_init_fence();
    }
    __syncthreads();
    // Launched behind the copies into padded rows (launch_v9_tiles): nothing is read or
    // written before they land.
    wait_for_previous_grid();

    if (warpgroup == 0) {
        registers_decrease<24>();
        if (threadIdx.x != 0)
            return;
        v9_produce<P, T>(map_a, map_b, stages, full, empty, tiles_m, tiles_n, slabs, units, whole,
                         splits);
        return;
    }

    registers_increase<240>();
    const int consumer = warpgroup - 1, warp = threadIdx.x / 32 % 4, lane = threadIdx.x % 32;
    v9_ring ring = {0, 0, 0};
    for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
        const v9_unit u = v9_unit_of(unit, whole, splits);
        const tile_coord t = grouped_tile(u.tile, tiles_m, tiles_n);
        const slab_range range = split_k_slabs(slabs, u.split, u.splits);
        float d[T::accumulators] = {}; // the unit's sums, from zero
        if constexpr (P == MATMUL_TF32) {
            v9_consume_tf32<T>(d, stages, full, empty, range, consumer, warp, lane, ring);
        } else {
            v9_consume<P, T>(d, stages, full, empty, range, consumer, lane, ring);
            // The sums are final here: without this ptxas moved the epilogue's reads of them
            // (its exchange between lanes) into the wgmma pipeline and serialized the
            // wgmma (warning C7514; 4096^3 bf16 1.04 -> 1.11 of cuBLAS's time).
#pragma unroll
            for (int i = 0; i < T::accumulators; i++)
                asm volatile("" : "+f"(d[i])::"memory");
        }
        // A piece of k: all but the tile's last piece to finish leave their sums in the
        // workspace; the last adds them up and writes C. The consumers' own barrier (1):
        // the producer does not take part.
        if (u.splits > 1 && !split_k_fixup(d, split_space, u.tile - whole, u.split, u.splits, 256,
                                           threadIdx.x - 128, [] {
                                               asm volatile("bar.sync 1, 256;" ::: "memory");
                                           }))
            continue;
        v9_store_tile<P, T>(p, d, t, consumer, warp, lane);
    }
#endif
}

// --- host: operands TMA can describe, tensor maps, the launch -------------------------

// TMA needs each row to start on 16 bytes: a row of A holds k elements, of B n. Where
// that fails the launcher first copies the matrix into padded rows in the workspace (the
// copy is part of v9's time).
//
// A row on 16 bytes but not 32 (bf16 k = 3000: 6000 bytes) is slow to read: each 128-byte
// piece of it a box takes straddles 32-byte sectors, and L2 serves ~3x the requests
// (ncu, 3000^3 bf16 on an H200: 18.1 M against 5.9 M with its rows padded; the kernel
// 175 us against 115). v9 took ~2x cuBLAS's time at such sizes (3000^3 bf16 2.05, 5000^3
// 2.14, 8196^3 tf32 1.69). Two remedies, measured on an H200 (time over cuBLAS's):
// - the tensor maps of rows not on 128 bytes promote L2 fills to 128 bytes, not 256, which
//   costs nothing: 3000^3 bf16 2.05 -> 1.77, 1304^3 1.26 -> 1.13, 6000^3 (rows on 32
//   bytes, not 128) 1.44 -> 1.23, tf32 4096x4096x3004 1.04 -> 0.94; aligned rows as before;
// - the copy into rows padded to 128 bytes, where it pays (each operand's bytes read and
//   written once against its reuse). The operand on the tile's wide side (B's 256 columns
//   in 16-bit types; A in tf32, whose tiles are C^T's) gains the most: copied where its
//   rows are not on 32 bytes, it is reused at least REALIGN_WIDE_FROM times and the product
//   has REALIGN_MIN_WORK multiply-adds: bf16 m x 3000 x 4096 from m = 1536 (1.73 -> 1.61;
//   1024: 1.74 -> 1.82), 1800^3 1.25 -> 1.24, 5000^3 1.82 -> 1.51, tf32 5004^3 1.16 ->
//   0.96, 8196^3 1.37 -> 1.04 (1304^3 lost: 1.13 -> 1.26). In 16-bit types the other
//   operand too, where it is reused at least REALIGN_NARROW_FROM times: 3000^3 1.55 ->
//   1.44, 5000^3 1.51 -> 1.26, 7000^3 1.40 -> 1.11 (2600^3 lost: 1.25 -> 1.38; in tf32 it
//   lost at every size tried: 5004^3 0.96 -> 1.01).

struct v9_operands {
    size_t a_pitch, b_pitch; // bytes a row (A: k elements; B: n)
    bool a_copied, b_copied; // into the workspace
    size_t a_bytes, b_bytes; // workspace each takes
    matmul_tile_plan plan;   // the tile shape (matmul_v9_shapes; tf32: of C^T), pieces of k
    long long tiles;
    long long whole;    // tiles that run whole, before those cut into plan.splits pieces
    size_t split_bytes; // workspace split-K takes, after the copies
    size_t workspace() const { return a_bytes + b_bytes + split_bytes; }
};

// Which kernel v9 gives a shape: the thin path where its rule says so; past it, for a k
// shorter than 64, v8's; else its own tiles, which CUDALAB_V9_TILE (a tile shape named)
// takes whatever the shape. A k under 64 is one or two slabs, which leave v9 its setup
// (two tensor maps, the padded copies of rows shorter than 16 bytes, a persistent grid's
// first loads) and its epilogue, where v8's cp.async reads short rows as they lie.
// Measured (H200, every such shape of the sweep against -k v8): v8 took 0.4-0.95 of v9's
// time in bf16, fp16 and tf32 (18x71x1 bf16 6.0 us against 14.7, 1771x419x15 12.7 against
// 15.9, 8192x8192x16 99 against 108); from k = 64 v9 was faster (4096x4096x64 bf16 28.9 us
// against 32.3, 128x128x128 6.8 against 9.2).
enum { V9_SHORT_K = 64 };
enum v9_route { V9_THIN, V9_V8, V9_TILES };
static v9_route v9_route_for(const matmul_args *p)
{
    if (matmul_forced_tile("CUDALAB_V9_TILE"))
        return V9_TILES;
    if (matmul_thin_taken(p))
        return V9_THIN;
    return p->k < V9_SHORT_K ? V9_V8 : V9_TILES;
}

enum { REALIGN_WIDE_FROM = 1536, REALIGN_NARROW_FROM = 2800 };
constexpr double REALIGN_MIN_WORK = 4.0 * (1 << 30);

static v9_operands v9_plan(const matmul_args *p)
{
    const size_t elem = matmul_element_bytes(p->precision);
    const size_t a_row = (size_t)p->k * elem, b_row = (size_t)p->n * elem;
    const bool tf32 = p->precision == MATMUL_TF32;
    // The wide operand, the narrow one: their rows' bytes and reuse (the other side of C).
    const size_t wide_row = tf32 ? a_row : b_row, narrow_row = tf32 ? b_row : a_row;
    const int wide_reuse = tf32 ? p->n : p->m, narrow_reuse = tf32 ? p->m : p->n;
    const bool large = (double)p->m * p->n * p->k >= REALIGN_MIN_WORK;
    const bool wide_copied =
        wide_row % 16 != 0 || (wide_row % 32 != 0 && large && wide_reuse >= REALIGN_WIDE_FROM);
    const bool narrow_copied =
        narrow_row % 16 != 0 || (!tf32 && wide_row % 32 != 0 && wide_copied &&
                                 narrow_row % 32 != 0 && narrow_reuse >= REALIGN_NARROW_FROM);
    v9_operands o = {};
    o.a_copied = tf32 ? wide_copied : narrow_copied;
    o.b_copied = tf32 ? narrow_copied : wide_copied;
    o.a_pitch = o.a_copied ? padded_row(p->k, elem, 128) : a_row;
    o.a_bytes = o.a_copied ? workspace_round(o.a_pitch * p->m) : 0;
    o.b_pitch = o.b_copied ? padded_row(p->n, elem, 128) : b_row;
    o.b_bytes = o.b_copied ? workspace_round(o.b_pitch * p->k) : 0;
    // The product's sides: tf32 tiles C^T (the kernel's rows are C's columns). One block
    // an SM: its shared memory takes the SM.
    const int rows = tf32 ? p->n : p->m, cols = tf32 ? p->m : p->n;
    const matmul_tile_shape *shapes = tf32 ? matmul_v9_tf32_shapes : matmul_v9_shapes;
    const int slabs = (int)cl_ceil_div(p->k, v9_slab_k(p->precision)), sms = sm_count();
    o.plan = matmul_plan_version("v9", "CUDALAB_V9_TILE", shapes, MATMUL_V9_SHAPE_COUNT, rows, cols,
                                 slabs, sms);
    const auto tiles_of = [&](const matmul_tile_shape &s) {
        return (long long)cl_ceil_div(rows, s.tile_m) * cl_ceil_div(cols, s.tile_n);
    };
    // Every tile cut alike (matmul_plan_tiles), or the last wave's tiles alone (the grid is
    // persistent: matmul_plan_tail) where the model finishes that 3% sooner or more (its
    // error is a few percent: a smaller gain is a coin toss), in tiles no smaller than the
    // uniform plan's: the smaller shapes' slab times come from a full machine at 8192 x 8192
    // x 4096, and where C is one wave of the larger tile they were far off (H200, 300 x 7000
    // x 2000 bf16: 128 x 256 in one wave 27.4 us, a tail plan of 128 x 128 tiles 37.8 where
    // the model said 0.91 of it). A shape named by CUDALAB_V9_TILE keeps that shape.
    o.whole = 0;
    const matmul_tile_shape &uniform = shapes[o.plan.shape];
    double best = 0.97 * matmul_tile_time(&uniform, tiles_of(uniform), slabs, sms, o.plan.splits);
    const bool forced = matmul_forced_tile("CUDALAB_V9_TILE") != NULL;
    for (int i = 0; i < MATMUL_V9_SHAPE_COUNT; i++) {
        if ((forced && i != o.plan.shape) ||
            shapes[i].tile_m * shapes[i].tile_n < uniform.tile_m * uniform.tile_n)
            continue;
        const matmul_tail_plan tail = matmul_plan_tail(&shapes[i], tiles_of(shapes[i]), slabs, sms);
        if (tail.splits > 1 && tail.time < best) {
            best = tail.time;
            o.plan.shape = i;
            o.plan.splits = tail.splits;
            o.whole = tail.whole;
        }
    }
    const matmul_tile_shape &shape = shapes[o.plan.shape];
    o.tiles = tiles_of(shape);
    o.split_bytes = split_k_bytes(o.tiles - o.whole, o.plan.splits, 256,
                                  v9_piece_n(shape.tile_m, shape.tile_n) / 2);
    return o;
}

extern "C" size_t matmul_v9_workspace(const matmul_args *p)
{
    switch (v9_route_for(p)) {
    case V9_THIN:
        return matmul_thin_workspace(p);
    case V9_V8:
        return matmul_v8_workspace(p);
    default:
        return v9_plan(p).workspace();
    }
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
// box_cols x box_rows, 128-byte swizzled in shared memory, zeros outside the matrix; L2
// fills of 256 bytes, 128 where rows are not on 128 bytes (v9_operands says why).
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
        pitch % 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B : CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        cl_die(CL_EXIT_CUDA, "v9: cuTensorMapEncodeTiled failed (error %d) for a %d x %d matrix",
               (int)r, rows, cols);
    return map;
}

// The kernel of one tile shape T on operands TMA can read.
template <matmul_precision P, class T>
static void launch_v9_tiles(const matmul_args *p, const void *a, const void *b,
                            const v9_operands &o, void *split_workspace, cudaStream_t s)
{
    // A in boxes of a tile's rows of A (tf32: the tile's columns) by a slab of k; B in
    // boxes of a slab of k by a slab's count of columns (128 bytes).
    const int slab = v9_slab_k(P), a_rows = P == MATMUL_TF32 ? T::tile_n : T::tile_m;
    const CUtensorMap map_a = tensor_map(a, p->m, p->k, o.a_pitch, slab, a_rows, P);
    const CUtensorMap map_b = tensor_map(b, p->k, p->n, o.b_pitch, slab, slab, P);
    const void *kernel = (const void *)matmul_v9_kernel<P, T>;
    const cl_kernel_fit fit = cl_kernel_fit_for(kernel, V9_THREADS, T::shared_bytes);
    if (fit.resident == 0)
        cl_die(CL_EXIT_CUDA,
               "v9: no block of %d threads and %d bytes of shared memory fits an SM of this GPU",
               V9_THREADS, T::shared_bytes);
    const long long units = o.whole + (o.tiles - o.whole) * o.plan.splits;
    const int grid = units < fit.resident ? (int)units : fit.resident;
    const split_k_space space =
        split_k_carve(split_workspace, o.tiles - o.whole, o.plan.splits, 256, T::accumulators);
    // Behind the copies into padded rows, a grid of fewer blocks than SMs is launched
    // while they finish (a programmatic dependent launch), its blocks waiting in the kernel
    // for the copies' bytes (H200, us, fused copies then product, plain against dependent:
    // 500 x 500 x 500 bf16 10.4 -> 9.0, 128 x 275 x 249 fp16 11.6 -> 10.3, 1500 x 1500 x
    // 1500 fp16 30.6 -> 29.5). A grid of one block an SM ran slower so launched (3000 x
    // 3000 x 3000 fp16 113 -> 125, 5000 x 5000 x 5000 bf16 408 -> 428), for reasons not
    // measured.
    cl_launch((o.a_copied || o.b_copied) && grid < fit.resident, matmul_v9_kernel<P, T>, dim3(grid),
              V9_THREADS, T::shared_bytes, s, map_a, map_b, *p, (int)o.whole, o.plan.splits, space);
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
    void *a_copy = o.a_copied ? workspace : NULL;
    void *b_copy = o.b_copied ? workspace + o.a_bytes : NULL;
    pad_operands(p, elem, a_copy, o.a_pitch, b_copy, o.b_pitch, s);
    const void *a = a_copy ? a_copy : p->a, *b = b_copy ? b_copy : p->b;
    void *split_workspace = workspace + o.a_bytes + o.b_bytes;
    const matmul_tile_shape &shape = matmul_v9_shapes[o.plan.shape];
#define V9_SHAPE_CASE(tm, tn, time, tf32_time)                                                     \
    if (shape.tile_m == tm && shape.tile_n == tn)                                                  \
        return launch_v9_tiles<P, v9_tile<tm, tn>>(p, a, b, o, split_workspace, s);
    MATMUL_V9_SHAPES(V9_SHAPE_CASE)
#undef V9_SHAPE_CASE
    cl_die(CL_EXIT_USAGE, "v9: no kernel for tiles of %d x %d", shape.tile_m, shape.tile_n);
}

TENSOR_LAUNCHER(launch_v9, launch_v9_as)

extern "C" void matmul_launch_v9(const matmul_args *p, cudaStream_t s)
{
    switch (v9_route_for(p)) {
    case V9_THIN:
        return matmul_thin_launch(p, s);
    case V9_V8:
        return matmul_launch_v8(p, s);
    default:
        return launch_v9(p, s);
    }
}

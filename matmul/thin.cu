// matmul's thin paths: a C of few rows or few columns, where a tile of 128 or 256 sides is
// mostly padding (m = 1: 1/256 of a v6 tile's multiply-adds count) and the work is reading
// the long operand once. v6 takes them in fp32, v9 in tf32, bf16 and fp16: the CUDA cores
// keep up with the memory there (the tensor cores with columns past 4 in tf32, bf16 and
// fp16), and the tensor cores' tiles would copy and pad the operands of odd sides first.
//
//   rows      m few: each thread 4 columns of up to 16 rows of C, B streamed once a group
//             of 16 rows, A's slab staged in shared memory
//   columns   n = 5 .. 16 in fp32: each warp 4 rows of C, its lanes 4 steps of k each,
//             B's slab staged transposed in shared memory
//   column    n <= 4 (n = 1: a matrix-vector product): a warp 4 rows, B read straight
//             from memory
//   mma       n = 5 .. 16 in tf32, bf16 and fp16: a warp 16 rows, mma.sync on A's loads
//             as they lie, B staged once a block in the order they give k; for a small A
//             a block 16 rows, its warps along k, each reading its B straight
//
// All split k into pieces (split-K, the fixup of tiles.cuh): rows and columns until the
// grid holds ~4 blocks an SM, column and mma into the pieces that fill whole waves
// (matmul_wave_splits). Every element is read as a float or handed to the tensor cores as
// it lies (bf16 and fp16 exactly, tf32 rounded to nearest as cuBLAS and v7 round it);
// every sum is an fp32 one.
//
// The kernels are in thin_kernels.cuh; this file plans a shape (which kernel, its grid,
// the pieces of k) and launches it.
#include "check.h"
#include "device.h"
#include "launch.h"
#include "matmul.h"
#include "thin_kernels.cuh"
#include "tiles.cuh"

// --- the planner ---------------------------------------------------------------------------

// A thread's accumulators a column (rows) or a row (columns): the thin side rounded up to
// a power of two, at most 16.
static int thin_count(int side)
{
    int count = 1;
    while (count < side && count < THIN_GROUP)
        count *= 2;
    return count;
}

// The columns kernel's columns a block (5 .. 16): n rounded up to a multiple of 4, so 9 ..
// 12 columns do 12 columns' work, not 16's (H200, against 16: 99999 x 12 x 500 129.5 ->
// 109.1 us, 29999 x 12 x 777 73.9 -> 64.8, but 9999 x 9 x 999 38.1 -> 40.8).
static int thin_cols_count(int n)
{
    const int count = cl_ceil_div(n, 4) * 4;
    return count < 8 ? 8 : count > THIN_GROUP ? (int)THIN_GROUP : count;
}

// Calls f with std::integral_constant<int, V> for the V of Vs equal to n, or the last V
// where none is: a kernel's compile-time count chosen at run time.
template <int V, int... Vs, typename F> static void with_constant(int n, F f)
{
    if constexpr (sizeof...(Vs) == 0)
        f(std::integral_constant<int, V>());
    else if (n == V)
        f(std::integral_constant<int, V>());
    else
        with_constant<Vs...>(n, f);
}

struct thin_plan {
    int path;
    dim3 grid;
    int accumulators;  // a thread's
    int fixup_threads; // a block's threads that take part in split-K's fixup
};

// The shapes the tensor-core columns kernel takes: 5 to 16 columns in tf32, bf16 and
// fp16. tf32 once kept a short k and a small A on the CUDA cores' columns kernel, whose
// blocks took k whole; the tensor cores' form with warps along k now runs them as fast or
// faster (H200, 64 tf32 shapes of 5 .. 16 columns, m 64 .. 2999, k 64 .. 500: geometric
// mean of time over cuBLAS's 0.77 -> 0.73; 64 x 5 x 500 9.4 -> 6.8 us, 300 x 16 x 500
// 10.4 -> 8.7, 1111 x 8 x 300 8.4 -> 7.3; slower by up to 1 us at 12 and 16 columns of
// k 64 .. 300: 300 x 12 x 64 5.4 -> 6.2, 64 x 12 x 300 8.2 -> 9.2).
template <matmul_precision P> static bool thin_mma_taken(const matmul_args *p)
{
    return P != MATMUL_FP32 && p->n > THIN_COLUMN_MAX && p->n <= THIN_GROUP;
}

// The blocks of a thin kernel the GPU holds at once.
static long long thin_resident(const void *kernel)
{
    const int resident = cl_kernel_fit_for(kernel, THIN_THREADS, 0).resident;
    return resident > 0 ? resident : 1;
}

// The column kernel for n (1 .. THIN_COLUMN_MAX) columns.
typedef void (*thin_column_kernel)(matmul_args, bool, split_k_space);
template <matmul_precision P> static thin_column_kernel thin_column_kernel_for(int n)
{
    thin_column_kernel kernel = nullptr;
    with_constant<1, 2, 3, 4>(
        n, [&](auto columns) { kernel = matmul_thin_column_kernel<P, columns()>; });
    return kernel;
}

// The tensor-core kernel's form for a small A: warps along k (matmul_thin_mma_split_kernel)
// in at most 4096 rows, for at most 4 MiB of A, and at up to 8 columns where the 128-row
// form's grid, even with k cut into the most pieces, is under two blocks an SM (16-bit)
// or one (tf32, in at most 1024 rows: its lanes round each B fragment they load, which
// the 128-row form rounds once as it stages B). H200, us, warps along k against along
// rows: 300 x 14 x 300 fp16 7.7, 15.0 (cuBLAS 7.3); 4000 x 8 x 500 bf16 7.3, 15.3; 300 x
// 16 x 777 tf32 9.0, 13.2; past 4 MiB: 96 x 8 x 77777 fp16 21.5, 57.2; 64 x 5 x 131072
// bf16 16.6, 28.1; 3000 x 8 x 900 fp16 10.9, 15.5; 1777 x 6 x 2500 fp16 14.5, 18.1;
// 128 x 8 x 100000 tf32 37.8, 44.9; 900 x 7 x 2600 tf32 13.0, 14.5. Elsewhere B's loads,
// which the split form makes a lane a chunk where the row form stages B once a window for
// 128 rows, cost more than the idle SMs: at 9 .. 16 columns (1100 x 16 x 1900 tf32 16.7,
// 12.7; 16000 x 16 x 128 fp16 11.9, 6.7; 1000 x 16 x 30000 tf32 107, 45; past 4 MiB
// neither won consistently: 2000 x 14 x 1500 bf16 12.9, 17.1 but 2048 x 12 x 2048 fp16
// 12.1, 10.5), at 8 columns and a fuller grid (3000 x 8 x 5000 fp16 23.6, 18.1; 2800 x 7
// x 2600 fp16 15.0, 14.0), tf32 in more rows (2600 x 7 x 1400 16.2, 13.2; 1100 x 8 x
// 3000 16.0, 15.1).
template <matmul_precision P> static bool thin_mma_split_taken(const matmul_args *p)
{
    if (p->m > 4096)
        return false;
    if ((long long)p->m * p->k * (long long)sizeof(thin_element<P>) <= 1LL << 22)
        return true;
    const long long slabs = cl_ceil_div(p->k, (int)THIN_MMA_SLAB);
    const long long row_form_blocks = cl_ceil_div(p->m, (int)THIN_MMA_ROWS) *
                                      (slabs < SPLIT_K_MAX ? slabs : (long long)SPLIT_K_MAX);
    if (P == MATMUL_TF32)
        return p->n <= 8 && p->m <= 1024 && row_form_blocks < sm_count();
    return p->n <= 8 && row_form_blocks < 2LL * sm_count();
}

// The tensor-core columns kernel for a shape: its form, its groups of 8 columns, and
// whether A's rows lie on 16 bytes.
typedef void (*thin_mma_kernel)(matmul_args, split_k_space);
template <matmul_precision P> static thin_mma_kernel thin_mma_kernel_for(const matmul_args *p)
{
    thin_mma_kernel kernel = nullptr;
    if constexpr (P != MATMUL_FP32) {
        const bool aligned = rows_vectorize(p->a, p->k, sizeof(thin_element<P>));
        const bool split = thin_mma_split_taken<P>(p);
        with_constant<1, 2>(cl_ceil_div(p->n, 8), [&](auto groups) {
            if (split)
                kernel = aligned ? matmul_thin_mma_split_kernel<P, groups(), true>
                                 : matmul_thin_mma_split_kernel<P, groups(), false>;
            else
                kernel = aligned ? matmul_thin_mma_kernel<P, groups(), true>
                                 : matmul_thin_mma_kernel<P, groups(), false>;
        });
    }
    return kernel;
}

// The grid: blocks along the long side, pieces of k (each at least 2 slabs for rows, 512
// steps of k for columns, whose fixup moves 8 times the bytes, one slab of 256 for mma;
// none empty), groups of 16 along the thin side. The pieces: enough for ~4 blocks an SM;
// for the column and mma kernels, whose fixups are small (16 KB a piece at most),
// matmul_wave_splits.
template <matmul_precision P> static thin_plan plan_thin(const matmul_args *p)
{
    thin_plan t = {matmul_thin_rule(p->precision, p->m, p->n, p->k), dim3(1, 1, 1), 0, 0};
    const bool rows = t.path == MATMUL_THIN_ROWS;
    const int thin = rows ? p->m : p->n;
    const bool mma = !rows && thin_mma_taken<P>(p);
    const bool mma_split = mma && thin_mma_split_taken<P>(p);
    const bool columns_kernel = !rows && !mma && p->n > THIN_COLUMN_MAX;
    const unsigned blocks = rows ? cl_grid_blocks(p->n, THIN_ROWS_COLS, "the thin path")
                                 : cl_grid_blocks(p->m,
                                                  mma_split ? (int)THIN_MMA_SPLIT_ROWS
                                                  : mma     ? (int)THIN_MMA_ROWS
                                                            : (int)THIN_COLS_ROWS,
                                                  "the thin path");
    const unsigned groups = cl_ceil_div(thin, THIN_GROUP);
    const long long slabs = cl_ceil_div(p->k, rows  ? (int)THIN_ROWS_SLAB
                                              : mma ? (int)THIN_MMA_SLAB
                                                    : (int)THIN_COLS_SLAB);
    const long long placed = (long long)blocks * groups;
    long long most = rows ? slabs / 2 : mma ? slabs : p->k / 512; // columns: 512 steps a piece
    most = most < 1 ? 1 : most > SPLIT_K_MAX ? (long long)SPLIT_K_MAX : most;
    long long splits = (4LL * sm_count() + placed - 1) / placed;
    splits = splits < most ? splits : most;
    if (mma)
        splits = matmul_wave_splits(placed, (int)slabs, (int)most,
                                    thin_resident((const void *)thin_mma_kernel_for<P>(p)));
    else if (!rows && p->n <= THIN_COLUMN_MAX)
        splits = matmul_wave_splits(placed, (int)slabs, (int)most,
                                    thin_resident((const void *)thin_column_kernel_for<P>(p->n)));
    t.grid = dim3(blocks, split_k_pieces((int)slabs, (int)splits), groups);
    t.accumulators = mma ? 4 * cl_ceil_div(p->n, 8)
                         : (columns_kernel ? thin_cols_count(p->n) : thin_count(thin)) * 4;
    t.fixup_threads = rows || mma_split ? 32 : THIN_THREADS;
    return t;
}

extern "C" bool matmul_thin_taken(const matmul_args *p)
{
    return matmul_thin_rule(p->precision, p->m, p->n, p->k) != MATMUL_THIN_NONE;
}

static size_t thin_workspace(const thin_plan &t)
{
    return split_k_bytes((long long)t.grid.x * t.grid.z, t.grid.y, t.fixup_threads, t.accumulators);
}

// Calls f with the precision as a compile-time constant.
template <typename F> static void with_thin_precision(matmul_precision precision, F f)
{
    switch (precision) {
    case MATMUL_FP32:
        return f(std::integral_constant<matmul_precision, MATMUL_FP32>());
    case MATMUL_TF32:
        return f(std::integral_constant<matmul_precision, MATMUL_TF32>());
    case MATMUL_BF16:
        return f(std::integral_constant<matmul_precision, MATMUL_BF16>());
    case MATMUL_FP16:
        return f(std::integral_constant<matmul_precision, MATMUL_FP16>());
    default:
        cl_die(CL_EXIT_USAGE, "the thin path: no such precision (%d)", (int)precision);
    }
}

extern "C" size_t matmul_thin_workspace(const matmul_args *p)
{
    size_t bytes = 0;
    with_thin_precision(p->precision,
                        [&](auto precision) { bytes = thin_workspace(plan_thin<precision()>(p)); });
    return bytes;
}

template <matmul_precision P> static void launch_thin_as(const matmul_args *p, cudaStream_t s)
{
    const thin_plan t = plan_thin<P>(p);
    if (thin_workspace(t) > p->workspace_bytes)
        cl_die(CL_EXIT_CUDA, "the thin path: needs %zu bytes of workspace, was given %zu",
               thin_workspace(t), p->workspace_bytes);
    // Vector loads: the rows path's take 4 elements (16 bytes of floats, 8 of 16-bit
    // elements), aligned wherever a row holds whole groups of 4, which rows_vectorize(...,
    // 4) tests; the others take 16 bytes (4 floats, 8 16-bit elements).
    const split_k_space space = split_k_carve(p->workspace, (long long)t.grid.x * t.grid.z,
                                              t.grid.y, t.fixup_threads, t.accumulators);
    if (t.path == MATMUL_THIN_ROWS)
        with_constant<1, 2, 4, 8, 16>(thin_count(p->m), [&](auto rows) {
            matmul_thin_rows_kernel<P, rows()><<<t.grid, THIN_THREADS, 0, s>>>(
                *p, rows_vectorize(p->b, p->n, 4), rows_vectorize(p->c, p->n, 4), space);
        });
    else if (thin_mma_taken<P>(p))
        thin_mma_kernel_for<P>(p)<<<t.grid, THIN_THREADS, 0, s>>>(*p, space);
    else if (p->n <= THIN_COLUMN_MAX)
        thin_column_kernel_for<P>(p->n)<<<t.grid, THIN_THREADS, 0, s>>>(
            *p, rows_vectorize(p->a, p->k, sizeof(thin_element<P>)), space);
    else if constexpr (P == MATMUL_FP32) // 5 .. 16 columns: 8, 12 or 16 a block
        with_constant<8, 12, 16>(thin_cols_count(p->n), [&](auto cols) {
            matmul_thin_cols_kernel<cols()>
                <<<t.grid, THIN_THREADS, 0, s>>>(*p, rows_vectorize(p->a, p->k, 4), space);
        });
    CL_LAUNCH_CHECK();
}

extern "C" void matmul_thin_launch(const matmul_args *p, cudaStream_t s)
{
    with_thin_precision(p->precision, [&](auto precision) { launch_thin_as<precision()>(p, s); });
}

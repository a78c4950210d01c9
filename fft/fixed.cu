// fft v6's kernels: each pass compiled for its length (see the comment below), and
// Bluestein's algorithm in one kernel for m a power of two up to 8192. fft.cu's planner
// reaches them through passes.cuh (fixed_pass_plan, fixed_pass_launch, fixed_bluestein_*).
#include <stdio.h>

#include "check.h"
#include "device.h"
#include "launch.h"
#include "passes.cuh"

// v6: v5's passes, each compiled for its length M (a power of two, 1 .. 8192 for a whole
// transform, 16 .. 4096 for a pass over columns; other lengths run v5's kernel): every
// index, radix and loop bound is a constant, so a point costs a few
// instructions where v4/v5 spend dozens on radix switches, divisions and bounds checks (ncu,
// 4096: 2.3 instructions a point a stage). A thread holds EPT = 16 points (8 up to M = 64, all M
// below 16) in registers: points t + k TPC of its column, k < EPT, TPC = M / EPT threads a column.
// Stages are radix EPT and a last one of what is left (2, 4 or 8): 4096 = 16 16 16 in 3 stages and
// 2 exchanges through shared memory, where v4 takes 8 8 8 8 and 3. Stage twiddles w^q (q < 16) come
// from 6 reads of the M-th roots (q = 1, 2, 3, 4, 8, 12) and 9 products of two of them.
// Napkin math (n = 4096, 2^26 points): 1 GB moved, 0.36 ms at the H100's 2.95 TB/s copy
// rate, i.e. 0.82 points an SM a clock: a budget of 128 / 0.82 = 156 instructions a point
// against ~73 measured (154 M warp instructions). DRAM-bound: 98-100% of copy from 64 to
// 4096. A pass over columns reads runs of C neighbours (C = 16, 8 from 1024 on, 4 at 4096:
// 128, 64, 32 bytes): 2^20 takes 2 passes at 87% of copy each on the H100 (cuFFT 91%),
// latency-bound at 2 blocks of 512 an SM, so their time goes with their instructions
// (ncu: 132 M and 166 M warp instructions, cuFFT's 154 M and 125 M).

// The points a thread holds for length m: 8 up to 64 (64 = 8 x 8 on 8 threads), 16 above.
__host__ __device__ constexpr int fixed_points_a_thread(int m)
{
    return m <= 16 ? m : m <= 64 ? 8 : 16;
}

// The most threads an SM holds: 1024 on Turing (sm_75, in the portable build), 2048
// on the A100 and Hopper.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define FFT_SM_THREADS 1024
#else
#define FFT_SM_THREADS 2048
#endif
__host__ __device__ constexpr int cmin(int a, int b) { return a < b ? a : b; }

// A length's shape: points a thread, threads a column, columns a block (whole transforms:
// 256 threads a block at least; columns of a longer transform: 16 neighbours, 128-byte
// runs, 8 from M = 1024 on), shared memory (one slot in 16 of padding, see fixed_slot).
template <int M, bool STRIDED> struct fixed_shape {
    static constexpr int EPT = fixed_points_a_thread(M);
    static constexpr int TPC = M / EPT;
    static constexpr int C = STRIDED ? (M <= 256    ? 4096 / M
                                        : M == 512  ? 16
                                        : M == 1024 ? 8
                                                    : 4)
                                     : (TPC >= 256 ? 1 : 256 / TPC);
    static constexpr int THREADS = C * TPC;
    // Registers: at most 85 a thread (3 blocks of 256 an SM), 64 for blocks of 512; 256
    // whole, 5 blocks of 256 at 48; 2048 and 4096 whole, 4 blocks of 256 at 64, none
    // spilling: more warps in flight for the H200's bandwidth an SM (the README's tuning
    // notes have the times). The launch bound in whole warps and within the threads an SM
    // holds, or ptxas ignores it.
    static constexpr int BOUND_THREADS = (THREADS + 31) / 32 * 32;
    static constexpr int MIN_BLOCKS = cmin(M == 256 && !STRIDED                   ? 5
                                           : (M == 2048 || M == 4096) && !STRIDED ? 4
                                           : THREADS >= 1024                      ? 1
                                           : THREADS >= 512                       ? 2
                                                                                  : 3,
                                           FFT_SM_THREADS / BOUND_THREADS);
    static constexpr int SLOTS = C * M + C * M / 16;
    // The first of several passes writes column g's outputs to g M + p: straight from
    // registers the warp's runs are 256 / C bytes, staged through shared memory when that
    // is at most a 32-byte sector (tuning notes: 2^27 and 2^20).
    static constexpr bool STAGED = STRIDED && C >= 8;
};

// Column c's point p in shared memory: whole transforms one after another (c M + p),
// columns interleaved (p C + c), then a slot skipped every 16: a power-of-two stage's
// stores go R points apart, and 16 lanes storing 16 x R apart would share one bank
// without it.
template <int M, int C, bool STRIDED>
__host__ __device__ __forceinline__ constexpr int padded_slot(int c, int p)
{
    const int i = STRIDED ? p * C + c : c * M + p;
    return i + (i >> 4);
}
template <int M, bool STRIDED> __device__ __forceinline__ int fixed_slot(int c, int p)
{
    return padded_slot<M, fixed_shape<M, STRIDED>::C, STRIDED>(c, p);
}

// fixed_slot(i / M, i % M) for i = tid + k THREADS (tid < THREADS), the staged store's
// k-th point, as a part of tid's plus a constant of k's (ptxas computes each slot in
// full otherwise, ~6 instructions a point). Columns interleaved (p C + c) and padded
// (i + i / 16), C >= 8 columns of a power of two, C M / THREADS points a thread:
// THREADS >= M: column c = tid / M + k u (u = THREADS / M <= 16 columns a sweep),
//   point p = tid % M; p C is a multiple of 16 (C >= 16) and no multiple of 16 lies
//   inside (k u, k u + u), so the padding is p C / 16 + k u / 16.
// THREADS = M / 2 (C = 8): c = k / 2, p = tid + (k % 2) THREADS; (tid C) % 16 + c <= 15,
//   so the padding is tid C / 16 + (k % 2) THREADS C / 16.
template <int M, int C, int THREADS>
__host__ __device__ __forceinline__ constexpr int staged_slot(unsigned tid, int k)
{
    static_assert(C * M % THREADS == 0, "a staged pass's shape");
    if constexpr (THREADS >= M) {
        constexpr int u = THREADS / M;
        static_assert(C % 16 == 0 && u <= 16 && 16 % u == 0, "columns a sweep");
        const int p = tid % M, base = p * C + tid / M + (p * C >> 4);
        return base + k * u + (k * u >> 4);
    } else {
        static_assert(C == 8 && 2 * THREADS == M, "two sweeps a column");
        const int base = tid * C + (tid * C >> 4);
        return base + (k % 2) * (THREADS * C + THREADS * C / 16) + k / 2;
    }
}
// The identity above, checked by the compiler for every thread and point of a shape.
template <int M, int C, int THREADS> __host__ __device__ constexpr bool staged_slots_hold()
{
    for (unsigned tid = 0; tid < THREADS; tid++)
        for (int k = 0; k < C * M / THREADS; k++) {
            const unsigned i = tid + k * THREADS;
            if (staged_slot<M, C, THREADS>(tid, k) != padded_slot<M, C, true>(i / M, i % M))
                return false;
        }
    return true;
}

// The stages after the loads, as template recursion on NS (the product of the stages
// before): each stage twiddles (NS > 1) and transforms its EPT / R butterflies, then,
// unless it is the last, trades points through shared memory. Butterfly j = t + b TPC
// reads points j + q M/R = t + (b + q EPT/R) TPC: registers b + q EPT/R, so the
// layout "register k holds point t + k TPC" holds before every stage and after the last.
template <int M, bool STRIDED, int NS>
__device__ __forceinline__ void fixed_stages(float2 (&v)[fixed_shape<M, STRIDED>::EPT], float2 *sm,
                                             int c, int t, const float2 *roots)
{
    using S = fixed_shape<M, STRIDED>;
    constexpr int R = M / NS < S::EPT ? M / NS : S::EPT, B = S::EPT / R;
#pragma unroll
    for (int b = 0; b < B; b++) {
        float2 u[R];
#pragma unroll
        for (int q = 0; q < R; q++)
            u[q] = v[b + q * B];
        if constexpr (NS > 1)
            twiddle_from_roots<R>(u, roots, (unsigned)(t + b * S::TPC) % NS * (M / (NS * R)));
        dft<R>(u);
#pragma unroll
        for (int q = 0; q < R; q++)
            v[b + q * B] = u[q];
    }
    if constexpr (NS * R < M) {
        if constexpr (NS > 1)
            __syncthreads(); // the previous stage's reads are done
#pragma unroll
        for (int b = 0; b < B; b++) {
            const int j = t + b * S::TPC, jm = (unsigned)j % NS;
#pragma unroll
            for (int q = 0; q < R; q++)
                sm[fixed_slot<M, STRIDED>(c, (j - jm) * R + jm + q * NS)] = v[b + q * B];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < S::EPT; k++)
            v[k] = sm[fixed_slot<M, STRIDED>(c, t + k * S::TPC)];
        fixed_stages<M, STRIDED, NS * R>(v, sm, c, t, roots);
    }
}

// A v6 thread's column and place in it: C columns a block of T threads each, whole
// transforms one after another (STRIDED false) or columns interleaved, neighbours in
// neighbouring lanes (true: column j of transform b, d.stride of them a transform).
template <bool STRIDED, int C, int T>
__device__ __forceinline__ pass_thread column_thread(const pass_desc &d)
{
    pass_thread th;
    th.c = STRIDED ? (int)threadIdx.x % C : (int)threadIdx.x / T;
    th.t = STRIDED ? (int)threadIdx.x / C : (int)threadIdx.x % T;
    const unsigned g = blockIdx.x * (unsigned)C + th.c;
    th.valid = g < d.columns;
    th.b = g;
    th.j = 0;
    th.jm = 0;
    if (STRIDED) {
        th.b = g / (unsigned)d.stride;
        th.j = (int)(g - th.b * (unsigned)d.stride);
        th.jm = th.j % d.ns;
    }
    return th;
}

// One pass of M-point transforms (see pass_kernel for the pass's arithmetic): STRIDED
// false, whole transforms (d.m == d.n); true, columns d.stride apart: the first pass
// (d.ns == 1, TWIDDLED false) or a later one (TWIDDLED: its loads twiddled between
// passes). The two are compiled apart: with d.ns > 1 a run-time test, the first pass
// issued the twiddles' loads and products predicated off, and the later ones the
// staged store's code (tuning notes: their instructions at 2^20).
template <int M, bool STRIDED, bool TWIDDLED>
__global__ void __launch_bounds__(fixed_shape<M, STRIDED>::BOUND_THREADS,
                                  fixed_shape<M, STRIDED>::MIN_BLOCKS)
    fixed_pass_kernel(const float2 *in, float2 *out, const pass_desc d)
{
    using S = fixed_shape<M, STRIDED>;
    static_assert(STRIDED || !TWIDDLED, "a whole transform has no twiddles between passes");
    extern __shared__ float2 sm[];
    const pass_thread th = column_thread<STRIDED, S::C, S::TPC>(d);
    const int c = th.c, t = th.t, j = th.j, jm = th.jm;
    const unsigned b = th.b;
    const bool valid = th.valid;
    // The inverse's conjugates: as sign masks in whole transforms, as conj_if's select in
    // column passes, where the masks cost registers at the 64 a thread they run at
    // (tuning notes: 4096 and 2^20 inverse).
    const unsigned sign_in = sign_mask(d.conj_in), sign_out = sign_mask(d.conj_out);
    const auto conj_loaded = [&](float2 a) {
        return STRIDED ? conj_if(a, d.conj_in) : flip_imag(a, sign_in);
    };
    const auto conj_stored = [&](float2 a) {
        return STRIDED ? conj_if(a, d.conj_out) : flip_imag(a, sign_out);
    };
    float2 v[S::EPT];
    if constexpr (STRIDED) {
        // Points t + k TPC, k < EPT, d.stride apart: one pointer that moves TPC strides a
        // point (a point's own 64-bit address from an int product, under the valid test,
        // took ~7 instructions; this takes 2), the twiddle's exponent likewise. A thread
        // past the last column reads in[0] EPT times (its values never leave its column).
        const size_t jump = valid ? (size_t)S::TPC * d.stride : 0;
        const float2 *src = valid ? in + (size_t)b * d.n + j + (size_t)t * d.stride : in;
        const int e_jump = S::TPC * jm;
        int e = t * jm;
#pragma unroll
        for (int k = 0; k < S::EPT; k++, src += jump, e += e_jump) {
            float2 a = conj_loaded(*src);
            if constexpr (TWIDDLED)
                a = cmul(a, pass_twiddle(d, e));
            v[k] = a;
        }
    } else {
        const float2 *src = in + (size_t)b * d.n + t;
#pragma unroll
        for (int k = 0; k < S::EPT; k++)
            v[k] = valid ? conj_loaded(src[k * S::TPC]) : make_float2(0.0f, 0.0f);
    }
    if constexpr (M > 1)
        fixed_stages<M, STRIDED, 1>(v, sm, c, t, d.roots);
    if constexpr (!S::STAGED || TWIDDLED) {
        // Output p of column j goes to b n + (j - jm) M + jm + p ns (whole transforms: b M + p).
        const size_t out_step = STRIDED ? d.ns : 1, out_jump = S::TPC * out_step;
        float2 *dst = out + (size_t)b * d.n + (size_t)(j - jm) * M + jm + t * out_step;
        if (valid)
#pragma unroll
            for (int k = 0; k < S::EPT; k++, dst += out_jump)
                *dst = conj_stored(v[k]);
    } else {
        // The first of several passes: column g's outputs are the M points at g M, the
        // block's C columns one run of C M points, staged so it leaves in order.
        __syncthreads();
#pragma unroll
        for (int k = 0; k < S::EPT; k++)
            sm[fixed_slot<M, STRIDED>(c, t + k * S::TPC)] = v[k];
        __syncthreads();
        const unsigned first = blockIdx.x * (unsigned)S::C;
        float2 *run = out + (size_t)first * M;
        static_assert(staged_slots_hold<M, S::C, S::THREADS>(), "staged_slot");
        if (first + S::C <= d.columns) { // a whole block: C M / THREADS = EPT points a thread
#pragma unroll
            for (int k = 0; k < S::EPT; k++)
                run[threadIdx.x + k * S::THREADS] =
                    conj_stored(sm[staged_slot<M, S::C, S::THREADS>(threadIdx.x, k)]);
        } else {
            const int count = (int)(d.columns - first) * M;
            for (int i = threadIdx.x; i < count; i += S::THREADS)
                run[i] = conj_stored(sm[fixed_slot<M, STRIDED>(i / M, i % M)]);
        }
    }
}

// v6's kernel for a pass, where one is compiled: whole transforms of 1 .. 8192 points,
// columns of 16 .. 2048.
struct fixed_kernel {
    void (*launch)(const pass_desc &d, const float2 *in, float2 *out, cudaStream_t stream);
    const void *kernel;   // whole transforms, or the first pass over columns
    const void *twiddled; // the later passes over columns (NULL: the same kernel)
    int threads, smem_bytes, columns_per_block;
};

template <int M, bool STRIDED>
static void launch_fixed(const pass_desc &d, const float2 *in, float2 *out, cudaStream_t stream)
{
    using S = fixed_shape<M, STRIDED>;
    const unsigned blocks = (d.columns + S::C - 1) / S::C;
    if (STRIDED && d.ns > 1) // TWIDDLED = STRIDED: false in a whole transform's (dead) branch
        fixed_pass_kernel<M, STRIDED, STRIDED>
            <<<blocks, S::THREADS, d.smem_bytes, stream>>>(in, out, d);
    else
        fixed_pass_kernel<M, STRIDED, false>
            <<<blocks, S::THREADS, d.smem_bytes, stream>>>(in, out, d);
    CL_LAUNCH_CHECK();
}

template <int M, bool STRIDED> static fixed_kernel fixed_kernel_of()
{
    using S = fixed_shape<M, STRIDED>;
    return {launch_fixed<M, STRIDED>,
            (const void *)fixed_pass_kernel<M, STRIDED, false>,
            STRIDED ? (const void *)fixed_pass_kernel<M, STRIDED, STRIDED> : NULL,
            S::THREADS,
            M > S::EPT ? (int)(S::SLOTS * sizeof(float2)) : 0,
            S::C};
}

static fixed_kernel find_fixed_kernel(int m, bool strided)
{
    // clang-format off
    if (!strided)
        switch (m) {
        case 1: return fixed_kernel_of<1, false>();
        case 2: return fixed_kernel_of<2, false>();
        case 4: return fixed_kernel_of<4, false>();
        case 8: return fixed_kernel_of<8, false>();
        case 16: return fixed_kernel_of<16, false>();
        case 32: return fixed_kernel_of<32, false>();
        case 64: return fixed_kernel_of<64, false>();
        case 128: return fixed_kernel_of<128, false>();
        case 256: return fixed_kernel_of<256, false>();
        case 512: return fixed_kernel_of<512, false>();
        case 1024: return fixed_kernel_of<1024, false>();
        case 2048: return fixed_kernel_of<2048, false>();
        case 4096: return fixed_kernel_of<4096, false>();
        case 8192: return fixed_kernel_of<8192, false>();
        }
    else
        switch (m) {
        case 16: return fixed_kernel_of<16, true>();
        case 32: return fixed_kernel_of<32, true>();
        case 64: return fixed_kernel_of<64, true>();
        case 128: return fixed_kernel_of<128, true>();
        case 256: return fixed_kernel_of<256, true>();
        case 512: return fixed_kernel_of<512, true>();
        case 1024: return fixed_kernel_of<1024, true>();
        case 2048: return fixed_kernel_of<2048, true>();
        case 4096: return fixed_kernel_of<4096, true>();
        }
    // clang-format on
    return {NULL, NULL, NULL, 0, 0, 0};
}

bool fixed_pass_plan(pass_desc &d, bool dry)
{
    const fixed_kernel k = find_fixed_kernel(d.m, !d.contiguous);
    if (!k.launch || (size_t)k.smem_bytes > cl_device_current()->shared_optin_bytes)
        return false;
    if (!dry) // raises the kernel's shared-memory allowance on this device
        cl_kernel_fit_for(d.ns > 1 && k.twiddled ? k.twiddled : k.kernel, k.threads,
                          (size_t)k.smem_bytes);
    d.fixed = true;
    d.smem_bytes = k.smem_bytes;
    d.columns_per_block = k.columns_per_block; // for the plan's description
    return true;
}

void fixed_pass_launch(const pass_desc &d, const float2 *in, float2 *out, cudaStream_t stream)
{
    find_fixed_kernel(d.m, !d.contiguous).launch(d, in, out, stream);
}

// v6's Bluestein for m <= 8192 (n <= 4096) in one kernel, a column a transform: the
// chirp product on the loads, the forward transform of m, the product with the chirp's
// spectrum (scaled by 1/m, exact for a power of two) and the conjugate, the forward
// transform again (conj(forward(conj)) = the inverse), the last chirp product on the
// stores. Where v5 moves 16 bytes a point 5 times through DRAM (3 products, 2
// transforms of m >= 2n points, 8 bytes in and out each), this moves them once: 8 in,
// 8 out. The cost moves to arithmetic: 2 m-point transforms for n outputs, ~4 x a
// one-pass transform's ~70 instructions an output for 1009 on 2048 (budget ~156 at the
// H100's copy rate): issue-bound, ~3x the copy floor.
// Blocks an SM: 2 of 256 threads (128 registers), 1 of 512, for the registers the chirp
// and spectrum reads take (3 blocks of 256 at 80 registers spill; tuning notes: 1009).
template <int M> constexpr int fused_min_blocks()
{
    return fixed_shape<M, false>::THREADS >= 512 ? 1 : 2;
}

template <int M>
__global__ void __launch_bounds__(fixed_shape<M, false>::BOUND_THREADS, fused_min_blocks<M>())
    bluestein_fused_kernel(const float2 *x, float2 *y, int n, unsigned batch, const float2 *chirp,
                           const float2 *spectrum, const float2 *roots, bool conj_in, bool conj_out)
{
    using S = fixed_shape<M, false>;
    extern __shared__ float2 sm[];
    const int c = (int)threadIdx.x / S::TPC, t = (int)threadIdx.x % S::TPC;
    const unsigned b = blockIdx.x * (unsigned)S::C + c;
    const bool valid = b < batch;
    const unsigned sign_in = sign_mask(conj_in), sign_out = sign_mask(conj_out);
    float2 v[S::EPT];
#pragma unroll
    for (int k = 0; k < S::EPT; k++) {
        const int p = t + k * S::TPC;
        v[k] = valid && p < n ? chirp_in(x[(size_t)b * n + p], sign_in, chirp, p)
                              : make_float2(0.0f, 0.0f);
    }
    fixed_stages<M, false, 1>(v, sm, c, t, roots);
    constexpr float scale = 1.0f / M;
#pragma unroll
    for (int k = 0; k < S::EPT; k++)
        v[k] = filter_out(v[k], spectrum, t + k * S::TPC, scale);
    __syncthreads(); // the first transform's last reads of shared memory are done
    fixed_stages<M, false, 1>(v, sm, c, t, roots);
#pragma unroll
    for (int k = 0; k < S::EPT; k++) {
        const int p = t + k * S::TPC;
        if (valid && p < n)
            y[(size_t)b * n + p] = chirp_out(v[k], chirp, p, sign_out);
    }
}

template <int M>
static void launch_bluestein_fused(const fixed_bluestein_args &a, cudaStream_t stream)
{
    using S = fixed_shape<M, false>;
    const unsigned blocks = (unsigned)((a.batch + S::C - 1) / S::C);
    bluestein_fused_kernel<M><<<blocks, S::THREADS, S::SLOTS * sizeof(float2), stream>>>(
        a.x, a.y, a.n, (unsigned)a.batch, a.chirp, a.spectrum, a.roots, a.inverse, a.inverse);
    CL_LAUNCH_CHECK();
}

struct fused_bluestein {
    void (*launch)(const fixed_bluestein_args &a, cudaStream_t stream);
    const void *kernel;
    int threads;
    size_t smem_bytes;
};

template <int M> static fused_bluestein fused_bluestein_of()
{
    return {launch_bluestein_fused<M>, (const void *)bluestein_fused_kernel<M>,
            fixed_shape<M, false>::THREADS, fixed_shape<M, false>::SLOTS * sizeof(float2)};
}

// m >= 2n - 1 with n >= 11 (the least prime above 7): 32 .. 8192.
static fused_bluestein find_fused_bluestein(long long m)
{
    // clang-format off
    switch (m) {
    case 32: return fused_bluestein_of<32>();
    case 64: return fused_bluestein_of<64>();
    case 128: return fused_bluestein_of<128>();
    case 256: return fused_bluestein_of<256>();
    case 512: return fused_bluestein_of<512>();
    case 1024: return fused_bluestein_of<1024>();
    case 2048: return fused_bluestein_of<2048>();
    case 4096: return fused_bluestein_of<4096>();
    case 8192: return fused_bluestein_of<8192>();
    }
    // clang-format on
    return {NULL, NULL, 0, 0};
}

bool fixed_bluestein_plan(long long m, bool dry)
{
    const fused_bluestein k = find_fused_bluestein(m);
    if (!k.launch || k.smem_bytes > cl_device_current()->shared_optin_bytes)
        return false;
    if (!dry) // raises the kernel's shared-memory allowance on this device
        cl_kernel_fit_for(k.kernel, k.threads, k.smem_bytes);
    return true;
}

void fixed_bluestein_launch(const fixed_bluestein_args &a, cudaStream_t stream)
{
    find_fused_bluestein(a.m).launch(a, stream);
}

void fixed_pass_describe(char *out, size_t len, const pass_desc &d)
{
    char radix[96];
    const int e = fixed_points_a_thread(d.m);
    size_t used = 0;
    for (int ns = 1; ns < d.m; ns *= d.m / ns < e ? d.m / ns : e)
        used += snprintf(radix + used, sizeof radix - used, "%s%d", ns > 1 ? " " : "",
                         d.m / ns < e ? d.m / ns : e);
    snprintf(out, len, "1 pass (radix %s), %d transform%s a block", d.m > 1 ? radix : "-",
             d.columns_per_block, d.columns_per_block > 1 ? "s" : "");
}

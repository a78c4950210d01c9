// fft v7's pass kernels (device code: staged.cu plans and launches them, staged_huge.cu
// compiles their HUGE instances): any length m whose prime factors are at most 47, built
// from the codelets (codelets.cuh) a stage at a time, so a length no table names runs the
// same code as its neighbours with the same factors. The planner (fft_staged_radices, factor.c)
// factors m into the fewest stages of radix 2 .. 16 (6, 10, 12, 14 and 15 are codelets made
// of two) and the large radices (the primes 17 .. 31 and the coprime products 18 .. 30), or
// the huge primes 37 .. 47 beside radices to 16, the most even of those (60 = 10 x 6); a
// kernel runs them in turn, each stage's radix a switch the block takes together.
//
// A Stockham stage of radix R whose earlier radices multiply to ns: butterfly j < m / R
// reads points j + q m/R, twiddles them by w_{ns R}^{q (j mod ns)} (from the table of m-th
// roots), transforms them (dft<R>) and writes them to (j - j mod ns) R + j mod ns + q ns:
// no bit reversal, one __syncthreads a stage.
//
// staged_whole_kernel, whole transforms (m = n), C = 2048 / m of them a block (HUGE: more
// while the prime stage has fewer butterflies than threads, staged.cu): the first
// stage loads its butterflies' points from global memory straight into registers (a warp's
// lanes take neighbouring butterflies: runs of m / R points), the stages between trade
// points through shared memory (each buffer padded as the plan counts its warps' bank
// conflicts, fft_staged_layout), and the last stage stores to global memory (its
// outputs j + q m/R: runs again). A two-stage length crosses shared memory once, as v6's
// compiled kernels do; where a run would be under 4 points, the block copies its points in
// (out) through shared memory instead. staged_bluestein_kernel is the same with Bluestein's
// products on the first load and the last store. Past two buffers' room (m above 14,528
// on 227 KB) staged_inplace_kernel and staged_bluestein_inplace_kernel take one buffer,
// their stages in place, to ~27,200 points (see "stages in place" below).
// staged_columns_kernel, a pass over columns of a longer transform: C = 16 columns (8 from
// m = 512, 4 from 1024; LARGE and HUGE: more while a prime stage is short of threads,
// staged.cu) interleaved in shared memory (point p of column c at p (C + 1) + c), loaded
// and stored by the first and last stages likewise (a first pass's run copied out in
// order).
//
// Napkin math (H200, 4.2 TB/s copy rate; 2^24 points a pass): 268 MB, 64 us, a budget of
// ~125 instructions a point at that rate (132 SMs x 4 issue a clock x 1.98 GHz over 4.2
// points a ns) if every issue slot is used. A stage costs a point its share of two index
// divisions (c, j mod ns), R - 1 twiddle reads and products, the butterfly and a shared
// read and write, and its share of the stage's setup, a thread's once a stage (finding its
// radix's case, its constants): ncu (H200, 3125 = 5^5, each thread one butterfly a stage)
// found ~110 of a warp's ~235 instructions a stage there when each stage computed three
// reciprocals and its buffers' layout; the plan gives them now (staged_stage_consts). The
// README's sweep has the times: two-stage lengths at ~1.07x cuFFT's, three stages and
// more 1.2-2.5x; ncu counts 1.6x (1000) to 2.5x (3125) the instructions of cuFFT's
// kernels, compiled per length.
#ifndef FFT_STAGED_KERNELS_CUH
#define FFT_STAGED_KERNELS_CUH

#include "check.h"
#include "device.h"
#include "launch.h"
#include "passes.cuh"

// Threads a block: FFT_STAGED_THREADS, 256 (4 blocks an SM at 64 registers a thread); a
// whole transform alone in its block up to a thread a first-stage butterfly (1024 at most,
// whole_shape).
enum { STAGED_THREADS = FFT_STAGED_THREADS, STAGED_MAX_THREADS = 1024, STAGED_WHOLE_POINTS = 2048 };
// The kernels' instances by the largest radix they run (TIER): SMALL to 16 (64 registers a
// thread), LARGE to 31 (up to 128), HUGE the primes 37 .. 47 beside radices to 16 (up to
// 255: one block of 256 threads an SM; a 47-point stage holds 47 inputs, then 23 sums and
// 23 differences, in registers). A whole transform with a large stage: blocks of up to 512
// threads, so 512 a SM either way (one block of 512, or two of 256: whole_shape says which).
enum { TIER_SMALL, TIER_LARGE, TIER_HUGE };
enum { STAGED_LARGE_THREADS = 512 };
// A whole or in-place kernel's largest block: STAGED_MAX_THREADS, 512, 256.
__host__ __device__ constexpr int staged_tier_threads(int tier)
{
    return tier == TIER_SMALL   ? STAGED_MAX_THREADS
           : tier == TIER_LARGE ? STAGED_LARGE_THREADS
                                : 256;
}
// A columns kernel's blocks an SM (its launch bounds, so its registers): SMALL 4, LARGE 2,
// HUGE 1.
__host__ __device__ constexpr int staged_tier_columns_blocks(int tier)
{
    return tier == TIER_SMALL ? 4 : tier == TIER_LARGE ? 2 : 1;
}
// A block's copy in: loads a thread issues before it stores them to shared memory.
enum { STAGED_COPY_LOADS = 8 };

// 1 / d for div_mod, from the special-function unit (within 2 ulps, which div_mod allows
// for the indices here, below 2^17). An IEEE division would take ~20 instructions, several
// a stage a thread.
__device__ __forceinline__ float rcp(int d) { return __fdividef(1.0f, (float)d); }

// Every radix a stage may have (the planner's set, fft_staged_radices): X(R) for each; the
// large radices (17 .. 31) in the kernels' LARGE instances only, the huge (37 .. 47) in
// the HUGE ones.
#define STAGED_RADICES(X)                                                                          \
    X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
#define STAGED_LARGE_RADICES(X)                                                                    \
    X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(26) X(28) X(29) X(30) X(31)
#define STAGED_HUGE_RADICES(X) X(37) X(41) X(43) X(47)
// A prime stage 17 .. 47 (dft_odd_each: each output stored as it is made).
__host__ __device__ constexpr bool is_large_prime(int R)
{
    return R == 17 || R == 19 || R == 23 || R == 29 || R == 31 || R == 37 || R == 41 || R == 43 ||
           R == 47;
}
__device__ __forceinline__ int radix_at(unsigned long long code, int s)
{
    return (int)(code >> (6 * s) & 63) + 1;
}

// The block's first column, and how many of its C columns exist (the last block's may not).
__device__ __forceinline__ int block_columns(const pass_desc &d, unsigned &first)
{
    first = blockIdx.x * (unsigned)d.columns_per_block;
    return (int)min((unsigned)d.columns_per_block, d.columns - first);
}

// --- where a block's points are: one policy a kernel ----------------------------------------
//
// A stage (staged_stage) asks its policy which butterfly j of which of the block's columns
// c its i-th butterfly is, where point p of column c lies in shared memory (slot), and, at
// the first and last stage, how to load point p from global memory and store it there.

// The in-place kernels' buffer: point i at slot i + i / 16, one slot skipped in 16, so a
// stage's accesses R points apart (lanes taking neighbouring butterflies) spread over the
// banks (R = 16: 17 slots apart).
__device__ __forceinline__ int padded_slot(int i) { return i + (i >> 4); }

// staged_whole_kernel's and staged_bluestein_kernel's blocks in shared memory: C transforms
// of m points, each buffer laid out as staged_stage_consts says (point x of transform c at
// c pitch + x + pad (x / G): pads that spare a stage's warps bank conflicts, chosen by
// fft_staged_layout, factor.c; and the slot of a butterfly's q-th point base + q stride on
// both sides). Butterfly i is butterfly j = i mod (m / R) of transform c =
// i / (m / R), so a warp's lanes take neighbouring butterflies and its loads of point j +
// q m/R, q fixed, are neighbouring words: runs of m / R points.
struct whole_slots {
    int m;
    bool alone; // one transform a block: butterfly i is its butterfly i (no division)
    __device__ int butterfly(int i, int count, float inv_count, int &j) const
    {
        if (alone) {
            j = i;
            return 0;
        }
        return div_mod(i, count, inv_count, j);
    }
    // Butterfly j (g = j / ns, jm = j mod ns) of transform c reads points j + q count (step
    // = count / ns) and writes g R ns + jm + q ns (Rns = R ns).
    __device__ int read_base(int c, int j, int g, const staged_stage_consts &k) const
    {
        return c * k.in_pitch + j + k.in_pad * g;
    }
    __device__ int read_stride(int count, const staged_stage_consts &k) const
    {
        return count + k.in_pad * k.step;
    }
    __device__ int write_base(int c, int g, int jm, int Rns, const staged_stage_consts &k) const
    {
        return c * k.out_pitch + g * (Rns + k.out_pad) + jm;
    }
    __device__ int write_stride(int ns) const { return ns; }
    // Point i of the block's run (transform i / m, its point i mod m) in a buffer whose
    // groups are whole transforms (before the first stage, after the last): no pads.
    __device__ int run_slot(int i, float inv_m, int pitch) const
    {
        if (pitch == m) // no extra slots: the run as it is
            return i;
        int p;
        const int c = div_mod(i, m, inv_m, p);
        return c * pitch + p;
    }
};

// staged_whole_kernel's block: its C m points one run in global memory.
struct whole_points : whole_slots {
    const float2 *src;
    float2 *dst;
    unsigned sign_in, sign_out;
    __device__ float2 load(int c, int p) const { return flip_imag(src[c * m + p], sign_in); }
    __device__ void store(int c, int p, float2 v) const { dst[c * m + p] = flip_imag(v, sign_out); }
};

// staged_bluestein_kernel's block: n <= m points a transform in global memory; loads
// x_p c_p (zero past n), stores conj(y_p) c_p for p < n.
struct bluestein_points : whole_slots {
    const float2 *src;
    float2 *dst;
    int n;
    unsigned sign_in, sign_out;
    const float2 *chirp;
    __device__ float2 load(int c, int p) const
    {
        return p < n ? chirp_in(src[c * n + p], sign_in, chirp, p) : make_float2(0.0f, 0.0f);
    }
    __device__ void store(int c, int p, float2 v) const
    {
        if (p < n)
            dst[c * n + p] = chirp_out(v, chirp, p, sign_out);
    }
};

// staged_columns_kernel's block: C neighbouring columns g = first + c of a longer
// transform (C = 16, 8 or 4; blockDim a multiple), column j of transform b, its point p at
// b n + j + p stride. Butterfly i is butterfly j = i / C of column c = i mod C, so a
// thread keeps column threadIdx mod C (its b and j computed once) and a warp's lanes take
// neighbouring columns: runs of C points. In shared memory point p of column c is at p
// (C + 1) + c. Loads take the twiddle between passes (w_{ns m}^{p (j mod ns)}) or, on
// Bluestein's first pass, x_i c_i; stores go to b n + (j - j mod ns) m + j mod ns + p ns, or
// carry Bluestein's products (pass_desc's fuse_in, fuse_out).
struct column_points {
    const float2 *in;
    float2 *out;
    const pass_desc *d;
    int shift, pitch;
    bool valid; // the thread's column exists (the last block's may not)
    unsigned b;
    int j, jm;
    unsigned sign_in, sign_out;
    __device__ int butterfly(int i, int, float, int &jj) const
    {
        jj = i >> shift;
        return i & ((1 << shift) - 1);
    }
    __device__ int slot(int c, int p) const { return p * pitch + c; }
    // The stage's points (staged_stage): point p of column c at p pitch + c.
    __device__ int read_base(int c, int j, int, const staged_stage_consts &) const
    {
        return j * pitch + c;
    }
    __device__ int read_stride(int count, const staged_stage_consts &) const
    {
        return count * pitch;
    }
    __device__ int write_base(int c, int g, int jm, int Rns, const staged_stage_consts &) const
    {
        return (g * Rns + jm) * pitch + c;
    }
    __device__ int write_stride(int ns) const { return ns * pitch; }
    __device__ float2 load(int, int p) const
    {
        if (!valid)
            return make_float2(0.0f, 0.0f);
        if (d->fuse_in == FUSE_CHIRP) { // x_i c_i (the first pass: no twiddle)
            const int i = j + p * d->stride;
            return i < d->pad_n ? chirp_in(in[(size_t)b * d->pad_n + i], sign_in, d->chirp, i)
                                : make_float2(0.0f, 0.0f);
        }
        const float2 a = flip_imag(in[(size_t)b * d->n + j + (size_t)p * d->stride], sign_in);
        return d->ns > 1 ? cmul(a, pass_twiddle(*d, p * jm)) : a;
    }
    __device__ void store(int, int p, float2 v) const
    {
        if (!valid)
            return;
        const int i = (j - jm) * d->m + jm + p * d->ns;
        if (d->fuse_out == FUSE_FILTER) // conj(y_i S_i / n): the second transform is next
            out[(size_t)b * d->n + i] = filter_out(v, d->spectrum, i, 1.0f / (float)d->n);
        else if (d->fuse_out == FUSE_CHIRP) { // conj(y_i) c_i, the first pad_n points
            if (i < d->pad_n)
                out[(size_t)b * d->pad_n + i] = chirp_out(v, d->chirp, i, sign_out);
        } else
            out[(size_t)b * d->n + i] = flip_imag(v, sign_out);
    }
};

// --- the stages --------------------------------------------------------------------------

// Where a stage reads and writes: global memory straight (the first stage's loads, the
// last stage's stores) or the block's shared buffers.
enum { FROM_GLOBAL, SHARED_ONLY, TO_GLOBAL };

// One Stockham stage of radix R over `units` columns of m points (the policy's): butterfly
// j < m / R reads points j + q m/R, twiddles them by w_{ns R}^{q (j mod ns)} (from the
// table of m-th roots), transforms them (dft<R>) and writes them to (j - j mod ns) R + j
// mod ns + q ns. The last stage (ns R = m) writes point j + q m/R: where its first loads
// came from, so its stores come in runs too.
template <int R, int KIND, class Points>
__device__ __forceinline__ void staged_stage(const Points &at, const float2 *src, float2 *dst,
                                             int m, int units, const staged_stage_consts &k,
                                             const float2 *roots)
{
    const int count = m / R, total = units * count, ns = k.ns, step = k.step;
    const float inv_ns = k.inv_ns;
    const int read_stride = at.read_stride(count, k), write_stride = at.write_stride(ns);
    for (int i = threadIdx.x; i < total; i += blockDim.x) {
        int j;
        const int c = at.butterfly(i, count, k.inv_count, j);
        int g = 0, jm = 0; // j = g ns + jm
        if (KIND == TO_GLOBAL)
            jm = j; // ns = m / R = count > j
        else if (ns == 1)
            g = j;
        else
            g = div_mod(j, ns, inv_ns, jm);
        float2 u[R];
        const int read = KIND == FROM_GLOBAL ? 0 : at.read_base(c, j, g, k);
#pragma unroll
        for (int q = 0; q < R; q++)
            u[q] = KIND == FROM_GLOBAL ? at.load(c, j + q * count) : src[read + q * read_stride];
        const int write = KIND == TO_GLOBAL ? 0 : at.write_base(c, g, jm, R * ns, k);
        if constexpr (is_large_prime(R)) {
            // A prime: each twiddle its own table read (no products to keep), each output
            // stored as dft_odd_each makes it (the registers hold the a_j and b_j only).
            if (ns > 1)
#pragma unroll
                for (int q = 1; q < R; q++)
                    u[q] = cmul(u[q], __ldg(&roots[q * jm * step]));
            dft_odd_each<R>(u, [&](int q, float2 y) {
                if (KIND == TO_GLOBAL)
                    at.store(c, j + q * count, y);
                else
                    dst[write + q * write_stride] = y;
            });
        } else {
            if (ns > 1) // every butterfly, jm = 0 too (w^0 = 1): no branch lane by lane
                twiddle_from_roots<R>(u, roots, jm * step);
            dft<R>(u);
#pragma unroll
            for (int q = 0; q < R; q++)
                if (KIND == TO_GLOBAL)
                    at.store(c, j + q * count, u[q]);
                else
                    dst[write + q * write_stride] = u[q];
        }
    }
}

// The m-point transforms of the block's `units` columns, the stages in turn between the
// two buffers (cur holds the points, unless the first stage loads them: from_global), the
// last storing to global memory (to_global) or leaving the result in the buffer returned,
// synced. One stage cannot both load and store (the planner gives a pass over columns
// two stages at least).
template <int TIER, class Points>
__device__ __forceinline__ float2 *staged_stages(const Points &at, const pass_desc &d, int units,
                                                 float2 *cur, float2 *other, bool from_global,
                                                 bool to_global)
{
    const unsigned long long code = d.radix_code;
    for (int s = 0; s < d.stages; s++) {
        const int radix = radix_at(code, s);
        const int kind = s == 0 && from_global            ? FROM_GLOBAL
                         : s == d.stages - 1 && to_global ? TO_GLOBAL
                                                          : SHARED_ONLY;
        const staged_stage_consts &k = d.stage[s];
        switch (radix * 4 + kind) { // the block takes the same case
#define STAGE(R)                                                                                   \
    case R * 4 + FROM_GLOBAL:                                                                      \
        staged_stage<R, FROM_GLOBAL>(at, cur, cur, d.m, units, k, d.roots);                        \
        break;                                                                                     \
    case R * 4 + TO_GLOBAL:                                                                        \
        staged_stage<R, TO_GLOBAL>(at, cur, cur, d.m, units, k, d.roots);                          \
        break;                                                                                     \
    case R * 4 + SHARED_ONLY:                                                                      \
        staged_stage<R, SHARED_ONLY>(at, cur, other, d.m, units, k, d.roots);                      \
        break;
            STAGED_RADICES(STAGE)
        default:
            if constexpr (TIER == TIER_LARGE) {
                switch (radix * 4 + kind) {
                    STAGED_LARGE_RADICES(STAGE)
                }
            } else if constexpr (TIER == TIER_HUGE) {
                switch (radix * 4 + kind) {
                    STAGED_HUGE_RADICES(STAGE)
                }
            }
#undef STAGE
        }
        if (kind == TO_GLOBAL)
            return cur;
        if (kind == SHARED_ONLY) { // the first stage's loads land in cur
            float2 *const t = cur;
            cur = other;
            other = t;
        }
        __syncthreads();
    }
    return cur;
}

// --- stages in place: one buffer ------------------------------------------------------------
//
// Past 14,528 points a block's two buffers (16 bytes a point) no longer fit in 227 KB of
// shared memory; one does, to ~27,200 points. Stockham's stages
// write other slots than they read, so they need two; Cooley-Tukey's write back the slots
// they read, so one is enough (each butterfly owns its R points: no barrier inside a
// stage). The price is the order: in Gentleman and Sande's decimation in frequency (DIF)
// natural input leaves the outputs digit-reversed, and decimation in time (DIT), the stages
// run the other way round, takes that order back to the natural one.

// One in-place stage of radix R over one transform of m points in the buffer:
// sub-transforms of L = m / ns points (ns: the product of the radices before this one in
// DIF's order), butterfly i is butterfly j = i mod (L/R) of sub-transform b = i / (L/R),
// its points b L + j + q L/R. DIF twiddles the outputs, u_k w_L^{j k}, after the
// butterfly; DIT the inputs, u_q w_L^{j q}, before it. Loads from global memory (the first
// DIF stage: L = m, points j + q m/R, a warp's lanes neighbouring j: runs) or stores to it
// (the last DIT stage, the same points) instead of the buffer.
template <int R, int KIND, bool DIT, class Points>
__device__ __forceinline__ void inplace_stage(const Points &at, float2 *buf, int m, int ns,
                                              const float2 *roots)
{
    const int L = m / ns, count = L / R, butterflies = m / R;
    const float inv_count = rcp(count);
    for (int i = threadIdx.x; i < butterflies; i += blockDim.x) {
        int j = 0;
        const int b = count == 1 ? i : div_mod(i, count, inv_count, j);
        const int base = b * L + j;
        float2 u[R];
#pragma unroll
        for (int q = 0; q < R; q++)
            u[q] = KIND == FROM_GLOBAL ? at.load(0, base + q * count)
                                       : buf[padded_slot(base + q * count)];
        if constexpr (is_large_prime(R)) {
            // A prime (in the LARGE kernel): each twiddle its own table read, each output
            // twiddled and stored as dft_odd_each makes it (its inputs are in registers,
            // so the slots they came from can take it).
            if (DIT && count > 1)
#pragma unroll
                for (int q = 1; q < R; q++)
                    u[q] = cmul(u[q], __ldg(&roots[q * j * ns]));
            dft_odd_each<R>(u, [&](int k, float2 y) {
                if (!DIT && count > 1 && k > 0)
                    y = cmul(y, __ldg(&roots[k * j * ns]));
                if (KIND == TO_GLOBAL)
                    at.store(0, base + k * count, y);
                else
                    buf[padded_slot(base + k * count)] = y;
            });
        } else {
            if (DIT && count > 1) // j = 0 too (w^0 = 1): no branch lane by lane
                twiddle_from_roots<R>(u, roots, j * ns);
            dft<R>(u);
            if (!DIT && count > 1)
                twiddle_from_roots<R>(u, roots, j * ns);
#pragma unroll
            for (int q = 0; q < R; q++)
                if (KIND == TO_GLOBAL)
                    at.store(0, base + q * count, u[q]);
                else
                    buf[padded_slot(base + q * count)] = u[q];
        }
    }
}

// The stages of one m-point transform in place, DIF's order (from_global: the first loads
// from global memory) or DIT's (to_global: the last stores to it); synced after each stage
// that leaves its points in the buffer. TIER: the large radices 17 .. 31 or the huge 37 ..
// 47 too (the kernel compiled apart for their registers, as the two-buffer kernels are).
template <int TIER, bool DIT, bool FROM, bool TO, class Points>
__device__ __forceinline__ void inplace_stages(const Points &at, const pass_desc &d, float2 *buf)
{
    const unsigned long long code = d.radix_code;
    int ns = DIT ? d.m : 1;
    for (int t = 0; t < d.stages; t++) {
        const int radix = radix_at(code, DIT ? d.stages - 1 - t : t);
        if (DIT)
            ns /= radix;
        const int kind = FROM && t == 0            ? FROM_GLOBAL
                         : TO && t == d.stages - 1 ? TO_GLOBAL
                                                   : SHARED_ONLY;
        switch (radix) { // the block takes the same case
#define INPLACE(R)                                                                                 \
    case R:                                                                                        \
        if (kind == FROM_GLOBAL) {                                                                 \
            if constexpr (FROM)                                                                    \
                inplace_stage<R, FROM_GLOBAL, DIT>(at, buf, d.m, ns, d.roots);                     \
        } else if (kind == TO_GLOBAL) {                                                            \
            if constexpr (TO)                                                                      \
                inplace_stage<R, TO_GLOBAL, DIT>(at, buf, d.m, ns, d.roots);                       \
        } else                                                                                     \
            inplace_stage<R, SHARED_ONLY, DIT>(at, buf, d.m, ns, d.roots);                         \
        break;
            STAGED_RADICES(INPLACE)
        default:
            if constexpr (TIER == TIER_LARGE) {
                switch (radix) {
                    STAGED_LARGE_RADICES(INPLACE)
                }
            } else if constexpr (TIER == TIER_HUGE) {
                switch (radix) {
                    STAGED_HUGE_RADICES(INPLACE)
                }
            }
#undef INPLACE
        }
        if (!DIT)
            ns *= radix;
        if (kind != TO_GLOBAL)
            __syncthreads();
    }
}

// Where DIF leaves output k: its digits k = k0 + R0 (k1 + R1 (k2 + ...)), lowest first, at
// slot k0 R1 R2 ... + k1 R2 ... + ... (the digits reversed), by Horner's rule (the host's
// fft_dif_slot, factor.c, unit-tested).
__device__ __forceinline__ int dif_slot(unsigned long long code, int stages, int k)
{
    int slot = 0;
    for (int s = 0; s < stages; s++) {
        const int radix = radix_at(code, s);
        int digit;
        k = div_mod(k, radix, rcp(radix), digit);
        slot = slot * radix + digit;
    }
    return slot;
}

// --- the kernels -------------------------------------------------------------------------

// A transform of one stage (m = R <= 5) a thread, straight from global memory to
// registers and back: its R neighbouring points come in through L1, where a trip through
// shared memory would cost more than the butterfly.
template <int R>
__device__ __forceinline__ void staged_single(const float2 *in, float2 *out, unsigned first,
                                              int columns, unsigned sign_in, unsigned sign_out)
{
    for (int c = threadIdx.x; c < columns; c += blockDim.x) {
        const float2 *src = in + (size_t)(first + c) * R;
        float2 u[R];
#pragma unroll
        for (int q = 0; q < R; q++)
            u[q] = flip_imag(src[q], sign_in);
        dft<R>(u);
        float2 *dst = out + (size_t)(first + c) * R;
#pragma unroll
        for (int q = 0; q < R; q++)
            dst[q] = flip_imag(u[q], sign_out);
    }
}

// A pass of whole transforms (m = n), C of them a block (the block's C m points are one
// run in global memory). The first stage loads from global memory and the last stores to
// it, unless their runs are short (d.copy_in, d.copy_out: the block copies its run in or
// out, coalesced, through shared memory); the stages between go buffer to buffer, one
// __syncthreads each. Two stages: a point crosses shared memory once, as v6's compiled
// kernels do.
//
// TIER LARGE: a stage of m is a large radix (17 .. 31 points, and a prime's a_j, b_j in
// dft_odd_each): compiled apart for up to 128 registers (blocks of up to 512 threads), so the
// other lengths' kernel keeps its 64 and spills nothing; HUGE, a prime 37 .. 47: up to 255
// (blocks of 256).
template <int TIER>
__global__ void __launch_bounds__(staged_tier_threads(TIER), 1)
    staged_whole_kernel(const float2 *in, float2 *out, const __grid_constant__ pass_desc d)
{
    extern __shared__ float2 sm[];
    unsigned first;
    const int columns = block_columns(d, first);
    const unsigned sign_in = sign_mask(d.conj_in), sign_out = sign_mask(d.conj_out);
    if (d.stages == 1 && !d.copy_in) {
        switch (d.m) {
#define SINGLE(R)                                                                                  \
    case R:                                                                                        \
        staged_single<R>(in, out, first, columns, sign_in, sign_out);                              \
        return;
            SINGLE(2)
            SINGLE(3)
            SINGLE(4)
            SINGLE(5)
#undef SINGLE
        }
    }
    const int m = d.m, points = columns * m;
    const whole_points at = {{m, d.columns_per_block == 1},
                             in + (size_t)first * m,
                             out + (size_t)first * m,
                             sign_in,
                             sign_out};
    float2 *cur = sm;
    const float inv_m = rcp(m);
    if (d.copy_in) { // STAGED_COPY_LOADS loads in flight a thread before their stores
        const int pitch = d.stage[0].in_pitch;
        for (int base = threadIdx.x; base < points; base += STAGED_COPY_LOADS * blockDim.x) {
            float2 v[STAGED_COPY_LOADS];
#pragma unroll
            for (int k = 0; k < STAGED_COPY_LOADS; k++) {
                const int i = base + k * (int)blockDim.x;
                if (i < points)
                    v[k] = at.src[i];
            }
#pragma unroll
            for (int k = 0; k < STAGED_COPY_LOADS; k++) {
                const int i = base + k * (int)blockDim.x;
                if (i < points)
                    cur[at.run_slot(i, inv_m, pitch)] = flip_imag(v[k], sign_in);
            }
        }
        __syncthreads();
    }
    cur = staged_stages<TIER>(at, d, columns, cur, sm + d.pitch, !d.copy_in, !d.copy_out);
    if (d.copy_out) {
        const int pitch = d.stage[d.stages - 1].out_pitch;
        for (int i = threadIdx.x; i < points; i += blockDim.x)
            at.dst[i] = flip_imag(cur[at.run_slot(i, inv_m, pitch)], sign_out);
    }
}

// A pass over columns of a longer transform (column_points): the first stage loads the
// block's C columns from global memory (with the twiddle between passes), the last stores
// them. The first of several passes (ns = 1) writes column g's outputs to the m points at g
// m instead, so the block's columns are one run of C m points: its last stage leaves them
// in shared memory and the block copies the run out in order. TIER: as for whole
// transforms (LARGE, a stage of 17 .. 31 points, up to 128 registers: 2 blocks an SM;
// HUGE, 37 .. 47: one).
//
// FUSE_TURN, Bluestein's middle pass: the first transform's last pass over these columns,
// the filter product conj(y_k S_k / n) at k = j + p ns, and the second transform's first
// pass over the same columns (that transform's passes run in the other order, so its first
// is an m-point pass of stride ns too), left as a first pass leaves its run. One sweep of
// the points where two passes took two.
template <int TIER>
__global__ void __launch_bounds__(STAGED_THREADS, staged_tier_columns_blocks(TIER))
    staged_columns_kernel(const float2 *in, float2 *out, const __grid_constant__ pass_desc d)
{
    extern __shared__ float2 sm[];
    const int C = d.columns_per_block, m = d.m;
    unsigned first;
    const int columns = block_columns(d, first);
    column_points at;
    at.in = in;
    at.out = out;
    at.d = &d;
    at.shift = __ffs(C) - 1;
    at.pitch = d.pitch;
    at.sign_in = sign_mask(d.conj_in);
    at.sign_out = sign_mask(d.conj_out);
    const int c = (int)threadIdx.x & (C - 1); // the thread's column at every stage
    const unsigned g = first + c;
    at.valid = c < columns;
    at.b = g / (unsigned)d.stride;
    at.j = (int)(g - at.b * (unsigned)d.stride);
    at.jm = at.j % d.ns;
    const bool turn = d.fuse_out == FUSE_TURN;
    const bool run_out = turn || (d.ns == 1 && d.fuse_out == FUSE_NONE);
    float2 *result = sm, *const other = sm + d.pitch * m;
    // One round, or the turn's two, through one copy of the stages' code (two inlined
    // copies spilled more).
    for (int round = 0; round < 1 + turn; round++) {
        if (round == 1) { // the filter product between the transforms
            const float scale = 1.0f / (float)d.n;
            const int step = (int)blockDim.x >> at.shift; // the threads of a column
            if (at.valid)
                for (int p = (int)threadIdx.x >> at.shift; p < m; p += step)
                    result[at.slot(c, p)] =
                        filter_out(result[at.slot(c, p)], d.spectrum, at.j + p * d.ns, scale);
            __syncthreads();
        }
        result =
            staged_stages<TIER>(at, d, C, result, result == sm ? other : sm, round == 0, !run_out);
    }
    if (run_out) {
        float2 *run = out + (size_t)first * m;
        const float inv_m = rcp(m);
        for (int i = threadIdx.x; i < columns * m; i += blockDim.x) {
            int p;
            const int cc = div_mod(i, m, inv_m, p);
            run[i] = flip_imag(result[at.slot(cc, p)], at.sign_out);
        }
    }
}

// A whole transform past two buffers' room (d.in_place), one a block: DIF's stages in one
// buffer, the first loading from global memory, then the outputs stored in the natural
// order (each thread output k's slot, dif_slot: the stores in runs, the buffer's reads
// scattered). One pass of 16 bytes a point where the length took two over columns: 2^24
// points 64 us at the copy rate. Measured (H200, 2^24 points): 14000 at 2.0x cuFFT's time
// (two passes took 3.2x; cuFFT makes one pass at the copy rate). What holds it there: one
// block an SM (its buffer ~230 KB), 1024 threads at 64 registers with 64 bytes spilled,
// and the copy-out's digit reversal (a division a digit a point). TIER: a stage of m is
// a large radix (up to 128 registers, so blocks of at most 512 threads) or a huge one (255,
// 256).
template <int TIER>
__global__ void __launch_bounds__(staged_tier_threads(TIER), 1)
    staged_inplace_kernel(const float2 *in, float2 *out, const pass_desc d)
{
    extern __shared__ float2 sm[];
    const int m = d.m;
    const whole_points at = {{m, true},
                             in + (size_t)blockIdx.x * m,
                             out + (size_t)blockIdx.x * m,
                             sign_mask(d.conj_in),
                             sign_mask(d.conj_out)};
    inplace_stages<TIER, false, true, false>(at, d, sm);
    for (int k = threadIdx.x; k < m; k += blockDim.x)
        at.store(0, k, sm[padded_slot(dif_slot(d.radix_code, d.stages, k))]);
}

// The kernel of TIER that runs pass d (the plan raises its shared memory, the launch runs
// it). staged_huge.cu instantiates the HUGE ones: staged_huge_kernel_of.
typedef void (*staged_kernel)(const float2 *, float2 *, const pass_desc);
template <int TIER> inline staged_kernel staged_kernel_in(const pass_desc &d)
{
    if (d.in_place)
        return staged_inplace_kernel<TIER>;
    if (d.contiguous)
        return staged_whole_kernel<TIER>;
    return staged_columns_kernel<TIER>;
}
staged_kernel staged_huge_kernel_of(const pass_desc &d);

#endif

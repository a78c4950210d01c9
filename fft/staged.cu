// fft v7's pass kernels: any length m whose prime factors are at most 13, built from the
// codelets (codelets.cuh) a stage at a time, so a length no table names runs the same code
// as its neighbours with the same factors. The planner (staged_radices) factors m into the
// fewest stages of radix 2 .. 16 (6, 12, 14 and 15 are codelets made of two), the most
// even of those (60 = 10 x 6); a kernel runs them in turn, each stage's radix a switch
// the block takes together.
//
// A Stockham stage of radix R whose earlier radices multiply to ns: butterfly j < m / R
// reads points j + q m/R, twiddles them by w_{ns R}^{q (j mod ns)} (from the table of m-th
// roots), transforms them (dft<R>) and writes them to (j - j mod ns) R + j mod ns + q ns:
// no bit reversal, one __syncthreads a stage.
//
// staged_whole_kernel, whole transforms (m = n), C = 2048 / m of them a block: the first
// stage loads its butterflies' points from global memory straight into registers (a warp's
// lanes take neighbouring butterflies: runs of m / R points), the stages between trade
// points through shared memory (transform c's point p at slot c m + p, one slot in 16
// skipped against bank conflicts), and the last stage stores to global memory (its
// outputs j + q m/R: runs again). A two-stage length crosses shared memory once, as v6's
// compiled kernels do; where a run would be under 4 points, the block copies its points in
// (out) through shared memory instead. staged_bluestein_kernel is the same with Bluestein's
// products on the first load and the last store. staged_columns_kernel, a pass over
// columns of a longer transform: C = 16 columns (8 from m = 512, 4 from 1024) interleaved
// in shared memory (point p of column c at p (C + 1) + c), copied in and out.
// Napkin math (H200, 4.2 TB/s copy rate; 2^24 points a pass): 268 MB, 64 us, a budget of
// ~125 instructions a point at that rate (132 SMs x 4 issue a clock x 1.98 GHz over 4.2
// points a ns) if every issue slot is used. A stage costs a point its share of two index
// divisions (c, j mod ns), R - 1 twiddle reads and products, the butterfly and a shared
// read and write. The README's sweep has the times: two-stage lengths at 1.07x cuFFT's
// (geometric mean; 0.69-1.47x), three and four stages 1.5-2x (a trip through shared memory
// and a barrier a stage).
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "device.h"
#include "launch.h"
#include "passes.cuh"

// Threads a block: 256 (4 blocks an SM at 64 registers a thread); a whole transform alone
// in its block up to a thread a first-stage butterfly (1024 at most, whole_shape).
enum { STAGED_THREADS = 256, STAGED_MAX_THREADS = 1024, STAGED_WHOLE_POINTS = 2048 };
// A block's copy in: loads a thread issues before it stores them to shared memory.
enum { STAGED_COPY_LOADS = 8 };

// 1 / d for div_mod, from the special-function unit (2 ulp): div_mod's correction absorbs
// the error for the indices here (below 2^17). An IEEE division would take ~20
// instructions, several a stage a thread.
__device__ __forceinline__ float rcp(int d) { return __fdividef(1.0f, (float)d); }

// The columns kernel's block in shared memory: point p of column c at p pitch + c; and the
// butterflies a thread takes at every stage, without a division: thread t keeps column t
// mod C and takes butterflies j = t / C + k rows (rows = blockDim / C, C <= 16).
struct staged_layout {
    int C, pitch, m;
    int c0, c_step, j0, j_step;
    __device__ void take_turns()
    {
        const int t = (int)threadIdx.x, rows = (int)blockDim.x / C;
        c0 = t % C;
        c_step = C;
        j0 = t < rows * C ? t / C : 1 << 30;
        j_step = rows;
    }
};

// Every radix a stage may have (the planner's set, staged_radices): X(R) for each.
#define STAGED_RADICES(X)                                                                          \
    X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)

// One stage of radix R over the block's C columns, src to dst.
template <int R>
__device__ __forceinline__ void staged_stage(const float2 *src, float2 *dst, const staged_layout &L,
                                             int ns, const float2 *roots)
{
    // step = m / (ns R), exact: ns R divides m.
    const int count = L.m / R;
    const int step = __float2int_rn((float)L.m * rcp(ns * R));
    const float inv_ns = rcp(ns);
    for (int c = L.c0; c < L.C; c += L.c_step)
        for (int j = L.j0; j < count; j += L.j_step) {
            float2 u[R];
#pragma unroll
            for (int q = 0; q < R; q++)
                u[q] = src[(j + q * count) * L.pitch + c];
            int jm = 0;
            if (ns > 1) {
                div_mod(j, ns, inv_ns, jm);
                if (jm > 0)
                    twiddle_from_roots<R>(u, roots, jm * step);
            }
            dft<R>(u);
            float2 *out = dst + ((j - jm) * R + jm) * L.pitch + c;
#pragma unroll
            for (int q = 0; q < R; q++)
                out[q * ns * L.pitch] = u[q];
        }
}

// The radices as radix - 1 in 4 bits a stage, read from the parameters at constant
// indices (a run-time index into d.radix would copy d to local memory).
__device__ __forceinline__ unsigned long long radix_code(const pass_desc &d)
{
    unsigned long long code = 0;
#pragma unroll
    for (int s = 0; s < MAX_PASS_STAGES; s++)
        code |= (unsigned long long)((d.radix[s] - 1) & 15) << (4 * s);
    return code;
}
__device__ __forceinline__ int radix_at(unsigned long long code, int s)
{
    return (int)(code >> (4 * s) & 15) + 1;
}

// The m-point transforms of the block's columns, which the caller copied into `in` (and
// synced); each stage reads one buffer and writes the other. Returns the buffer that holds
// the result, synced.
__device__ __forceinline__ float2 *staged_stages(const pass_desc &d, const staged_layout &L,
                                                 float2 *in, float2 *other)
{
    const unsigned long long code = radix_code(d);
    const float2 *roots = d.roots;
    int ns = 1;
    for (int s = 0; s < d.stages; s++) {
        const int radix = radix_at(code, s);
        switch (radix) {
#define STAGE(R)                                                                                   \
    case R:                                                                                        \
        staged_stage<R>(in, other, L, ns, roots);                                                  \
        break;
            STAGED_RADICES(STAGE)
#undef STAGE
        }
        ns *= radix;
        __syncthreads();
        float2 *const t = in;
        in = other;
        other = t;
    }
    return in;
}

// The block's first column, and how many of its C columns exist (the last block's may not).
__device__ __forceinline__ int block_columns(const pass_desc &d, unsigned &first)
{
    first = blockIdx.x * (unsigned)d.columns_per_block;
    return (int)min((unsigned)d.columns_per_block, d.columns - first);
}

// A transform of one stage (m = R <= 16) a thread, straight from global memory to
// registers and back: its R neighbouring points come in through L1 (a warp's loads touch
// each sector R times), where a trip through shared memory would cost more than the
// butterfly.
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

// Whole transforms in shared memory: transform c's point p at slot c m + p, one slot
// skipped in 16, so a stage's stores R points apart (lanes taking neighbouring
// butterflies) spread over the banks (R = 16: 17 slots apart).
__device__ __forceinline__ int padded_slot(int i) { return i + (i >> 4); }

// Where a whole-transform stage reads and writes: global memory straight (the first
// stage's loads, the last stage's stores) or the block's shared buffers. Bluestein's
// kernel loads x_p c_p (zero past its n points) and stores conj(y_p) c_p for p < n.
enum { FROM_GLOBAL, SHARED_ONLY, TO_GLOBAL, FROM_CHIRP, TO_CHIRP };

// One stage of radix R over the block's `columns` transforms of m points. Butterfly i of
// the block is butterfly j = i mod (m / R) of transform c = i / (m / R), so a warp's lanes
// take neighbouring butterflies, and its R points j + q m/R are, for q fixed,
// neighbouring words: the first stage's loads from global memory come in runs of m/R
// points (the planner copies in first when that is under 4). The last stage (ns R = m)
// writes its outputs to j + q m/R as well, runs of m/R. Between them the block's shared
// buffers, in Stockham's order: (j - j mod ns) R + j mod ns + q ns.
// (Bluestein's kinds: transform c's points at c n in global memory, n <= m.)
template <int R, int KIND>
__device__ __forceinline__ void whole_stage(const float2 *src, float2 *dst, int m, int columns,
                                            int ns, const float2 *roots, unsigned sign,
                                            const float2 *chirp, int n)
{
    constexpr bool from_global = KIND == FROM_GLOBAL || KIND == FROM_CHIRP;
    constexpr bool to_global = KIND == TO_GLOBAL || KIND == TO_CHIRP;
    const int count = m / R, total = columns * count;
    const float inv_count = rcp(count), inv_ns = rcp(ns);
    const int step = __float2int_rn((float)m * rcp(ns * R)); // m / (ns R), exact
    for (int i = threadIdx.x; i < total; i += blockDim.x) {
        int j;
        const int c = div_mod(i, count, inv_count, j);
        const int at = c * m + j;
        float2 u[R];
#pragma unroll
        for (int q = 0; q < R; q++) {
            const int p = j + q * count;
            if (KIND == FROM_GLOBAL)
                u[q] = flip_imag(src[at + q * count], sign);
            else if (KIND == FROM_CHIRP)
                u[q] = p < n ? chirp_in(src[c * n + p], sign, chirp, p) : make_float2(0.0f, 0.0f);
            else
                u[q] = src[padded_slot(at + q * count)];
        }
        int jm = 0;
        if (to_global)
            jm = j; // ns = m / R = count > j
        else if (!from_global && ns > 1)
            div_mod(j, ns, inv_ns, jm);
        if (jm > 0)
            twiddle_from_roots<R>(u, roots, jm * step);
        dft<R>(u);
        if (KIND == TO_GLOBAL) {
#pragma unroll
            for (int q = 0; q < R; q++)
                dst[at + q * count] = flip_imag(u[q], sign);
        } else if (KIND == TO_CHIRP) {
#pragma unroll
            for (int q = 0; q < R; q++) {
                const int p = j + q * count;
                if (p < n)
                    dst[c * n + p] = chirp_out(u[q], chirp, p, sign);
            }
        } else {
            const int out = c * m + (j - jm) * R + jm;
#pragma unroll
            for (int q = 0; q < R; q++)
                dst[padded_slot(out + q * ns)] = u[q];
        }
    }
}

// whole_stage for the stage's radix, a switch the block takes together.
template <int KIND>
__device__ __forceinline__ void
whole_stage_of(int radix, const float2 *src, float2 *dst, int m, int columns, int ns,
               const float2 *roots, unsigned sign, const float2 *chirp = nullptr, int n = 0)
{
    switch (radix) {
#define STAGE(R)                                                                                   \
    case R:                                                                                        \
        whole_stage<R, KIND>(src, dst, m, columns, ns, roots, sign, chirp, n);                     \
        break;
        STAGED_RADICES(STAGE)
#undef STAGE
    }
}

// The stages of the block's `columns` transforms, cur holding their points (other the
// spare buffer; both swap as the stages go). LOAD (FROM_GLOBAL, FROM_CHIRP) the first
// stage loads from src instead, where from_global; STORE (TO_GLOBAL, TO_CHIRP) the last
// stores to dst, where to_global; SHARED_ONLY for either: none. The result stays in cur
// (synced) unless the last stage stored it.
template <int LOAD, int STORE>
__device__ __forceinline__ void
whole_stages(const pass_desc &d, int columns, const float2 *src, float2 *dst, float2 *&cur,
             float2 *&other, bool from_global, bool to_global, unsigned sign_in, unsigned sign_out,
             const float2 *chirp = nullptr, int n = 0)
{
    const unsigned long long code = radix_code(d);
    int ns = 1;
    for (int s = 0; s < d.stages; s++) {
        const int radix = radix_at(code, s);
        if (LOAD != SHARED_ONLY && s == 0 && from_global)
            whole_stage_of<LOAD>(radix, src, cur, d.m, columns, 1, d.roots, sign_in, chirp, n);
        else if (STORE != SHARED_ONLY && s == d.stages - 1 && to_global) {
            whole_stage_of<STORE>(radix, cur, dst, d.m, columns, ns, d.roots, sign_out, chirp, n);
            return;
        } else {
            whole_stage_of<SHARED_ONLY>(radix, cur, other, d.m, columns, ns, d.roots, 0);
            float2 *const t = cur;
            cur = other;
            other = t;
        }
        ns *= radix;
        __syncthreads();
    }
}

// A pass of whole transforms (m = n), C of them a block (the block's C m points are one
// run in global memory). The first stage loads from global memory and the last stores to
// it, unless their runs are short (d.copy_in, d.copy_out: the block copies its run in or
// out, coalesced, through shared memory); the stages between go buffer to buffer, one
// __syncthreads each. Two stages: a point crosses shared memory once, as v6's compiled
// kernels do.
__global__ void __launch_bounds__(STAGED_MAX_THREADS, 1)
    staged_whole_kernel(const float2 *in, float2 *out, const pass_desc d)
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
    const float2 *src = in + (size_t)first * m;
    float2 *dst = out + (size_t)first * m;
    float2 *cur = sm, *other = sm + d.pitch;
    if (d.copy_in) { // STAGED_COPY_LOADS loads in flight a thread before their stores
        for (int base = threadIdx.x; base < points; base += STAGED_COPY_LOADS * blockDim.x) {
            float2 v[STAGED_COPY_LOADS];
#pragma unroll
            for (int k = 0; k < STAGED_COPY_LOADS; k++) {
                const int i = base + k * (int)blockDim.x;
                if (i < points)
                    v[k] = src[i];
            }
#pragma unroll
            for (int k = 0; k < STAGED_COPY_LOADS; k++) {
                const int i = base + k * (int)blockDim.x;
                if (i < points)
                    cur[padded_slot(i)] = flip_imag(v[k], sign_in);
            }
        }
        __syncthreads();
    }
    whole_stages<FROM_GLOBAL, TO_GLOBAL>(d, columns, src, dst, cur, other, !d.copy_in, !d.copy_out,
                                         sign_in, sign_out);
    if (d.copy_out)
        for (int i = threadIdx.x; i < points; i += blockDim.x)
            dst[i] = flip_imag(cur[padded_slot(i)], sign_out);
}

// A pass over columns of a longer transform (see pass_kernel in fft.cu for where a
// column's points come from and go to): the block's C neighbouring columns g = first + c,
// each column j of transform b, copied in a point (C neighbours) at a time. Bluestein's
// products ride on the copies as on v6's passes (pass_desc's fuse_in, fuse_out).
__global__ void __launch_bounds__(STAGED_THREADS, 4)
    staged_columns_kernel(const float2 *in, float2 *out, const pass_desc d)
{
    extern __shared__ float2 sm[];
    staged_layout L = {d.columns_per_block, d.pitch, d.m};
    L.take_turns();
    const int n = d.n, m = d.m, ns = d.ns, stride = d.stride, pad_n = d.pad_n;
    unsigned first;
    const int columns = block_columns(d, first);
    const unsigned sign_in = sign_mask(d.conj_in), sign_out = sign_mask(d.conj_out);
    const float2 zero = make_float2(0.0f, 0.0f);
    // blockDim is a multiple of C: a thread keeps column c through both copies.
    const int c = (int)threadIdx.x % L.C, rows = blockDim.x / L.C;
    const unsigned g = first + c;
    const bool valid = c < columns;
    const unsigned b = g / (unsigned)stride;
    const int j = (int)(g - b * (unsigned)stride), jm = j % ns;
    float2 *const buffer1 = sm + m * L.pitch;
    for (int p = (int)threadIdx.x / L.C; p < m; p += rows) {
        float2 a = zero;
        if (valid && d.fuse_in == FUSE_CHIRP) { // x_i c_i (the first pass: no twiddle)
            const int i = j + p * stride;
            if (i < pad_n)
                a = chirp_in(in[(size_t)b * pad_n + i], sign_in, d.chirp, i);
        } else if (valid) {
            a = flip_imag(in[(size_t)b * n + j + (size_t)p * stride], sign_in);
            if (ns > 1)
                a = cmul(a, pass_twiddle(d, p * jm));
        }
        buffer1[p * L.pitch + c] = a;
    }
    __syncthreads();
    const float2 *result = staged_stages(d, L, buffer1, sm);
    if (ns == 1 && d.fuse_out == FUSE_NONE) {
        // The first of several passes: column g's outputs are the m points at g m, so the
        // block's columns are one run of C m points, copied out in order.
        float2 *run = out + (size_t)first * m;
        const float inv_m = rcp(m);
        for (int i = threadIdx.x; i < columns * m; i += blockDim.x) {
            int p;
            const int cc = div_mod(i, m, inv_m, p);
            run[i] = flip_imag(result[p * L.pitch + cc], sign_out);
        }
        return;
    }
    // Output p of column j goes to b n + (j - jm) m + jm + p ns.
    const float scale = 1.0f / (float)n;
    for (int p = (int)threadIdx.x / L.C; p < m && valid; p += rows) {
        const float2 a = result[p * L.pitch + c];
        const int i = (j - jm) * m + jm + p * ns;
        if (d.fuse_out == FUSE_FILTER) // conj(y_i S_i / n): the second transform is next
            out[(size_t)b * n + i] = filter_out(a, d.spectrum, i, scale);
        else if (d.fuse_out == FUSE_CHIRP) { // conj(y_i) c_i, the first pad_n points
            if (i < pad_n)
                out[(size_t)b * pad_n + i] = chirp_out(a, d.chirp, i, sign_out);
        } else
            out[(size_t)b * n + i] = flip_imag(a, sign_out);
    }
}

// Bluestein's algorithm for n points on m-point transforms, all of it in one kernel (C
// transforms a block, laid out as staged_whole_kernel's): x_p c_p loaded by the first
// stage (zero past n), the forward transform, the product with the chirp's spectrum S
// (scaled by 1/m) and the conjugate, the forward transform again (conj(forward(conj)) is
// the inverse), conj(y_p) c_p stored by the last stage for p < n. Each point crosses DRAM
// once, 8 bytes in and 8 out, where the unfused form moves it five times.
__global__ void __launch_bounds__(STAGED_MAX_THREADS, 1)
    staged_bluestein_kernel(const float2 *x, float2 *y, const pass_desc d)
{
    extern __shared__ float2 sm[];
    const int n = d.pad_n, m = d.m;
    unsigned first;
    const int columns = block_columns(d, first);
    const unsigned sign_in = sign_mask(d.conj_in), sign_out = sign_mask(d.conj_out);
    const float2 *src = x + (size_t)first * n;
    float2 *dst = y + (size_t)first * n;
    float2 *cur = sm, *other = sm + d.pitch;
    // The first transform, into shared memory; the spectrum's product; the second, out.
    whole_stages<FROM_CHIRP, SHARED_ONLY>(d, columns, src, dst, cur, other, true, false, sign_in,
                                          sign_out, d.chirp, n);
    const float inv_m = rcp(m), scale = 1.0f / (float)m;
    for (int i = threadIdx.x; i < columns * m; i += blockDim.x) {
        int p;
        div_mod(i, m, inv_m, p);
        cur[padded_slot(i)] = filter_out(cur[padded_slot(i)], d.spectrum, p, scale);
    }
    __syncthreads();
    whole_stages<SHARED_ONLY, TO_CHIRP>(d, columns, src, dst, cur, other, false, true, sign_in,
                                        sign_out, d.chirp, n);
}

// --- the plan ------------------------------------------------------------------------------

// The radices (at most `largest`, non-increasing) of m in exactly `stages` stages whose sum
// is least, into radix; -1 when there are none.
static int least_radix_sum(int m, int stages, int largest, unsigned char *radix)
{
    if (stages == 0)
        return m == 1 ? 0 : -1;
    long long reach = 1; // the most `stages` radices of at most `largest` make
    for (int s = 0; s < stages; s++)
        reach *= largest;
    if (reach < m)
        return -1;
    int best = -1;
    unsigned char rest[MAX_PASS_STAGES];
    for (int r = largest; r >= 2; r--) {
        if (m % r != 0)
            continue;
        const int sum = least_radix_sum(m / r, stages - 1, r, rest);
        if (sum >= 0 && (best < 0 || r + sum < best)) {
            best = r + sum;
            radix[0] = (unsigned char)r;
            memcpy(radix + 1, rest, stages - 1);
        }
    }
    return best;
}

// m's stages: the fewest, each a radix of 2 .. 16 (a codelet each, 6, 12, 14 and 15 made
// of two), and of those the radices with the least sum (the most even: 60 = 10 6 rather
// than 15 4), largest first. 0 when m has a prime factor above 13 (or m < 2).
static int staged_radices(int m, unsigned char *radix)
{
    if (m < 2)
        return 0;
    int rest = m;
    for (int p = 2; p <= 13; p++)
        while (rest % p == 0)
            rest /= p;
    if (rest != 1)
        return 0;
    for (int stages = 1; stages <= MAX_PASS_STAGES; stages++)
        if (least_radix_sum(m, stages, 16, radix) >= 0)
            return stages;
    return 0;
}

// A stage's loads from global memory straight into registers come in runs of m / R
// points; under 4 (a 32-byte sector) the block copies its points in through shared memory
// first (and out after the last stage, likewise). A one-stage transform up to 5 points
// runs from registers (staged_single).
enum { STAGED_DIRECT_RUN = 4, STAGED_SINGLE_MAX = 5 };

// The shape of the columns kernel (staged_layout): C columns interleaved, point p of column
// c at p pitch + c (pitch C + 1), two buffers; C = 16 (128-byte runs), 8 from m = 512, 4
// from 1024.
static void columns_shape(pass_desc &d)
{
    const int C = d.m < 512 ? 16 : d.m < 1024 ? 8 : 4;
    d.columns_per_block = C;
    d.pitch = C + 1;
    d.smem_bytes = (int)(2 * (size_t)d.pitch * d.m * sizeof(float2));
    d.block_threads = STAGED_THREADS;
}

// The shape of the whole-transform kernel: C = 2048 / m transforms a block (one from m =
// 3072 on), their C m points one after another (padded_slot), one buffer or two (pitch:
// a buffer's slots).
// Bluestein's kernel: no copies (its loads and stores are x c and conj(y) c), two buffers.
static void whole_shape(pass_desc &d, bool bluestein)
{
    int C = (STAGED_WHOLE_POINTS + d.m / 2) / d.m;
    C = C < 1 ? 1 : C;
    const int first_run = d.m / d.radix[0], last_run = d.m / d.radix[d.stages - 1];
    const bool single = !bluestein && d.stages == 1 && d.m <= STAGED_SINGLE_MAX;
    d.copy_in = !bluestein && !single && (d.stages == 1 || first_run < STAGED_DIRECT_RUN);
    d.copy_out = !bluestein && !single && (d.stages == 1 || last_run < STAGED_DIRECT_RUN);
    const int shared_stages = d.stages - !d.copy_in - !d.copy_out;
    const int buffers = single ? 0 : bluestein || shared_stages > 0 ? 2 : 1;
    // 256 threads, 4 blocks an SM (64 registers a thread); a block of one long transform
    // (whose buffers leave room for few blocks an SM) up to a thread a butterfly of the
    // first stage, in steps of 256.
    const int first_butterflies = C == 1 && !d.copy_in ? first_run : 0;
    int threads = (first_butterflies + STAGED_THREADS - 1) / STAGED_THREADS * STAGED_THREADS;
    threads = threads < STAGED_THREADS       ? STAGED_THREADS
              : threads > STAGED_MAX_THREADS ? STAGED_MAX_THREADS
                                             : threads;
    d.block_threads = threads;
    d.columns_per_block = C;
    d.pitch = C * d.m + (C * d.m - 1) / 16 + 1;
    d.smem_bytes = (int)(buffers * (size_t)d.pitch * sizeof(float2));
}

// Fills in d's stages and block shape for the staged kernels (d.n, m, ns, stride, columns
// and contiguous set); false when m has a prime factor above 13 or the block's buffers do
// not fit in shared memory. dry: no device calls.
bool staged_pass_plan(pass_desc &d, bool dry)
{
    d.stages = staged_radices(d.m, d.radix);
    if (d.stages == 0)
        return false;
    if (d.contiguous)
        whole_shape(d, false);
    else
        columns_shape(d);
    d.threads_per_column = 0;
    if ((size_t)d.smem_bytes > cl_device_current()->shared_optin_bytes)
        return false;
    d.staged = true;
    if (!dry) // raises the kernel's shared-memory allowance on this device
        cl_kernel_fit_for(d.contiguous ? (const void *)staged_whole_kernel
                                       : (const void *)staged_columns_kernel,
                          d.block_threads, (size_t)d.smem_bytes);
    return true;
}

static unsigned staged_blocks(const pass_desc &d)
{
    return (unsigned)((d.columns + (unsigned)d.columns_per_block - 1) / d.columns_per_block);
}

void staged_pass_launch(const pass_desc &d, const float2 *in, float2 *out, cudaStream_t stream)
{
    if (d.contiguous)
        staged_whole_kernel<<<staged_blocks(d), d.block_threads, d.smem_bytes, stream>>>(in, out,
                                                                                         d);
    else
        staged_columns_kernel<<<staged_blocks(d), STAGED_THREADS, d.smem_bytes, stream>>>(in, out,
                                                                                          d);
    CL_LAUNCH_CHECK();
}

// Bluestein in one kernel: d.m the inner length, d.pad_n = n, d.columns the batch.
bool staged_bluestein_plan(pass_desc &d, bool dry)
{
    d.contiguous = true;
    d.stages = staged_radices(d.m, d.radix);
    if (d.stages == 0)
        return false;
    whole_shape(d, true);
    if ((size_t)d.smem_bytes > cl_device_current()->shared_optin_bytes)
        return false;
    d.staged = true;
    if (!dry)
        cl_kernel_fit_for((const void *)staged_bluestein_kernel, d.block_threads,
                          (size_t)d.smem_bytes);
    return true;
}

void staged_bluestein_launch(const pass_desc &d, const float2 *x, float2 *y, cudaStream_t stream)
{
    staged_bluestein_kernel<<<staged_blocks(d), d.block_threads, d.smem_bytes, stream>>>(x, y, d);
    CL_LAUNCH_CHECK();
}

// fft: batched 1D complex-to-complex FFTs in single precision, any length n, as a ladder
// from the definition to a multi-pass FFT that holds its own against cuFFT.
//
//   v1-direct     the definition, y_k = sum_j x_j e^{-2 pi i jk/n}: a thread an output,
//                 O(n^2) work (n <= 4096). `bin/fft -k v1 -n 1000`
//   v2-radix2     Cooley-Tukey, radix 2 (and 3, 5, 7 for those factors): one launch a
//                 stage, each stage a pass through global memory (log2 n of them).
//   v3-shared     the same stages in shared memory, one block a transform: one pass
//                 over DRAM, n up to what shared memory holds (2 n x 8 bytes).
//   v4-registers  radix 8 (4, 2, 3, 5, 7) butterflies in registers, stages exchanged
//                 through shared memory, twiddles from a table, several short transforms
//                 a block: one pass, n up to 8192 (powers of two; smooth n alike).
//   v5-passes     long n in 2 or 3 passes (the "four-step" split n = n1 n2 (n3), the
//                 twiddles between them fused into the passes), each pass a v4 kernel on
//                 many columns at once; Bluestein's algorithm for n with a prime factor
//                 above 7 (a convolution done with smooth transforms). Any n.
//   v6-fixed      v5 with each pass compiled for its length (powers of two up to 8192
//                 whole, 4096 a column pass; v5's kernel for the others): radix 16, 16
//                 points a thread, every index a constant; 2^24 in 2 passes (4096 x
//                 4096), where v5 takes 3; Bluestein up to n = 4096 in one kernel. Its
//                 kernels are in fixed.cu.
//   v7-any        the planner's passes built at run time from stages of radix 2 .. 31
//                 (but 25 and 27) and the primes 37 .. 47 (staged.cu): any length whose
//                 prime factors are at most 47 in one code (a 37 .. 47 beside no
//                 factor 17 .. 31 in a pass), whole transforms loaded and stored by
//                 their first and last stages (past 14,528 points, in one buffer with
//                 the stages in place, to ~27,200); v6's kernels for powers of two from
//                 32; Bluestein in one staged kernel for the other lengths. The default.
//
// The files: this one plans (picks each pass's kernel, builds the tables) and holds
// v1..v5; factor.c the planner's arithmetic (v7's stages of a length, the split into
// passes; unit-tested on the CPU); codelets.cuh the butterflies every kernel is built
// from; passes.cuh what a pass kernel is told; fixed.cu v6's kernels; staged.cu v7's;
// peer.cu cuFFT and the convolution's other kernels.
//
// Every version but v1 computes the forward transform only: the inverse is
// conj(forward(conj(x))), the conjugates fused into the first load and the last store.
// A transform that fits in one pass moves 16 bytes a point (8 read, 8 written): at the
// H100's ~3 TB/s copy rate 2^26 points take 0.36 ms; that is the floor the ladder's
// "% copy" measures against.
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "check.h"
#include "device.h"
#include "fft.h"
#include "launch.h"
#include "passes.cuh"
#include "timing.h"

// --- plans --------------------------------------------------------------------------------

struct fft_plan {
    void (*run)(const fft_plan *plan, const fft_args *args, cudaStream_t stream);
    int n;
    size_t batch;
    bool in_place;
    char description[160];
    int passes; // sweeps over the data in DRAM
    int stages;
    unsigned char radix[MAX_STAGES]; // v2, v3
    int npasses;
    pass_desc pass[MAX_PASSES]; // v4, v5
    float2 *tmp1, *tmp2;        // scratch for chains of passes
    std::vector<void *> owned;  // device tables
    // Bluestein (v5, n with a prime factor above 7)
    fft_plan *inner; // the smooth length-m transforms (NULL when fused: v6, m <= 8192)
    long long m;
    float2 *chirp, *spectrum, *work1, *work2;
    const float2 *roots; // fused: the m-th roots
};

// Builds a plan, or (dry) only adds up the device bytes it would allocate.
struct planner {
    bool dry;
    size_t bytes;
    fft_plan *plan;
    // v7's Bluestein at lengths where both one-kernel plans exist (v7_plan's trial): -1 by
    // the 1.7 m rule, 0 the staged kernel on the smooth m, 1 v6's on the power of two.
    int bluestein_power;
    void *alloc(size_t size)
    {
        size = (size + 255) / 256 * 256;
        bytes += size;
        if (dry)
            return NULL;
        void *p = NULL;
        cl_require_device_memory(size, 0);
        CL_CUDA_CHECK(cudaMalloc(&p, size));
        plan->owned.push_back(p);
        return p;
    }
    float2 *upload(const std::vector<float2> &host)
    {
        float2 *d = (float2 *)alloc(host.size() * sizeof(float2));
        if (!dry)
            CL_CUDA_CHECK(
                cudaMemcpy(d, host.data(), host.size() * sizeof(float2), cudaMemcpyHostToDevice));
        return d;
    }
};

static size_t points(int n, size_t batch) { return (size_t)n * batch; }

// Radices for v2 and v3: 2s (the radix-2 algorithm), then 3, 5, 7. For v4/v5: 8s, with
// a 4 or two 4s for the rest of the 2s (no radix-2 stage: it would need the most
// threads), then 7, 5, 3. Returns the count; -1 when n has another prime factor.
static int radices(long n, bool wide, unsigned char *radix)
{
    int count = 0, twos = 0;
    while (n % 2 == 0) {
        n /= 2;
        twos++;
    }
    if (!wide)
        for (int i = 0; i < twos; i++)
            radix[count++] = 2;
    else {
        int eights = twos / 3, rest = twos % 3;
        if (rest == 1 && eights > 0) { // 2^(3k+1) = 8^(k-1) 4 4
            eights--;
            rest = 4;
        }
        for (int i = 0; i < eights; i++)
            radix[count++] = 8;
        if (rest == 4) {
            radix[count++] = 4;
            radix[count++] = 4;
        } else if (rest == 2)
            radix[count++] = 4;
        else if (rest == 1)
            radix[count++] = 2;
    }
    const int odd[3] = {7, 5, 3};
    for (int i = 0; i < 3; i++)
        while (n % odd[i] == 0) {
            n /= odd[i];
            radix[count++] = (unsigned char)odd[i];
        }
    return n == 1 ? count : -1;
}

static void describe_radices(char *out, size_t len, const unsigned char *radix, int count)
{
    size_t used = 0;
    out[0] = 0;
    for (int s = 0; s < count && used < len; s++)
        used += snprintf(out + used, len - used, "%s%d", s ? " " : "", radix[s]);
}

// Buffers for a chain of `count` out-of-place steps from in to out (dst[count - 1] = out):
// each step writes a buffer other than the one it reads; tmp2 is needed only in place
// with an odd count of 3 or more.
static void chain_buffers(int count, const void *in, void *out, void *tmp1, void *tmp2, void **dst)
{
    void *const choices[3] = {out, tmp1, tmp2};
    dst[count - 1] = out;
    for (int i = count - 2; i >= 0; i--)
        for (int c = 0; c < 3; c++)
            if (choices[c] != dst[i + 1] && !(i == 0 && choices[c] == in)) {
                dst[i] = choices[c];
                break;
            }
}

static int chain_scratch_count(int steps, bool in_place)
{
    return steps < 2 ? 0 : (in_place && steps % 2 == 1) ? 2 : 1;
}

static bool skip(char *why, size_t len, const char *fmt, int n)
{
    snprintf(why, len, fmt, n);
    return false;
}

// --- v1: the definition ----------------------------------------------------------------------

// v1: y_k = sum_j x_j e^{-+2 pi i jk/n}, a thread an output; the exponent jk mod n is kept
// exactly by adding k each step. The n-term sums are added in double: in float their
// error grows like sqrt(n), past the log2(n) rounds an FFT's outputs go through.
// Napkin math: n^2 batch complex multiply-adds and sincos: 2^26 points at n = 4096 take
// 2.7e11 of them, a quarter of a second; every output reads all n inputs (from L1/L2).
__global__ void v1_direct_kernel(const float2 *in, float2 *out, int n, size_t batch, bool inverse)
{
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)n * batch)
        return;
    const int k = (int)(idx % n);
    const float2 *x = in + (idx - k);
    const float sign = inverse ? 2.0f : -2.0f;
    double re = 0.0, im = 0.0;
    int e = 0;
    for (int j = 0; j < n; j++) {
        float s, c;
        sincospif(sign * (float)e / (float)n, &s, &c);
        const float2 a = x[j];
        re += (double)a.x * c - (double)a.y * s;
        im += (double)a.x * s + (double)a.y * c;
        e += k;
        if (e >= n)
            e -= n;
    }
    out[idx] = make_float2((float)re, (float)im);
}

static void run_v1(const fft_plan *, const fft_args *a, cudaStream_t stream)
{
    const size_t total = points(a->n, a->batch);
    v1_direct_kernel<<<cl_ceil_div(total, 256), 256, 0, stream>>>(
        (const float2 *)a->in, (float2 *)a->out, a->n, a->batch, a->inverse);
    CL_LAUNCH_CHECK();
}

static void run_yours(const fft_plan *, const fft_args *a, cudaStream_t stream)
{
    fft_yours(a, stream);
}

static bool direct_fits(int n, bool in_place, char *why, size_t len)
{
    if (n > FFT_DIRECT_MAX_N)
        return skip(why, len, "O(n^2): n = %d is above 4096, left to the FFTs", n);
    if (in_place)
        return skip(why, len, "every output reads all %d inputs: out of place only", n);
    return true;
}

// --- v2: a launch a stage ----------------------------------------------------------------------

// One Stockham stage of radix R (the "autosort" form of Cooley-Tukey: no bit reversal):
// butterfly j < n/R takes the points j + q n/R, multiplies point q by the twiddle
// w_{ns R}^{q (j mod ns)}, does an R-point DFT and writes the results to
// (j / ns) ns R + (j mod ns) + q ns; ns is the product of the earlier stages' radices.
// Reads are coalesced (consecutive j, consecutive points) and so are the writes once
// ns >= 32.
template <int R>
__device__ inline void stockham_butterfly(const float2 *src, float2 *dst, int j, int count, int ns,
                                          bool conj_in, bool conj_out)
{
    const int jm = j % ns;
    float2 v[R];
#pragma unroll
    for (int q = 0; q < R; q++) {
        const float2 a = conj_if(src[j + q * count], conj_in);
        v[q] = (q > 0 && jm > 0) ? cmul(a, root_of_unity((long long)q * jm, (long long)ns * R)) : a;
    }
    dft<R>(v);
    const int base = (j / ns) * ns * R + jm;
#pragma unroll
    for (int q = 0; q < R; q++)
        dst[base + q * ns] = conj_if(v[q], conj_out);
}

// v2: one launch a stage, a thread a butterfly, through global memory.
// Why it is slow: every stage reads and writes all 16 bytes of a point in DRAM:
// log2(n) passes (20 at n = 2^20), so at best 1/log2(n) of the copy rate.
template <int R>
__global__ void v2_stage_kernel(const float2 *src, float2 *dst, int n, int ns, size_t butterflies,
                                bool conj_in, bool conj_out)
{
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= butterflies)
        return;
    const int count = n / R;
    const size_t base = idx / count * n;
    stockham_butterfly<R>(src + base, dst + base, (int)(idx % count), count, ns, conj_in, conj_out);
}

static void run_v2(const fft_plan *p, const fft_args *a, cudaStream_t stream)
{
    if (p->stages == 0) { // n = 1: the transform of one point is itself
        if (a->in != a->out)
            CL_CUDA_CHECK(cudaMemcpyAsync(a->out, a->in, points(a->n, a->batch) * sizeof(float2),
                                          cudaMemcpyDeviceToDevice, stream));
        return;
    }
    void *dst[MAX_STAGES];
    chain_buffers(p->stages, a->in, a->out, p->tmp1, p->tmp2, dst);
    const float2 *src = (const float2 *)a->in;
    int ns = 1;
    for (int s = 0; s < p->stages; s++) {
        const int r = p->radix[s];
        const size_t butterflies = points(a->n, a->batch) / r;
        const bool first = s == 0, last = s == p->stages - 1;
        const bool ci = first && a->inverse, co = last && a->inverse;
        float2 *d = (float2 *)dst[s];
        const unsigned blocks = cl_ceil_div(butterflies, 256);
        switch (r) {
        case 2:
            v2_stage_kernel<2><<<blocks, 256, 0, stream>>>(src, d, a->n, ns, butterflies, ci, co);
            break;
        case 3:
            v2_stage_kernel<3><<<blocks, 256, 0, stream>>>(src, d, a->n, ns, butterflies, ci, co);
            break;
        case 5:
            v2_stage_kernel<5><<<blocks, 256, 0, stream>>>(src, d, a->n, ns, butterflies, ci, co);
            break;
        case 7:
            v2_stage_kernel<7><<<blocks, 256, 0, stream>>>(src, d, a->n, ns, butterflies, ci, co);
            break;
        }
        CL_LAUNCH_CHECK();
        src = d;
        ns *= r;
    }
}

static bool plan_v2(planner &pl, int n, size_t batch, bool in_place, char *why, size_t len)
{
    fft_plan *p = pl.plan;
    p->stages = radices(n, false, p->radix);
    if (p->stages < 0)
        return skip(why, len,
                    "n = %d has a prime factor above 7 (v5 does it, by Bluestein's algorithm)", n);
    const int scratch = chain_scratch_count(p->stages, in_place);
    if (scratch >= 1)
        p->tmp1 = (float2 *)pl.alloc(points(n, batch) * sizeof(float2));
    if (scratch >= 2)
        p->tmp2 = (float2 *)pl.alloc(points(n, batch) * sizeof(float2));
    p->passes = p->stages > 0 ? p->stages : 1;
    char r[96];
    describe_radices(r, sizeof r, p->radix, p->stages);
    snprintf(p->description, sizeof p->description, "%d launches (radix %s)", p->stages, r);
    p->run = run_v2;
    return true;
}

// --- v3: the stages in shared memory -------------------------------------------------------------

struct v3_radices {
    int stages;
    unsigned char radix[MAX_STAGES];
};

// v3: one block a transform: the n points are read into shared memory once, every
// stage runs there (between two buffers), and the result is written once: one pass
// over DRAM instead of log2(n). Limits: n <= shared memory / 16 bytes, one transform
// a block (short transforms leave most threads idle), twiddles computed (sincos) in
// every butterfly, and stages of radix 2 (log2 n of them, each with a barrier).
__global__ void v3_shared_kernel(const float2 *in, float2 *out, int n, v3_radices r, bool conj_in,
                                 bool conj_out)
{
    extern __shared__ float2 v3_buffer[];
    float2 *src = v3_buffer, *dst = v3_buffer + n;
    const size_t base = (size_t)blockIdx.x * n;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        src[i] = conj_if(in[base + i], conj_in);
    __syncthreads();
    int ns = 1;
    for (int s = 0; s < r.stages; s++) {
        const int radix = r.radix[s], count = n / radix;
        for (int j = threadIdx.x; j < count; j += blockDim.x)
            switch (radix) {
            case 2:
                stockham_butterfly<2>(src, dst, j, count, ns, false, false);
                break;
            case 3:
                stockham_butterfly<3>(src, dst, j, count, ns, false, false);
                break;
            case 5:
                stockham_butterfly<5>(src, dst, j, count, ns, false, false);
                break;
            case 7:
                stockham_butterfly<7>(src, dst, j, count, ns, false, false);
                break;
            }
        __syncthreads();
        float2 *t = src;
        src = dst;
        dst = t;
        ns *= radix;
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        out[base + i] = conj_if(src[i], conj_out);
}

static int v3_threads(int n)
{
    return n / 2 < 32 ? 32 : n / 2 > 1024 ? 1024 : (n / 2 + 31) / 32 * 32;
}

static void run_v3(const fft_plan *p, const fft_args *a, cudaStream_t stream)
{
    v3_radices r = {p->stages, {0}};
    memcpy(r.radix, p->radix, sizeof r.radix);
    const size_t chunk = (size_t)1 << 30; // a grid's x dimension stops at 2^31 - 1
    for (size_t first = 0; first < a->batch; first += chunk) {
        const size_t count = a->batch - first < chunk ? a->batch - first : chunk;
        const size_t offset = first * a->n;
        v3_shared_kernel<<<(unsigned)count, v3_threads(a->n), 2 * a->n * sizeof(float2), stream>>>(
            (const float2 *)a->in + offset, (float2 *)a->out + offset, a->n, r, a->inverse,
            a->inverse);
        CL_LAUNCH_CHECK();
    }
}

static bool plan_v3(planner &pl, int n, size_t, bool, char *why, size_t len)
{
    fft_plan *p = pl.plan;
    p->stages = radices(n, false, p->radix);
    if (p->stages < 0)
        return skip(why, len,
                    "n = %d has a prime factor above 7 (v5 does it, by Bluestein's algorithm)", n);
    const size_t smem = 2 * (size_t)n * sizeof(float2);
    if (smem > cl_device_current()->shared_optin_bytes)
        return skip(why, len, "n = %d: 16 bytes a point do not fit in a block's shared memory", n);
    if (!pl.dry) // raises the kernel's shared-memory allowance on this device
        cl_kernel_fit_for((const void *)v3_shared_kernel, v3_threads(n), smem);
    p->passes = 1;
    char r[96];
    describe_radices(r, sizeof r, p->radix, p->stages);
    snprintf(p->description, sizeof p->description, "1 pass, %d stages in shared memory (radix %s)",
             p->stages, r);
    p->run = run_v3;
    return true;
}

// --- v4 and v5: a pass of m-point transforms in registers and shared memory ---------------------

// A pass is a Stockham stage of radix m (m = n for a one-pass transform): column j of
// transform b is the m points b n + j + p n/m (p < m), each multiplied by the twiddle
// w_{ns m}^{p (j mod ns)} between passes, transformed (m points), and written to
// b n + (j / ns) ns m + (j mod ns) + q ns. Inside, the m-point transform is itself a
// chain of Stockham stages of radix 8 (4, 2, 3, 5, 7): a thread holds a butterfly's points
// in registers, and the stages trade points through shared memory.
// Layout in shared memory: a whole transform a column (contiguous) keeps column c's point
// p at c pitch + p + p/16: a stage's stores go R points apart (8 i + q for radix 8), which
// without the extra slot every 16 would put 8 of a half-warp's 16 stores in one bank.
// Columns of a longer transform (strided, several a block so each global read is a run
// of C neighbours) at p (C + 1) + c: a half-warp spans 16 columns of one point.

__device__ inline int smem_at(const pass_desc &d, int c, int p)
{
    return d.contiguous ? c * d.pitch + p + (p >> 4) : p * (d.columns_per_block + 1) + c;
}

// The first stage: points from global memory (conjugated for an inverse, twiddled
// between passes), an R-point DFT of each butterfly.
template <int R, int B>
__device__ inline void first_stage(float2 (&v)[B][8], const float2 *in, const pass_desc &d,
                                   const pass_thread &th)
{
    const int count = d.m / R;
    const size_t base = (size_t)th.b * d.n + th.j;
#pragma unroll
    for (int k = 0; k < B; k++) {
        const int i = th.t + k * d.threads_per_column;
        if (!th.valid || i >= count)
            continue;
#pragma unroll
        for (int q = 0; q < R; q++) {
            const int p = i + q * count;
            float2 a = conj_if(in[base + (size_t)p * d.stride], d.conj_in);
            if (d.ns > 1)
                a = cmul(a, pass_twiddle(d, p * th.jm));
            v[k][q] = a;
        }
        dft<R>(v[k]);
    }
}

// A stage's results to shared memory, at the Stockham positions of a stage whose
// earlier stages multiply to ns.
template <int R, int B>
__device__ inline void store_stage(const float2 (&v)[B][8], float2 *sm, const pass_desc &d,
                                   const pass_thread &th, int ns, float inv_ns)
{
    const int count = d.m / R;
#pragma unroll
    for (int k = 0; k < B; k++) {
        const int i = th.t + k * d.threads_per_column;
        if (!th.valid || i >= count)
            continue;
        int im;
        const int base = div_mod(i, ns, inv_ns, im) * ns * R + im;
#pragma unroll
        for (int q = 0; q < R; q++)
            sm[smem_at(d, th.c, base + q * ns)] = v[k][q];
    }
}

// The next stage's points from shared memory, twiddled by w_{ns R}^{q (i mod ns)} from
// the table of m-th roots (w_m^{q (i mod ns) m / (ns R)}), then its DFTs.
template <int R, int B>
__device__ inline void load_stage(float2 (&v)[B][8], const float2 *sm, const pass_desc &d,
                                  const pass_thread &th, int ns, float inv_ns)
{
    const int count = d.m / R, step = d.m / (ns * R);
#pragma unroll
    for (int k = 0; k < B; k++) {
        const int i = th.t + k * d.threads_per_column;
        if (!th.valid || i >= count)
            continue;
        int im;
        div_mod(i, ns, inv_ns, im);
#pragma unroll
        for (int q = 0; q < R; q++) {
            const float2 a = sm[smem_at(d, th.c, i + q * count)];
            v[k][q] = (q > 0 && im > 0) ? cmul(a, __ldg(&d.roots[q * im * step])) : a;
        }
        dft<R>(v[k]);
    }
}

// The last stage's results: output q of butterfly i is point o = i + q m/R of the pass's
// transform, which goes to b n + (j / ns) ns m + (j mod ns) + o ns.
template <int R, int B>
__device__ inline void store_global(const float2 (&v)[B][8], float2 *out, const pass_desc &d,
                                    const pass_thread &th)
{
    const int count = d.m / R;
    const size_t base = (size_t)th.b * d.n + (size_t)(th.j - th.jm) * d.m + th.jm;
#pragma unroll
    for (int k = 0; k < B; k++) {
        const int i = th.t + k * d.threads_per_column;
        if (!th.valid || i >= count)
            continue;
#pragma unroll
        for (int q = 0; q < R; q++)
            out[base + (size_t)(i + q * count) * d.ns] = conj_if(v[k][q], d.conj_out);
    }
}

#define RADIX_CASES(CALL)                                                                          \
    switch (radix) {                                                                               \
    case 2:                                                                                        \
        CALL(2);                                                                                   \
        break;                                                                                     \
    case 3:                                                                                        \
        CALL(3);                                                                                   \
        break;                                                                                     \
    case 4:                                                                                        \
        CALL(4);                                                                                   \
        break;                                                                                     \
    case 5:                                                                                        \
        CALL(5);                                                                                   \
        break;                                                                                     \
    case 7:                                                                                        \
        CALL(7);                                                                                   \
        break;                                                                                     \
    case 8:                                                                                        \
        CALL(8);                                                                                   \
        break;                                                                                     \
    }

__device__ inline int stage_radix(const pass_desc &d, int s) { return d.radix[s]; }

// The pass. B butterflies a thread a stage (B = 1, 2, 4; more for longer m), with the
// register budget that allows: 1024 threads of <= 64 registers, or 512 of <= 128.
// Napkin math (n = 4096, 2^26 points, one pass): 1 GB moved, 0.36 ms at 2.9 TB/s; per
// point 4 radix-8 stages of ~10 flops and 2 shared-memory trips between stages: the
// SM's shared memory (128 B a clock) moves 2^26 x 8 B x 6 in ~0.2 ms, under the DRAM
// time if the two overlap.
template <int B>
__global__ void __launch_bounds__(B <= 2 ? 1024 : 512)
    pass_kernel(const float2 *in, float2 *out, const pass_desc desc)
{
    extern __shared__ float2 pass_buffer[];
    const pass_desc d = desc; // a copy in registers: the device functions take it by reference
    pass_thread th;
    const int C = d.columns_per_block, T = d.threads_per_column;
    th.c = d.contiguous ? (int)threadIdx.x / T : (int)threadIdx.x % C;
    th.t = d.contiguous ? (int)threadIdx.x % T : (int)threadIdx.x / C;
    const unsigned g = blockIdx.x * (unsigned)C + th.c;
    th.valid = g < d.columns;
    th.b = g / (unsigned)d.stride;
    th.j = (int)(g - th.b * (unsigned)d.stride);
    th.jm = th.j % d.ns;

    float2 v[B][8];
    int radix = d.stages > 0 ? stage_radix(d, 0) : 1;
    if (d.stages == 0) { // m = 1: a copy
        if (th.valid && th.t == 0)
            v[0][0] = conj_if(in[(size_t)th.b * d.n + th.j], d.conj_in);
    } else {
#define FIRST(R) first_stage<R, B>(v, in, d, th)
        RADIX_CASES(FIRST)
#undef FIRST
    }
    int ns = 1;
    for (int s = 1; s < d.stages; s++) {
        __syncthreads(); // the previous stage's reads are done
        const float inv_ns = 1.0f / (float)ns;
#define STORE(R) store_stage<R, B>(v, pass_buffer, d, th, ns, inv_ns)
        RADIX_CASES(STORE)
#undef STORE
        ns *= radix;
        radix = stage_radix(d, s);
        __syncthreads();
        const float inv_next = 1.0f / (float)ns;
#define LOAD(R) load_stage<R, B>(v, pass_buffer, d, th, ns, inv_next)
        RADIX_CASES(LOAD)
#undef LOAD
    }
    if (d.stages == 0) {
        if (th.valid && th.t == 0)
            out[(size_t)th.b * d.n + th.j] = conj_if(v[0][0], d.conj_out);
    } else if (!d.staged_store) {
#define STORE_OUT(R) store_global<R, B>(v, out, d, th)
        RADIX_CASES(STORE_OUT)
#undef STORE_OUT
    } else {
        // First of several passes (ns = 1): column g's outputs are the m points at g m,
        // so the block's C columns are one run of C m points: stage them in shared memory
        // (at the last stage's positions) and write the run in order.
        __syncthreads();
        const float inv_ns = 1.0f / (float)ns;
#define STORE(R) store_stage<R, B>(v, pass_buffer, d, th, ns, inv_ns)
        RADIX_CASES(STORE)
#undef STORE
        __syncthreads();
        const unsigned first = blockIdx.x * (unsigned)C;
        const int valid_columns = (int)min((unsigned)C, d.columns - first);
        for (int idx = threadIdx.x; idx < valid_columns * d.m; idx += blockDim.x)
            out[(size_t)first * d.m + idx] =
                conj_if(pass_buffer[smem_at(d, idx / d.m, idx % d.m)], d.conj_out);
    }
}

enum { MAX_THREADS_A_BLOCK = 1024, POINTS_A_BLOCK = 2048, V4_MAX_BUTTERFLIES = 2048 };

static int max_butterflies(const pass_desc &d)
{
    int most = 1;
    for (int s = 0; s < d.stages; s++) {
        const int r = d.radix[s];
        most = d.m / r > most ? d.m / r : most;
    }
    return most;
}

// The m-th roots w_m^t, t < m, and (between passes) the split table of w_{ns m}^e:
// e = hi 2^shift + lo. Both computed in double, rounded once.
static std::vector<float2> roots_table(long long len, long long count, long long stride)
{
    std::vector<float2> t(count);
    for (long long i = 0; i < count; i++) {
        const double angle = -2.0 * M_PI * (double)((i * stride) % len) / (double)len;
        t[i] = make_float2((float)cos(angle), (float)sin(angle));
    }
    return t;
}

// The block's shape for a pass: B butterflies a thread a stage, T threads a column, C
// columns a block, within the thread and register budget (1024 threads for B <= 2, 512
// for B = 4). Short whole transforms: up to POINTS_A_BLOCK points a block. Columns of a
// longer transform: runs of 16 (8 for m > 512) neighbours, 128 (64) bytes, fewer if the
// threads run out.
static bool block_shape(pass_desc &d)
{
    const int most = max_butterflies(d);
    const int preferred =
        d.contiguous ? (d.m >= POINTS_A_BLOCK ? 1 : POINTS_A_BLOCK / d.m) : (d.m <= 512 ? 16 : 8);
    for (int C = preferred; C >= 1; C = d.contiguous ? 0 : C / 2)
        for (int B = 1; B <= 4; B *= 2) {
            const int limit = B <= 2 ? MAX_THREADS_A_BLOCK : MAX_THREADS_A_BLOCK / 2;
            const int T = (most + B - 1) / B;
            const int columns = d.contiguous ? (limit / T < C ? limit / T : C) : C;
            if (columns >= 1 && columns * T <= limit) {
                d.butterflies = B;
                d.threads_per_column = T;
                d.columns_per_block = columns;
                return true;
            }
        }
    return false;
}

static const void *pass_kernel_of(const pass_desc &d);
static void run_bluestein_staged(const fft_plan *p, const fft_args *a, cudaStream_t stream);

// Fills d for a pass of m-point transforms with ns before it; false when it does not fit.
// kernels: which versions' pass kernels may run it (see pass_kernels).
static bool plan_pass(planner &pl, pass_desc &d, int n, int m, int ns, size_t batch,
                      pass_kernels kernels)
{
    memset(&d, 0, sizeof d);
    d.n = n;
    d.m = m;
    d.ns = ns;
    d.stride = n / m;
    d.columns = (unsigned)(batch * d.stride);
    d.contiguous = m == n;
    unsigned char radix[MAX_STAGES];
    d.stages = radices(m, true, radix); // -1 for a factor above 7: only a v6 kernel does it
    if (d.stages > MAX_PASS_STAGES)
        return false;
    for (int s = 0; s < d.stages; s++)
        d.radix[s] = radix[s];
    // v7 takes v6's kernels for powers of two from 32 only (below, v6's one-thread
    // transforms read 64- and 128-byte strides): every other length of radices to 13 runs
    // the staged kernel, whatever the length.
    const bool fixed =
        (kernels == V6_KERNELS || (kernels == V7_KERNELS && is_power_of_two(m) && m >= 32)) &&
        fixed_pass_plan(d, pl.dry);
    if (!fixed && kernels == V7_KERNELS) {
        // A power of two past v6's one-pass kernels takes two of them (16384: 128 x 128 on
        // the H200, where the staged kernel in place took half as long again): v6's stages
        // are compiled for their length, the in-place kernel's switch on the radix a stage
        // and its digit-reversed copy-out are not.
        if (!staged_pass_plan(d, pl.dry) || (d.in_place && is_power_of_two(m)))
            return false;
    } else if (!fixed) {
        if (d.stages < 0 || !block_shape(d))
            return false;
        const int C = d.columns_per_block;
        d.pitch = m + m / 16 + 1;
        d.smem_bytes =
            (int)((d.contiguous ? (size_t)C * d.pitch : (size_t)m * (C + 1)) * sizeof(float2));
        if ((size_t)d.smem_bytes > cl_device_current()->shared_optin_bytes)
            return false;
        if (!pl.dry) // raises the kernel's shared-memory allowance on this device
            cl_kernel_fit_for(pass_kernel_of(d), d.columns_per_block * d.threads_per_column,
                              (size_t)d.smem_bytes);
        d.staged_store = !d.contiguous && ns == 1;
    }
    if (!d.fixed || d.smem_bytes > 0) // a fixed pass without shared memory is one stage
        d.roots = pl.upload(roots_table(m, m, 1));
    if (ns > 1) {
        // The twiddles between passes, w_len^e = hi[e >> shift] lo[e & mask]: two tables
        // of ~sqrt(len) entries, lo at most 1024 (8 KB). A warp's lo indices are scattered
        // (e = p jm, its lanes neighbouring columns jm) and stay in L1 at that size; its hi
        // indices differ by about 16 p / 1024 entries, a few sectors from L2 however long
        // the table. With lo at sqrt(len) (2^27's last pass: 16384 entries, 128 KB) it
        // missed L1 (tuning notes: the twiddle tables).
        const long long len = (long long)ns * m;
        int shift = 0;
        while ((1LL << (2 * shift)) < len && shift < 10)
            shift++;
        d.twiddle_shift = shift;
        d.twiddle_lo = pl.upload(roots_table(len, 1LL << shift, 1));
        d.twiddle_hi = pl.upload(roots_table(len, (len >> shift) + 1, 1LL << shift));
    }
    return true;
}

static void describe_pass(char *out, size_t len, const pass_desc &d)
{
    describe_radices(out, len, d.radix, d.stages);
}

static const void *pass_kernel_of(const pass_desc &d)
{
    switch (d.butterflies) {
    case 1:
        return (const void *)pass_kernel<1>;
    case 2:
        return (const void *)pass_kernel<2>;
    default:
        return (const void *)pass_kernel<4>;
    }
}

static void launch_pass(const pass_desc &desc, const void *in, void *out, bool conj_in,
                        bool conj_out, cudaStream_t stream)
{
    pass_desc d = desc;
    d.conj_in = conj_in;
    d.conj_out = conj_out;
    if (d.fixed) {
        fixed_pass_launch(d, (const float2 *)in, (float2 *)out, stream);
        return;
    }
    if (d.staged) {
        staged_pass_launch(d, (const float2 *)in, (float2 *)out, stream);
        return;
    }
    const unsigned blocks = (unsigned)((d.columns + d.columns_per_block - 1) / d.columns_per_block);
    const int threads = d.columns_per_block * d.threads_per_column;
    const float2 *src = (const float2 *)in;
    float2 *dst = (float2 *)out;
    switch (d.butterflies) {
    case 1:
        pass_kernel<1><<<blocks, threads, d.smem_bytes, stream>>>(src, dst, d);
        break;
    case 2:
        pass_kernel<2><<<blocks, threads, d.smem_bytes, stream>>>(src, dst, d);
        break;
    case 4:
        pass_kernel<4><<<blocks, threads, d.smem_bytes, stream>>>(src, dst, d);
        break;
    }
    CL_LAUNCH_CHECK();
}

static void run_passes(const fft_plan *p, const fft_args *a, cudaStream_t stream)
{
    void *dst[MAX_PASSES];
    if (p->npasses == 1)
        dst[0] = a->out; // one pass reads a block's points before it writes them: in place is safe
    else
        chain_buffers(p->npasses, a->in, a->out, p->tmp1, p->tmp2, dst);
    const void *src = a->in;
    for (int i = 0; i < p->npasses; i++) {
        launch_pass(p->pass[i], src, dst[i], i == 0 && a->inverse,
                    i == p->npasses - 1 && a->inverse, stream);
        src = dst[i];
    }
}

static bool plan_v4(planner &pl, int n, size_t batch, bool, char *why, size_t len)
{
    fft_plan *p = pl.plan;
    unsigned char r[MAX_STAGES];
    if (radices(n, true, r) < 0)
        return skip(why, len,
                    "n = %d has a prime factor above 7 (v5 does it, by Bluestein's algorithm)", n);
    pass_desc &d = p->pass[0];
    if (!plan_pass(pl, d, n, n, 1, batch, V5_KERNELS) || max_butterflies(d) > V4_MAX_BUTTERFLIES)
        return skip(why, len,
                    "n = %d is longer than one block's registers and shared memory hold (v5 "
                    "splits it in passes)",
                    n);
    p->npasses = 1;
    p->passes = 1;
    char rs[96];
    describe_pass(rs, sizeof rs, d);
    snprintf(p->description, sizeof p->description, "1 pass (radix %s), %d transform%s a block", rs,
             d.columns_per_block, d.columns_per_block > 1 ? "s" : "");
    p->run = run_passes;
    return true;
}

// --- v5: several passes, and Bluestein -------------------------------------------------------

// The longest pass over columns: v5's kernel, v6's, v7's staged kernel (its two buffers of
// 4 columns of 2048 points take 139 KB of shared memory).
enum { PASS_MAX_M = 2048, FIXED_PASS_MAX_M = 4096, STAGED_PASS_MAX_M = 2048 };

static bool plan_multipass(planner &pl, int n, size_t batch, bool in_place, pass_kernels kernels)
{
    fft_plan *p = pl.plan;
    pass_desc one;
    if (plan_pass(pl, one, n, n, 1, batch, kernels) &&
        (one.fixed || one.staged || max_butterflies(one) <= V4_MAX_BUTTERFLIES)) {
        p->pass[0] = one;
        p->npasses = 1;
    } else {
        // The fewest passes whose split fits (each pass's m within the longest and a block).
        int count = 2;
        for (; count <= MAX_PASSES; count++) {
            int m[MAX_PASSES];
            const int max_m = kernels == V5_KERNELS                         ? PASS_MAX_M
                              : kernels == V6_KERNELS || is_power_of_two(n) ? FIXED_PASS_MAX_M
                                                                            : STAGED_PASS_MAX_M;
            if (!fft_split_passes(n, count, max_m,
                                  kernels == V7_KERNELS ? FFT_STAGED_MAX_PRIME : 13, m))
                continue;
            int ns = 1, i = 0;
            for (; i < count && plan_pass(pl, p->pass[i], n, m[i], ns, batch, kernels); i++)
                ns *= m[i];
            if (i == count)
                break;
        }
        if (count > MAX_PASSES)
            return false;
        p->npasses = count;
        const int scratch = chain_scratch_count(count, in_place);
        if (scratch >= 1)
            p->tmp1 = (float2 *)pl.alloc(points(n, batch) * sizeof(float2));
        if (scratch >= 2)
            p->tmp2 = (float2 *)pl.alloc(points(n, batch) * sizeof(float2));
    }
    p->passes = p->npasses;
    size_t used = snprintf(p->description, sizeof p->description, "%d pass%s", p->npasses,
                           p->npasses > 1 ? "es" : "");
    for (int i = 0; i < p->npasses && p->npasses > 1; i++)
        used += snprintf(p->description + used, sizeof p->description - used, "%s%d",
                         i ? " x " : " (", p->pass[i].m);
    if (p->npasses > 1)
        used += snprintf(p->description + used, sizeof p->description - used, ")");
    for (int i = 0; i < p->npasses && kernels == V6_KERNELS; i++)
        if (!p->pass[i].fixed)
            used += snprintf(p->description + used, sizeof p->description - used,
                             ", m = %d by v5's kernel", p->pass[i].m);
    p->run = run_passes;
    return true;
}

// Bluestein: x_j c_j (c_k = e^{-pi i k^2/n}) zero-padded to m, transformed; times the
// transform of conj(c) wrapped to m (made at plan time, over m); transformed back
// (as conj(forward(conj))); times c_k. A pass each for the three products and two
// smooth transforms of m >= 2n - 1 points.
__global__ void bluestein_pad_kernel(const float2 *x, float2 *a, int n, long long m, size_t batch,
                                     const float2 *chirp, bool conj_in)
{
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)m * batch)
        return;
    const long long k = (long long)(idx % m);
    a[idx] = k < n ? chirp_in(x[idx / m * n + k], sign_mask(conj_in), chirp, (int)k)
                   : make_float2(0.0f, 0.0f);
}

__global__ void bluestein_multiply_kernel(float2 *a, const float2 *spectrum, long long m,
                                          size_t total, float scale)
{
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total)
        return;
    a[idx] = filter_out(a[idx], spectrum, (int)(idx % m), scale); // conjugated: the inverse is next
}

__global__ void bluestein_finish_kernel(const float2 *a, float2 *y, int n, long long m,
                                        size_t batch, const float2 *chirp, bool conj_out)
{
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)n * batch)
        return;
    const int k = (int)(idx % n);
    y[idx] = chirp_out(a[idx / n * m + k], chirp, k, sign_mask(conj_out));
}

static void run_bluestein(const fft_plan *p, const fft_args *a, cudaStream_t stream)
{
    const size_t padded = (size_t)p->m * a->batch, total = points(a->n, a->batch);
    bluestein_pad_kernel<<<cl_ceil_div(padded, 256), 256, 0, stream>>>(
        (const float2 *)a->in, p->work1, a->n, p->m, a->batch, p->chirp, a->inverse);
    CL_LAUNCH_CHECK();
    const fft_args forward = {(int)p->m, a->batch, false, p->work1, p->work2};
    p->inner->run(p->inner, &forward, stream);
    bluestein_multiply_kernel<<<cl_ceil_div(padded, 256), 256, 0, stream>>>(
        p->work2, p->spectrum, p->m, padded, 1.0f / (float)p->m);
    CL_LAUNCH_CHECK();
    const fft_args back = {(int)p->m, a->batch, false, p->work2, p->work1};
    p->inner->run(p->inner, &back, stream);
    bluestein_finish_kernel<<<cl_ceil_div(total, 256), 256, 0, stream>>>(
        p->work1, (float2 *)a->out, a->n, p->m, a->batch, p->chirp, a->inverse);
    CL_LAUNCH_CHECK();
}

// Bluestein's products can ride on these inner transforms' passes (run_bluestein_passes):
// two or more column passes, each v7's staged kernel.
static bool fusable_passes(const fft_plan *inner)
{
    if (inner->run != run_passes || inner->npasses < 2)
        return false;
    for (int i = 0; i < inner->npasses; i++)
        if (!inner->pass[i].staged)
            return false;
    return true;
}

static void run_bluestein_fused(const fft_plan *p, const fft_args *a, cudaStream_t stream)
{
    const fixed_bluestein_args args = {
        p->m,     (const float2 *)a->in, (float2 *)a->out, a->n,      a->batch,
        p->chirp, p->spectrum,           p->roots,         a->inverse};
    fixed_bluestein_launch(args, stream);
}

// v7 past its one kernel, where every pass of the inner transforms is a staged column
// pass: the three products ride on the passes (pass_desc's fuse_in, fuse_out): the first
// transform's first pass loads x c and its last pass stores the spectrum's product,
// conjugated; the second transform's last pass stores conj(y) c, n points a transform.
// Two sweeps of the passes and nothing else: 4 x 16 bytes a padded point, where the
// unfused form adds the three products' ~4.5 more.
static void run_bluestein_passes(const fft_plan *p, const fft_args *a, cudaStream_t stream)
{
    const fft_plan *inner = p->inner;
    const void *src = a->in;
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < inner->npasses; i++) {
            pass_desc d = inner->pass[i];
            const bool first = round == 0 && i == 0, last = i == inner->npasses - 1;
            d.fuse_in = first ? FUSE_CHIRP : FUSE_NONE;
            d.fuse_out = !last ? FUSE_NONE : round == 0 ? FUSE_FILTER : FUSE_CHIRP;
            d.pad_n = a->n;
            d.chirp = p->chirp;
            d.spectrum = p->spectrum;
            void *dst = round == 1 && last ? a->out : src == p->work1 ? p->work2 : p->work1;
            launch_pass(d, src, dst, first && a->inverse, round == 1 && last && a->inverse, stream);
            src = dst;
        }
}

// v7 where the inner transforms take two staged column passes, m = m0 m1: three passes
// (p->pass), the middle one Bluestein's turn (FUSE_TURN: the first transform's m1-point
// pass, the filter product, the second's m1-point pass, over the same columns), so the
// second transform runs its passes in the other order (m1, then m0 with ns = m1). The
// first loads x c, the last stores conj(y) c: 3 x 16 bytes a padded point, where two
// sweeps of the two passes take 4 x 16.
static bool plan_bluestein_turn(planner &pl, fft_plan *p, size_t batch)
{
    const pass_desc &first = p->inner->pass[0], &second = p->inner->pass[1];
    p->pass[0] = first;
    p->pass[1] = second;
    p->pass[1].fuse_out = FUSE_TURN;
    if (!staged_pass_plan(p->pass[1], pl.dry)) // its shape again: two buffers for the turn
        return false;
    pass_desc &last = p->pass[2];
    return plan_pass(pl, last, (int)p->m, first.m, second.m, batch, V7_KERNELS) && last.staged;
}

static void run_bluestein_turn(const fft_plan *p, const fft_args *a, cudaStream_t stream)
{
    const void *src[3] = {a->in, p->work1, p->work2};
    void *dst[3] = {p->work1, p->work2, a->out};
    for (int i = 0; i < 3; i++) {
        pass_desc d = p->pass[i];
        d.fuse_in = i == 0 ? FUSE_CHIRP : FUSE_NONE;
        if (i == 2)
            d.fuse_out = FUSE_CHIRP;
        d.pad_n = a->n;
        d.chirp = p->chirp;
        d.spectrum = p->spectrum;
        launch_pass(d, src[i], dst[i], i == 0 && a->inverse, i == 2 && a->inverse, stream);
    }
}

static fft_plan *make_plan(bool (*build)(planner &, int, size_t, bool, char *, size_t), int n,
                           size_t batch, bool in_place, bool dry, size_t *bytes, char *why,
                           size_t len, int bluestein_power = -1);

typedef bool (*plan_builder)(planner &, int, size_t, bool, char *, size_t);

// Bluestein's m: the least length >= 2n - 1 of factors 2, 3, 5, 7. v6: a power of two up to
// 8192, all of Bluestein in one kernel (a block a transform, see bluestein_fused_kernel);
// above, a power of two when it is within 1/8 of the smooth length, so the inner transforms
// run on kernels compiled for their length. v7: v6's one kernel or the smooth m, whichever
// v7_plan's trial timed faster (pl.bluestein_power; without a trial, v6's where its power
// of two is less than 1.7 times the smooth m: the staged kernel takes about twice v6's
// time a point of m, and 1.7 was the best such threshold over 1,487 lengths to 4096 on the
// H200), the smooth m all in one staged kernel while m's block fits in shared memory (two
// buffers to m = 14,528, then one, its stages in place, to ~27,200), else m's passes with
// the products in them.
// Bluestein's other inner length: the least power of two >= 2n - 1.
static long long bluestein_power_of_two(int n)
{
    long long power = 1;
    while (power < 2LL * n - 1)
        power *= 2;
    return power;
}

static bool plan_bluestein(planner &pl, int n, size_t batch, plan_builder inner,
                           pass_kernels kernels)
{
    fft_plan *p = pl.plan;
    p->m = fft_bluestein_length(n);
    const long long power = bluestein_power_of_two(n);
    const bool power_near =
        pl.bluestein_power < 0 ? power * 10 < p->m * 17 : pl.bluestein_power == 1;
    bool fused = (kernels == V6_KERNELS || (kernels == V7_KERNELS && power_near)) &&
                 fixed_bluestein_plan(power, pl.dry);
    if (fused || (kernels == V6_KERNELS && power * 8 <= p->m * 9))
        p->m = power;
    if (p->m > INT32_MAX / 2 || (size_t)p->m * batch > 2 * FFT_MAX_POINTS)
        return false;
    bool staged_fused = false;
    if (kernels == V7_KERNELS && !fused) {
        pass_desc &d = p->pass[0];
        memset(&d, 0, sizeof d);
        d.n = d.m = (int)p->m;
        d.ns = d.stride = 1;
        d.columns = (unsigned)batch;
        d.pad_n = n;
        staged_fused = fused = staged_bluestein_plan(d, pl.dry);
    }
    char why[160];
    if (!fused) {
        size_t inner_bytes = 0;
        p->inner = make_plan(inner, (int)p->m, batch, false, pl.dry, &inner_bytes, why, sizeof why);
        pl.bytes += inner_bytes;
        if (!pl.dry && !p->inner)
            return false;
        p->work1 = (float2 *)pl.alloc((size_t)p->m * batch * sizeof(float2));
        p->work2 = (float2 *)pl.alloc((size_t)p->m * batch * sizeof(float2));
    }
    std::vector<float2> chirp(n);
    for (long long k = 0; k < n; k++) {
        const double angle = -M_PI * (double)((unsigned long long)k * k % (2ULL * n)) / n;
        chirp[k] = make_float2((float)cos(angle), (float)sin(angle));
    }
    p->chirp = pl.upload(chirp);
    p->spectrum = (float2 *)pl.alloc((size_t)p->m * sizeof(float2));
    // The spectrum: conj(c_k) at k and m - k, transformed with the inner length's kernels
    // (one transform; from the batch's first slot, or its own m points when fused).
    std::vector<float2> wrapped(p->m, make_float2(0.0f, 0.0f));
    for (long long k = 0; k < n; k++) {
        wrapped[k] = make_float2(chirp[k].x, -chirp[k].y);
        if (k > 0)
            wrapped[p->m - k] = wrapped[k];
    }
    float2 *staged = fused ? pl.upload(wrapped) : p->work1;
    if (fused)
        p->roots = pl.upload(roots_table(p->m, p->m, 1));
    if (!pl.dry) {
        if (!fused)
            CL_CUDA_CHECK(
                cudaMemcpy(staged, wrapped.data(), p->m * sizeof(float2), cudaMemcpyHostToDevice));
        fft_plan *single = make_plan(inner, (int)p->m, 1, false, false, NULL, why, sizeof why);
        if (!single) // one transform of m where the batch's plan fitted: not expected, not assumed
            return false;
        const fft_args args = {(int)p->m, 1, false, staged, p->spectrum};
        single->run(single, &args, 0);
        CL_CUDA_CHECK(cudaDeviceSynchronize());
        fft_plan_destroy(single);
        if (staged_fused && p->pass[0].in_place) { // in the order its DIF stages leave it
            const pass_desc &d = p->pass[0];
            std::vector<float2> natural(p->m), dif(p->m);
            CL_CUDA_CHECK(cudaMemcpy(natural.data(), p->spectrum, p->m * sizeof(float2),
                                     cudaMemcpyDeviceToHost));
            for (int k = 0; k < d.m; k++)
                dif[fft_dif_slot(d.radix, d.stages, k)] = natural[k];
            CL_CUDA_CHECK(
                cudaMemcpy(p->spectrum, dif.data(), p->m * sizeof(float2), cudaMemcpyHostToDevice));
        }
    }
    if (fused) {
        p->passes = 1;
        snprintf(p->description, sizeof p->description,
                 "Bluestein in one kernel: 2 transforms of %lld and 3 products%s", p->m,
                 staged_fused && p->pass[0].in_place ? ", in place" : "");
        p->run = run_bluestein_fused;
        if (staged_fused) {
            pass_desc &d = p->pass[0];
            d.roots = p->roots;
            d.chirp = p->chirp;
            d.spectrum = p->spectrum;
            p->run = run_bluestein_staged;
        }
        return true;
    }
    if (kernels == V7_KERNELS && !pl.dry && fusable_passes(p->inner) && p->inner->npasses == 2 &&
        plan_bluestein_turn(pl, p, batch)) {
        p->passes = 3;
        snprintf(p->description, sizeof p->description,
                 "Bluestein: 2 transforms of %lld (%d x %d), the 3 products in 3 passes", p->m,
                 p->pass[0].m, p->pass[1].m);
        p->run = run_bluestein_turn;
        return true;
    }
    if (kernels != V5_KERNELS && !pl.dry && fusable_passes(p->inner)) {
        p->passes = 2 * p->inner->passes;
        snprintf(p->description, sizeof p->description,
                 "Bluestein: 2 transforms of %lld (%.80s), the 3 products in their passes", p->m,
                 p->inner->description);
        p->run = run_bluestein_passes;
        return true;
    }
    p->passes = 2 * (p->inner ? p->inner->passes : 1) + 3;
    snprintf(p->description, sizeof p->description,
             "Bluestein: 2 transforms of %lld (%.80s) and 3 products", p->m,
             p->inner ? p->inner->description : "-");
    p->run = run_bluestein;
    return true;
}

// v5, v6 and v7: passes for smooth n (v7: prime factors up to 47, where its passes can be
// planned), Bluestein's algorithm (on the same version's transforms) for the others.
static bool plan_any_length(planner &pl, int n, size_t batch, bool in_place, pass_kernels kernels,
                            plan_builder self, char *why, size_t len)
{
    const bool direct = kernels == V7_KERNELS ? fft_largest_prime_factor(n) <= FFT_STAGED_MAX_PRIME
                                              : fft_is_smooth(n);
    if (direct) {
        if (plan_multipass(pl, n, batch, in_place, kernels))
            return true;
        if (fft_is_smooth(n))
            return skip(why, len, "n = %d: no split in passes fits", n);
    }
    if (plan_bluestein(pl, n, batch, self, kernels))
        return true;
    return skip(why, len, "n = %d: Bluestein's transforms would be too long", n);
}

static bool plan_v5(planner &pl, int n, size_t batch, bool in_place, char *why, size_t len)
{
    return plan_any_length(pl, n, batch, in_place, V5_KERNELS, plan_v5, why, len);
}

static bool plan_v6(planner &pl, int n, size_t batch, bool in_place, char *why, size_t len)
{
    if (!plan_any_length(pl, n, batch, in_place, V6_KERNELS, plan_v6, why, len))
        return false;
    fft_plan *p = pl.plan;
    if (p->npasses == 1 && p->pass[0].fixed)
        fixed_pass_describe(p->description, sizeof p->description, p->pass[0]);
    return true;
}

// --- v7: any length from the codelets ---------------------------------------------------------

// v7: the planner composes each pass from stages of radix 2 .. 16 and the large radices 17
// .. 31 (the primes and the coprime products) or the huge primes 37 .. 47 (staged.cu's
// kernels, the radix a switch a stage), so every length whose prime factors are at most 47
// runs one code, whatever the length: one pass while the block fits in shared memory (two buffers
// to m = 14,528, then one, the stages in place, to ~27,200), else passes of up to 2048 over
// columns. Powers of two from 32 run v6's kernels compiled for them. Other lengths: Bluestein's
// algorithm, v6's one kernel for m a power of two up to 8192 where a trial times it faster, else on
// the smooth m (factors 2, 3, 5, 7), all in one staged kernel while m fits a block, else
// its products fused into the staged passes.
static void run_bluestein_staged(const fft_plan *p, const fft_args *a, cudaStream_t stream)
{
    pass_desc d = p->pass[0];
    d.conj_in = d.conj_out = a->inverse;
    staged_bluestein_launch(d, (const float2 *)a->in, (float2 *)a->out, stream);
}

static bool plan_v7(planner &pl, int n, size_t batch, bool in_place, char *why, size_t len)
{
    if (!plan_any_length(pl, n, batch, in_place, V7_KERNELS, plan_v7, why, len))
        return false;
    fft_plan *p = pl.plan;
    const pass_desc &d = p->pass[0];
    if (p->npasses == 1 && d.staged) {
        char radix[96];
        describe_pass(radix, sizeof radix, d);
        snprintf(p->description, sizeof p->description,
                 "1 pass (radix %s), %d transform%s a block%s", radix, d.columns_per_block,
                 d.columns_per_block > 1 ? "s" : "", d.in_place ? ", in place" : "");
    } else if (p->npasses == 1 && d.fixed)
        fixed_pass_describe(p->description, sizeof p->description, p->pass[0]);
    return true;
}

// --- plans: make, run, destroy --------------------------------------------------------------

static bool plan_direct(planner &pl, int n, size_t, bool in_place, char *why, size_t len)
{
    if (!direct_fits(n, in_place, why, len))
        return false;
    pl.plan->passes = 1;
    snprintf(pl.plan->description, sizeof pl.plan->description, "n^2 = %.3g terms a transform",
             (double)n * n);
    pl.plan->run = run_v1;
    return true;
}

static bool yours_fits(int n, bool in_place, char *why, size_t len)
{
    if (n > fft_yours_max_n) {
        snprintf(why, len, "n = %d is above fft_yours_max_n in yours.cu (%d)", n, fft_yours_max_n);
        return false;
    }
    if (in_place)
        return skip(why, len,
                    "yours reads every input for every output (n = %d): out of place only", n);
    return true;
}

static bool plan_yours(planner &pl, int n, size_t, bool in_place, char *why, size_t len)
{
    if (!yours_fits(n, in_place, why, len))
        return false;
    pl.plan->passes = 1;
    snprintf(pl.plan->description, sizeof pl.plan->description, "yours.cu");
    pl.plan->run = run_yours;
    return true;
}

static fft_plan *make_plan(bool (*build)(planner &, int, size_t, bool, char *, size_t), int n,
                           size_t batch, bool in_place, bool dry, size_t *bytes, char *why,
                           size_t len, int bluestein_power)
{
    fft_plan *p = new fft_plan();
    p->n = n;
    p->batch = batch;
    p->in_place = in_place;
    planner pl = {dry, 0, p, bluestein_power};
    const bool ok = build(pl, n, batch, in_place, why, len);
    if (bytes)
        *bytes = pl.bytes;
    if (!ok || dry) {
        fft_plan_destroy(p);
        return NULL;
    }
    return p;
}

extern "C" void fft_plan_destroy(fft_plan *p)
{
    if (!p)
        return;
    for (void *ptr : p->owned)
        CL_CUDA_CHECK(cudaFree(ptr));
    fft_plan_destroy(p->inner);
    delete p;
}

extern "C" void fft_run(const fft_plan *plan, const fft_args *args, cudaStream_t stream)
{
    plan->run(plan, args, stream);
}

extern "C" const char *fft_plan_describe(const fft_plan *plan) { return plan->description; }
extern "C" int fft_plan_passes(const fft_plan *plan) { return plan->passes; }

#define VERSION_PLAN(name, build)                                                                  \
    static fft_plan *name(int n, size_t batch, bool in_place, char *why, size_t len)               \
    {                                                                                              \
        return make_plan(build, n, batch, in_place, false, NULL, why, len);                        \
    }                                                                                              \
    static size_t name##_bytes(int n, size_t batch, bool in_place)                                 \
    {                                                                                              \
        size_t bytes = 0;                                                                          \
        char why[160];                                                                             \
        make_plan(build, n, batch, in_place, true, &bytes, why, sizeof why);                       \
        return bytes;                                                                              \
    }
VERSION_PLAN(v1_plan, plan_direct)
VERSION_PLAN(v2_plan, plan_v2)
VERSION_PLAN(v3_plan, plan_v3)
VERSION_PLAN(v4_plan, plan_v4)
VERSION_PLAN(v5_plan, plan_v5)
VERSION_PLAN(v6_plan, plan_v6)

// v7's plan. Where Bluestein's algorithm has two one-kernel plans (n to 4096: v6's kernel
// on the power of two, or the staged kernel on the smooth m), which is faster depends on
// the length, not only on how much longer the power of two is (37: 1.15x cuFFT on 128
// points, 1.97x on 75; 1025: 1.99x on 4096, 2.66x on 2058 = 2 3 7^3). So the plan times
// both on a trial batch (the run's batch up to about 2^22 points: 32 MB a buffer, so the
// input and output pass the L2 cache as a long batch's do; at 2^20 points, held in L2,
// 281, 282, 283, 565 and 566 picked the kernel that is 5% slower on 2^24 points; a
// warm-up and the best of five runs each) and keeps the faster, as FFTW's planner
// measures; a dry plan (its bytes) takes the 1.7 m rule. A few ms of planning, none of it
// timed as the transform.
struct trial {
    const fft_plan *plan;
    fft_args args;
};
static void trial_run(void *ctx, int)
{
    const trial *t = (const trial *)ctx;
    t->plan->run(t->plan, &t->args, 0);
}
// The plan with Bluestein's choice bluestein_power, timed out of place from buf[0] to
// buf[1] (batch transforms each).
static double trial_ms(int n, size_t batch, int bluestein_power, float2 *const buf[2])
{
    char why[160];
    fft_plan *plan =
        make_plan(plan_v7, n, batch, false, false, NULL, why, sizeof why, bluestein_power);
    if (!plan)
        return INFINITY;
    trial t = {plan, {n, batch, false, buf[0], buf[1]}};
    const double best = cl_time_gpu(trial_run, &t, 5).min_ms; // a warm-up, then five
    fft_plan_destroy(plan);
    return best;
}

static fft_plan *v7_plan(int n, size_t batch, bool in_place, char *why, size_t len)
{
    const long long power = bluestein_power_of_two(n);
    const bool choice = fft_largest_prime_factor(n) > FFT_STAGED_MAX_PRIME &&
                        power != fft_bluestein_length(n) && fixed_bluestein_plan(power, true);
    int bluestein_power = -1;
    if (choice) { // both plans timed on the same two buffers
        const size_t most = ((size_t)1 << 22) / (size_t)n, trial_batch = most < 1 ? 1 : most;
        const size_t count = trial_batch < batch ? trial_batch : batch;
        const size_t bytes = points(n, count) * sizeof(float2);
        float2 *buf[2];
        for (float2 *&b : buf) {
            cl_require_device_memory(bytes, 0);
            CL_CUDA_CHECK(cudaMalloc(&b, bytes));
            CL_CUDA_CHECK(cudaMemset(b, 0, bytes));
        }
        bluestein_power = trial_ms(n, count, 1, buf) <= trial_ms(n, count, 0, buf) ? 1 : 0;
        for (float2 *b : buf)
            CL_CUDA_CHECK(cudaFree(b));
    }
    return make_plan(plan_v7, n, batch, in_place, false, NULL, why, len, bluestein_power);
}
static size_t v7_plan_bytes(int n, size_t batch, bool in_place)
{
    size_t bytes = 0;
    char why[160];
    make_plan(plan_v7, n, batch, in_place, true, &bytes, why, sizeof why);
    return bytes;
}
VERSION_PLAN(yours_plan, plan_yours)

extern "C" const fft_version fft_versions[] = {
    {{"v1-direct", "the definition: a thread an output, n^2 terms (n <= 4096)"},
     v1_plan,
     v1_plan_bytes},
    {{"v2-radix2", "Cooley-Tukey radix 2 (3, 5, 7), one launch a stage through global memory"},
     v2_plan,
     v2_plan_bytes},
    {{"v3-shared", "Stockham stages in shared memory, a block a transform: one pass"},
     v3_plan,
     v3_plan_bytes},
    {{"v4-registers",
      "radix-8 butterflies in registers, twiddle table, several transforms a block"},
     v4_plan,
     v4_plan_bytes},
    {{"v5-passes", "long n in 2-3 passes (four-step), Bluestein for other primes: any n"},
     v5_plan,
     v5_plan_bytes},
    {{"v6-fixed", "v5 with each pass compiled for its length (powers of two): no index math"},
     v6_plan,
     v6_plan_bytes},
    {{"v7-any", "passes built from stages of radix 2..16 (any length of factors up to 47), v6's "
                "kernels for powers of two, Bluestein in one kernel"},
     v7_plan,
     v7_plan_bytes},
    {{"yours", fft_yours_idea}, yours_plan, yours_plan_bytes},
};

extern "C" bool fft_version_fits(int k, int n, bool in_place, char *why, size_t len)
{
    if (fft_versions[k].plan == v1_plan)
        return direct_fits(n, in_place, why, len);
    if (fft_versions[k].plan == yours_plan)
        return yours_fits(n, in_place, why, len);
    return true;
}
extern "C" const int fft_version_count = sizeof fft_versions / sizeof fft_versions[0];
extern "C" const char fft_fastest_version[] = "v7-any";

// fft v7's pass kernel: one kernel for a pass of any length m whose prime factors are at
// most 13, built from the codelets (codelets.cuh) a stage at a time, so a length no table
// names runs the same code as its neighbours with the same factors. The planner (fft.cu)
// factors m into stages of radix 16, 8, 4, 2 (the twos; a 2 and a 5 make a 10), 13, 11, 9,
// 7, 5, 3; the kernel runs them in turn, each stage's radix a switch the block takes
// together.
//
// A block holds C columns of m points in shared memory, in two buffers. It copies them in
// (coalesced: whole transforms are C m neighbouring points; columns of a longer transform
// runs of C neighbours), runs the stages, each reading one buffer and writing the other (a
// Stockham stage: no bit reversal; one __syncthreads a stage), and copies them out. A
// butterfly of radix R at a stage whose earlier radices multiply to ns: j < m / R reads
// points j + q m/R, twiddles them by w_{ns R}^{q (j mod ns)} (from the table of m-th
// roots), transforms them (dft<R>) and writes them to (j - j mod ns) R + j mod ns + q ns.
// Point p of column c lies at p pitch + c: a warp's lanes take C neighbouring columns at
// one point, so every stage's reads and writes are neighbouring words, free of bank
// conflicts. Whole transforms: C = 2048 / m rounded (one from m = 3072 on), the pitch odd
// (C or C + 1), so the copy's lanes (neighbouring points of one transform, pitch words
// apart) miss each other's banks too. Columns: C = 16 (8 from m = 512, 4 from 1024), pitch
// C + 1.
// Napkin math (H200, 4.2 TB/s copy rate; 2^24 points a pass): 268 MB, 64 us, a budget of
// ~125 instructions a point at that rate (132 SMs x 4 issue a clock x 1.98 GHz over 4.2
// points a ns) if every issue slot is used. A stage costs a point its share of one index
// division (j mod ns), the twiddle's table read and product, the butterfly and a shared
// read and write; the copies a division, an address, a load and a store a point each way.
// Measured (ncu, n = 60 = 4 5 3): ~176 instructions a point and 27% of DRAM's rate, so
// the kernel is bound by its instructions and shared memory's latency, 2-3x cuFFT (the
// README's sweep).
#include <stdio.h>

#include "check.h"
#include "device.h"
#include "launch.h"
#include "passes.cuh"

enum { STAGED_THREADS = 256, STAGED_WHOLE_POINTS = 2048 };

// 1 / d for div_mod, from the special-function unit (2 ulp): div_mod's correction absorbs
// the error for the indices here (below 2^17). An IEEE division would take ~20
// instructions, several a stage a thread.
__device__ __forceinline__ float rcp(int d) { return __fdividef(1.0f, (float)d); }

// A block's columns in shared memory: point p of column c at p pitch + c; and the
// butterflies a thread takes at every stage, without a division: with C <= blockDim
// columns, thread t keeps column t mod C and takes butterflies j = t / C + k rows (rows =
// blockDim / C; the rows C threads left over idle); with more columns, columns t + k
// blockDim, every butterfly of each.
struct staged_layout {
    int C, pitch, m;
    int c0, c_step, j0, j_step;
    __device__ void take_turns()
    {
        const int t = (int)threadIdx.x, threads = (int)blockDim.x;
        if (C <= threads) {
            const int rows = threads / C;
            c0 = t % C;
            c_step = C;
            j0 = t < rows * C ? t / C : 1 << 30;
            j_step = rows;
        } else {
            c0 = t;
            c_step = threads;
            j0 = 0;
            j_step = 1;
        }
    }
};

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

// The m-point transforms of the block's columns, which the caller copied into `in` (and
// synced); each stage reads one buffer and writes the other. Returns the buffer that holds
// the result, synced.
__device__ __forceinline__ float2 *staged_stages(const pass_desc &d, const staged_layout &L,
                                                 float2 *in, float2 *other)
{
    // The radices as radix - 1 in 4 bits a stage, read from the parameters at constant
    // indices (a run-time index into d.radix would copy d to local memory).
    unsigned long long code = 0;
#pragma unroll
    for (int s = 0; s < MAX_PASS_STAGES; s++)
        code |= (unsigned long long)((d.radix[s] - 1) & 15) << (4 * s);
    const float2 *roots = d.roots;
    int ns = 1;
    for (int s = 0; s < d.stages; s++) {
        const int radix = (int)(code >> (4 * s) & 15) + 1;
        switch (radix) {
#define STAGE(R)                                                                                   \
    case R:                                                                                        \
        staged_stage<R>(in, other, L, ns, roots);                                                  \
        break;
            STAGE(2)
            STAGE(3)
            STAGE(4)
            STAGE(5)
            STAGE(7)
            STAGE(8)
            STAGE(9)
            STAGE(10)
            STAGE(11)
            STAGE(13)
            STAGE(16)
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

// A pass of whole transforms (m = n), C of them a block: point p of transform c of the
// block is point c m + p of its run in global memory.
__global__ void __launch_bounds__(STAGED_THREADS, 4)
    staged_whole_kernel(const float2 *in, float2 *out, const pass_desc d)
{
    extern __shared__ float2 sm[];
    unsigned first;
    const int columns = block_columns(d, first);
    const unsigned sign_in = sign_mask(d.conj_in), sign_out = sign_mask(d.conj_out);
    if (d.stages == 1) {
        switch (d.m) {
#define SINGLE(R)                                                                                  \
    case R:                                                                                        \
        staged_single<R>(in, out, first, columns, sign_in, sign_out);                              \
        return;
            SINGLE(2)
            SINGLE(3)
            SINGLE(4)
            SINGLE(5)
            SINGLE(7)
            SINGLE(8)
            SINGLE(9)
            SINGLE(10)
            SINGLE(11)
            SINGLE(13)
            SINGLE(16)
#undef SINGLE
        }
    }
    staged_layout L = {d.columns_per_block, d.pitch, d.m};
    L.take_turns();
    const int points = columns * L.m;
    const float inv_m = rcp(L.m);
    float2 *const buffer1 = sm + L.pitch * L.m;
    const float2 *src = in + (size_t)first * L.m;
    for (int i = threadIdx.x; i < L.C * L.m; i += blockDim.x) { // zeros past the last column
        int p;
        const int c = div_mod(i, L.m, inv_m, p);
        buffer1[p * L.pitch + c] =
            i < points ? flip_imag(src[i], sign_in) : make_float2(0.0f, 0.0f);
    }
    __syncthreads();
    const float2 *result = staged_stages(d, L, buffer1, sm);
    float2 *dst = out + (size_t)first * L.m;
    for (int i = threadIdx.x; i < points; i += blockDim.x) {
        int p;
        const int c = div_mod(i, L.m, inv_m, p);
        dst[i] = flip_imag(result[p * L.pitch + c], sign_out);
    }
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
// transforms a block, as staged_whole_kernel): x_p c_p copied in (zero past n), the
// forward transform, the product with the chirp's spectrum S (scaled by 1/m) and the
// conjugate, the forward transform again (conj(forward(conj)) is the inverse),
// conj(y_p) c_p copied out for p < n. Each point crosses DRAM once, 8 bytes in and 8 out,
// where the unfused form moves it five times.
__global__ void __launch_bounds__(STAGED_THREADS, 4)
    staged_bluestein_kernel(const float2 *x, float2 *y, const pass_desc d)
{
    extern __shared__ float2 sm[];
    staged_layout L = {d.columns_per_block, d.pitch, d.m};
    L.take_turns();
    const int n = d.pad_n, m = d.m;
    unsigned first;
    const int columns = block_columns(d, first);
    const unsigned sign_in = sign_mask(d.conj_in), sign_out = sign_mask(d.conj_out);
    const float inv_m = 1.0f / (float)m, inv_n = rcp(n);
    float2 *const buffer1 = sm + L.pitch * m;
    const float2 *src = x + (size_t)first * n;
    for (int i = threadIdx.x; i < L.C * m; i += blockDim.x) {
        int p;
        const int c = div_mod(i, m, inv_m, p);
        buffer1[p * L.pitch + c] = c < columns && p < n
                                       ? chirp_in(src[c * n + p], sign_in, d.chirp, p)
                                       : make_float2(0.0f, 0.0f);
    }
    __syncthreads();
    float2 *product = staged_stages(d, L, buffer1, sm);
    for (int i = threadIdx.x; i < L.C * m; i += blockDim.x) {
        int c;
        const int p = div_mod(i, L.C, rcp(L.C), c);
        product[p * L.pitch + c] = filter_out(product[p * L.pitch + c], d.spectrum, p, inv_m);
    }
    __syncthreads();
    const float2 *result = staged_stages(d, L, product, product == sm ? buffer1 : sm);
    float2 *dst = y + (size_t)first * n;
    for (int i = threadIdx.x; i < columns * n; i += blockDim.x) {
        int p;
        const int c = div_mod(i, n, inv_n, p);
        const float2 v = result[p * L.pitch + c];
        dst[i] = chirp_out(v, d.chirp, p, sign_out);
    }
}

// --- the plan ------------------------------------------------------------------------------

// m's stages: radix 16 while 16 divides what is left, then 8, 4, 2 (a 2 and a 5 make a 10);
// then 13, 11, 9, 7, 5, 3. 0 when m has a prime factor above 13 (or m < 2).
static int staged_radices(int m, unsigned char *radix)
{
    int count = 0, twos = 0;
    if (m < 2)
        return 0;
    while (m % 2 == 0) {
        m /= 2;
        twos++;
    }
    for (; twos >= 4; twos -= 4)
        radix[count++] = 16;
    if (twos == 1 && m % 5 == 0) {
        radix[count++] = 10;
        m /= 5;
        twos = 0;
    }
    if (twos > 0)
        radix[count++] = (unsigned char)(1 << twos);
    const int odd[] = {13, 11, 9, 7, 5, 3};
    for (int i = 0; i < 6; i++)
        while (m % odd[i] == 0) {
            m /= odd[i];
            radix[count++] = (unsigned char)odd[i];
        }
    return m == 1 && count <= MAX_PASS_STAGES ? count : 0;
}

// Fills in d's stages and block shape for the staged kernel (d.n, m, ns, stride, columns
// and contiguous set); false when m has a prime factor above 13 or a block's two buffers
// do not fit in shared memory. dry: no device calls.
bool staged_pass_plan(pass_desc &d, bool dry)
{
    d.stages = staged_radices(d.m, d.radix);
    if (d.stages == 0)
        return false;
    int C, pitch;
    if (d.contiguous) {
        C = (STAGED_WHOLE_POINTS + d.m / 2) / d.m;
        C = C < 1 ? 1 : C;
        pitch = C | 1; // odd: the copies' lanes, pitch words apart, in distinct banks
    } else {
        C = d.m < 512 ? 16 : d.m < 1024 ? 8 : 4;
        pitch = C + 1;
    }
    d.columns_per_block = C;
    d.threads_per_column = 0;
    d.pitch = pitch;
    d.smem_bytes = (int)(2 * (size_t)pitch * d.m * sizeof(float2));
    if ((size_t)d.smem_bytes > cl_device_current()->shared_optin_bytes)
        return false;
    d.staged = true;
    if (!dry) // raises the kernel's shared-memory allowance on this device
        cl_kernel_fit_for(d.contiguous ? (const void *)staged_whole_kernel
                                       : (const void *)staged_columns_kernel,
                          STAGED_THREADS, (size_t)d.smem_bytes);
    return true;
}

static unsigned staged_blocks(const pass_desc &d)
{
    return (unsigned)((d.columns + (unsigned)d.columns_per_block - 1) / d.columns_per_block);
}

void staged_pass_launch(const pass_desc &d, const float2 *in, float2 *out, cudaStream_t stream)
{
    if (d.contiguous)
        staged_whole_kernel<<<staged_blocks(d), STAGED_THREADS, d.smem_bytes, stream>>>(in, out, d);
    else
        staged_columns_kernel<<<staged_blocks(d), STAGED_THREADS, d.smem_bytes, stream>>>(in, out,
                                                                                          d);
    CL_LAUNCH_CHECK();
}

// Bluestein in one kernel: d.m the inner length, d.pad_n = n, d.columns the batch.
bool staged_bluestein_plan(pass_desc &d, bool dry)
{
    d.contiguous = true;
    if (!staged_pass_plan(d, true))
        return false;
    if (!dry)
        cl_kernel_fit_for((const void *)staged_bluestein_kernel, STAGED_THREADS,
                          (size_t)d.smem_bytes);
    return true;
}

void staged_bluestein_launch(const pass_desc &d, const float2 *x, float2 *y, cudaStream_t stream)
{
    staged_bluestein_kernel<<<staged_blocks(d), STAGED_THREADS, d.smem_bytes, stream>>>(x, y, d);
    CL_LAUNCH_CHECK();
}

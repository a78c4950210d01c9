// fft's passes: what a pass kernel is told (pass_desc), shared by the planner (fft.cu)
// and the pass kernels (fft.cu's v4 and v5, fixed.cu's v6, staged.cu's v7).
#ifndef FFT_PASSES_CUH
#define FFT_PASSES_CUH

#include "codelets.cuh"
#include "fft.h"

enum { MAX_STAGES = 32, MAX_PASSES = 4, MAX_PASS_STAGES = 16 };

// A stage of v7's staged kernels, its constants made by the plan (staged_stage_plan), where
// the kernel computed three reciprocals and a buffer's layout a stage: ns, the radices
// before it; step = m / (ns R); 1 / (m / R) and 1 / ns for div_mod; a whole-transform
// buffer's layout before it (in) and after it (out): point x of transform c at c pitch + x
// + pad (x / G), G the radices before the buffer's reader (fft_staged_layout).
struct staged_stage_consts {
    int ns, step;
    float inv_count, inv_ns;
    int in_pad, in_pitch, out_pad, out_pitch;
};

// One pass of v4..v7 (see fft.cu's pass_kernel): m-point transforms of `columns` columns, each
// column's points `stride` apart. Filled in by plan_pass; conj_in/out set at run time.
struct pass_desc {
    int n, m, ns;     // transform length, this pass's length, the earlier passes' product
    int stride;       // n / m
    unsigned columns; // batch n / m <= 2^31
    int columns_per_block, threads_per_column, butterflies;
    int block_threads; // v7's staged kernels: threads a block
    int stages;
    unsigned char radix[MAX_PASS_STAGES]; // stage s's radix
    unsigned long long radix_code;        // v7: radix - 1 in 5 bits a stage (staged.cu)
    int pitch; // shared memory: v5's contiguous layout, a column's stride (padded); v7's,
               // a point's (its columns side by side), or a whole transform buffer's slots
    staged_stage_consts stage[MAX_PASS_STAGES]; // v7: each stage's constants (staged.cu)
    bool contiguous;                            // m == n: a column is a whole transform
    bool staged_store;      // v5's first of several passes: its output goes out through shared
                            // memory (v6's kernels know it when compiled: fixed_shape::STAGED)
    bool fixed;             // v6: run by the kernel compiled for m (fixed_pass_kernel)
    bool staged;            // v7: run by the staged kernels (staged.cu), any m of radices to 47
    bool copy_in, copy_out; // v7's whole transforms: the block copies its points in (out)
                            // through shared memory, where the first (last) stage's runs
                            // in global memory would be short
    bool in_place;          // v7's whole transforms past two buffers' room: one buffer,
                            // each stage in place (staged.cu's inplace_stage)
    int smem_bytes;
    const float2 *roots;                   // w_m^t = e^{-2 pi i t / m}, t < m
    const float2 *twiddle_hi, *twiddle_lo; // w_{ns m}^e = hi[e >> shift] lo[e & mask]
    int twiddle_shift;
    bool conj_in, conj_out;
    // Bluestein's products fused into the passes of its inner transforms (v7's staged
    // column passes; 0 otherwise): the first pass loads x_i c_i
    // for the transform's points i < pad_n (x: pad_n points a transform), zeros past them; the
    // last pass stores conj(y_i S_i / m) (the spectrum's product, before the second
    // transform) or conj(y_i) c_i for i < pad_n (the last product, pad_n points a transform).
    unsigned char fuse_in, fuse_out; // FUSE_*
    int pad_n;
    const float2 *chirp, *spectrum;
};
// FUSE_CHIRP: a product with the chirp c; FUSE_FILTER: with S, the spectrum of the
// convolution's filter (the wrapped conj(c)); FUSE_TURN (fuse_out of v7's column pass): the
// product with S between the last pass of the first transform and the first of the second,
// both over the same columns, in one kernel (staged_columns_kernel).
enum { FUSE_NONE, FUSE_CHIRP, FUSE_FILTER, FUSE_TURN };

// A pass kernel's thread: its column and its place in it (see fft.cu's pass_kernel).
struct pass_thread {
    int c, t;   // the column in the block, the thread in the column
    bool valid; // the column exists (the last block may be short)
    unsigned b; // the transform
    int j;      // the column in the transform
    int jm;     // j mod ns
};

// The twiddle between passes, w_{ns m}^e, from two tables (see plan_pass).
__device__ inline float2 pass_twiddle(const pass_desc &d, int e)
{
    return cmul(__ldg(&d.twiddle_hi[e >> d.twiddle_shift]),
                __ldg(&d.twiddle_lo[e & ((1 << d.twiddle_shift) - 1)]));
}

// Bluestein's three products, as every kernel that fuses them takes them (v6's one kernel
// and v7's):
// x_i c_i on the way in (conjugated first for an inverse); conj(y_i S_i) scaled, on the
// way out of the first transform (the second is a forward one of the conjugate: the
// inverse); conj(y_i) c_i out of the second (conjugated for an inverse).
__device__ inline float2 chirp_in(float2 x, unsigned sign_in, const float2 *chirp, int i)
{
    return cmul(flip_imag(x, sign_in), __ldg(&chirp[i]));
}
__device__ inline float2 filter_out(float2 y, const float2 *spectrum, int i, float scale)
{
    const float2 p = cmul(y, __ldg(&spectrum[i]));
    return make_float2(p.x * scale, -p.y * scale);
}
__device__ inline float2 chirp_out(float2 y, const float2 *chirp, int i, unsigned sign_out)
{
    return flip_imag(cmul(make_float2(y.x, -y.y), __ldg(&chirp[i])), sign_out);
}

// Which versions' pass kernels a plan may use: v5's (the radix a run-time switch), v6's
// compiled for the pass's length where there is one (else v5's), v7's: v6's for powers
// of two, the staged kernels for any other length of radices up to 47.
enum pass_kernels { V5_KERNELS, V6_KERNELS, V7_KERNELS };

inline bool is_power_of_two(long long m) { return m > 0 && (m & (m - 1)) == 0; }

// staged.cu: v7's kernel. staged_pass_plan fills in d's stages and block shape (d's n, m,
// ns, stride, columns and contiguous set), false when m has no stages (a prime above 47) or the
// block does not fit; dry makes no device calls. staged_bluestein_*: Bluestein's algorithm
// in one kernel on m-point transforms (d.m = m, d.pad_n = n, d.columns = the batch,
// d.roots, d.chirp, d.spectrum).
bool staged_pass_plan(pass_desc &d, bool dry);
void staged_pass_launch(const pass_desc &d, const float2 *in, float2 *out, cudaStream_t stream);
bool staged_bluestein_plan(pass_desc &d, bool dry);
void staged_bluestein_launch(const pass_desc &d, const float2 *x, float2 *y, cudaStream_t stream);

// fixed.cu: v6's kernels, compiled for their length (a power of two). fixed_pass_plan
// switches d (planned for v5's kernel) to the one for its m where there is one (dry: no
// device calls); fixed_pass_describe: a one-pass plan's radices and shape. fixed_bluestein_*:
// Bluestein's algorithm in one kernel on m, a power of two up to 8192.
bool fixed_pass_plan(pass_desc &d, bool dry);
void fixed_pass_launch(const pass_desc &d, const float2 *in, float2 *out, cudaStream_t stream);
void fixed_pass_describe(char *out, size_t len, const pass_desc &d);
struct fixed_bluestein_args {
    long long m;
    const float2 *x;
    float2 *y;
    int n;
    size_t batch;
    const float2 *chirp, *spectrum, *roots;
    bool inverse;
};
bool fixed_bluestein_plan(long long m, bool dry);
void fixed_bluestein_launch(const fixed_bluestein_args &a, cudaStream_t stream);

#endif

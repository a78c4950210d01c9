// matmul's reference: C in double on the GPU, every element with its allowed error, and the
// element-by-element compare every version's result (and cuBLAS's) faces at every size.
//
// Why on the GPU: the CPU gold (gold.c) takes minutes past ~1300^3, and Freivalds' check,
// which takes any size, sums a row's n errors, so its allowance grows with sqrt(n): at
// 8192^3 one element off by one dropped product passed it. Here each element is judged
// alone, with the spread of its own rounding (matmul.h's model, one formula for both sides).
//
// Napkin math (H200, 8192^3): 5.5e11 products, each a multiply and two adds in double; the
// 16 x 16 tile loads a double of A (a broadcast) and of B a product from shared memory,
// ~3 wavefronts for a warp's 32 products: ~10 products a clock an SM, ~0.2 s. The
// compare reads 20 bytes an element (0.4 GB at 8192^2): ~0.2 ms.
#include <climits>
#include <cstring>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "block_reduce.cuh"
#include "check.h"
#include "launch.h"
#include "matmul.h"

enum { REFERENCE_TILE = 16 };

__device__ __forceinline__ double to_double(float x) { return x; }
__device__ __forceinline__ double to_double(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ double to_double(__half x) { return __half2float(x); }

// One element of C a thread, 16 x 16 a block: both 16 x 16 slabs of A and B staged in
// shared memory as doubles, then 16 products of each thread's row and column. The sum
// and the sum of squares in double: a product of two floats is exact in double, and a
// sum of k of them errs by ~k 2^-53 of the largest, ~1e-9 of an element's allowance at
// k = 2^31. Rows of tiles loop past grid.y's 65535 (m up to 2^31 - 1).
template <typename T>
__global__ void reference_kernel(matmul_args p, matmul_roundoff r, matmul_reference ref)
{
    __shared__ double a_tile[REFERENCE_TILE][REFERENCE_TILE];
    __shared__ double b_tile[REFERENCE_TILE][REFERENCE_TILE];
    const T *a = (const T *)p.a, *b = (const T *)p.b;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const size_t j = (size_t)blockIdx.x * REFERENCE_TILE + tx;
    const size_t row_tiles = ((size_t)p.m + REFERENCE_TILE - 1) / REFERENCE_TILE;
    for (size_t tile = blockIdx.y; tile < row_tiles; tile += gridDim.y) {
        const size_t i = tile * REFERENCE_TILE + ty;
        double sum = 0.0, squares = 0.0, drift = 0.0;
        for (int l0 = 0; l0 < p.k; l0 += REFERENCE_TILE) {
            a_tile[ty][tx] =
                i < (size_t)p.m && l0 + tx < p.k ? to_double(a[i * p.k + l0 + tx]) : 0.0;
            b_tile[ty][tx] =
                l0 + ty < p.k && j < (size_t)p.n ? to_double(b[(size_t)(l0 + ty) * p.n + j]) : 0.0;
            __syncthreads();
            for (int t = 0; t < REFERENCE_TILE; t++) {
                const double product = a_tile[ty][t] * b_tile[t][tx];
                sum += product;
                squares = fma(product, product, squares);
                if (r.accumulate_bias != 0.0 && l0 + t < p.k && matmul_block_ends(l0 + t, p.k))
                    drift += fabs(sum);
            }
            __syncthreads();
        }
        if (i < (size_t)p.m && j < (size_t)p.n) {
            const size_t at = i * p.n + j;
            const double old = p.beta != 0.0f ? (double)p.beta * p.c[at] : 0.0;
            ref.want[at] = p.alpha * sum + old;
            ref.spread[at] = (float)(matmul_allowed_spread(r, p.k, p.alpha, squares, old) +
                                     matmul_allowed_drift(r, p.alpha, drift));
            ref.magnitude[at] = (float)fabs(p.alpha * sum);
        }
    }
}

extern "C" size_t matmul_reference_bytes(size_t m, size_t n)
{
    return m * n * (sizeof(double) + 2 * sizeof(float));
}

extern "C" matmul_reference matmul_reference_compute(const matmul_args *p, matmul_roundoff r)
{
    matmul_reference ref = {NULL, NULL, NULL, (size_t)p->m * p->n};
    CL_CUDA_CHECK(cudaMalloc(&ref.want, ref.count * sizeof(double)));
    CL_CUDA_CHECK(cudaMalloc(&ref.spread, ref.count * sizeof(float)));
    CL_CUDA_CHECK(cudaMalloc(&ref.magnitude, ref.count * sizeof(float)));
    const dim3 block(REFERENCE_TILE, REFERENCE_TILE);
    const size_t row_tiles = ((size_t)p->m + REFERENCE_TILE - 1) / REFERENCE_TILE;
    const dim3 grid((p->n + REFERENCE_TILE - 1) / REFERENCE_TILE,
                    (unsigned)(row_tiles < 65535 ? row_tiles : 65535));
    switch (p->precision) {
    case MATMUL_BF16:
        reference_kernel<__nv_bfloat16><<<grid, block>>>(*p, r, ref);
        break;
    case MATMUL_FP16:
        reference_kernel<__half><<<grid, block>>>(*p, r, ref);
        break;
    default: // fp32, tf32: the floats themselves (tf32's rounding is in the allowance)
        reference_kernel<float><<<grid, block>>>(*p, r, ref);
    }
    CL_LAUNCH_CHECK();
    return ref;
}

extern "C" void matmul_reference_free(matmul_reference *ref)
{
    CL_CUDA_CHECK(cudaFree(ref->want));
    CL_CUDA_CHECK(cudaFree(ref->spread));
    CL_CUDA_CHECK(cudaFree(ref->magnitude));
    *ref = matmul_reference{NULL, NULL, NULL, 0};
}

// What the compare gathers: counts and the first wrong index by atomics, the maxima as the
// bits of non-negative floats (whose order as unsigned integers is their order as floats;
// NaN is stored as infinity).
struct compare_tally {
    unsigned long long bad, first_bad;
    unsigned max_abs_err, max_rel_err, max_err_over_tol;
};

__device__ __forceinline__ unsigned order_bits(double x)
{
    return __float_as_uint(isnan(x) ? INFINITY : (float)x);
}

__device__ __forceinline__ unsigned warp_max(unsigned x)
{
    for (int offset = 16; offset > 0; offset /= 2)
        x = max(x, __shfl_down_sync(0xFFFFFFFFu, x, offset));
    return x;
}

__device__ __forceinline__ unsigned long long warp_min(unsigned long long x)
{
    for (int offset = 16; offset > 0; offset /= 2)
        x = min(x, __shfl_down_sync(0xFFFFFFFFu, x, offset));
    return x;
}

// A grid-stride pass over C: each thread keeps its own tally, a warp combines its lanes',
// lane 0 adds them to the global one.
__global__ void compare_kernel(matmul_reference ref, const float *c, double bias_factor,
                               compare_tally *tally)
{
    unsigned long long bad = 0, first_bad = ULLONG_MAX;
    unsigned abs_bits = 0, rel_bits = 0, ratio_bits = 0;
    for (size_t at = (size_t)blockIdx.x * blockDim.x + threadIdx.x; at < ref.count;
         at += (size_t)gridDim.x * blockDim.x) {
        const double want = ref.want[at], err = fabs((double)c[at] - want);
        const double allowed = ref.spread[at] + bias_factor * ref.magnitude[at];
        if (!(err <= allowed)) {
            bad++;
            first_bad = min(first_bad, (unsigned long long)at);
        }
        const double ratio = err == 0.0 ? 0.0 : allowed > 0.0 ? err / allowed : INFINITY;
        abs_bits = max(abs_bits, order_bits(err));
        if (want != 0.0)
            rel_bits = max(rel_bits, order_bits(err / fabs(want)));
        ratio_bits = max(ratio_bits, order_bits(ratio));
    }
    bad = warp_reduce_sum(bad);
    first_bad = warp_min(first_bad);
    abs_bits = warp_max(abs_bits), rel_bits = warp_max(rel_bits), ratio_bits = warp_max(ratio_bits);
    if (threadIdx.x % 32 == 0) {
        if (bad) {
            atomicAdd(&tally->bad, bad);
            atomicMin(&tally->first_bad, first_bad);
        }
        atomicMax(&tally->max_abs_err, abs_bits);
        atomicMax(&tally->max_rel_err, rel_bits);
        atomicMax(&tally->max_err_over_tol, ratio_bits);
    }
}

static double from_bits(unsigned bits)
{
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

extern "C" cl_compare matmul_reference_compare(const matmul_reference *ref, const float *c,
                                               double input_bias)
{
    compare_tally start = {0, ULLONG_MAX, 0, 0, 0}, tally, *d_tally;
    CL_CUDA_CHECK(cudaMalloc(&d_tally, sizeof tally));
    CL_CUDA_CHECK(cudaMemcpy(d_tally, &start, sizeof start, cudaMemcpyHostToDevice));
    const int threads = 256;
    const size_t blocks_needed = (ref->count + threads - 1) / threads;
    const int blocks = blocks_needed == 0 ? 1 : blocks_needed < 4096 ? (int)blocks_needed : 4096;
    compare_kernel<<<blocks, threads>>>(*ref, c, 2.0 * input_bias, d_tally);
    CL_LAUNCH_CHECK();
    CL_CUDA_CHECK(cudaMemcpy(&tally, d_tally, sizeof tally, cudaMemcpyDeviceToHost));
    CL_CUDA_CHECK(cudaFree(d_tally));
    cl_compare cmp = {};
    cmp.ok = tally.bad == 0;
    cmp.n = ref->count;
    cmp.n_bad = tally.bad;
    cmp.max_abs_err = from_bits(tally.max_abs_err);
    cmp.max_rel_err = from_bits(tally.max_rel_err);
    cmp.max_err_over_tol = from_bits(tally.max_err_over_tol);
    if (!cmp.ok) {
        float got;
        cmp.first_bad = tally.first_bad;
        CL_CUDA_CHECK(cudaMemcpy(&cmp.expected, ref->want + cmp.first_bad, sizeof(double),
                                 cudaMemcpyDeviceToHost));
        CL_CUDA_CHECK(cudaMemcpy(&got, c + cmp.first_bad, sizeof got, cudaMemcpyDeviceToHost));
        cmp.got = got;
    }
    return cmp;
}

// saxpy: z = a*x + y, the memory-bound "hello world" of CUDA.
//
// Versions:
//   v1-naive       one thread an element, a grid that covers n
//   v2-gridstride  a grid sized to fill the GPU once; each thread strides over n
//   v3-float4      v2 with 16-byte loads and stores (one float4 a thread a step)
//   v4-float4x4    four float4 of x and y in flight per thread, streaming cache hints
//
// Napkin math for every version: 12 bytes an element (x, y read; z written) and two
// flops, so saxpy is bound by DRAM bandwidth. At 100M elements that is 1.2 GB: the
// floor is 1.2 GB / copy bandwidth = 0.29 ms on an H200 (4.18 TB/s), 0.40 ms on an
// H100 (3.0 TB/s). What separates the versions is how many bytes each thread keeps
// in flight and how many instructions it spends per byte.
#include <stdint.h>

#include "check.h"
#include "check_libs.h"
#include "device.h"
#include "launch.h"
#include "saxpy.h"

#include <cublas_v2.h>

// v1: one thread an element.
// Idea: the textbook mapping; each thread loads two floats and stores one.
// Cost: one 4-byte load pair per thread, and n/512 blocks to schedule.
__global__ void saxpy_v1_kernel(size_t n, float a, const float *x, const float *y, float *z)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = a * x[i] + y[i];
}

// v2: grid-stride loop.
// Idea: launch only as many blocks as can be resident at once and let each thread
// walk the array with stride gridDim*blockDim. Why it can be faster: no block
// launch and retire cost per 512 elements, and one grid works for any n.
__global__ void saxpy_v2_kernel(size_t n, float a, const float *x, const float *y, float *z)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        z[i] = a * x[i] + y[i];
}

// The last n % 4 elements of the float4 versions: block 0 does them as scalars.
__device__ __forceinline__ void saxpy_tail(size_t n, float a, const float *x, const float *y,
                                           float *z)
{
    size_t head = n & ~(size_t)3;
    if (blockIdx.x == 0 && threadIdx.x < n - head) {
        size_t i = head + threadIdx.x;
        z[i] = a * x[i] + y[i];
    }
}

// v3: 16-byte vector accesses.
// Idea: each thread moves a float4 of x, y and z per step (LDG.128/STG.128), so a
// warp touches 512 contiguous bytes per instruction. Why faster than v2: a quarter
// of the load/store instructions and address arithmetic for the same bytes, and
// more bytes in flight per thread.
__global__ void saxpy_v3_kernel(size_t n, float a, const float *x, const float *y, float *z)
{
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    const float4 *y4 = reinterpret_cast<const float4 *>(y);
    float4 *z4 = reinterpret_cast<float4 *>(z);
    size_t n4 = n / 4;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 xv = x4[i], yv = y4[i];
        z4[i] = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w);
    }
    saxpy_tail(n, a, x, y, z);
}

// v4: several vector loads in flight per thread, streaming cache hints.
// Idea: HBM needs many bytes in flight to reach its bandwidth (Little's law:
// ~4 TB/s * ~1 us latency = ~4 MB in flight across the GPU). Each thread issues all
// eight 16-byte loads (four float4 of x, four of y) before it uses any, 128 bytes in
// flight instead of 32; the grid covers n in one pass. __ldcs/__stcs mark the data
// evict-first: nothing is reused, so it should not push other lines out of L2.
enum { V4_VECS = 4 }; // float4s of each array per thread
__global__ void saxpy_v4_kernel(size_t n, float a, const float *x, const float *y, float *z)
{
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    const float4 *y4 = reinterpret_cast<const float4 *>(y);
    float4 *z4 = reinterpret_cast<float4 *>(z);
    size_t n4 = n / 4;
    // A block owns V4_VECS * blockDim consecutive float4s; a warp's accesses stay
    // contiguous because consecutive threads take consecutive float4s in each step.
    size_t base = (size_t)blockIdx.x * blockDim.x * V4_VECS + threadIdx.x;
    float4 xv[V4_VECS], yv[V4_VECS];
#pragma unroll
    for (int k = 0; k < V4_VECS; k++) {
        size_t i = base + (size_t)k * blockDim.x;
        if (i < n4) {
            xv[k] = __ldcs(x4 + i);
            yv[k] = __ldcs(y4 + i);
        }
    }
#pragma unroll
    for (int k = 0; k < V4_VECS; k++) {
        size_t i = base + (size_t)k * blockDim.x;
        if (i < n4)
            __stcs(z4 + i, make_float4(a * xv[k].x + yv[k].x, a * xv[k].y + yv[k].y,
                                       a * xv[k].z + yv[k].z, a * xv[k].w + yv[k].w));
    }
    saxpy_tail(n, a, x, y, z);
}

// --- launchers -----------------------------------------------------------------

static unsigned blocks_for(size_t items, unsigned per_block)
{
    size_t blocks = (items + per_block - 1) / per_block;
    return blocks ? (unsigned)blocks : 1u;
}

// Enough blocks to fill every SM once (grid-stride versions).
static unsigned resident_blocks(const void *kernel)
{
    return (unsigned)cl_kernel_fit_for(kernel, SAXPY_THREADS, 0).resident;
}

static bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

static void launch_v1(size_t n, float a, const float *x, const float *y, float *z, cudaStream_t s)
{
    saxpy_v1_kernel<<<blocks_for(n, SAXPY_THREADS), SAXPY_THREADS, 0, s>>>(n, a, x, y, z);
    CL_LAUNCH_CHECK();
}

static void launch_v2(size_t n, float a, const float *x, const float *y, float *z, cudaStream_t s)
{
    saxpy_v2_kernel<<<resident_blocks((const void *)saxpy_v2_kernel), SAXPY_THREADS, 0, s>>>(
        n, a, x, y, z);
    CL_LAUNCH_CHECK();
}

// The float4 versions need 16-byte aligned arrays (cudaMalloc gives 256); any
// other pointer goes to the scalar v2.
static void launch_v3(size_t n, float a, const float *x, const float *y, float *z, cudaStream_t s)
{
    if (!aligned16(x) || !aligned16(y) || !aligned16(z))
        return launch_v2(n, a, x, y, z, s);
    saxpy_v3_kernel<<<resident_blocks((const void *)saxpy_v3_kernel), SAXPY_THREADS, 0, s>>>(
        n, a, x, y, z);
    CL_LAUNCH_CHECK();
}

static void launch_v4(size_t n, float a, const float *x, const float *y, float *z, cudaStream_t s)
{
    if (!aligned16(x) || !aligned16(y) || !aligned16(z))
        return launch_v2(n, a, x, y, z, s);
    saxpy_v4_kernel<<<blocks_for(n / 4, SAXPY_THREADS * V4_VECS), SAXPY_THREADS, 0, s>>>(n, a, x, y,
                                                                                         z);
    CL_LAUNCH_CHECK();
}

extern "C" const saxpy_version saxpy_versions[] = {
    {{"v1-naive", "one thread an element"}, launch_v1},
    {{"v2-gridstride", "grid-stride loop over a grid that fills the GPU once"}, launch_v2},
    {{"v3-float4", "grid-stride with 16-byte float4 loads and stores"}, launch_v3},
    {{"v4-float4x4", "four float4 of x and y in flight per thread, streaming hints"}, launch_v4},
    {{"yours", saxpy_yours_idea}, saxpy_yours},
};
extern "C" const int saxpy_version_count = sizeof saxpy_versions / sizeof saxpy_versions[0];
extern "C" const char saxpy_fastest_version[] = "v4-float4x4";

// --- the peer: cuBLAS ------------------------------------------------------------

struct saxpy_peer {
    cublasHandle_t handle;
};

extern "C" saxpy_peer *saxpy_peer_create(void)
{
    saxpy_peer *peer = new saxpy_peer;
    CL_CUBLAS_CHECK(cublasCreate(&peer->handle));
    CL_CUBLAS_CHECK(cublasSetStream(peer->handle, 0));
    return peer;
}

extern "C" void saxpy_peer_run(saxpy_peer *peer, size_t n, float a, const float *x, float *y)
{
    // The 64-bit interface, so n may pass 2^31.
    CL_CUBLAS_CHECK(cublasSaxpy_64(peer->handle, (int64_t)n, &a, x, 1, y, 1));
}

extern "C" void saxpy_peer_destroy(saxpy_peer *peer)
{
    CL_CUBLAS_CHECK(cublasDestroy(peer->handle));
    delete peer;
}

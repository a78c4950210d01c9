// reduction: the sum of n floats (Oxford CUDA course, practical 4), from one block
// to a single-pass kernel that beats CUB.
//
// Versions:
//   v1-tree-interleaved one block; each thread sums a strided slice, then a
//                  shared-memory tree with interleaved addressing: pairs 1, 2, 4, ...
//                  apart, thread t adding at 2*s*t (bank conflicts, idle lanes)
//   v2-tree-pow2   the same with sequential addressing: the lower half adds the
//                  upper half, a power-of-two count of partial sums
//   v3-tree-any    the sequential tree for any count: the first stride is the largest
//                  power of two below it (runs with min(n, 1024) threads)
//   v4-atomic      many blocks, each a shared-memory tree, block sums atomicAdd-ed
//   v5-shuffle     v4 with warp shuffles inside the block, shared memory only between warps
//   v6-float4      16-byte loads, four in flight per thread, one launch, and a
//                  deterministic last-block-done combine in double
//   yours          yours.cu: the learner's slot
//
// Napkin math: a sum reads 4n bytes and writes 4. At 1e8 elements that is 400 MB:
// 0.096 ms at the H200's ~4.2 TB/s. Below ~1e6 elements (4 MB, which sits in L2 and
// moves in ~1-2 us) the time is launch latency plus the combine, so the number of
// launches and the length of the serial tail decide it.
// Not here: the seed notes' fully unrolled 256-thread tree. v5's shuffles do the
// same thing (no barrier in the last 5 steps) without unrolling by hand.
#include <cuda/atomic>
#include <cub/device/device_reduce.cuh>

#include "block_reduce.cuh"
#include "check.h"
#include "device.h"
#include "launch.h"
#include "reduction.h"

// Each thread's serial part: sum x[first], x[first + stride], ...
__device__ __forceinline__ float strided_sum(const float *x, size_t n, size_t first, size_t stride)
{
    float sum = 0.0f;
    for (size_t i = first; i < n; i += stride)
        sum += x[i];
    return sum;
}

// Tree over tree[0..blockDim.x) in shared memory, blockDim.x a power of two: each
// step the lower half adds the upper half. log2(blockDim) steps, a barrier each.
__device__ void shared_tree_sum_pow2(float *tree)
{
    for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride)
            tree[threadIdx.x] += tree[threadIdx.x + stride];
        __syncthreads();
    }
}

// v1: one block, the shared-memory tree with interleaved addressing.
// Idea: 1024 threads each add up every 1024th element, then a tree folds the 1024
// partial sums in shared memory: step s adds pairs s apart, thread t working at
// index 2*s*t. One launch, but one SM does all the work: a teaching baseline.
// What it costs (the CUDA reduction notes' lesson): at stride s a warp's 32 threads
// touch words 2s apart, so they fall in only 32/(2s) of the 32 shared-memory banks:
// an n-way bank conflict that replays the access (2-way at s = 1 up to 32-way at
// s = 16), and from s = 16 on most lanes of every active warp sit idle.
enum { ONE_BLOCK_THREADS = 1024 };
__global__ void reduce_v1_kernel(const float *x, size_t n, float *out)
{
    __shared__ float tree[ONE_BLOCK_THREADS];
    tree[threadIdx.x] = strided_sum(x, n, threadIdx.x, blockDim.x);
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        unsigned index = 2 * stride * threadIdx.x;
        if (index < blockDim.x)
            tree[index] += tree[index + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *out = tree[0];
}

// v2: one block, the shared-memory tree with sequential addressing.
// Idea: as v1, but each step the lower half of the threads adds the upper half:
// a warp reads 32 consecutive words (32 different banks, no conflict) and the active
// threads are always the first ones, so whole warps retire instead of idling.
__global__ void reduce_v2_kernel(const float *x, size_t n, float *out)
{
    __shared__ float tree[ONE_BLOCK_THREADS];
    tree[threadIdx.x] = strided_sum(x, n, threadIdx.x, blockDim.x);
    __syncthreads();
    shared_tree_sum_pow2(tree);
    if (threadIdx.x == 0)
        *out = tree[0];
}

// v3: the tree for any length.
// Idea: with len partial sums, fold the ones past the largest power of two below len
// onto the first ones, then halve as in v2; a thread whose partner does not exist
// sits the step out. What it adds over v2: correct for any block size (here
// min(n, 1024) threads, so small odd n use exactly n threads).
__global__ void reduce_v3_kernel(const float *x, size_t n, float *out)
{
    extern __shared__ float tree_any[];
    const unsigned len = blockDim.x;
    tree_any[threadIdx.x] = strided_sum(x, n, threadIdx.x, len);
    __syncthreads();
    unsigned stride = 1;
    while (2 * stride < len)
        stride *= 2;
    for (; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride && threadIdx.x + stride < len)
            tree_any[threadIdx.x] += tree_any[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        *out = tree_any[0];
}

// v4: many blocks, partial sums combined with atomicAdd.
// Idea: a grid that fills every SM once walks the array (grid-stride), each block
// folds its threads' sums with the shared-memory tree and adds its total to *out
// with one atomicAdd. Why faster than v3: all SMs read memory instead of one.
// Cost: *out must be zeroed first (a memset), and float atomics land in whatever
// order blocks finish, so the last bits can change from run to run.
enum { MULTI_BLOCK_THREADS = 512 };
__global__ void reduce_v4_kernel(const float *x, size_t n, float *out)
{
    __shared__ float tree[MULTI_BLOCK_THREADS];
    size_t stride = (size_t)gridDim.x * blockDim.x;
    tree[threadIdx.x] = strided_sum(x, n, (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride);
    __syncthreads();
    shared_tree_sum_pow2(tree);
    if (threadIdx.x == 0)
        atomicAdd(out, tree[0]);
}

// v5: warp shuffles.
// Idea: inside a warp, __shfl_down_sync passes registers between lanes, so the last
// five tree steps need neither shared memory nor barriers; shared memory only
// carries one sum per warp. Why faster than v4: 2 barriers instead of 10, and no
// shared-memory round trips in the tree.
__global__ void reduce_v5_kernel(const float *x, size_t n, float *out)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    float sum = strided_sum(x, n, (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride);
    sum = block_reduce_sum(sum);
    if (threadIdx.x == 0)
        atomicAdd(out, sum);
}

// v6: vector loads, bytes in flight, one launch, a deterministic combine.
// Idea: each thread issues four independent 16-byte loads (64 bytes in flight, the
// Little's-law need of HBM) before adding any of them, with evict-first hints, and
// keeps four accumulators so the adds do not serialize. Each block writes its sum
// to partials[block]; the block that takes the last ticket from an atomic counter
// adds all partials in index order, in double, and writes the result: one launch,
// no memset, and the same bits on every run (the order never depends on timing).
// No block waits for another. Napkin: at 1e8, 400 MB read at ~4.2 TB/s = 95 us,
// plus ~2 us launch and ~1 us for the last block's combine.
enum { V6_THREADS = 512, V6_VECS = 4 };
__global__ void __launch_bounds__(V6_THREADS)
    reduce_v6_kernel(const float *x, size_t n, float *out, float *partials, unsigned *ticket)
{
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    const size_t n4 = n / 4;
    const size_t stride = (size_t)gridDim.x * V6_THREADS * V6_VECS;
    float acc[V6_VECS] = {};
    for (size_t base = (size_t)blockIdx.x * V6_THREADS * V6_VECS + threadIdx.x; base < n4;
         base += stride) {
        float4 v[V6_VECS];
#pragma unroll
        for (int k = 0; k < V6_VECS; k++) {
            size_t i = base + (size_t)k * V6_THREADS;
            v[k] = i < n4 ? __ldcs(x4 + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
#pragma unroll
        for (int k = 0; k < V6_VECS; k++)
            acc[k] += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    float sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    if (blockIdx.x == 0 && threadIdx.x < n - 4 * n4) // the last n % 4 elements
        sum += x[4 * n4 + threadIdx.x];
    sum = block_reduce_sum(sum);

    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = sum;
        // acq_rel: our partial is visible before the ticket moves (release), and the
        // last block sees every other block's partial after taking its ticket (acquire).
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(*ticket);
        is_last = counter.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last)
        return;
    double total = 0.0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += V6_THREADS)
        total += (double)__ldcg(partials + b);
    total = block_reduce_sum(total);
    if (threadIdx.x == 0) {
        *out = (float)total;
        *ticket = 0; // ready for the next launch, which the stream orders after this one
    }
}

// --- workspace and launchers ------------------------------------------------------

struct reduction_workspace {
    float *partials;
    unsigned *ticket;
    unsigned max_blocks;       // v6's grid: enough blocks to fill every SM once
    unsigned multi_block_grid; // v4, v5
};

static unsigned resident_grid(const void *kernel, int threads)
{
    return (unsigned)cl_kernel_fit_for(kernel, threads, 0).resident;
}

extern "C" reduction_workspace *reduction_workspace_create(void)
{
    reduction_workspace *ws = new reduction_workspace;
    ws->max_blocks = resident_grid((const void *)reduce_v6_kernel, V6_THREADS);
    ws->multi_block_grid = resident_grid((const void *)reduce_v5_kernel, MULTI_BLOCK_THREADS);
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->partials, ws->max_blocks * sizeof(float)));
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->ticket, sizeof(unsigned)));
    CL_CUDA_CHECK(cudaMemset(ws->ticket, 0, sizeof(unsigned)));
    return ws;
}

extern "C" void reduction_workspace_destroy(reduction_workspace *ws)
{
    CL_CUDA_CHECK(cudaFree(ws->partials));
    CL_CUDA_CHECK(cudaFree(ws->ticket));
    delete ws;
}

static void launch_v1(const float *x, size_t n, float *out, reduction_workspace *, cudaStream_t s)
{
    reduce_v1_kernel<<<1, ONE_BLOCK_THREADS, 0, s>>>(x, n, out);
    CL_LAUNCH_CHECK();
}

static void launch_v2(const float *x, size_t n, float *out, reduction_workspace *, cudaStream_t s)
{
    reduce_v2_kernel<<<1, ONE_BLOCK_THREADS, 0, s>>>(x, n, out);
    CL_LAUNCH_CHECK();
}

static void launch_v3(const float *x, size_t n, float *out, reduction_workspace *, cudaStream_t s)
{
    unsigned threads = n < ONE_BLOCK_THREADS ? (unsigned)n : (unsigned)ONE_BLOCK_THREADS;
    reduce_v3_kernel<<<1, threads, threads * sizeof(float), s>>>(x, n, out);
    CL_LAUNCH_CHECK();
}

static unsigned multi_block_grid(size_t n, reduction_workspace *ws)
{
    size_t needed = (n + MULTI_BLOCK_THREADS - 1) / MULTI_BLOCK_THREADS;
    return needed < ws->multi_block_grid ? (unsigned)needed : ws->multi_block_grid;
}

static void launch_v4(const float *x, size_t n, float *out, reduction_workspace *ws, cudaStream_t s)
{
    CL_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), s));
    reduce_v4_kernel<<<multi_block_grid(n, ws), MULTI_BLOCK_THREADS, 0, s>>>(x, n, out);
    CL_LAUNCH_CHECK();
}

static void launch_v5(const float *x, size_t n, float *out, reduction_workspace *ws, cudaStream_t s)
{
    CL_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), s));
    reduce_v5_kernel<<<multi_block_grid(n, ws), MULTI_BLOCK_THREADS, 0, s>>>(x, n, out);
    CL_LAUNCH_CHECK();
}

// x must be 16-byte aligned (cudaMalloc gives 256).
static void launch_v6(const float *x, size_t n, float *out, reduction_workspace *ws, cudaStream_t s)
{
    size_t per_block = (size_t)V6_THREADS * V6_VECS * 4;
    size_t needed = (n + per_block - 1) / per_block;
    unsigned grid = needed < ws->max_blocks ? (unsigned)(needed ? needed : 1) : ws->max_blocks;
    reduce_v6_kernel<<<grid, V6_THREADS, 0, s>>>(x, n, out, ws->partials, ws->ticket);
    CL_LAUNCH_CHECK();
}

extern "C" const reduction_version reduction_versions[] = {
    {{"v1-tree-interleaved", "one block: strided sums, tree with interleaved addressing (2*s*t)"},
     launch_v1},
    {{"v2-tree-pow2", "one block: strided sums, tree with sequential addressing over 1024"},
     launch_v2},
    {{"v3-tree-any", "one block of min(n, 1024) threads: the tree for any length"}, launch_v3},
    {{"v4-atomic", "many blocks, shared-memory tree each, atomicAdd of block sums"}, launch_v4},
    {{"v5-shuffle", "many blocks, warp-shuffle block sums, atomicAdd"}, launch_v5},
    {{"v6-float4", "float4 x4 in flight, one launch, last-block-done combine in double"},
     launch_v6},
    {{"yours", reduction_yours_idea}, reduction_yours},
};
extern "C" const int reduction_version_count =
    sizeof reduction_versions / sizeof reduction_versions[0];
extern "C" const char reduction_fastest_version[] = "v6-float4";

// --- the peer: CUB ------------------------------------------------------------------

struct reduction_peer {
    cl_device_scratch temp;
};

extern "C" reduction_peer *reduction_peer_create(size_t n_max)
{
    reduction_peer *peer = new reduction_peer{};
    size_t bytes = 0;
    CL_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, (const float *)nullptr, (float *)nullptr,
                                         (int64_t)n_max));
    cl_scratch_reserve(&peer->temp, bytes);
    return peer;
}

extern "C" void reduction_peer_run(reduction_peer *peer, const float *x, size_t n, float *out)
{
    size_t bytes = peer->temp.bytes;
    CL_CUDA_CHECK(cub::DeviceReduce::Sum(peer->temp.ptr, bytes, x, out, (int64_t)n, 0));
}

extern "C" void reduction_peer_destroy(reduction_peer *peer)
{
    cl_scratch_free(&peer->temp);
    delete peer;
}

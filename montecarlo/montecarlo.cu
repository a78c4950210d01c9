// montecarlo: the Oxford CUDA course's practical 2, pricing a digital option on two
// correlated assets by Monte Carlo, from normals made up front by cuRAND's host API
// to one fused kernel that makes its normals in registers.
//
// Versions:
//   v1-host-coalesced  curandGenerateNormal makes all 2 N NPATH normals up front (in
//                      chunks of paths when they do not fit); the path kernel reads
//                      them thread-minor, so a warp reads 32 consecutive floats; a
//                      second kernel sums the payoff array (the practical's program)
//   v2-host-strided    the same normals, each path's 2N read from its own contiguous
//                      range: a warp's 32 loads land 800 bytes apart (uncoalesced)
//   v3-device-inline   cuRAND's device API: curand_init(seed, path, 0) for XORWOW
//                      states inside the path kernel, normals made as they are used
//   v4-device-setup    the same states made by a separate setup kernel and stored,
//                      the path kernel loading them (the CUDA docs' pattern)
//   v5-fused-philox    one kernel: Philox4x32-10 counters (curand_init is a few
//                      stores), four normals an output by a fast Box-Muller, the
//                      path, the payoff, and a block reduction of (sum, sum of
//                      squares) in double with a last-block-done combine: no normal
//                      array, no payoff array
//   yours              yours.cu: the learner's slot
//
// Napkin math at the practical's 9.6M paths x 100 steps: 1.92e9 normals. Made up
// front they are 7.7 GB, written once and read once: 5.2 ms of DRAM traffic alone on
// an H100 (3 TB/s), plus the generator's own work (XORWOW, the default, is slower than
// memory). Fused, no byte moves: each normal costs Philox's share (10 rounds of two
// 32-bit multiplies per 4 normals) plus Box-Muller's log, sqrt and sincos per pair,
// ~1.92e9 x ~30 instructions, about 1 ms of the H100's 132 SMs x 4 x 32 lanes at 1.7 GHz.
#include <curand.h>
#include <curand_kernel.h>
#include <thrust/device_ptr.h>
#include <thrust/transform_reduce.h>

#include <cuda/atomic>

#include "block_reduce.cuh"
#include "check.h"
#include "check_libs.h"
#include "device.h"
#include "launch.h"
#include "montecarlo.h"

// The practical's layout of the up-front normals: paths in groups of 128 (its block
// size), a group's normals step-major, so normal k of path p is at
// (p / 128) 2N 128 + k 128 + p % 128 whatever block size a kernel runs with.
enum { LAYOUT_GROUP = 128 };

__device__ __forceinline__ void take_step(const mc_model &m, float z1, float z2, float &s1,
                                          float &s2)
{
    float y1 = z1, y2 = m.rho * y1 + m.alpha * z2;
    s1 = s1 * (m.con1 + m.con2 * y1);
    s2 = s2 * (m.con1 + m.con2 * y2);
}

__device__ __forceinline__ float payoff(const mc_model &m, float s1, float s2)
{
    return fabsf(s1 - 1.0f) < 0.1f && fabsf(s2 - 1.0f) < 0.1f ? expf(-m.r * m.T) : 0.0f;
}

// --- v1, v2: normals from the host API ----------------------------------------------

// v1: coalesced. Thread p reads normal k at group base + k 128 + lane: the 32 lanes
// of a warp read 128 contiguous bytes a load.
__global__ void path_coalesced(const float *z, size_t npath, mc_model m, float *payoffs)
{
    size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npath)
        return;
    const float *zp = z + (p / LAYOUT_GROUP) * 2 * m.nsteps * LAYOUT_GROUP + p % LAYOUT_GROUP;
    float s1 = 1.0f, s2 = 1.0f;
    for (int k = 0; k < m.nsteps; k++)
        take_step(m, zp[2 * k * LAYOUT_GROUP], zp[(2 * k + 1) * LAYOUT_GROUP], s1, s2);
    payoffs[p] = payoff(m, s1, s2);
}

// v2: strided. Thread p reads its 2N normals from z + 2N p: neighbouring lanes are
// 2N floats apart, so each warp load touches 32 sectors for 32 useful floats (8x the
// traffic of v1 until the lines are reused from L1/L2).
__global__ void path_strided(const float *z, size_t npath, mc_model m, float *payoffs)
{
    size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npath)
        return;
    const float *zp = z + p * 2 * m.nsteps;
    float s1 = 1.0f, s2 = 1.0f;
    for (int k = 0; k < m.nsteps; k++)
        take_step(m, zp[2 * k], zp[2 * k + 1], s1, s2);
    payoffs[p] = payoff(m, s1, s2);
}

// sums += (sum of v, sum of v^2) over v[0..n), in double: a block reduction and two
// double atomics a block.
__global__ void sum_payoffs(const float *v, size_t n, double *sums)
{
    double s = 0.0, s2 = 0.0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        double x = v[i];
        s += x;
        s2 += x * x;
    }
    s = block_reduce_sum(s);
    __syncthreads();
    s2 = block_reduce_sum(s2);
    if (threadIdx.x == 0) {
        atomicAdd(&sums[0], s);
        atomicAdd(&sums[1], s2);
    }
}

// --- v3, v4: the device API, XORWOW -----------------------------------------------------

// A path's payoff from normals drawn from its XORWOW state as they are needed.
__device__ __forceinline__ float xorwow_path_payoff(const mc_model &m, curandState &state)
{
    float s1 = 1.0f, s2 = 1.0f;
    for (int k = 0; k < m.nsteps; k++) {
        float z1 = curand_normal(&state);
        float z2 = curand_normal(&state);
        take_step(m, z1, z2, s1, s2);
    }
    return payoff(m, s1, s2);
}

// v3: each thread seeds its own XORWOW state at subsequence p (2^67 draws apart, so
// paths never overlap), then draws its normals as it needs them. curand_init's
// skip-ahead is the cost: a sequence of 32x32 bit-matrix products per thread.
__global__ void path_device_inline(size_t npath, mc_model m, float *payoffs)
{
    size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npath)
        return;
    curandState state;
    curand_init(m.seed, p, 0, &state);
    payoffs[p] = xorwow_path_payoff(m, state);
}

// v4: the same states, made by their own kernel and stored (48 bytes a path), so the
// path kernel carries none of curand_init's code and registers.
__global__ void setup_states(size_t npath, uint64_t seed, curandState *states)
{
    size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p < npath)
        curand_init(seed, p, 0, &states[p]);
}

__global__ void path_device_stored(size_t npath, mc_model m, curandState *states, float *payoffs)
{
    size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npath)
        return;
    curandState state = states[p];
    payoffs[p] = xorwow_path_payoff(m, state);
}

// --- v5: fused Philox --------------------------------------------------------------------

// Box-Muller on two 32-bit uniforms with the hardware's fast approximations (__logf,
// __sincosf: one special-function instruction each, where curand_normal's logf is a
// ~20-instruction polynomial). u1 in (0, 1] as cuRAND makes it; __logf's absolute
// error (~2^-21) only blurs radii below ~1e-3, normals far too small to move a path.
__device__ __forceinline__ float2 box_muller_fast(unsigned a, unsigned b)
{
    const float two_pow_minus_32 = 2.3283064e-10f, two_pi = 6.2831853f;
    float u1 = a * two_pow_minus_32 + two_pow_minus_32 / 2;
    float theta = (b * two_pow_minus_32 + two_pow_minus_32 / 2) * two_pi;
    float radius = sqrtf(-2.0f * __logf(u1)), sin_theta, cos_theta;
    __sincosf(theta, &sin_theta, &cos_theta);
    return make_float2(radius * cos_theta, radius * sin_theta);
}

// v5: Philox4x32-10 is counter-based: curand_init(seed, p, 0) only sets the counter's
// high half to p, so seeding costs nothing and every path has its own stream. Each
// 128-bit Philox output (curand4) becomes four normals, two steps, by the fast
// Box-Muller above. A grid that fills the GPU once walks the paths; each block
// reduces (sum, sum^2) in double and the block that takes the last ticket adds the
// block sums in index order: one launch, no memset, the same bits every run.
// The fast Box-Muller beats curand_normal4 (its accurate logf) by a quarter, and the
// whole kernel makes normals faster than curandGenerateNormal with Philox alone does
// (README.md has the rates). The bound is instructions: ~25 a normal for Philox's
// rounds, ~8 for the transform, ~3 for the step; no memory traffic but the 2 doubles a
// block.
enum { FUSED_THREADS = 256 };
__global__ void __launch_bounds__(FUSED_THREADS)
    path_fused_philox(mc_model m, double *partials, unsigned *ticket, double *sums)
{
    double sum = 0.0, sum_sq = 0.0;
    for (size_t p = (size_t)blockIdx.x * FUSED_THREADS + threadIdx.x; p < m.npath;
         p += (size_t)gridDim.x * FUSED_THREADS) {
        curandStatePhilox4_32_10_t state;
        curand_init(m.seed, p, 0, &state);
        float s1 = 1.0f, s2 = 1.0f;
        int k = 0;
        for (; k + 2 <= m.nsteps; k += 2) {
            uint4 bits = curand4(&state);
            float2 z = box_muller_fast(bits.x, bits.y), w = box_muller_fast(bits.z, bits.w);
            take_step(m, z.x, z.y, s1, s2);
            take_step(m, w.x, w.y, s1, s2);
        }
        if (k < m.nsteps) {
            uint4 bits = curand4(&state);
            float2 z = box_muller_fast(bits.x, bits.y);
            take_step(m, z.x, z.y, s1, s2);
        }
        double v = payoff(m, s1, s2);
        sum += v;
        sum_sq += v * v;
    }
    sum = block_reduce_sum(sum);
    __syncthreads();
    sum_sq = block_reduce_sum(sum_sq);

    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        partials[2 * blockIdx.x] = sum;
        partials[2 * blockIdx.x + 1] = sum_sq;
        // acq_rel: our partials are visible before the ticket moves, and the last
        // block sees everyone's after taking its ticket.
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> counter(*ticket);
        is_last = counter.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last)
        return;
    double total = 0.0, total_sq = 0.0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += FUSED_THREADS) {
        total += __ldcg(partials + 2 * b);
        total_sq += __ldcg(partials + 2 * b + 1);
    }
    total = block_reduce_sum(total);
    __syncthreads();
    total_sq = block_reduce_sum(total_sq);
    if (threadIdx.x == 0) {
        sums[0] = total;
        sums[1] = total_sq;
        *ticket = 0; // ready for the next launch, which the stream orders after this one
    }
}

// --- workspace ---------------------------------------------------------------------------

struct mc_workspace {
    mc_model model;
    size_t chunk_paths; // a multiple of LAYOUT_GROUP
    int chunks;
    float *normals;      // 2N chunk_paths
    float *payoffs;      // npath
    curandState *states; // npath (v4)
    double *partials;    // 2 per fused block
    unsigned *ticket;    // v5's last-block ticket
    unsigned fused_grid; // v5: enough blocks to fill every SM once
    int path_threads[4]; // v1..v4 path kernels, from the occupancy API
    int setup_threads;   // v4's setup kernel
    curandGenerator_t generator;
    curandGenerator_t philox; // the generate-only rate, made on first use
};

static const curandRngType_t host_generators[] = {
    CURAND_RNG_PSEUDO_DEFAULT, CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_MRG32K3A};

static int potential_block(const void *kernel)
{
    int grid = 0, block = 0;
    CL_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&grid, &block, kernel, 0, 0));
    return block;
}

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

static size_t normals_per_path(const mc_model *m) { return 2 * (size_t)m->nsteps; }

extern "C" size_t mc_workspace_fixed_bytes(const mc_model *m)
{
    return m->npath * (sizeof(float) + sizeof(curandState)) + 64 * 1024 * 1024;
}

extern "C" mc_workspace *mc_workspace_create(const mc_model *m, int min_chunks)
{
    mc_workspace *ws = new mc_workspace;
    ws->model = *m;
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->payoffs, m->npath * sizeof(float)));
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->states, m->npath * sizeof(curandState)));

    ws->fused_grid =
        (unsigned)cl_kernel_fit_for((const void *)path_fused_philox, FUSED_THREADS, 0).resident;
    size_t needed = (m->npath + FUSED_THREADS - 1) / FUSED_THREADS;
    if (needed < ws->fused_grid)
        ws->fused_grid = (unsigned)needed;
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->partials, 2 * ws->fused_grid * sizeof(double)));
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->ticket, sizeof(unsigned)));
    CL_CUDA_CHECK(cudaMemset(ws->ticket, 0, sizeof(unsigned)));

    ws->path_threads[0] = potential_block((const void *)path_coalesced);
    ws->path_threads[1] = potential_block((const void *)path_strided);
    ws->path_threads[2] = potential_block((const void *)path_device_inline);
    ws->path_threads[3] = potential_block((const void *)path_device_stored);
    ws->setup_threads = potential_block((const void *)setup_states);

    // The normals of as many paths as fit in half the free memory, whole groups.
    size_t free_bytes, total_bytes;
    CL_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    size_t path_bytes = normals_per_path(m) * sizeof(float);
    size_t fit = free_bytes / 2 / path_bytes / LAYOUT_GROUP * LAYOUT_GROUP;
    size_t all = round_up(m->npath, LAYOUT_GROUP);
    size_t at_least = min_chunks > 1 ? (size_t)min_chunks : 1;
    size_t forced = round_up((m->npath + at_least - 1) / at_least, LAYOUT_GROUP);
    ws->chunk_paths = all < fit ? all : fit;
    if (forced < ws->chunk_paths)
        ws->chunk_paths = forced;
    if (ws->chunk_paths == 0)
        cl_die(CL_EXIT_CUDA, "needs %zu bytes of device memory for the normals of %d paths",
               path_bytes * LAYOUT_GROUP, (int)LAYOUT_GROUP);
    ws->chunks = (int)((m->npath + ws->chunk_paths - 1) / ws->chunk_paths);
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->normals, ws->chunk_paths * path_bytes));

    CL_CURAND_CHECK(curandCreateGenerator(&ws->generator, host_generators[m->generator]));
    ws->philox = nullptr;
    mc_workspace_reseed(ws);
    return ws;
}

extern "C" void mc_workspace_reseed(mc_workspace *ws)
{
    CL_CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(ws->generator, ws->model.seed));
    CL_CURAND_CHECK(curandSetGeneratorOffset(ws->generator, 0));
}

extern "C" int mc_workspace_chunks(const mc_workspace *ws) { return ws->chunks; }
extern "C" size_t mc_workspace_chunk_paths(const mc_workspace *ws) { return ws->chunk_paths; }

extern "C" void mc_workspace_describe_blocks(const mc_workspace *ws, char *text, size_t len)
{
    snprintf(text, len,
             "threads a block (cudaOccupancyMaxPotentialBlockSize): v1 %d, v2 %d, v3 %d, "
             "v4 %d (setup %d); v5 %d x %u blocks (fills every SM once)",
             ws->path_threads[0], ws->path_threads[1], ws->path_threads[2], ws->path_threads[3],
             ws->setup_threads, FUSED_THREADS, ws->fused_grid);
}

extern "C" void mc_workspace_destroy(mc_workspace *ws)
{
    CL_CURAND_CHECK(curandDestroyGenerator(ws->generator));
    if (ws->philox)
        CL_CURAND_CHECK(curandDestroyGenerator(ws->philox));
    CL_CUDA_CHECK(cudaFree(ws->normals));
    CL_CUDA_CHECK(cudaFree(ws->payoffs));
    CL_CUDA_CHECK(cudaFree(ws->states));
    CL_CUDA_CHECK(cudaFree(ws->partials));
    CL_CUDA_CHECK(cudaFree(ws->ticket));
    delete ws;
}

// --- launchers ------------------------------------------------------------------------------

static unsigned blocks_for(size_t n, int threads)
{
    return (unsigned)((n + threads - 1) / threads);
}

static void sum_payoff_array(const float *payoffs, size_t n, double *sums, cudaStream_t s)
{
    unsigned grid = blocks_for(n, 256), cap = 4 * (unsigned)cl_device_current()->sm_count;
    if (grid > cap)
        grid = cap;
    sum_payoffs<<<grid, 256, 0, s>>>(payoffs, n, sums);
    CL_LAUNCH_CHECK();
}

// Versions 1 and 2: per chunk of paths, generate its normals, price, sum its payoffs.
static void host_api_pricing(const mc_model *m, mc_workspace *ws, double *sums, cudaStream_t s,
                             bool coalesced)
{
    CL_CUDA_CHECK(cudaMemsetAsync(sums, 0, 2 * sizeof(double), s));
    CL_CURAND_CHECK(curandSetStream(ws->generator, s));
    int threads = ws->path_threads[coalesced ? 0 : 1];
    for (size_t first = 0; first < m->npath; first += ws->chunk_paths) {
        size_t paths = m->npath - first < ws->chunk_paths ? m->npath - first : ws->chunk_paths;
        size_t count = round_up(paths, LAYOUT_GROUP) * normals_per_path(m);
        CL_CURAND_CHECK(curandGenerateNormal(ws->generator, ws->normals, count, 0.0f, 1.0f));
        if (coalesced)
            path_coalesced<<<blocks_for(paths, threads), threads, 0, s>>>(ws->normals, paths, *m,
                                                                          ws->payoffs);
        else
            path_strided<<<blocks_for(paths, threads), threads, 0, s>>>(ws->normals, paths, *m,
                                                                        ws->payoffs);
        CL_LAUNCH_CHECK();
        sum_payoff_array(ws->payoffs, paths, sums, s);
    }
}

static void launch_v1(const mc_model *m, mc_workspace *ws, double *sums, cudaStream_t s)
{
    host_api_pricing(m, ws, sums, s, true);
}

static void launch_v2(const mc_model *m, mc_workspace *ws, double *sums, cudaStream_t s)
{
    host_api_pricing(m, ws, sums, s, false);
}

static void launch_v3(const mc_model *m, mc_workspace *ws, double *sums, cudaStream_t s)
{
    int threads = ws->path_threads[2];
    CL_CUDA_CHECK(cudaMemsetAsync(sums, 0, 2 * sizeof(double), s));
    path_device_inline<<<blocks_for(m->npath, threads), threads, 0, s>>>(m->npath, *m, ws->payoffs);
    CL_LAUNCH_CHECK();
    sum_payoff_array(ws->payoffs, m->npath, sums, s);
}

static void launch_v4(const mc_model *m, mc_workspace *ws, double *sums, cudaStream_t s)
{
    CL_CUDA_CHECK(cudaMemsetAsync(sums, 0, 2 * sizeof(double), s));
    setup_states<<<blocks_for(m->npath, ws->setup_threads), ws->setup_threads, 0, s>>>(
        m->npath, m->seed, ws->states);
    CL_LAUNCH_CHECK();
    int threads = ws->path_threads[3];
    path_device_stored<<<blocks_for(m->npath, threads), threads, 0, s>>>(m->npath, *m, ws->states,
                                                                         ws->payoffs);
    CL_LAUNCH_CHECK();
    sum_payoff_array(ws->payoffs, m->npath, sums, s);
}

static void launch_v5(const mc_model *m, mc_workspace *ws, double *sums, cudaStream_t s)
{
    path_fused_philox<<<ws->fused_grid, FUSED_THREADS, 0, s>>>(*m, ws->partials, ws->ticket, sums);
    CL_LAUNCH_CHECK();
}

extern "C" const mc_version mc_versions[] = {
    {{"v1-host-coalesced", "curandGenerateNormal up front, path kernel reads coalesced"},
     launch_v1},
    {{"v2-host-strided", "the same normals, each path's own range (uncoalesced)"}, launch_v2},
    {{"v3-device-inline", "device API: curand_init (XORWOW) inside the path kernel"}, launch_v3},
    {{"v4-device-setup", "device API: states from a setup kernel, stored and loaded"}, launch_v4},
    {{"v5-fused-philox", "one kernel: Philox normals in registers, block sums in double"},
     launch_v5},
    {{"yours", mc_yours_idea}, mc_yours},
};
extern "C" const int mc_version_count = sizeof mc_versions / sizeof mc_versions[0];
extern "C" const char mc_fastest_version[] = "v5-fused-philox";

// The rate to beat: Philox making the same number of normals into memory, nothing else.
extern "C" void mc_philox_generate_only(const mc_model *m, mc_workspace *ws)
{
    if (!ws->philox) {
        CL_CURAND_CHECK(curandCreateGenerator(&ws->philox, CURAND_RNG_PSEUDO_PHILOX4_32_10));
        CL_CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(ws->philox, m->seed));
    }
    for (size_t first = 0; first < m->npath; first += ws->chunk_paths) {
        size_t paths = m->npath - first < ws->chunk_paths ? m->npath - first : ws->chunk_paths;
        CL_CURAND_CHECK(curandGenerateNormal(ws->philox, ws->normals,
                                             round_up(paths, LAYOUT_GROUP) * normals_per_path(m),
                                             0.0f, 1.0f));
    }
}

extern "C" void mc_path_kernel_only(const mc_model *m, mc_workspace *ws, int coalesced)
{
    size_t paths = m->npath < ws->chunk_paths ? m->npath : ws->chunk_paths;
    int threads = ws->path_threads[coalesced ? 0 : 1];
    if (coalesced)
        path_coalesced<<<blocks_for(paths, threads), threads>>>(ws->normals, paths, *m,
                                                                ws->payoffs);
    else
        path_strided<<<blocks_for(paths, threads), threads>>>(ws->normals, paths, *m, ws->payoffs);
    CL_LAUNCH_CHECK();
}

// --- --quadratic ----------------------------------------------------------------------------

extern "C" void quadratic_normals(float *z, size_t n, uint64_t seed, int generator)
{
    curandGenerator_t gen;
    CL_CURAND_CHECK(curandCreateGenerator(&gen, host_generators[generator]));
    CL_CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, seed));
    // curandGenerateNormal makes normals in pairs: an odd count gets its last one alone.
    size_t even = n & ~(size_t)1;
    if (even)
        CL_CURAND_CHECK(curandGenerateNormal(gen, z, even, 0.0f, 1.0f));
    if (n & 1) {
        float pair[2];
        float *scratch;
        CL_CUDA_CHECK(cudaMalloc((void **)&scratch, sizeof pair));
        CL_CURAND_CHECK(curandGenerateNormal(gen, scratch, 2, 0.0f, 1.0f));
        CL_CUDA_CHECK(cudaMemcpy(z + even, scratch, sizeof(float), cudaMemcpyDeviceToDevice));
        CL_CUDA_CHECK(cudaFree(scratch));
    }
    CL_CURAND_CHECK(curandDestroyGenerator(gen));
}

struct quadratic_f {
    double a, b, c;
    __host__ __device__ double operator()(float z) const
    {
        double x = z;
        return (a * x + b) * x + c;
    }
};

// Each block's (sum f, sum f^2) over a grid-stride range, in double.
template <bool ATOMIC>
__global__ void quadratic_block_sums(const float *z, size_t n, quadratic_f f, double *out)
{
    double s = 0.0, s2 = 0.0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        double v = f(z[i]);
        s += v;
        s2 += v * v;
    }
    s = block_reduce_sum(s);
    __syncthreads();
    s2 = block_reduce_sum(s2);
    if (threadIdx.x != 0)
        return;
    if (ATOMIC) {
        atomicAdd(&out[0], s);
        atomicAdd(&out[1], s2);
    } else {
        out[2 * blockIdx.x] = s;
        out[2 * blockIdx.x + 1] = s2;
    }
}

enum { QUADRATIC_THREADS = 256 };

struct quadratic_workspace {
    unsigned grid; // for n_max
    double *partials, *host_partials, *device_sums;
};

static unsigned quadratic_grid(size_t n)
{
    unsigned cap = 8 * (unsigned)cl_device_current()->sm_count;
    unsigned grid = blocks_for(n, QUADRATIC_THREADS);
    return grid < cap ? grid : cap;
}

extern "C" quadratic_workspace *quadratic_workspace_create(size_t n_max)
{
    quadratic_workspace *ws = new quadratic_workspace;
    ws->grid = quadratic_grid(n_max);
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->partials, 2 * ws->grid * sizeof(double)));
    CL_CUDA_CHECK(cudaMallocHost((void **)&ws->host_partials, 2 * ws->grid * sizeof(double)));
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->device_sums, 2 * sizeof(double)));
    return ws;
}

extern "C" void quadratic_workspace_destroy(quadratic_workspace *ws)
{
    CL_CUDA_CHECK(cudaFree(ws->partials));
    CL_CUDA_CHECK(cudaFreeHost(ws->host_partials));
    CL_CUDA_CHECK(cudaFree(ws->device_sums));
    delete ws;
}

extern "C" void quadratic_partials(const float *z, size_t n, float a, float b, float c,
                                   quadratic_workspace *ws, double *sums)
{
    unsigned grid = quadratic_grid(n);
    quadratic_block_sums<false>
        <<<grid, QUADRATIC_THREADS>>>(z, n, quadratic_f{a, b, c}, ws->partials);
    CL_LAUNCH_CHECK();
    CL_CUDA_CHECK(cudaMemcpy(ws->host_partials, ws->partials, 2 * grid * sizeof(double),
                             cudaMemcpyDeviceToHost));
    sums[0] = sums[1] = 0.0;
    for (unsigned g = 0; g < grid; g++) {
        sums[0] += ws->host_partials[2 * g];
        sums[1] += ws->host_partials[2 * g + 1];
    }
}

extern "C" void quadratic_atomic(const float *z, size_t n, float a, float b, float c,
                                 quadratic_workspace *ws, double *sums)
{
    CL_CUDA_CHECK(cudaMemsetAsync(ws->device_sums, 0, 2 * sizeof(double)));
    quadratic_block_sums<true>
        <<<quadratic_grid(n), QUADRATIC_THREADS>>>(z, n, quadratic_f{a, b, c}, ws->device_sums);
    CL_LAUNCH_CHECK();
    CL_CUDA_CHECK(cudaMemcpy(sums, ws->device_sums, 2 * sizeof(double), cudaMemcpyDeviceToHost));
}

struct sum_and_square {
    quadratic_f f;
    __host__ __device__ double2 operator()(float z) const
    {
        double v = f(z);
        return make_double2(v, v * v);
    }
};

struct add_double2 {
    __host__ __device__ double2 operator()(double2 x, double2 y) const
    {
        return make_double2(x.x + y.x, x.y + y.y);
    }
};

extern "C" void quadratic_thrust(const float *z, size_t n, float a, float b, float c,
                                 quadratic_workspace *ws, double *sums)
{
    (void)ws; // thrust allocates its own temporary storage, each call
    thrust::device_ptr<const float> first(z);
    double2 total = thrust::transform_reduce(first, first + n, sum_and_square{{a, b, c}},
                                             make_double2(0.0, 0.0), add_double2{});
    sums[0] = total.x;
    sums[1] = total.y;
}

// tridiag: batches of tridiagonal systems (the Oxford CUDA course's practical 7),
// from parallel cyclic reduction in one block to a partitioned solver and a batched
// one that picks its kernel by shape.
//
// Versions:
//   v1-pcr-128        PCR, one block of 128 threads, fixed-size shared arrays; the
//                     block solves the systems one after another (NX = 128 only)
//   v2-pcr-dynamic    the same with dynamic shared memory: any NX up to 1024
//   v3-pcr-systems    one block a system, all systems at once
//   v4-pcr-warp       one warp a system (NX <= 32): shuffles, no shared memory
//   v5-thomas-shared  one thread a system, the Thomas algorithm; a block's systems
//                     are loaded coalesced into shared memory (padded against bank
//                     conflicts) and every iteration runs there
//   v6-partition      K consecutive rows a thread, eliminated by the thread alone
//                     (a spike towards the previous chunk), a reduced system of one
//                     unknown a thread solved by PCR across the warp (shuffles) or
//                     the block, then back-substitution: O(NX) work in registers
//   v7-batched        by shape: v5 for NX <= 32, v6 above (measured, see launch_v7)
//   yours             yours.cu: the learner's slot
//
// PCR (Hockney): at stride s each row subtracts multiples of rows i - s and i + s so
// that it couples only to i - 2s and i + 2s; after ceil(log2 NX) steps every row
// stands alone: x = d / b. NX log NX work, log NX steps, a barrier each.
// Thomas: eliminate downwards, substitute upwards: 2 NX sequential steps, O(NX) work.
// The pivots and c' do not depend on the right-hand side, so they are computed once
// for the NITER solves (the course's backward Euler: A x_new = lambda x_old).
//
// Napkin math: every version reads a, b, c, d and writes x once: 20 bytes a row. The
// check table's shapes all hold 32M rows: 640 MB, 0.21 ms at an H100's ~3 TB/s.
#include <cusparse.h>

#include "check.h"
#include "check_libs.h"
#include "device.h"
#include "tridiag.h"

// --- PCR in a block: one thread a row --------------------------------------------------

// One PCR step at stride s for row i of n; reads its neighbours, waits for every
// thread to have read, then writes its row.
__device__ __forceinline__ void pcr_step(float *sa, float *sb, float *sc, float *sd, int i, int n,
                                         int s)
{
    float a = 0.0f, b = sb[i], c = 0.0f, d = sd[i];
    if (i - s >= 0) {
        float alpha = -sa[i] / sb[i - s];
        a = alpha * sa[i - s];
        b += alpha * sc[i - s];
        d += alpha * sd[i - s];
    }
    if (i + s < n) {
        float gamma = -sc[i] / sb[i + s];
        c = gamma * sc[i + s];
        b += gamma * sa[i + s];
        d += gamma * sd[i + s];
    }
    __syncthreads();
    sa[i] = a;
    sb[i] = b;
    sc[i] = c;
    sd[i] = d;
    __syncthreads();
}

// Solves one system with blockDim.x == n threads: the row's coefficients stay in
// registers and are copied to shared memory for each of the niter solves.
__device__ void pcr_solve_system(const float *a, const float *b, const float *c, const float *d,
                                 float *x, tridiag_shape shape, float *sa, float *sb, float *sc,
                                 float *sd)
{
    const int i = threadIdx.x, n = shape.nx;
    const float ai = a[i], bi = b[i], ci = c[i];
    float xi = d[i];
    for (int it = 0; it < shape.niter; it++) {
        sa[i] = ai;
        sb[i] = bi;
        sc[i] = ci;
        sd[i] = shape.lambda * xi;
        __syncthreads();
        for (int s = 1; s < n; s *= 2)
            pcr_step(sa, sb, sc, sd, i, n, s);
        xi = sd[i] / sb[i];
    }
    x[i] = xi;
}

// v1: one block of 128 threads, static shared arrays, the systems in turn.
// The practical's first kernel: it teaches PCR, not throughput (one SM works).
enum { V1_NX = 128 };
__global__ void __launch_bounds__(V1_NX) pcr_128(const float *a, const float *b, const float *c,
                                                 const float *d, float *x, tridiag_shape shape)
{
    __shared__ float sa[V1_NX], sb[V1_NX], sc[V1_NX], sd[V1_NX];
    for (size_t s = 0; s < shape.m; s++) {
        size_t first = s * V1_NX;
        pcr_solve_system(a + first, b + first, c + first, d + first, x + first, shape, sa, sb, sc,
                         sd);
    }
}

// v2: the same with the four arrays in dynamic shared memory (4 NX floats, sized at
// launch), so any NX up to the block limit of 1024 threads.
__global__ void pcr_dynamic(const float *a, const float *b, const float *c, const float *d,
                            float *x, tridiag_shape shape)
{
    extern __shared__ float rows[];
    const int n = shape.nx;
    for (size_t s = 0; s < shape.m; s++) {
        size_t first = s * n;
        pcr_solve_system(a + first, b + first, c + first, d + first, x + first, shape, rows,
                         rows + n, rows + 2 * n, rows + 3 * n);
    }
}

// v3: one block a system: M blocks fill the GPU. Why faster than v2: every SM works.
__global__ void pcr_systems(const float *a, const float *b, const float *c, const float *d,
                            float *x, tridiag_shape shape)
{
    extern __shared__ float rows[];
    const int n = shape.nx;
    size_t first = (size_t)blockIdx.x * n;
    pcr_solve_system(a + first, b + first, c + first, d + first, x + first, shape, rows, rows + n,
                     rows + 2 * n, rows + 3 * n);
}

// --- v4: PCR in a warp -------------------------------------------------------------------

// v4: lane i of a warp holds row i of a system of n <= 32 rows in registers; the
// neighbours i - s and i + s come by __shfl_up_sync / __shfl_down_sync: no shared
// memory, no barriers. Lanes past n carry the identity row (b = 1) and are never
// read by real rows. A warp reads its system's 4 arrays as 4 contiguous runs.
enum { WARP_BLOCK = 128 };
__global__ void __launch_bounds__(WARP_BLOCK)
    pcr_warp(const float *a, const float *b, const float *c, const float *d, float *x,
             tridiag_shape shape)
{
    const unsigned all = 0xffffffffu;
    const int lane = threadIdx.x & 31, n = shape.nx;
    const size_t system = ((size_t)blockIdx.x * WARP_BLOCK + threadIdx.x) / 32;
    if (system >= shape.m) // the whole warp leaves together
        return;
    const bool row = lane < n;
    const size_t k = system * n + lane;
    const float a0 = row ? a[k] : 0.0f, b0 = row ? b[k] : 1.0f, c0 = row ? c[k] : 0.0f;
    float xi = row ? d[k] : 0.0f;
    for (int it = 0; it < shape.niter; it++) {
        float ai = a0, bi = b0, ci = c0, di = shape.lambda * xi;
        for (int s = 1; s < n; s *= 2) {
            float a_up = __shfl_up_sync(all, ai, s), b_up = __shfl_up_sync(all, bi, s);
            float c_up = __shfl_up_sync(all, ci, s), d_up = __shfl_up_sync(all, di, s);
            float a_dn = __shfl_down_sync(all, ai, s), b_dn = __shfl_down_sync(all, bi, s);
            float c_dn = __shfl_down_sync(all, ci, s), d_dn = __shfl_down_sync(all, di, s);
            float alpha = lane >= s ? -ai / b_up : 0.0f;
            float gamma = lane + s < n ? -ci / b_dn : 0.0f;
            bi += alpha * c_up + gamma * a_dn;
            di += alpha * d_up + gamma * d_dn;
            ai = alpha * a_up;
            ci = gamma * c_dn;
        }
        xi = di / bi;
    }
    if (row)
        x[k] = xi;
}

// --- v5: Thomas, a thread a system, in shared memory ----------------------------------------

// v5: blockDim.x systems a block, contiguous in memory, so the block loads them as
// one coalesced run into shared memory; thread t then owns system t there (row
// pitch odd: threads t, t + 1 fall in different banks). The factorization (c', the
// inverse pivots) overwrites c and b once; each of the niter solves is a forward and
// a backward sweep over shared memory; x goes back as one coalesced run. 16 bytes of
// shared memory a row, so the block size shrinks as NX grows.
__global__ void thomas_shared(const float *a, const float *b, const float *c, const float *d,
                              float *x, tridiag_shape shape)
{
    extern __shared__ float rows[];
    const int n = shape.nx, pitch = n | 1, threads = blockDim.x;
    float *sa = rows, *s_pivot = sa + threads * pitch, *s_cprime = s_pivot + threads * pitch,
          *sx = s_cprime + threads * pitch;
    const size_t first_system = (size_t)blockIdx.x * threads;
    const size_t left = shape.m - first_system;
    const int systems = left < (size_t)threads ? (int)left : threads;
    const size_t base = first_system * n;
    const int count = systems * n;
    for (int j = threadIdx.x; j < count; j += threads) {
        int at = j / n * pitch + j % n;
        sa[at] = a[base + j];
        s_pivot[at] = b[base + j];
        s_cprime[at] = c[base + j];
        sx[at] = d[base + j];
    }
    __syncthreads();
    if ((int)threadIdx.x < systems) {
        float *ra = sa + threadIdx.x * pitch, *rp = s_pivot + threadIdx.x * pitch;
        float *rc = s_cprime + threadIdx.x * pitch, *rx = sx + threadIdx.x * pitch;
        float c_prev = 0.0f;
        for (int i = 0; i < n; i++) {
            float inverse = 1.0f / (rp[i] - ra[i] * c_prev);
            rp[i] = inverse;
            rc[i] = c_prev = rc[i] * inverse;
        }
        for (int it = 0; it < shape.niter; it++) {
            float prev = 0.0f;
            for (int i = 0; i < n; i++)
                rx[i] = prev = (shape.lambda * rx[i] - ra[i] * prev) * rp[i];
            float next = prev;
            for (int i = n - 2; i >= 0; i--)
                rx[i] = next = rx[i] - rc[i] * next;
        }
    }
    __syncthreads();
    for (int j = threadIdx.x; j < count; j += threads)
        x[base + j] = sx[j / n * pitch + j % n];
}

// --- v6: partition (K rows a thread) + PCR of the reduced system -------------------------

// PCR over the reduced system, one unknown a thread, across the block's T threads:
// shuffles when T is one warp, shared memory (one barrier a step) otherwise.
template <int WARPS>
__device__ __forceinline__ float reduced_pcr(float ra, float rb, float rc, float rd, float *scratch)
{
    const int t = threadIdx.x % (32 * WARPS);
    constexpr int T = 32 * WARPS;
    if (WARPS == 1) {
        const unsigned all = 0xffffffffu;
#pragma unroll
        for (int s = 1; s < 32; s *= 2) {
            float a_up = __shfl_up_sync(all, ra, s), b_up = __shfl_up_sync(all, rb, s);
            float c_up = __shfl_up_sync(all, rc, s), d_up = __shfl_up_sync(all, rd, s);
            float a_dn = __shfl_down_sync(all, ra, s), b_dn = __shfl_down_sync(all, rb, s);
            float c_dn = __shfl_down_sync(all, rc, s), d_dn = __shfl_down_sync(all, rd, s);
            float alpha = t >= s ? -ra / b_up : 0.0f, gamma = t + s < 32 ? -rc / b_dn : 0.0f;
            rb += alpha * c_up + gamma * a_dn;
            rd += alpha * d_up + gamma * d_dn;
            ra = alpha * a_up;
            rc = gamma * c_dn;
        }
        return rd / rb;
    }
    int now = 0;
#pragma unroll
    for (int s = 1; s < T; s *= 2) {
        float *sa = scratch + now * 4 * T, *sb = sa + T, *sc = sb + T, *sd = sc + T;
        sa[t] = ra, sb[t] = rb, sc[t] = rc, sd[t] = rd;
        __syncthreads();
        float alpha = t >= s ? -ra / sb[t - s] : 0.0f, gamma = t + s < T ? -rc / sb[t + s] : 0.0f;
        float a_new = t >= s ? alpha * sa[t - s] : 0.0f,
              c_new = t + s < T ? gamma * sc[t + s] : 0.0f;
        rb += (t >= s ? alpha * sc[t - s] : 0.0f) + (t + s < T ? gamma * sa[t + s] : 0.0f);
        rd += (t >= s ? alpha * sd[t - s] : 0.0f) + (t + s < T ? gamma * sd[t + s] : 0.0f);
        ra = a_new, rc = c_new;
        now ^= 1;
    }
    return rd / rb;
}

// v6: T = 32 WARPS threads a system, K consecutive rows a thread (rows past NX are
// identity rows, decoupled because c = 0 on the last real row). Each thread, alone:
//  - down its rows, eliminates the sub-diagonal, carrying the spike on x(r0 - 1):
//    row j becomes phi_j x(r0-1) + b~_j x_j + c_j x(j+1) = d~_j;
//  - up from row r1 - 1 to r0, eliminates the super-diagonal, keeping x(r1):
//    row r0 becomes alpha x(r0-1) + beta x(r0) + gamma x(r1) = delta.
// Thread t's last row couples x(r1 of t-1), x(r1 of t) and x(r0 of t+1); thread t+1's
// row r0 gives x(r0 of t+1) from x(r1 of t) and x(r1 of t+1): substituted, a
// tridiagonal system in the T unknowns x(r1), solved by PCR across the threads; each
// thread then back-substitutes its rows from x(r1) and x(r1 of t-1). Work: ~3 NX
// sequential steps split K to a thread plus T log T for the reduced system, against
// PCR's NX log NX; a chunk's data stays in registers for all NITER solves.
template <int K, int WARPS>
__global__ void __launch_bounds__(128) partition_pcr(const float *a, const float *b, const float *c,
                                                     const float *d, float *x, tridiag_shape shape)
{
    constexpr int T = 32 * WARPS;
    __shared__ float scratch[WARPS > 1 ? 8 * T : 1];
    const int t = threadIdx.x % T, n = shape.nx;
    const size_t system = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / T;
    if (system >= shape.m) // whole systems (warps, or the block) leave together
        return;
    const size_t base = system * n;
    const int r0 = t * K;
    float ra[K], rb[K], rc[K], rx[K];
#pragma unroll
    for (int j = 0; j < K; j++) {
        const bool real = r0 + j < n;
        ra[j] = real ? a[base + r0 + j] : 0.0f;
        rb[j] = real ? b[base + r0 + j] : 1.0f;
        rc[j] = real ? c[base + r0 + j] : 0.0f;
        rx[j] = real ? d[base + r0 + j] : 0.0f;
    }
    for (int it = 0; it < shape.niter; it++) {
        float phi[K], b_down[K], d_down[K];
        phi[0] = ra[0], b_down[0] = rb[0], d_down[0] = shape.lambda * rx[0];
#pragma unroll
        for (int j = 1; j < K; j++) {
            float m = ra[j] / b_down[j - 1];
            phi[j] = -m * phi[j - 1];
            b_down[j] = rb[j] - m * rc[j - 1];
            d_down[j] = shape.lambda * rx[j] - m * d_down[j - 1];
        }
        float alpha = ra[K - 2], beta = rb[K - 2], gamma = rc[K - 2],
              delta = shape.lambda * rx[K - 2];
#pragma unroll
        for (int j = K - 3; j >= 0; j--) {
            float q = rc[j] / beta;
            beta = rb[j] - q * alpha;
            gamma = -q * gamma;
            delta = shape.lambda * rx[j] - q * delta;
            alpha = ra[j];
        }
        // The next thread's row r0 (this warp's lane + 1, or across warps by shared
        // memory); the last thread has none (its c at r1 is 0).
        float next[4];
        if (WARPS == 1) {
            const unsigned all = 0xffffffffu;
            next[0] = __shfl_down_sync(all, alpha, 1), next[1] = __shfl_down_sync(all, beta, 1);
            next[2] = __shfl_down_sync(all, gamma, 1), next[3] = __shfl_down_sync(all, delta, 1);
        } else {
            scratch[4 * t] = alpha, scratch[4 * t + 1] = beta, scratch[4 * t + 2] = gamma,
                        scratch[4 * t + 3] = delta;
            __syncthreads();
#pragma unroll
            for (int v = 0; v < 4; v++)
                next[v] = t + 1 < T ? scratch[4 * (t + 1) + v] : 1.0f;
            __syncthreads();
        }
        const float mu = t + 1 < T ? rc[K - 1] / next[1] : 0.0f;
        const float x_last =
            reduced_pcr<WARPS>(phi[K - 1], b_down[K - 1] - mu * next[0], -mu * next[2],
                               d_down[K - 1] - mu * next[3], scratch);
        float x_left;
        if (WARPS == 1) {
            x_left = __shfl_up_sync(0xffffffffu, x_last, 1);
        } else {
            __syncthreads(); // the PCR's last reads are done before scratch is reused
            scratch[t] = x_last;
            __syncthreads();
            x_left = t > 0 ? scratch[t - 1] : 0.0f;
            __syncthreads(); // read before the next solve writes scratch again
        }
        if (t == 0)
            x_left = 0.0f; // phi is 0 on the first thread (a = 0 on row 0)
        rx[K - 1] = x_last;
#pragma unroll
        for (int j = K - 2; j >= 0; j--)
            rx[j] = (d_down[j] - phi[j] * x_left - rc[j] * rx[j + 1]) / b_down[j];
    }
#pragma unroll
    for (int j = 0; j < K; j++)
        if (r0 + j < n)
            x[base + r0 + j] = rx[j];
}

// --- workspace and launchers --------------------------------------------------------------

struct tridiag_workspace {
    int shared_optin; // bytes of shared memory a block may have
};

extern "C" tridiag_workspace *tridiag_workspace_create(void)
{
    tridiag_workspace *ws = new tridiag_workspace;
    CL_CUDA_CHECK(cudaDeviceGetAttribute(&ws->shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                         cl_device_current()->index));
    CL_CUDA_CHECK(cudaFuncSetAttribute((const void *)thomas_shared,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       ws->shared_optin));
    return ws;
}

extern "C" void tridiag_workspace_destroy(tridiag_workspace *ws) { delete ws; }

static void launch_v1(const float *a, const float *b, const float *c, const float *d, float *x,
                      tridiag_shape shape, tridiag_workspace *, cudaStream_t s)
{
    pcr_128<<<1, V1_NX, 0, s>>>(a, b, c, d, x, shape);
    CL_LAUNCH_CHECK();
}

static void launch_v2(const float *a, const float *b, const float *c, const float *d, float *x,
                      tridiag_shape shape, tridiag_workspace *, cudaStream_t s)
{
    pcr_dynamic<<<1, shape.nx, 4 * shape.nx * sizeof(float), s>>>(a, b, c, d, x, shape);
    CL_LAUNCH_CHECK();
}

static void launch_v3(const float *a, const float *b, const float *c, const float *d, float *x,
                      tridiag_shape shape, tridiag_workspace *, cudaStream_t s)
{
    pcr_systems<<<(unsigned)shape.m, shape.nx, 4 * shape.nx * sizeof(float), s>>>(a, b, c, d, x,
                                                                                  shape);
    CL_LAUNCH_CHECK();
}

static void launch_v4(const float *a, const float *b, const float *c, const float *d, float *x,
                      tridiag_shape shape, tridiag_workspace *, cudaStream_t s)
{
    const size_t per_block = WARP_BLOCK / 32;
    pcr_warp<<<(unsigned)((shape.m + per_block - 1) / per_block), WARP_BLOCK, 0, s>>>(a, b, c, d, x,
                                                                                      shape);
    CL_LAUNCH_CHECK();
}

// v5's block: as many systems as fit in THOMAS_SHARED_TARGET bytes (so two or three
// blocks share an SM), at most 128, whole warps when there are 32 or more.
enum { THOMAS_SHARED_TARGET = 96 * 1024, THOMAS_MAX_THREADS = 128 };
static size_t thomas_row_bytes(int nx) { return 4 * sizeof(float) * (size_t)(nx | 1); }

static void launch_v5(const float *a, const float *b, const float *c, const float *d, float *x,
                      tridiag_shape shape, tridiag_workspace *ws, cudaStream_t s)
{
    size_t per_system = thomas_row_bytes(shape.nx);
    size_t threads = THOMAS_SHARED_TARGET / per_system;
    if (threads < 1)
        threads = (size_t)ws->shared_optin / per_system;
    if (threads > THOMAS_MAX_THREADS)
        threads = THOMAS_MAX_THREADS;
    if (threads >= 32)
        threads -= threads % 32;
    unsigned blocks = (unsigned)((shape.m + threads - 1) / threads);
    thomas_shared<<<blocks, (unsigned)threads, threads * per_system, s>>>(a, b, c, d, x, shape);
    CL_LAUNCH_CHECK();
}

// v6: K rows a thread, T threads a system, chosen so 32 K WARPS >= NX.
template <int K, int WARPS>
static void launch_partition(const float *a, const float *b, const float *c, const float *d,
                             float *x, tridiag_shape shape, cudaStream_t s)
{
    // One warp a system: 4 systems a block of 128; more warps: one system a block.
    const unsigned threads = WARPS == 1 ? 128 : 32 * WARPS, per_block = threads / (32 * WARPS);
    partition_pcr<K, WARPS><<<(unsigned)((shape.m + per_block - 1) / per_block), threads, 0, s>>>(
        a, b, c, d, x, shape);
    CL_LAUNCH_CHECK();
}

static void launch_v6(const float *a, const float *b, const float *c, const float *d, float *x,
                      tridiag_shape shape, tridiag_workspace *, cudaStream_t s)
{
    if (shape.nx <= 64)
        launch_partition<2, 1>(a, b, c, d, x, shape, s);
    else if (shape.nx <= 128)
        launch_partition<4, 1>(a, b, c, d, x, shape, s);
    else if (shape.nx <= 256)
        launch_partition<8, 1>(a, b, c, d, x, shape, s);
    else if (shape.nx <= 512)
        launch_partition<8, 2>(a, b, c, d, x, shape, s);
    else
        launch_partition<8, 4>(a, b, c, d, x, shape, s);
}

// v7: by shape, from the ladders (README.md has them): v6 with K = 2 leaves half of
// each warp's rows as padding at NX = 32 and below, where one thread a system in
// shared memory (v5) is 4x faster; from NX = 64 up v6 wins (2x at 64, 5x at 128).
static void launch_v7(const float *a, const float *b, const float *c, const float *d, float *x,
                      tridiag_shape shape, tridiag_workspace *ws, cudaStream_t s)
{
    if (shape.nx <= 32)
        launch_v5(a, b, c, d, x, shape, ws, s);
    else
        launch_v6(a, b, c, d, x, shape, ws, s);
}

// The largest NX v5 can hold one system of in shared memory on any supported GPU
// (sm_75's opt-in limit is 64 KB: 16 bytes a row).
enum { THOMAS_MAX_NX = 4000 };

extern "C" const tridiag_version tridiag_versions[] = {
    {{"v1-pcr-128", "PCR, one block of 128 threads, static shared memory, systems in turn"},
     launch_v1,
     V1_NX,
     V1_NX},
    {{"v2-pcr-dynamic", "PCR, one block, dynamic shared memory: NX up to 1024"},
     launch_v2,
     1,
     1024},
    {{"v3-pcr-systems", "PCR, one block a system, all systems at once"}, launch_v3, 1, 1024},
    {{"v4-pcr-warp", "PCR, one warp a system (NX <= 32), shuffles, no shared memory"},
     launch_v4,
     1,
     32},
    {{"v5-thomas-shared", "Thomas, one thread a system, coalesced through shared memory"},
     launch_v5,
     1,
     THOMAS_MAX_NX},
    {{"v6-partition", "K rows a thread eliminated alone, PCR of the reduced system"},
     launch_v6,
     1,
     1024},
    {{"v7-batched", "by shape: v5 for NX <= 32, v6 above"}, launch_v7, 1, 1024},
    {{"yours", tridiag_yours_idea}, tridiag_yours, 1, 1024},
};
extern "C" const int tridiag_version_count = sizeof tridiag_versions / sizeof tridiag_versions[0];
extern "C" const char tridiag_fastest_version[] = "v7-batched";

// --- the peer: cuSPARSE --------------------------------------------------------------------

struct tridiag_peer {
    cusparseHandle_t handle;
    void *buffer;
};

__global__ void scale_copy(const float *from, float *to, size_t n, float lambda)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        to[i] = lambda * from[i];
}

static void scale(const float *from, float *to, size_t n, float lambda)
{
    unsigned blocks = (unsigned)((n + 255) / 256), cap = 8 * cl_device_current()->sm_count;
    if (blocks > cap)
        blocks = cap;
    scale_copy<<<blocks, 256>>>(from, to, n, lambda);
    CL_LAUNCH_CHECK();
}

extern "C" tridiag_peer *tridiag_peer_create(const float *a, const float *b, const float *c,
                                             float *x, tridiag_shape shape)
{
    tridiag_peer *peer = new tridiag_peer;
    CL_CUSPARSE_CHECK(cusparseCreate(&peer->handle));
    size_t bytes = 0;
    CL_CUSPARSE_CHECK(cusparseSgtsv2StridedBatch_bufferSizeExt(peer->handle, shape.nx, a, b, c, x,
                                                               (int)shape.m, shape.nx, &bytes));
    CL_CUDA_CHECK(cudaMalloc(&peer->buffer, bytes ? bytes : 1));
    return peer;
}

extern "C" void tridiag_peer_run(tridiag_peer *peer, const float *a, const float *b, const float *c,
                                 const float *d, float *x, tridiag_shape shape)
{
    size_t n = (size_t)shape.nx * shape.m;
    scale(d, x, n, shape.lambda);
    for (int it = 0; it < shape.niter; it++) {
        if (it > 0 && shape.lambda != 1.0f)
            scale(x, x, n, shape.lambda);
        CL_CUSPARSE_CHECK(cusparseSgtsv2StridedBatch(peer->handle, shape.nx, a, b, c, x,
                                                     (int)shape.m, shape.nx, peer->buffer));
    }
}

extern "C" void tridiag_peer_destroy(tridiag_peer *peer)
{
    CL_CUSPARSE_CHECK(cusparseDestroy(peer->handle));
    CL_CUDA_CHECK(cudaFree(peer->buffer));
    delete peer;
}

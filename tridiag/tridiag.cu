// tridiag: batches of tridiagonal systems (the Oxford CUDA course's practical 7),
// from parallel cyclic reduction in one block to a partitioned solver in registers,
// a segmented one for systems longer than a block, and a batched one that picks its
// kernel by shape.
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
//                     unknown a thread solved by PCR across the T threads of a
//                     system (shuffles within a warp, shared memory across warps),
//                     then back-substitution: O(NX) work in registers (NX <= 1024);
//                     a block a system (NX > 256) on a GPU of > 27 GB/s of copy an
//                     SM (the H200): persistent blocks, the next system prefetched
//                     by the bulk-copy engine
//   v7-batched        by shape: v6 up to 1024 rows (v5 at NX = 1, 2, 5..7), v8
//                     above (measured, see launch_v7)
//   v8-segments       systems of any length (to 1,000,000): segments of 1024 rows,
//                     a block each, solved for the data and two spikes (SPIKE), a
//                     reduced system of one unknown a segment (by v6), then each
//                     segment again with its neighbours known
//   yours             yours.cu: the learner's slot
//
// PCR (Hockney): at stride s each row subtracts multiples of rows i - s and i + s so
// that it couples only to i - 2s and i + 2s; after ceil(log2 NX) steps every row
// stands alone: x = d / b. NX log NX work, log NX steps, a barrier each.
// Thomas: eliminate downwards, substitute upwards: 2 NX sequential steps, O(NX) work.
// The pivots and c' do not depend on the right-hand side, so they are computed once
// for the NITER solves (the course's backward Euler: A x_new = lambda x_old).
//
// Napkin math: every version reads a, b, c, d and writes x once: 20 bytes a row (v8:
// 36 a solve, see launch_v8). The check table's shapes all hold 32M rows: 640 MB,
// 0.215 ms at an H100's 2977 GB/s copy rate; v6 takes about that (the README's tables).
#include <cusparse.h>

#include "bulk_copy.cuh"
#include "check.h"
#include "check_libs.h"
#include "device.h"
#include "launch.h"
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

// x / y for the partitioned solvers (v6, v8) as x times the hardware's approximate
// reciprocal of y (__fdividef: 2 instructions, within 2 ulp for |y| < 2^126), not the
// IEEE-rounded division (a dozen instructions and a branch). At NX = 128 the solve
// issues instructions most of the time with IEEE division (ncu), so their count
// matters: the reciprocal made it about a quarter faster at 128 x 256K on an H100.
__device__ __forceinline__ float divide(float x, float y) { return __fdividef(x, y); }

// Values of threads t - s and t + s among the T threads of a system (out of range: the
// thread's own), by shuffles within a warp (T <= 32: width T) or through shared
// memory across warps: `buffer` 0 or 1 of 2 N T floats, so consecutive calls with
// alternating buffers need one barrier each (a thread writing buffer b again has
// passed the barrier that every thread reached after reading it).
template <int T, int N>
__device__ __forceinline__ void neighbours(const float (&mine)[N], int s, float (&up)[N],
                                           float (&down)[N], float *scratch, int buffer)
{
    const int t = threadIdx.x % T;
    if (T <= 32) {
#pragma unroll
        for (int v = 0; v < N; v++) {
            up[v] = __shfl_up_sync(0xffffffffu, mine[v], s, T);
            down[v] = __shfl_down_sync(0xffffffffu, mine[v], s, T);
        }
        return;
    }
    float *row = scratch + buffer * N * T; // value v of thread u at row[v T + u]
#pragma unroll
    for (int v = 0; v < N; v++)
        row[v * T + t] = mine[v];
    __syncthreads();
    const int u = t >= s ? t - s : t, w = t + s < T ? t + s : t;
#pragma unroll
    for (int v = 0; v < N; v++)
        up[v] = row[v * T + u], down[v] = row[v * T + w];
}

// The values of thread t + 1 (STEP = 1; the last thread gets its own) or t - 1 (STEP
// = -1; the first gets its own): the partition's coupling, one direction only (a
// shuffle a value, not two). scratch (N T floats) is free again on return.
template <int T, int N, int STEP>
__device__ __forceinline__ void adjacent(const float (&mine)[N], float (&theirs)[N], float *scratch)
{
    static_assert(STEP == 1 || STEP == -1, "the next thread or the previous one");
    const int t = threadIdx.x % T;
    if constexpr (T <= 32) {
#pragma unroll
        for (int v = 0; v < N; v++)
            theirs[v] = STEP > 0 ? __shfl_down_sync(0xffffffffu, mine[v], 1, T)
                                 : __shfl_up_sync(0xffffffffu, mine[v], 1, T);
    } else {
#pragma unroll
        for (int v = 0; v < N; v++)
            scratch[v * T + t] = mine[v];
        __syncthreads();
        const int u = STEP > 0 ? (t + 1 < T ? t + 1 : t) : (t > 0 ? t - 1 : t);
#pragma unroll
        for (int v = 0; v < N; v++)
            theirs[v] = scratch[v * T + u];
        __syncthreads();
    }
}

__host__ __device__ constexpr int log2_of(int t) { return t <= 1 ? 0 : 1 + log2_of(t / 2); }

// The partitioned solver of one system held K consecutive rows a thread across T
// threads (thread t: rows t K .. t K + K - 1). The first row's a and the last row's c
// are taken as 0 (rows past the end are identity rows: a = c = 0, b = 1). Each
// thread, alone:
//  - up from its row r0 + K - 2 to r0, eliminates the super-diagonal, keeping
//    x(r1) (r1 = r0 + K - 1, its last row): row r0 becomes
//    alpha x(r0-1) + beta x(r0) + gamma x(r1) = delta;
//  - down its rows, eliminates the sub-diagonal, carrying the spike on x(r0 - 1):
//    row j becomes phi_j x(r0-1) + b~_j x_j + c_j x(j+1) = d~_j.
// Thread t's last row couples x(r1 of t-1), x(r1 of t) and x(r0 of t+1); thread t+1's
// row r0 gives x(r0 of t+1) from x(r1 of t) and x(r1 of t+1): substituted, a
// tridiagonal system in the T unknowns x(r1), solved by PCR across the threads; each
// thread then back-substitutes its rows from x(r1) and x(r1 of t-1). Work: ~3 NX
// sequential steps split K to a thread plus T log T for the reduced system, against
// PCR's NX log NX.
//
// Nothing of that but the right-hand side's sweeps depends on the right-hand side,
// so it splits as LAPACK's gttrf / gttrs do: partition_factor once per matrix keeps
// the multipliers of both eliminations, the spikes, the inverse pivots, the coupling
// to the next thread and each PCR step's two multipliers; partition_solve then runs
// a right-hand side (or R at once) through them. Each of the NITER solves after the
// first costs a third of the divisions (reciprocals) and shuffles of a whole solve
// (niter 2: up to a seventh faster on the H200, a little on the H100).
template <int K, int T> struct partition_factors {
    static constexpr int STEPS = log2_of(T);
    float up[K];                      // q_j = c_j / beta of the up sweep (j <= K - 3)
    float down[K];                    // m_j = a_j / b~_(j-1) of the down sweep (j >= 1)
    float phi[K], inv_b[K], c[K];     // the spike, 1 / b~_j, the super-diagonal
    float mu;                         // c_(K-1) / beta of the next thread (0: the last)
    float alpha[STEPS], gamma[STEPS]; // each PCR step's multipliers of rows t -+ s
    float inv_reduced;                // 1 / the reduced diagonal after the last step
};

template <int K, int T>
__device__ __forceinline__ void partition_factor(const float (&ra)[K], const float (&rb)[K],
                                                 const float (&rc)[K], partition_factors<K, T> &f,
                                                 float *scratch)
{
    static_assert(K >= 2, "a thread's rows: at least one above its kept last row");
    static_assert(T >= 2 && (T & (T - 1)) == 0 && (T <= 32 || T % 32 == 0), "T: lanes or warps");
    const int t = threadIdx.x % T;
    float mine[3] = {ra[K - 2], rb[K - 2], rc[K - 2]}; // row r0's alpha, beta, gamma
#pragma unroll
    for (int j = K - 3; j >= 0; j--) {
        f.up[j] = divide(rc[j], mine[1]);
        mine[1] = rb[j] - f.up[j] * mine[0];
        mine[2] = -f.up[j] * mine[2];
        mine[0] = ra[j];
    }
    float b_last = rb[0];
    f.phi[0] = ra[0], f.inv_b[0] = divide(1.0f, rb[0]), f.c[0] = rc[0];
#pragma unroll
    for (int j = 1; j < K; j++) {
        f.down[j] = ra[j] * f.inv_b[j - 1];
        f.phi[j] = -f.down[j] * f.phi[j - 1];
        b_last = rb[j] - f.down[j] * rc[j - 1];
        f.inv_b[j] = divide(1.0f, b_last);
        f.c[j] = rc[j];
    }
    float next[3];
    adjacent<T, 3, 1>(mine, next, scratch);
    f.mu = t + 1 < T ? divide(rc[K - 1], next[1]) : 0.0f;
    // The reduced row: a, b, c of x(r1 of t-1), x(r1 of t), x(r1 of t+1).
    float row[3] = {f.phi[K - 1], b_last - f.mu * next[0], -f.mu * next[2]};
#pragma unroll
    for (int i = 0; i < f.STEPS; i++) {
        const int s = 1 << i;
        float up[3], dn[3];
        neighbours<T, 3>(row, s, up, dn, scratch, i & 1);
        f.alpha[i] = t >= s ? -divide(row[0], up[1]) : 0.0f;
        f.gamma[i] = t + s < T ? -divide(row[2], dn[1]) : 0.0f;
        row[1] += f.alpha[i] * up[2] + f.gamma[i] * dn[0];
        row[0] = f.alpha[i] * up[0];
        row[2] = f.gamma[i] * dn[2];
    }
    if (T > 32)
        __syncthreads(); // the last step's reads, before scratch is written again
    f.inv_reduced = divide(1.0f, row[1]);
}

// R right-hand sides through the factors: rd holds them in and the solutions out.
template <int K, int T, int R>
__device__ __forceinline__ void partition_solve(const partition_factors<K, T> &f, float (&rd)[R][K],
                                                float *scratch)
{
    const int t = threadIdx.x % T;
    float delta[R], x[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        delta[r] = rd[r][K - 2];
#pragma unroll
        for (int j = K - 3; j >= 0; j--)
            delta[r] = rd[r][j] - f.up[j] * delta[r];
#pragma unroll
        for (int j = 1; j < K; j++)
            rd[r][j] -= f.down[j] * rd[r][j - 1];
    }
    float next[R];
    adjacent<T, R, 1>(delta, next, scratch);
#pragma unroll
    for (int r = 0; r < R; r++)
        x[r] = rd[r][K - 1] - f.mu * next[r];
#pragma unroll
    for (int i = 0; i < f.STEPS; i++) {
        float up[R], dn[R];
        neighbours<T, R>(x, 1 << i, up, dn, scratch, i & 1);
#pragma unroll
        for (int r = 0; r < R; r++)
            x[r] += f.alpha[i] * up[r] + f.gamma[i] * dn[r];
    }
    if (T > 32)
        __syncthreads();
#pragma unroll
    for (int r = 0; r < R; r++)
        x[r] *= f.inv_reduced;
    float x_left[R];
    adjacent<T, R, -1>(x, x_left, scratch);
#pragma unroll
    for (int r = 0; r < R; r++) {
        if (t == 0)
            x_left[r] = 0.0f; // phi is 0 on the first thread (its first row's a is 0)
        rd[r][K - 1] = x[r];
#pragma unroll
        for (int j = K - 2; j >= 0; j--)
            rd[r][j] = (rd[r][j] - f.phi[j] * x_left[r] - f.c[j] * rd[r][j + 1]) * f.inv_b[j];
    }
}

// A thread's K rows from row `first` of an array: `count` (<= K) real ones, the
// rest `pad`. Whole, aligned runs as 16-byte loads: a quarter of the instructions
// (scalar loads were a sixth slower at 1024 x 32K, with IEEE division).
template <int K>
__device__ __forceinline__ void load_rows(const float *p, size_t first, int count, float pad,
                                          float (&r)[K])
{
    if (K % 4 == 0 && count == K && (((size_t)p / 4 + first) & 3) == 0) {
#pragma unroll
        for (int q = 0; q < K / 4; q++) {
            const float4 v = *(const float4 *)(p + first + 4 * q);
            r[4 * q] = v.x, r[4 * q + 1] = v.y, r[4 * q + 2] = v.z, r[4 * q + 3] = v.w;
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < K; j++)
        r[j] = j < count ? p[first + j] : pad;
}

template <int K>
__device__ __forceinline__ void store_rows(float *p, size_t first, int count, const float (&r)[K])
{
    if (K % 4 == 0 && count == K && (((size_t)p / 4 + first) & 3) == 0) {
#pragma unroll
        for (int q = 0; q < K / 4; q++)
            *(float4 *)(p + first + 4 * q) =
                make_float4(r[4 * q], r[4 * q + 1], r[4 * q + 2], r[4 * q + 3]);
        return;
    }
#pragma unroll
    for (int j = 0; j < K; j++)
        if (j < count)
            p[first + j] = r[j];
}

// v6: T threads a system (2 to 128), K rows a thread (T K >= NX), the system in
// registers for all NITER solves: partition_solve above. T <= 32: blocks of 128
// threads, 128 / T systems a block (systems past M run on identity rows, since their
// lanes take part in the shuffles, and store nothing); T > 32: a block a system (its
// barriers and scratch are the system's). At least 6 blocks an SM: registers <= 80,
// so enough warps hide the barrier waits of T = 128 (1024 x 32K on an H100, one solve
// a right-hand side: 0.268 ms at 96 registers, 0.225 at 80).
enum { PARTITION_THREADS = 128, PARTITION_MIN_BLOCKS = 6 };
template <int T> __host__ __device__ constexpr int partition_block()
{
    return T <= 32 ? PARTITION_THREADS : T;
}

// One system's rows of a thread through the factorization and the NITER solves: the
// right-hand side rx in, the solution out.
template <int K, int T>
__device__ __forceinline__ void partition_system(const float (&ra)[K], const float (&rb)[K],
                                                 const float (&rc)[K], float (&rx)[1][K],
                                                 tridiag_shape shape, float *scratch)
{
    partition_factors<K, T> f;
    partition_factor<K, T>(ra, rb, rc, f, scratch);
    for (int it = 0; it < shape.niter; it++) {
#pragma unroll
        for (int j = 0; j < K; j++)
            rx[0][j] *= shape.lambda;
        partition_solve<K, T, 1>(f, rx, scratch);
    }
}

template <int K, int T>
__global__ void __launch_bounds__(PARTITION_THREADS, PARTITION_MIN_BLOCKS)
    partition_pcr(const float *a, const float *b, const float *c, const float *d, float *x,
                  tridiag_shape shape)
{
    static_assert(T <= PARTITION_THREADS, "T up to the block size");
    __shared__ float scratch[T > 32 ? 2 * 3 * T : 1];
    const int t = threadIdx.x % T, n = shape.nx;
    const size_t system = ((size_t)blockIdx.x * partition_block<T>() + threadIdx.x) / T;
    const size_t first = system * n + t * K;
    const int count = system < shape.m ? min(K, max(n - t * K, 0)) : 0;
    float ra[K], rb[K], rc[K], rx[1][K];
    load_rows<K>(a, first, count, 0.0f, ra);
    load_rows<K>(b, first, count, 1.0f, rb);
    load_rows<K>(c, first, count, 0.0f, rc);
    load_rows<K>(d, first, count, 0.0f, rx[0]);
    partition_system<K, T>(ra, rb, rc, rx, shape, scratch);
    store_rows<K>(x, first, count, rx[0]);
}

// v6 with a block a system (T > 32, NX > 256) on sm_90: partition_pcr's block reads its
// system (16 KB at NX = 1024), then works through barriers with none of its own loads
// in flight, so DRAM sees only what the other blocks happen to be loading (on an H200,
// whose bandwidth an SM is higher, that left it short of the copy rate). Here blocks
// are persistent (6 an SM, each
// taking systems blockIdx.x, + gridDim.x, ...) and while a block solves one system the
// bulk-copy engine brings the next one's four arrays into the other of two shared
// buffers (2 x 16 KB a block; NX % 4 == 0, so each array's run is whole 16-byte
// chunks): 96 KB an SM always in flight, where Little's law asks for ~36 KB (4.8 TB/s
// x 1 us / 132 SMs). The rows then come from shared memory (two 16-byte loads an
// array, 2-way bank conflicts: 8 loads a system). A buffer is refilled one iteration
// after it was read, and partition_factor's barriers lie between. Systems go by a fixed
// share, not tickets from an atomic counter: the ticket's round trip would sit in warp
// 0's path to the first barrier (README.md has both measured).
template <int K, int T>
__global__ void __launch_bounds__(PARTITION_THREADS, PARTITION_MIN_BLOCKS)
    partition_pcr_prefetch(const float *a, const float *b, const float *c, const float *d, float *x,
                           tridiag_shape shape)
{
#ifdef CL_HAVE_BULK_COPY
    static_assert(T > 32 && T <= PARTITION_THREADS, "a block a system");
    constexpr int ROWS = T * K;
    extern __shared__ __align__(128) float staged[]; // 2 buffers x (a, b, c, d) x ROWS
    __shared__ float scratch[2 * 3 * T];
    __shared__ unsigned long long landed[2]; // a phase per fill of each buffer
    const int t = threadIdx.x, n = shape.nx;
    const unsigned bytes = (unsigned)n * sizeof(float);
    // Thread 0: the four arrays of `system` into `buffer`.
    auto fetch = [&](int buffer, size_t system) {
        float *rows = staged + buffer * 4 * ROWS;
        const size_t first = system * n;
        mbarrier_arrive_expect_bytes(&landed[buffer], 4 * bytes);
        bulk_load(rows, a + first, bytes, &landed[buffer]);
        bulk_load(rows + ROWS, b + first, bytes, &landed[buffer]);
        bulk_load(rows + 2 * ROWS, c + first, bytes, &landed[buffer]);
        bulk_load(rows + 3 * ROWS, d + first, bytes, &landed[buffer]);
    };
    if (t == 0) {
        mbarrier_init(&landed[0], 1);
        mbarrier_init(&landed[1], 1);
        mbarrier_init_fence();
        fetch(0, blockIdx.x); // gridDim.x <= M
    }
    __syncthreads();
    const int count = min(K, max(n - t * K, 0));
    unsigned k = 0;
    for (size_t system = blockIdx.x; system < shape.m; system += gridDim.x, k++) {
        const int buffer = k & 1;
        if (t == 0 && system + gridDim.x < shape.m)
            fetch(buffer ^ 1, system + gridDim.x);
        mbarrier_wait_parity(&landed[buffer], (k >> 1) & 1u);
        const float *rows = staged + buffer * 4 * ROWS;
        float ra[K], rb[K], rc[K], rx[1][K];
        load_rows<K>(rows, t * K, count, 0.0f, ra);
        load_rows<K>(rows + ROWS, t * K, count, 1.0f, rb);
        load_rows<K>(rows + 2 * ROWS, t * K, count, 0.0f, rc);
        load_rows<K>(rows + 3 * ROWS, t * K, count, 0.0f, rx[0]);
        partition_system<K, T>(ra, rb, rc, rx, shape, scratch);
        store_rows<K>(x, system * n + t * K, count, rx[0]);
    }
#endif
}

// --- v8: systems longer than a block, in segments across blocks ------------------------

// v8 splits a system of NX rows into P segments of at most SEGMENT_ROWS (one block
// each, 1024 rows: K = 8 a thread, 4 warps). Segment p covers rows [lo, hi); its
// last row hi - 1 is the segment's unknown in a reduced system, the rows before it
// (the inner rows [lo, hi - 1)) are solved in terms of it (the SPIKE algorithm,
// Polizzi and Sameh; the partition idea of v6 one level up):
//  1. segment_spikes: a block solves its inner rows' matrix A' (a of row lo and c of
//     row hi - 2 cut) for three right-hand sides at once: the data (y), a_lo at the
//     first row (v) and c at the last (w); then inner x = y - v x(lo-1) - w x(hi-1).
//     It keeps the six numbers the reduced system needs: y, v, w at both ends.
//  2. reduced_rows: row hi - 1 of segment p, with x(hi-2) and x(hi) replaced by those
//     expressions, couples only the last rows of segments p-1, p and p+1: a
//     tridiagonal system of P unknowns a system, solved by v6 (P <= 1024).
//  3. segment_finish: each block solves its inner rows again with x(lo-1) and
//     x(hi-1) known (moved to the right-hand side) and writes x.
// Bytes: steps 1 and 3 read a, b, c and the right-hand side (16 bytes a row each)
// and step 3 writes x (4): 36 bytes a row a solve, against v6's 20 for all NITER
// solves; the reduced system moves ~60 bytes a segment, 1/20 of a row's bytes.
enum { SEGMENT_K = 8, SEGMENT_T = 128, SEGMENT_ROWS = SEGMENT_K * SEGMENT_T };

struct segment {
    size_t system, id; // id: system P + p
    int p, lo, hi;     // rows [lo, hi) of the system
};

__device__ __forceinline__ segment segment_of(size_t id, int nx, int segments)
{
    segment s;
    s.id = id;
    s.system = id / segments;
    s.p = (int)(id % segments);
    s.lo = (int)((long long)s.p * nx / segments); // balanced: lengths differ by one at most
    s.hi = (int)((long long)(s.p + 1) * nx / segments);
    return s;
}

// A segment block's inner rows, K a thread, into registers: rhs scaled by lambda.
struct segment_rows_in_registers {
    float ra[SEGMENT_K], rb[SEGMENT_K], rc[SEGMENT_K];
    int count;    // this thread's real rows
    size_t first; // its first row's index in the arrays
};

__device__ __forceinline__ segment_rows_in_registers load_inner_rows(const float *a, const float *b,
                                                                     const float *c, segment s,
                                                                     int nx)
{
    segment_rows_in_registers rows;
    const int t = threadIdx.x, inner = s.hi - 1 - s.lo;
    rows.first = s.system * nx + s.lo + t * SEGMENT_K;
    rows.count = min(SEGMENT_K, max(inner - t * SEGMENT_K, 0));
    load_rows<SEGMENT_K>(a, rows.first, rows.count, 0.0f, rows.ra);
    load_rows<SEGMENT_K>(b, rows.first, rows.count, 1.0f, rows.rb);
    load_rows<SEGMENT_K>(c, rows.first, rows.count, 0.0f, rows.rc);
    return rows;
}

// Whether register j of this thread holds the last inner row.
__device__ __forceinline__ bool is_last_inner(segment s, int j)
{
    return (int)threadIdx.x * SEGMENT_K + j == s.hi - 2 - s.lo;
}

// Step 1: y, v, w at the inner rows' ends, six floats a segment: y, v, w at the
// first inner row, then at the last.
__global__ void __launch_bounds__(SEGMENT_T)
    segment_spikes(const float *a, const float *b, const float *c, const float *rhs, float lambda,
                   int nx, int segments, float *spikes)
{
    __shared__ float scratch[2 * 3 * SEGMENT_T];
    const segment s = segment_of(blockIdx.x, nx, segments);
    segment_rows_in_registers m = load_inner_rows(a, b, c, s, nx);
    float rd[3][SEGMENT_K];
    load_rows<SEGMENT_K>(rhs, m.first, m.count, 0.0f, rd[0]);
#pragma unroll
    for (int j = 0; j < SEGMENT_K; j++) {
        rd[0][j] *= lambda;
        rd[1][j] = threadIdx.x == 0 && j == 0 && s.p > 0 ? m.ra[0] : 0.0f; // v: a_lo, first row
        rd[2][j] = is_last_inner(s, j) ? m.rc[j] : 0.0f;                   // w: c at the last
        if (is_last_inner(s, j))
            m.rc[j] = 0.0f;
    }
    if (threadIdx.x == 0)
        m.ra[0] = 0.0f;
    partition_factors<SEGMENT_K, SEGMENT_T> f;
    partition_factor<SEGMENT_K, SEGMENT_T>(m.ra, m.rb, m.rc, f, scratch);
    partition_solve<SEGMENT_K, SEGMENT_T, 3>(f, rd, scratch);
    float *out = spikes + 6 * s.id;
#pragma unroll
    for (int j = 0; j < SEGMENT_K; j++)
#pragma unroll
        for (int r = 0; r < 3; r++) {
            if (threadIdx.x == 0 && j == 0)
                out[r] = rd[r][0];
            if (is_last_inner(s, j))
                out[3 + r] = rd[r][j];
        }
}

// Step 2: reduced row p from row hi - 1 of segment p, where
// x(hi-2) = y - v x(last of p-1) - w x(hi-1) (segment p's spikes at its last inner
// row) and x(hi) = y' - v' x(hi-1) - w' x(last of p+1) (p+1's at its first).
__global__ void reduced_rows(const float *a, const float *b, const float *c, const float *rhs,
                             float lambda, int nx, int segments, size_t count, const float *spikes,
                             float *ra, float *rb, float *rc, float *rd)
{
    const size_t id = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= count)
        return;
    const segment s = segment_of(id, nx, segments);
    const size_t row = s.system * nx + s.hi - 1;
    const float *own = spikes + 6 * id + 3, *next = spikes + 6 * (id + 1);
    float r_a = -a[row] * own[1], r_b = b[row] - a[row] * own[2], r_c = 0.0f,
          r_d = lambda * rhs[row] - a[row] * own[0];
    if (s.p + 1 < segments) { // the system's last row has no c
        const float cl = c[row];
        r_b -= cl * next[1];
        r_c = -cl * next[2];
        r_d -= cl * next[0];
    }
    ra[id] = r_a, rb[id] = r_b, rc[id] = r_c, rd[id] = r_d;
}

// Step 3: the inner rows with x(lo-1) and x(hi-1) known; x written (rhs may be x).
__global__ void __launch_bounds__(SEGMENT_T)
    segment_finish(const float *a, const float *b, const float *c, const float *rhs, float lambda,
                   int nx, int segments, const float *x_reduced, float *x)
{
    __shared__ float scratch[2 * 3 * SEGMENT_T];
    const segment s = segment_of(blockIdx.x, nx, segments);
    segment_rows_in_registers m = load_inner_rows(a, b, c, s, nx);
    const float x_before = s.p > 0 ? x_reduced[s.id - 1] : 0.0f, x_end = x_reduced[s.id];
    float rd[1][SEGMENT_K];
    load_rows<SEGMENT_K>(rhs, m.first, m.count, 0.0f, rd[0]);
#pragma unroll
    for (int j = 0; j < SEGMENT_K; j++) {
        rd[0][j] *= lambda;
        if (is_last_inner(s, j)) {
            rd[0][j] -= m.rc[j] * x_end;
            m.rc[j] = 0.0f;
        }
    }
    if (threadIdx.x == 0) {
        rd[0][0] -= m.ra[0] * x_before;
        m.ra[0] = 0.0f;
    }
    partition_factors<SEGMENT_K, SEGMENT_T> f;
    partition_factor<SEGMENT_K, SEGMENT_T>(m.ra, m.rb, m.rc, f, scratch);
    partition_solve<SEGMENT_K, SEGMENT_T, 1>(f, rd, scratch);
    store_rows<SEGMENT_K>(x, m.first, m.count, rd[0]);
    if (threadIdx.x == 0)
        x[s.system * nx + s.hi - 1] = x_end;
}

// --- workspace and launchers --------------------------------------------------------------

struct tridiag_workspace {
    cl_device_scratch segments; // v8: spikes (6 floats), reduced rows (4) and x (1) a segment
};

extern "C" tridiag_workspace *tridiag_workspace_create(void) { return new tridiag_workspace(); }

extern "C" void tridiag_workspace_destroy(tridiag_workspace *ws)
{
    cl_scratch_free(&ws->segments);
    delete ws;
}

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
                      tridiag_shape shape, tridiag_workspace *, cudaStream_t s)
{
    size_t per_system = thomas_row_bytes(shape.nx);
    size_t threads = THOMAS_SHARED_TARGET / per_system;
    if (threads < 1)
        threads = cl_device_current()->shared_optin_bytes / per_system;
    if (threads > THOMAS_MAX_THREADS)
        threads = THOMAS_MAX_THREADS;
    if (threads >= 32)
        threads -= threads % 32;
    unsigned blocks = (unsigned)((shape.m + threads - 1) / threads);
    // Past 48 KB a block, the kernel's shared-memory allowance is raised first.
    cl_kernel_fit_for((const void *)thomas_shared, (int)threads, threads * per_system);
    thomas_shared<<<blocks, (unsigned)threads, threads * per_system, s>>>(a, b, c, d, x, shape);
    CL_LAUNCH_CHECK();
}

// Whether v6 prefetches (a fixed fact of the GPU, so tests and benchmarks run the same
// code whatever the load): where the memory's rated bandwidth is more than 30 GB/s an
// SM. An H200 (4.9 TB/s rated, 132 SMs: 37 an SM) gains from it, an H100 SXM (3.35
// TB/s: 25 an SM) loses (README.md, "Measured").
static bool prefetching_pays(const cl_device_info *device)
{
    return device->dram_rated_gbps / device->sm_count > 30.0;
}

// v6 with a block a system, aligned, where prefetching pays and the kernel's code has
// the bulk-copy engine: partition_pcr_prefetch on as many blocks as stay resident (at
// most M); returns false, launching nothing, otherwise.
template <int K, int T>
static bool launch_partition_prefetch(const float *a, const float *b, const float *c,
                                      const float *d, float *x, tridiag_shape shape, cudaStream_t s)
{
    constexpr size_t SHARED = 2 * 4 * T * K * sizeof(float);
    const bool aligned = shape.nx % 4 == 0 &&
                         (((uintptr_t)a | (uintptr_t)b | (uintptr_t)c | (uintptr_t)d) & 15u) == 0;
    if (!aligned || !prefetching_pays(cl_device_current()))
        return false;
    const cl_kernel_fit fit =
        cl_kernel_fit_for((const void *)partition_pcr_prefetch<K, T>, T, SHARED);
    if (fit.code_arch < CL_BULK_COPY_ARCH)
        return false;
    if (fit.blocks_per_sm < 1)
        cl_die(CL_EXIT_CUDA, "tridiag's v6 (%zu bytes of shared memory) fits no SM", SHARED);
    const size_t grid = (size_t)fit.resident < shape.m ? (size_t)fit.resident : shape.m;
    partition_pcr_prefetch<K, T><<<(unsigned)grid, T, SHARED, s>>>(a, b, c, d, x, shape);
    CL_LAUNCH_CHECK();
    return true;
}

// v6: K rows a thread, T threads a system, T K >= NX; a block a system by the
// prefetching kernel where it pays.
template <int K, int T>
static void launch_partition(const float *a, const float *b, const float *c, const float *d,
                             float *x, tridiag_shape shape, cudaStream_t s)
{
    if constexpr (T > 32) {
        if (launch_partition_prefetch<K, T>(a, b, c, d, x, shape, s))
            return;
    }
    constexpr int threads = partition_block<T>(), per_block = threads / T;
    partition_pcr<K, T><<<cl_ceil_div(shape.m, per_block), threads, 0, s>>>(a, b, c, d, x, shape);
    CL_LAUNCH_CHECK();
}

// The shapes: 4 rows a thread up to NX = 128 (16-byte loads), 8 above; the threads a
// system grow with NX (README.md has the sweep).
static void launch_v6(const float *a, const float *b, const float *c, const float *d, float *x,
                      tridiag_shape shape, tridiag_workspace *, cudaStream_t s)
{
    if (shape.nx <= 4)
        launch_partition<2, 2>(a, b, c, d, x, shape, s);
    else if (shape.nx <= 8)
        launch_partition<2, 4>(a, b, c, d, x, shape, s);
    else if (shape.nx <= 16)
        launch_partition<4, 4>(a, b, c, d, x, shape, s);
    else if (shape.nx <= 32)
        launch_partition<4, 8>(a, b, c, d, x, shape, s);
    else if (shape.nx <= 64)
        launch_partition<4, 16>(a, b, c, d, x, shape, s);
    else if (shape.nx <= 128)
        launch_partition<4, 32>(a, b, c, d, x, shape, s);
    else if (shape.nx <= 256)
        launch_partition<8, 32>(a, b, c, d, x, shape, s);
    else if (shape.nx <= 512)
        launch_partition<8, 64>(a, b, c, d, x, shape, s);
    else
        launch_partition<8, 128>(a, b, c, d, x, shape, s);
}

// v8: the three steps of segment_spikes' comment, once a solve; the right-hand side
// is d scaled by lambda, then x in place.
static void launch_v8(const float *a, const float *b, const float *c, const float *d, float *x,
                      tridiag_shape shape, tridiag_workspace *ws, cudaStream_t s)
{
    const int segments = (int)cl_ceil_div((size_t)shape.nx, SEGMENT_ROWS);
    const size_t count = (size_t)segments * shape.m;
    float *spikes = (float *)cl_scratch_reserve(&ws->segments, 11 * count * sizeof(float));
    float *ra = spikes + 6 * count, *rb = ra + count, *rc = rb + count, *rd = rc + count,
          *x_reduced = rd + count;
    const tridiag_shape reduced = {segments, shape.m, 1, 1.0f};
    for (int it = 0; it < shape.niter; it++) {
        const float *rhs = it == 0 ? d : x;
        segment_spikes<<<(unsigned)count, SEGMENT_T, 0, s>>>(a, b, c, rhs, shape.lambda, shape.nx,
                                                             segments, spikes);
        CL_LAUNCH_CHECK();
        reduced_rows<<<cl_ceil_div(count, 256), 256, 0, s>>>(
            a, b, c, rhs, shape.lambda, shape.nx, segments, count, spikes, ra, rb, rc, rd);
        CL_LAUNCH_CHECK();
        launch_v6(ra, rb, rc, rd, x_reduced, reduced, ws, s);
        segment_finish<<<(unsigned)count, SEGMENT_T, 0, s>>>(a, b, c, rhs, shape.lambda, shape.nx,
                                                             segments, x_reduced, x);
        CL_LAUNCH_CHECK();
    }
}

// v7: by shape, from the sweep in README.md: v6 wherever its padding rows (T K - NX
// of them) cost less than v5's staging through shared memory, which leaves v5 at
// NX = 1, 2 and 5..7 (measured at 32M rows on an H100); past 1024 rows, more than one
// block holds, v8.
static void launch_v7(const float *a, const float *b, const float *c, const float *d, float *x,
                      tridiag_shape shape, tridiag_workspace *ws, cudaStream_t s)
{
    if (shape.nx <= 2 || (shape.nx > 4 && shape.nx < 8))
        launch_v5(a, b, c, d, x, shape, ws, s);
    else if (shape.nx <= 1024)
        launch_v6(a, b, c, d, x, shape, ws, s);
    else
        launch_v8(a, b, c, d, x, shape, ws, s);
}

// The reduced system of v8 has NX / 1024 rows, solved by v6 (at most 1024).
static_assert(TRIDIAG_MAX_NX <= SEGMENT_ROWS * 1024, "v8's reduced system fits v6");

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
    {{"v7-batched", "by shape: v6 to NX = 1024 (v5 where NX = 1, 2, 5..7), v8 above"},
     launch_v7,
     1,
     TRIDIAG_MAX_NX},
    {{"v8-segments", "systems longer than a block: segments across blocks, a reduced system"},
     launch_v8,
     2,
     TRIDIAG_MAX_NX},
    {{"yours", tridiag_yours_idea}, tridiag_yours, 1, tridiag_yours_max_nx},
};
extern "C" const int tridiag_version_count = sizeof tridiag_versions / sizeof tridiag_versions[0];
extern "C" const char tridiag_fastest_version[] = "v7-batched";

// --- the peer: cuSPARSE --------------------------------------------------------------------

struct tridiag_peer {
    tridiag_peer_kind kind;
    cusparseHandle_t handle;
    void *buffer;
    float *c_solved; // interleaved: the copy of c each solve overwrites (with c')
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

// Algorithm 0 of gtsvInterleavedBatch: cuThomasBatch (1 and 2 pivot: LU, QR).
enum { INTERLEAVED_THOMAS = 0 };

extern "C" tridiag_peer *tridiag_peer_create(tridiag_peer_kind kind, float *a, float *b, float *c,
                                             float *x, tridiag_shape shape)
{
    tridiag_peer *peer = new tridiag_peer;
    peer->kind = kind;
    CL_CUSPARSE_CHECK(cusparseCreate(&peer->handle));
    size_t bytes = 0;
    if (kind == TRIDIAG_PEER_STRIDED)
        CL_CUSPARSE_CHECK(cusparseSgtsv2StridedBatch_bufferSizeExt(
            peer->handle, shape.nx, a, b, c, x, (int)shape.m, shape.nx, &bytes));
    else
        CL_CUSPARSE_CHECK(cusparseSgtsvInterleavedBatch_bufferSizeExt(
            peer->handle, INTERLEAVED_THOMAS, shape.nx, a, b, c, x, (int)shape.m, &bytes));
    CL_CUDA_CHECK(cudaMalloc(&peer->buffer, bytes ? bytes : 1));
    peer->c_solved = NULL;
    if (kind == TRIDIAG_PEER_INTERLEAVED)
        CL_CUDA_CHECK(cudaMalloc(&peer->c_solved, (size_t)shape.nx * shape.m * sizeof(float)));
    return peer;
}

extern "C" void tridiag_peer_run(tridiag_peer *peer, float *a, float *b, float *c, const float *d,
                                 float *x, tridiag_shape shape)
{
    size_t n = (size_t)shape.nx * shape.m;
    scale(d, x, n, shape.lambda);
    for (int it = 0; it < shape.niter; it++) {
        if (it > 0 && shape.lambda != 1.0f)
            scale(x, x, n, shape.lambda);
        if (peer->kind == TRIDIAG_PEER_STRIDED)
            CL_CUSPARSE_CHECK(cusparseSgtsv2StridedBatch(peer->handle, shape.nx, a, b, c, x,
                                                         (int)shape.m, shape.nx, peer->buffer));
        else { // it leaves c' where c was: each solve starts from a fresh copy of c
            CL_CUDA_CHECK(
                cudaMemcpyAsync(peer->c_solved, c, n * sizeof(float), cudaMemcpyDeviceToDevice, 0));
            CL_CUSPARSE_CHECK(cusparseSgtsvInterleavedBatch(peer->handle, INTERLEAVED_THOMAS,
                                                            shape.nx, a, b, peer->c_solved, x,
                                                            (int)shape.m, peer->buffer));
        }
    }
}

extern "C" void tridiag_peer_destroy(tridiag_peer *peer)
{
    CL_CUSPARSE_CHECK(cusparseDestroy(peer->handle));
    CL_CUDA_CHECK(cudaFree(peer->buffer));
    CL_CUDA_CHECK(cudaFree(peer->c_solved));
    delete peer;
}

// fft v7's pass kernels, the host side: the plan of a pass for them (its stages from
// fft_staged_radices, its block's shape, the instance of its tier), their launches, and
// Bluestein's kernels in one. The kernels, their stages and the napkin math are in
// staged_kernels.cuh; the HUGE instances are compiled apart (staged_huge.cu), in a job of
// their own.
#include <stdio.h>
#include <string.h>

#include "staged_kernels.cuh"

// Bluestein's algorithm for n points on m-point transforms, all of it in one kernel (C
// transforms a block, laid out as staged_whole_kernel's, bluestein_points): x_p c_p loaded
// by the first stage (zero past n), the forward transform, the product with the chirp's
// spectrum S (scaled by 1/m) and the conjugate, the forward transform again
// (conj(forward(conj)) is the inverse), conj(y_p) c_p stored by the last stage for p < n.
// Each point crosses DRAM once, 8 bytes in and 8 out, where the unfused form moves it
// five times.
__global__ void __launch_bounds__(STAGED_MAX_THREADS, 1)
    staged_bluestein_kernel(const float2 *x, float2 *y, const __grid_constant__ pass_desc d)
{
    extern __shared__ float2 sm[];
    const int n = d.pad_n, m = d.m;
    unsigned first;
    const int columns = block_columns(d, first);
    const bluestein_points at = {{m, d.columns_per_block == 1},
                                 x + (size_t)first * n,
                                 y + (size_t)first * n,
                                 n,
                                 sign_mask(d.conj_in),
                                 sign_mask(d.conj_out),
                                 d.chirp};
    float2 *const buffer1 = sm + d.pitch;
    float2 *cur = staged_stages<TIER_SMALL>(at, d, columns, sm, buffer1, true, false);
    // The first transform's last stage leaves buffer `stages`, laid out as buffer 0, which
    // the second's first stage reads (the plan makes them one).
    const float inv_m = rcp(m), scale = 1.0f / (float)m;
    const int pitch = d.stage[0].in_pitch;
    for (int i = threadIdx.x; i < columns * m; i += blockDim.x) {
        int p;
        const int c = div_mod(i, m, inv_m, p);
        cur[c * pitch + p] = filter_out(cur[c * pitch + p], d.spectrum, p, scale);
    }
    __syncthreads();
    staged_stages<TIER_SMALL>(at, d, columns, cur, cur == sm ? buffer1 : sm, false, true);
}

// Bluestein's kernel in one buffer (d.in_place), one transform a block: x_p c_p loaded by
// DIF's first stage, its stages in place, the product with the spectrum (which the plan
// gives in DIF's order, fft_dif_slot, so no reordering here), DIT's stages taking that
// order back to the natural one, the last storing conj(y_p) c_p.
__global__ void __launch_bounds__(STAGED_MAX_THREADS, 1)
    staged_bluestein_inplace_kernel(const float2 *x, float2 *y, const pass_desc d)
{
    extern __shared__ float2 sm[];
    const int n = d.pad_n, m = d.m;
    const bluestein_points at = {{m, true}, x + (size_t)blockIdx.x * n, y + (size_t)blockIdx.x * n,
                                 n,         sign_mask(d.conj_in),       sign_mask(d.conj_out),
                                 d.chirp};
    inplace_stages<TIER_SMALL, false, true, false>(at, d, sm);
    const float scale = 1.0f / (float)m;
    for (int p = threadIdx.x; p < m; p += blockDim.x)
        sm[padded_slot(p)] = filter_out(sm[padded_slot(p)], d.spectrum, p, scale);
    __syncthreads();
    inplace_stages<TIER_SMALL, true, false, true>(at, d, sm);
}

// --- the plan ------------------------------------------------------------------------------

// A stage's loads from global memory straight into registers come in runs of m / R
// points; under 4 (a 32-byte sector) the block copies its points in through shared memory
// first (and out after the last stage, likewise). A one-stage transform up to 5 points
// runs from registers (staged_single).
enum { STAGED_DIRECT_RUN = 4, STAGED_SINGLE_MAX = 5 };

// The radices as radix - 1 in 6 bits a stage (pass_desc's radix_code, made by the plan: a
// run-time index into d.radix would copy d to local memory, and building the code in the
// kernel took 2.5% of its instructions at 1000 under ncu).
static unsigned long long staged_radix_code(const pass_desc &d)
{
    unsigned long long code = 0;
    for (int s = 0; s < d.stages; s++)
        code |= (unsigned long long)((d.radix[s] - 1) & 63) << (6 * s);
    return code;
}

// d's largest radix, and the instance that runs its stages: HUGE with a prime 37 .. 47,
// LARGE with a large radix 17 .. 31, else SMALL.
static int largest_radix(const pass_desc &d)
{
    int largest = 0;
    for (int s = 0; s < d.stages; s++)
        largest = d.radix[s] > largest ? d.radix[s] : largest;
    return largest;
}
static int staged_tier(const pass_desc &d)
{
    const int largest = largest_radix(d);
    return largest > 31 ? TIER_HUGE : largest > 16 ? TIER_LARGE : TIER_SMALL;
}
static staged_kernel staged_kernel_of(const pass_desc &d)
{
    switch (staged_tier(d)) {
    case TIER_HUGE:
        return staged_huge_kernel_of(d);
    case TIER_LARGE:
        return staged_kernel_in<TIER_LARGE>(d);
    default:
        return staged_kernel_in<TIER_SMALL>(d);
    }
}

// A stage of a prime 17 .. 47 costs about r^2 / 4 FMAs a butterfly (dft_odd), and its kernels
// run few blocks an SM (LARGE 2, HUGE 1: their registers). A block whose widest stage, of
// the largest radix, has fewer butterflies than the block has threads leaves warps idle
// while a few run it: 3774 = 74 x 51 in two passes over columns of 16 took 3.1 ms on 2^24
// points (H200; cuFFT 0.19), its 37-point stage 32 butterflies in a block of 256 threads,
// one block an SM. Such a block takes more transforms (columns), twice as many while that
// stage is short of threads and its buffers fit the tier's share of shared memory.
static bool prime_stage_short(const pass_desc &d, int transforms, int threads)
{
    return transforms * (d.m / largest_radix(d)) < threads;
}
// The shared memory a block of d's tier takes beside the others an SM holds (a HUGE whole
// transform's block, like its columns', is alone).
static size_t tier_smem_share(const pass_desc &d)
{
    return cl_device_current()->shared_optin_bytes /
           (size_t)staged_tier_columns_blocks(staged_tier(d));
}

// The shape of the columns kernel (column_points): C columns interleaved, point p of column
// c at p pitch + c (pitch C + 1); C = 16 (128-byte runs), 8 from m = 512, 4 from 1024,
// more in the LARGE and HUGE tiers where a prime stage is short of threads.
static void columns_shape(pass_desc &d)
{
    int C = d.m < 512 ? 16 : d.m < 1024 ? 8 : 4;
    // The stages between buffers: all but the first, and but the last unless it leaves a
    // first pass's run in shared memory (ns = 1); Bluestein's turn, all of the second
    // transform's.
    const int shared_stages = d.stages - 1 - (d.ns > 1 ? 1 : 0);
    const int buffers = shared_stages > 0 || d.fuse_out == FUSE_TURN ? 2 : 1;
    if (staged_tier(d) != TIER_SMALL) // C a power of two (a thread keeps column tid mod C)
        while (C < STAGED_THREADS && prime_stage_short(d, C, STAGED_THREADS) &&
               buffers * (size_t)(2 * C + 1) * d.m * sizeof(float2) <= tier_smem_share(d))
            C *= 2;
    d.columns_per_block = C;
    d.pitch = C + 1;
    d.smem_bytes = (int)(buffers * (size_t)d.pitch * d.m * sizeof(float2));
    d.block_threads = STAGED_THREADS;
}

// d's stages' constants (staged_stage_consts), and for whole transforms each buffer's layout
// (fft_staged_layout's pad and pitch a buffer; NULL: no pads).
static void staged_stage_plan(pass_desc &d, const int *pad, const int *pitch)
{
    for (int s = 0, ns = 1; s < d.stages; ns *= d.radix[s++]) {
        staged_stage_consts &k = d.stage[s];
        k.ns = ns;
        k.step = d.m / (ns * d.radix[s]);
        k.inv_count = 1.0f / (float)(d.m / d.radix[s]);
        k.inv_ns = 1.0f / (float)ns;
        k.in_pad = pad ? pad[s] : 0;
        k.out_pad = pad ? pad[s + 1] : 0;
        k.in_pitch = pitch ? pitch[s] : d.m;
        k.out_pitch = pitch ? pitch[s + 1] : d.m;
    }
}

// The shape of the whole-transform kernel: C = 2048 / m transforms a block (one from m =
// 3072 on), their C m points one after another, one buffer or two, each laid out by
// fft_staged_layout (pitch: a buffer's slots).
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
    // The buffers' layout for c transforms a block, and a buffer's slots. Bluestein's
    // buffer after the first transform is the one before the second: one layout (no pads
    // at either end).
    int pad[FFT_STAGED_MAX_STAGES + 1], pitch[FFT_STAGED_MAX_STAGES + 1];
    bool padded = buffers > 0;
    const auto layout = [&](int c) {
        if (!padded)
            return 0;
        const int slots = fft_staged_layout(d.m, d.radix, d.stages, c, d.copy_in || bluestein,
                                            d.copy_out || bluestein, pad, pitch);
        if (bluestein)
            pitch[0] = pitch[d.stages];
        return slots;
    };
    // A prime stage with fewer butterflies than the block has threads runs on a warp or two
    // (a stage of 17 .. 47 costs ~R^2 / 4 products a butterfly): the block takes more
    // transforms while their buffers fit the tier's share of shared memory. The HUGE tier
    // always; the LARGE tier for a long transform whose widest stage is a prime (1380 = 23
    // 10 6: 60 butterflies on 256 threads), where a large composite stage (18 .. 30)
    // gained nothing so.
    const int short_of =
        staged_tier(d) == TIER_HUGE ? staged_tier_threads(TIER_HUGE)
        : staged_tier(d) == TIER_LARGE && C == 1 && is_large_prime(largest_radix(d))
            ? (int)STAGED_THREADS
            : 0;
    while (short_of > 0 && prime_stage_short(d, C, short_of) &&
           buffers * (size_t)layout(2 * C) * sizeof(float2) <= tier_smem_share(d))
        C *= 2;
    // 256 threads, 4 blocks an SM (64 registers a thread); a block of one long transform
    // (whose buffers leave room for few blocks an SM) up to a thread a butterfly of the
    // first stage, in steps of 256.
    const int first_butterflies = C == 1 && !d.copy_in ? first_run : 0;
    int threads = (first_butterflies + STAGED_THREADS - 1) / STAGED_THREADS * STAGED_THREADS;
    threads = threads < STAGED_THREADS       ? STAGED_THREADS
              : threads > STAGED_MAX_THREADS ? STAGED_MAX_THREADS
                                             : threads;
    // A LARGE kernel (128 registers: 512 threads an SM) takes a block of 512 only where the
    // first stage has more than 384 butterflies; from 257 to 384 (4624 = 17 17 16: 272) two
    // blocks of 256, looping twice, keep more threads busy than one of 512 with 240 idle
    // (H200: 266 .. 375 butterflies ran 1.04x-1.27x slower in blocks of 512, 406 .. 748
    // 0.87x-0.97x).
    if (staged_tier(d) == TIER_LARGE)
        threads = first_butterflies > STAGED_LARGE_THREADS * 3 / 4 ? (int)STAGED_LARGE_THREADS
                                                                   : (int)STAGED_THREADS;
    else if (staged_tier(d) == TIER_HUGE)
        threads = staged_tier_threads(TIER_HUGE);
    d.columns_per_block = C;
    d.pitch = layout(C);
    d.smem_bytes = (int)(buffers * (size_t)d.pitch * sizeof(float2));
    const cl_device_info *device = cl_device_current();
    const size_t room = device->shared_optin_bytes;
    if (C == 1 && buffers == 2 && (size_t)d.smem_bytes > room &&
        2 * (size_t)d.m * sizeof(float2) <= room) { // no pads: two buffers to m = 14,528
        padded = false;
        d.pitch = d.m;
        d.smem_bytes = (int)(2 * (size_t)d.m * sizeof(float2));
    }
    // The SMALL kernel's block: the transforms (c) and threads (t) that finish the most
    // transforms an SM, by a count of rounds. An SM holds as many blocks as its shared
    // memory takes and the registers allow (64 a thread: STAGED_MAX_THREADS an SM
    // together); a stage of b butterflies takes ceil(b / t) rounds of the block, one after
    // another, so a block whose stages leave threads idle (625 = 5^4 as 3 transforms on 256
    // threads: 375 butterflies a stage, two rounds, the second half empty) finishes fewer.
    // c is at most the 2048 / m points' count (more points a block ran slower: fewer blocks
    // an SM); Bluestein's kernel of several transforms keeps that count and 256 threads (the
    // model moved it by nothing). A long transform alone in its block: a thread a first
    // butterfly took the SM alone from 513 threads (3125 = 5^5: 768, one block, each
    // barrier stopping the SM; 3 blocks of 320 finish more), and where the later stages have
    // more butterflies than the first, they loop (2450 = 10 7 7 5: 256 threads, 7 rounds;
    // 192, 9). The README's tuning notes have the times.
    if (staged_tier(d) == TIER_SMALL && !single && (C == 1 || !bluestein) &&
        (size_t)d.smem_bytes <= room) {
        int widest = 0; // butterflies of one transform's widest stage
        for (int s = 0; s < d.stages; s++)
            widest = d.m / d.radix[s] > widest ? d.m / d.radix[s] : widest;
        double best = 0;
        int best_blocks = 0, best_c = C;
        for (int c = 1; c <= C; c++) {
            const size_t smem =
                c == C ? (size_t)d.smem_bytes : buffers * (size_t)layout(c) * sizeof(float2);
            if (smem > room)
                break;
            const int by_memory =
                (int)(device->shared_sm_bytes / (smem + device->shared_reserved_bytes));
            for (int t = 128; t <= STAGED_MAX_THREADS && t < c * widest + 32; t += 32) {
                const int blocks =
                    by_memory < STAGED_MAX_THREADS / t ? by_memory : STAGED_MAX_THREADS / t;
                int rounds = 0;
                for (int s = 0; s < d.stages; s++)
                    rounds += (c * (d.m / d.radix[s]) + t - 1) / t;
                const double rate = (double)blocks * c / rounds; // transforms a round, an SM
                if (rate > best * 1.0001 || (rate > best * 0.9999 && blocks > best_blocks)) {
                    best = rate;
                    best_blocks = blocks;
                    best_c = c;
                    threads = t;
                }
            }
        }
        if (C > 1) { // the loop left pad and pitch as layout(c) made them for its last c
            C = best_c;
            d.columns_per_block = C;
            d.pitch = layout(C);
            d.smem_bytes = (int)(buffers * (size_t)d.pitch * sizeof(float2));
        }
    }
    d.block_threads = threads;
    // Past two buffers' room (m above 14,528), one transform in one buffer, its stages in
    // place (inplace_stages, padded_slot's layout): one pass to ~27,200 points where the
    // length took two over columns, and Bluestein's m likewise.
    d.in_place = C == 1 && buffers == 2 && (size_t)d.smem_bytes > room;
    if (d.in_place) {
        d.pitch = d.m + (d.m - 1) / 16 + 1;
        d.smem_bytes = (int)((size_t)d.pitch * sizeof(float2));
    }
    staged_stage_plan(d, padded ? pad : NULL, padded ? pitch : NULL);
}

// Fills in d's stages and block shape for the staged kernels (d.n, m, ns, stride, columns
// and contiguous set); false when m has a prime factor above 31 or the block's buffers do
// not fit in shared memory. dry: no device calls.
bool staged_pass_plan(pass_desc &d, bool dry)
{
    d.stages = fft_staged_radices(d.m, FFT_STAGED_MAX_PRIME, d.radix);
    if (d.stages == 0 || (!d.contiguous && d.stages < 2))
        return false;
    if (d.contiguous)
        whole_shape(d, false);
    else {
        columns_shape(d);
        staged_stage_plan(d, NULL, NULL);
    }
    d.threads_per_column = 0;
    if ((size_t)d.smem_bytes > cl_device_current()->shared_optin_bytes)
        return false;
    d.staged = true;
    d.radix_code = staged_radix_code(d);
    if (!dry) // raises the kernel's shared-memory allowance on this device
        cl_kernel_fit_for((const void *)staged_kernel_of(d), d.block_threads, (size_t)d.smem_bytes);
    return true;
}

static unsigned staged_blocks(const pass_desc &d)
{
    return (unsigned)((d.columns + (unsigned)d.columns_per_block - 1) / d.columns_per_block);
}

void staged_pass_launch(const pass_desc &d, const float2 *in, float2 *out, cudaStream_t stream)
{
    staged_kernel_of(d)<<<staged_blocks(d), d.block_threads, d.smem_bytes, stream>>>(in, out, d);
    CL_LAUNCH_CHECK();
}

// Bluestein's one kernel for d: in one buffer past two buffers' room.
static staged_kernel staged_bluestein_kernel_of(const pass_desc &d)
{
    return d.in_place ? staged_bluestein_inplace_kernel : staged_bluestein_kernel;
}

// Bluestein in one kernel: d.m the inner length, d.pad_n = n, d.columns the batch.
bool staged_bluestein_plan(pass_desc &d, bool dry)
{
    d.contiguous = true;
    d.stages = fft_staged_radices(d.m, 13, d.radix);
    if (d.stages == 0)
        return false;
    whole_shape(d, true);
    if ((size_t)d.smem_bytes > cl_device_current()->shared_optin_bytes)
        return false;
    d.staged = true;
    d.radix_code = staged_radix_code(d);
    if (!dry)
        cl_kernel_fit_for((const void *)staged_bluestein_kernel_of(d), d.block_threads,
                          (size_t)d.smem_bytes);
    return true;
}

void staged_bluestein_launch(const pass_desc &d, const float2 *x, float2 *y, cudaStream_t stream)
{
    staged_bluestein_kernel_of(d)<<<staged_blocks(d), d.block_threads, d.smem_bytes, stream>>>(x, y,
                                                                                               d);
    CL_LAUNCH_CHECK();
}

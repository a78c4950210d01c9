// stencil1d: out[i] = in[i] + ... + in[i + 2R], the CUDA-basics notes' first kernel (RADIUS 3,
// BLOCK_SIZE 16, N 1024 ints, every input 1 so every output 7), for any n, any radius 1..64,
// ints and floats. A stencil reads each input 2R + 1 times; the versions differ in where
// those reads come from.
//
// Versions:
//   v1-global    a thread an output, its 2R + 1 inputs straight from global memory
//   v2-shared    the notes' kernel: a block stages its inputs and the two halos in shared
//                memory, __syncthreads(), each thread sums its 2R + 1 neighbours there
//   v3-sliding   15 outputs a thread with one sliding sum in a register (add the value
//                that enters, subtract the one that leaves: 2 reads a step, not 2R + 1),
//                the block's inputs and outputs staged through shared memory with 16-byte
//                moves
//   v4-shuffle   no shared memory: 16-byte loads into registers, prefix sums across the
//                warp by shuffles, each output the difference of two prefixes (the halo
//                comes from the neighbouring lanes, or from the warp's next 128 inputs)
//   yours        yours.cu: the learner's slot
//
// Napkin math for every version: n + 2R inputs read and n outputs written, 4 bytes each:
// 2^28 outputs move 2.15 GB, 0.64 ms at the H100's ~3.35 TB/s and 0.45 ms at the H200's
// ~4.8 TB/s (the device copy rate is the roof: a copy reads and writes the same bytes).
// Reading every input 2R + 1 times is cheap while the repeats hit L1 (v1 at small R) and
// costs instructions and L1 bandwidth as R grows; v3 and v4 do a fixed amount of work an
// output whatever R is.
#include <stdint.h>

#include "check.h"
#include "device.h"
#include "scan.cuh"
#include "stencil1d.h"

// The 16-byte vector of four T: int4 for ints, float4 for floats.
template <typename T> struct vec4_of;
template <> struct vec4_of<int32_t> {
    typedef int4 type;
};
template <> struct vec4_of<float> {
    typedef float4 type;
};

// Four consecutive values from a[i..i+4) (i a multiple of 4, a 16-byte aligned) with one
// 16-byte load where all four exist, else one at a time (zeros past `count`).
template <typename T>
__device__ __forceinline__ void load4(const T *a, size_t i, size_t count, T (&v)[4])
{
    typedef typename vec4_of<T>::type V;
    if (i + 4 <= count) {
        V q = *reinterpret_cast<const V *>(a + i);
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
        return;
    }
#pragma unroll
    for (int c = 0; c < 4; c++)
        v[c] = i + c < count ? a[i + c] : T(0);
}

// Four values to a[i..i+4) (as load4), leaving out those at `count` and past it.
template <typename T>
__device__ __forceinline__ void store4(T *a, size_t i, size_t count, const T (&v)[4])
{
    typedef typename vec4_of<T>::type V;
    if (i + 4 <= count) {
        V q;
        q.x = v[0], q.y = v[1], q.z = v[2], q.w = v[3];
        *reinterpret_cast<V *>(a + i) = q;
        return;
    }
#pragma unroll
    for (int c = 0; c < 4; c++)
        if (i + c < count)
            a[i + c] = v[c];
}

// v1: a thread an output, every input from global memory.
// Idea: the obvious loop. Each input is read by 2R + 1 threads; the repeats hit L1 (a
// block's inputs are a few KB), so DRAM still sees each byte about once, but every output
// costs 2R + 1 load instructions: at R = 3 that hides behind DRAM, at R = 16 or 64 the
// loads themselves (L1 bandwidth and issue slots) set the time.
template <typename T> __global__ void stencil_v1_kernel(const T *in, T *out, size_t n, int radius)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    T sum = 0;
    for (int j = 0; j <= 2 * radius; j++)
        sum += in[i + j];
    out[i] = sum;
}

// v2: the notes' kernel.
// Idea: the block's blockDim.x centres and R halo values at each side are read from global
// memory once into shared memory (temp[lindex] = in[gindex]; the first R threads also
// load the halos), a barrier, then each thread sums its 2R + 1 neighbours from shared
// memory. Why it beats v1: one global load an input (plus 2R halo loads a block) instead
// of 2R + 1, the rest at shared-memory speed. Changed from the notes so it holds for any
// n and block size: loads past the input's end are skipped, threads past n still load
// and reach the barrier, and the halos are loaded in a loop (a block of fewer than R
// threads loads several values a thread).
// Napkin math: (2R + 1) shared reads and adds an output: at R = 16, 33 a value, which
// costs more issue slots than the bytes do at full bandwidth.
template <typename T> __global__ void stencil_v2_kernel(const T *in, T *out, size_t n, int radius)
{
    extern __shared__ __align__(16) unsigned char v2_shared[];
    T *temp = reinterpret_cast<T *>(v2_shared); // blockDim.x + 2R values
    const size_t block_first = (size_t)blockIdx.x * blockDim.x;
    const size_t total = n + 2 * (size_t)radius; // inputs
    const size_t gindex = block_first + threadIdx.x;
    const int lindex = threadIdx.x + radius;
    if (gindex + radius < total)
        temp[lindex] = in[gindex + radius];
    for (int j = threadIdx.x; j < radius; j += blockDim.x) {
        temp[j] = in[block_first + j]; // the left halo: always inside the input
        const size_t right = block_first + blockDim.x + radius + j;
        if (right < total)
            temp[blockDim.x + radius + j] = in[right];
    }
    __syncthreads();
    if (gindex >= n)
        return;
    T sum = 0;
    for (int offset = -radius; offset <= radius; offset++)
        sum += temp[lindex + offset];
    out[gindex] = sum;
}

// v3: a sliding sum in a register, 15 outputs a thread.
// Idea: neighbouring windows share all but two values, so a thread that owns consecutive
// outputs sums its first window once (2R + 1 reads) and then slides: add the value that
// enters, subtract the one that leaves. 15 outputs cost 2R + 1 + 28 shared reads, not
// 15 (2R + 1): at R = 16, 4 an output instead of 33. Inputs come in and outputs go out
// through shared memory with 16-byte moves, so global accesses stay coalesced while each
// thread works on its own stretch; a thread's stretch starts 15 words after its
// neighbour's, and 15 is odd, so the 32 threads of a warp read 32 different banks.
// Floats: each step rounds twice, so the error grows with the steps (stencil_float_tolerance).
// Napkin math: shared memory a block 3968 + 3840 values (31 KB), 7 blocks an SM.
enum { V3_THREADS = 256, V3_OUTPUTS = V3_THREADS * STENCIL_SLIDE };
// The 16-byte vectors a thread moves in staging: ceil(values / 4 / threads).
enum {
    V3_LOADS = (V3_OUTPUTS + 2 * STENCIL_RADIUS_MAX + 4 * V3_THREADS - 1) / (4 * V3_THREADS),
    V3_STORES = (V3_OUTPUTS + 4 * V3_THREADS - 1) / (4 * V3_THREADS),
};
template <typename T>
__global__ void __launch_bounds__(V3_THREADS)
    stencil_v3_kernel(const T *in, T *out, size_t n, int radius)
{
    typedef typename vec4_of<T>::type V;
    __shared__ __align__(16) T tile_in[V3_OUTPUTS + 2 * STENCIL_RADIUS_MAX];
    __shared__ __align__(16) T tile_out[V3_OUTPUTS];
    const size_t first = (size_t)blockIdx.x * V3_OUTPUTS; // a multiple of 4: 16-byte aligned
    const size_t total = n + 2 * (size_t)radius;
    const int inputs = (int)min((size_t)(V3_OUTPUTS + 2 * radius), total - first);
    const int outputs = (int)min((size_t)V3_OUTPUTS, n - first);

    // All of a thread's loads are issued before any is stored: V3_LOADS x 16 bytes in flight.
    T staged[V3_LOADS][4];
#pragma unroll
    for (int k = 0; k < V3_LOADS; k++)
        load4(in + first, 4 * (size_t)(threadIdx.x + k * V3_THREADS), (size_t)inputs, staged[k]);
#pragma unroll
    for (int k = 0; k < V3_LOADS; k++) {
        const int i = 4 * (threadIdx.x + k * V3_THREADS);
        if (i < inputs) {
            V q;
            q.x = staged[k][0], q.y = staged[k][1], q.z = staged[k][2], q.w = staged[k][3];
            *reinterpret_cast<V *>(tile_in + i) = q; // zeros past `inputs`: never summed
        }
    }
    __syncthreads();

    const int mine = threadIdx.x * STENCIL_SLIDE;
    if (mine < outputs) {
        T sum = 0;
        for (int j = 0; j <= 2 * radius; j++)
            sum += tile_in[mine + j];
        tile_out[mine] = sum;
        const int last = min(mine + STENCIL_SLIDE, outputs);
        for (int i = mine + 1; i < last; i++) {
            sum += tile_in[i + 2 * radius] - tile_in[i - 1];
            tile_out[i] = sum;
        }
    }
    __syncthreads();

#pragma unroll
    for (int k = 0; k < V3_STORES; k++) {
        const int i = 4 * (threadIdx.x + k * V3_THREADS);
        if (i < outputs) {
            T v[4];
            V q = *reinterpret_cast<const V *>(tile_out + i);
            v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
            store4(out + first, (size_t)i, (size_t)outputs, v);
        }
    }
}

// v4: prefix sums across the warp, no shared memory.
// Idea: a window's sum is the difference of two prefix sums, P(i + 2R) - P(i - 1), and a
// warp can form prefix sums in registers: each lane loads 4 consecutive inputs with one
// 16-byte load (a warp: 128 inputs, a "segment"), adds them up within the lane, and a
// 5-step shuffle scan (common/scan.cuh) adds the lanes before it. The value 2R ahead lives
// R/2 lanes further on, one shuffle away, or - past the segment's end - in the warp's next
// segment, which each lane also holds (one more load; 2R <= 128). A warp sums SLOTS
// segments; the segment after its last is loaded for the halo only (read again by the
// next warp, from L2). Cost an output: about 3 shuffles and a dozen other instructions,
// whatever R is; no shared memory, no barrier. Which of the 4 values in a lane sits 2R
// ahead depends only on whether R is odd: a template parameter, so it is a register and
// never an index into local memory.
// Floats: the prefixes span up to 2 segments (256 inputs), so each output carries the
// rounding of sums that large (stencil_float_tolerance); ints are exact.
// Napkin math: (SLOTS + 1) x 16 bytes in flight a thread (144 at SLOTS = 8) from 9 loads
// issued together; reads (SLOTS + 1) / SLOTS of the input from L1/L2 and once from DRAM.
enum { V4_THREADS = 256, V4_SLOTS = 8, V4_OUTPUTS_PER_WARP = V4_SLOTS * STENCIL_SEGMENT };
template <typename T, bool ODD_RADIUS>
__global__ void __launch_bounds__(V4_THREADS)
    stencil_v4_kernel(const T *in, T *out, size_t n, int radius)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31;
    const size_t warp = ((size_t)blockIdx.x * V4_THREADS + threadIdx.x) / 32;
    const size_t first = warp * V4_OUTPUTS_PER_WARP;
    if (first >= n) // the whole warp leaves together: the shuffles below see all 32 lanes
        return;
    const size_t total = n + 2 * (size_t)radius;

    // prefix[s][c]: the sum of segment s's inputs up to lane's value c; segment_sum[s]: all 128.
    T prefix[V4_SLOTS + 1][4];
#pragma unroll
    for (int s = 0; s <= V4_SLOTS; s++)
        load4(in, first + (size_t)s * STENCIL_SEGMENT + 4 * lane, total, prefix[s]);
    T segment_sum[V4_SLOTS + 1];
#pragma unroll
    for (int s = 0; s <= V4_SLOTS; s++) {
        prefix[s][1] += prefix[s][0];
        prefix[s][2] += prefix[s][1];
        prefix[s][3] += prefix[s][2];
        const T through_lane = warp_inclusive_scan(prefix[s][3]);
        T before_lane = __shfl_up_sync(full, through_lane, 1);
        if (lane == 0)
            before_lane = 0;
#pragma unroll
        for (int c = 0; c < 4; c++)
            prefix[s][c] += before_lane;
        segment_sum[s] = __shfl_sync(full, through_lane, 31);
    }

#pragma unroll
    for (int s = 0; s < V4_SLOTS; s++) {
        // P(4 lane - 1): the previous lane's last prefix (0 before the segment).
        T before = __shfl_up_sync(full, prefix[s][3], 1);
        if (lane == 0)
            before = 0;
        T result[4];
#pragma unroll
        for (int c = 0; c < 4; c++) {
            const int ahead = (c + 2 * radius) / 4; // lanes from this output to P(i + 2R): 0..32
            const int value = (c + (ODD_RADIUS ? 2 : 0)) % 4; // which of that lane's 4 values
            // The source lane offers its value in segment s to readers of the same segment
            // and in segment s + 1 to those whose target lies past segment s's end (they
            // wrap around to the lanes below `ahead`).
            const T offer = lane >= ahead ? prefix[s][value] : prefix[s + 1][value];
            const T got = __shfl_sync(full, offer, (lane + ahead) & 31);
            const T upto = lane + ahead >= 32 ? segment_sum[s] + got : got;
            result[c] = upto - (c == 0 ? before : prefix[s][c - 1]);
        }
        store4(out, first + (size_t)s * STENCIL_SEGMENT + 4 * lane, n, result);
    }
}

// --- launchers ------------------------------------------------------------------------

template <typename T> static const T *input(const stencil_args *a)
{
    return static_cast<const T *>(a->in);
}
template <typename T> static T *output(const stencil_args *a) { return static_cast<T *>(a->out); }

template <typename T> static void launch_v1_typed(const stencil_args *a, cudaStream_t s)
{
    stencil_v1_kernel<T><<<cl_grid_blocks(a->n, a->block, "v1's grid"), a->block, 0, s>>>(
        input<T>(a), output<T>(a), a->n, a->radius);
    CL_LAUNCH_CHECK();
}

template <typename T> static void launch_v2_typed(const stencil_args *a, cudaStream_t s)
{
    size_t shared = (a->block + 2 * (size_t)a->radius) * sizeof(T);
    stencil_v2_kernel<T><<<cl_grid_blocks(a->n, a->block, "v2's grid"), a->block, shared, s>>>(
        input<T>(a), output<T>(a), a->n, a->radius);
    CL_LAUNCH_CHECK();
}

template <typename T> static void launch_v3_typed(const stencil_args *a, cudaStream_t s)
{
    stencil_v3_kernel<T><<<cl_grid_blocks(a->n, V3_OUTPUTS, "v3's grid"), V3_THREADS, 0, s>>>(
        input<T>(a), output<T>(a), a->n, a->radius);
    CL_LAUNCH_CHECK();
}

template <typename T> static void launch_v4_typed(const stencil_args *a, cudaStream_t s)
{
    const unsigned grid =
        cl_grid_blocks(a->n, (size_t)V4_OUTPUTS_PER_WARP * (V4_THREADS / 32), "v4's grid");
    if (a->radius % 2)
        stencil_v4_kernel<T, true>
            <<<grid, V4_THREADS, 0, s>>>(input<T>(a), output<T>(a), a->n, a->radius);
    else
        stencil_v4_kernel<T, false>
            <<<grid, V4_THREADS, 0, s>>>(input<T>(a), output<T>(a), a->n, a->radius);
    CL_LAUNCH_CHECK();
}

// One launcher a version for both types.
#define BY_TYPE(name)                                                                              \
    static void name(const stencil_args *a, cudaStream_t s)                                        \
    {                                                                                              \
        if (a->type == STENCIL_INT)                                                                \
            name##_typed<int32_t>(a, s);                                                           \
        else                                                                                       \
            name##_typed<float>(a, s);                                                             \
    }
BY_TYPE(launch_v1)
BY_TYPE(launch_v2)
BY_TYPE(launch_v3)
BY_TYPE(launch_v4)

extern "C" const stencil_version stencil_versions[] = {
    {{"v1-global", "a thread an output, its 2R + 1 inputs from global memory (--block)"},
     launch_v1},
    {{"v2-shared", "the notes' kernel: inputs + halos staged in shared memory (--block)"},
     launch_v2},
    {{"v3-sliding", "15 outputs a thread, one sliding sum, 16-byte staging through shared"},
     launch_v3},
    {{"v4-shuffle", "16-byte loads, warp prefix sums by shuffles, no shared memory"}, launch_v4},
    {{"yours", stencil_yours_idea}, stencil_yours},
};
extern "C" const int stencil_version_count = sizeof stencil_versions / sizeof stencil_versions[0];
extern "C" const char stencil_fastest_version[] = "v4-shuffle";

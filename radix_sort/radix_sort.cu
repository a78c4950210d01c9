// radix_sort: stable LSD radix sort of 32-bit unsigned keys (and key/value pairs),
// finishing the Oxford practical 8's sort: from one warp to a multi-block one-sweep
// sort that races CUB.
//
// Versions:
//   v1-warp        one warp sorts up to 32 keys, one bit a pass: __ballot_sync says
//                  which lanes hold a 0 and which a 1, __popc of the lanes below gives
//                  each key its place (zeros first, then ones)
//   v2-block       one block sorts up to 1024 keys, one bit a pass: the places come
//                  from a block-wide exclusive scan of the zero flags in shared memory
//   v3-4bit        any n, 4 bits a pass, three launches a pass: each 1024-key tile
//                  counts its digits; one scan (the suite's, common/scan.h) over the
//                  (digit, tile) counts gives every tile's start for every digit; each
//                  tile sorts itself by the digit in shared memory (four v2 splits) and
//                  writes each key to its digit's start + its place among that digit
//   v4-onesweep    any n, 8 bits a pass, one launch a pass after one histogram of all
//                  passes: 8192-key tiles by ticket rank their keys per warp (ballots
//                  find the lanes sharing a digit), publish their 256 digit counts and
//                  look back over earlier tiles' counts (decoupled look-back, per
//                  digit), then stage the keys in shared memory in sorted order so that
//                  the writes of each digit's run coalesce (Adinets & Merrill 2022)
//   v5-early-counts the suite's sort (common/sort.cu, which the renderer also uses):
//                  v4 reordered so a tile publishes its digit counts before it ranks
//                  its keys, slots from the counts directly, a look-back reading 4
//                  predecessors at once, full tiles without bounds checks, values
//                  copied into shared memory (cp.async) while the keys are ranked,
//                  streaming loads and stores, programmatic dependent launches
//   yours          yours.cu: the learner's slot
//
// Napkin math: a pass reads and writes every key (8 bytes a key, 16 with values): at
// 256M keys 2.1 GB, 0.72 ms at an H100's ~2.97 TB/s copy rate; four 8-bit passes plus
// the histogram's read, 3.2 ms, ~80 Gkeys/s. v3's 4-bit passes and extra launches
// double the bytes and the count pass reads the keys once more. README.md has the
// measured times: v4's passes run at about 40% of the copy rate, v5's at about 55%,
// bound by the ranking's instructions (common/sort.cu), not bytes.
#include <cub/device/device_radix_sort.cuh>

#include "check.h"
#include "device.h"
#include "radix_sort.h"
#include "scan.cuh"
#include "scan.h"
#include "sort.cuh"
#include "sort.h"

struct radix_workspace {
    // The suite's sort (v4, v5), whose alternate buffers v3 and yours share.
    cl_sort_workspace *sort;
    int32_t *scratch;        // n_max + 1: v3's (digit, tile) counts, yours' flags
    cl_scan_workspace *scan; // scans of scratch
};

// --- v1: one warp, one bit a pass --------------------------------------------------------

__global__ void warp_sort(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                          uint32_t *values_out, int n, int bits)
{
    __shared__ uint32_t staged_keys[32], staged_values[32];
    const int lane = threadIdx.x;
    const bool valid = lane < n;
    const unsigned holders = __ballot_sync(~0u, valid), below = (1u << lane) - 1;
    uint32_t key = valid ? keys_in[lane] : 0, value = valid && values_in ? values_in[lane] : 0;
    for (int b = 0; b < bits; b++) {
        const bool one = (key >> b) & 1;
        const unsigned ones = __ballot_sync(~0u, valid && one), zeros = holders & ~ones;
        const int place = one ? __popc(zeros) + __popc(ones & below) : __popc(zeros & below);
        if (valid) {
            staged_keys[place] = key;
            staged_values[place] = value;
        }
        __syncwarp();
        if (valid) {
            key = staged_keys[lane];
            value = staged_values[lane];
        }
        __syncwarp();
    }
    if (valid) {
        keys_out[lane] = key;
        if (values_out)
            values_out[lane] = value;
    }
}

static void sort_v1(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                    uint32_t *values_out, size_t n, int bits, radix_workspace *ws,
                    cudaStream_t stream)
{
    (void)ws;
    warp_sort<<<1, 32, 0, stream>>>(keys_in, values_in, keys_out, values_out, (int)n, bits);
    CL_LAUNCH_CHECK();
}

// --- v2: one block, one bit a pass -------------------------------------------------------------

// A block's stable split of one key a thread (threads below `n` hold keys) by bit b:
// the zeros keep their order at the front, the ones theirs after them. A zero's place
// is the number of zeros before it (an exclusive scan of the zero flags); a one's is
// all the zeros plus the ones before it. Keys and values move through shared memory.
template <int THREADS>
__device__ __forceinline__ void block_split(uint32_t &key, uint32_t &value, bool valid, int bit,
                                            uint32_t *staged_keys, uint32_t *staged_values)
{
    const int zero = valid && !((key >> bit) & 1);
    int zeros;
    const int zeros_before = block_exclusive_scan<int, THREADS>(zero, zeros);
    const int t = threadIdx.x;
    if (valid) {
        const int place = zero ? zeros_before : zeros + (t - zeros_before);
        staged_keys[place] = key;
        staged_values[place] = value;
    }
    __syncthreads();
    if (valid) {
        key = staged_keys[t];
        value = staged_values[t];
    }
    __syncthreads();
}

#define V2_THREADS 1024

__global__ void __launch_bounds__(V2_THREADS)
    block_sort(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
               uint32_t *values_out, int n, int bits)
{
    __shared__ uint32_t staged_keys[V2_THREADS], staged_values[V2_THREADS];
    const int t = threadIdx.x;
    const bool valid = t < n;
    uint32_t key = valid ? keys_in[t] : 0, value = valid && values_in ? values_in[t] : 0;
    for (int b = 0; b < bits; b++)
        block_split<V2_THREADS>(key, value, valid, b, staged_keys, staged_values);
    if (valid) {
        keys_out[t] = key;
        if (values_out)
            values_out[t] = value;
    }
}

static void sort_v2(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                    uint32_t *values_out, size_t n, int bits, radix_workspace *ws,
                    cudaStream_t stream)
{
    (void)ws;
    block_sort<<<1, V2_THREADS, 0, stream>>>(keys_in, values_in, keys_out, values_out, (int)n,
                                             bits);
    CL_LAUNCH_CHECK();
}

// --- v3: multi-block, 4 bits a pass ----------------------------------------------------------

// Each pass: count_digits (a tile's 16 digit counts, stored digit-major: count[d * tiles
// + tile]), one exclusive scan of those counts (so entry (d, tile) becomes the number of
// keys with a smaller digit, plus those with digit d in earlier tiles: where the tile's
// digit-d keys start in the output), then scatter_tile (the tile sorts itself by the
// digit with four one-bit splits, and key i of the sorted tile, with digit d, goes to
// start(d, tile) + i - (where digit d starts in the sorted tile)). Consecutive keys of
// a digit go to consecutive addresses, so the writes mostly coalesce.
#define V3_TILE 1024
#define V3_RADIX 16

__global__ void __launch_bounds__(V3_TILE)
    count_digits(const uint32_t *keys, size_t n, int shift, unsigned mask, int32_t *counts,
                 unsigned tiles)
{
    __shared__ int tile_counts[V3_RADIX];
    const size_t i = (size_t)blockIdx.x * V3_TILE + threadIdx.x;
    if (threadIdx.x < V3_RADIX)
        tile_counts[threadIdx.x] = 0;
    __syncthreads();
    if (i < n)
        atomicAdd(&tile_counts[digit_of(keys[i], shift, mask)], 1);
    __syncthreads();
    if (threadIdx.x < V3_RADIX)
        counts[threadIdx.x * tiles + blockIdx.x] = tile_counts[threadIdx.x];
}

__global__ void __launch_bounds__(V3_TILE)
    scatter_tile(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                 uint32_t *values_out, size_t n, int shift, unsigned mask, const int32_t *starts,
                 unsigned tiles)
{
    __shared__ uint32_t staged_keys[V3_TILE], staged_values[V3_TILE];
    __shared__ int digit_first[V3_RADIX]; // where each digit starts in the sorted tile
    const int t = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * V3_TILE + t;
    const bool valid = i < n;
    uint32_t key = valid ? keys_in[i] : 0, value = valid && values_in ? values_in[i] : 0;
    for (int b = 0; b < 4 && (mask >> b); b++)
        block_split<V3_TILE>(key, value, valid, shift + b, staged_keys, staged_values);
    const unsigned d = digit_of(key, shift, mask);
    if (valid && (t == 0 || digit_of(staged_keys[t - 1], shift, mask) != d))
        digit_first[d] = t;
    __syncthreads();
    if (!valid)
        return;
    const size_t to = (size_t)starts[d * tiles + blockIdx.x] + (t - digit_first[d]);
    keys_out[to] = key;
    if (values_out)
        values_out[to] = value;
}

static void sort_v3(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                    uint32_t *values_out, size_t n, int bits, radix_workspace *ws,
                    cudaStream_t stream)
{
    const unsigned tiles = (unsigned)((n + V3_TILE - 1) / V3_TILE);
    const int passes = (bits + 3) / 4;
    for (int p = 0; p < passes; p++) {
        const int shift = 4 * p, width = bits - shift < 4 ? bits - shift : 4;
        const unsigned mask = (1u << width) - 1;
        const uint32_t *src_keys, *src_values = NULL;
        uint32_t *dst_keys, *dst_values = NULL;
        pass_buffers(p, passes, keys_in, keys_out, radix_workspace_keys(ws), &src_keys, &dst_keys);
        if (values_in)
            pass_buffers(p, passes, values_in, values_out, radix_workspace_values(ws), &src_values,
                         &dst_values);
        count_digits<<<tiles, V3_TILE, 0, stream>>>(src_keys, n, shift, mask, ws->scratch, tiles);
        CL_LAUNCH_CHECK();
        cl_exclusive_scan_i32(ws->scratch, ws->scratch, (size_t)V3_RADIX * tiles, ws->scan, stream);
        scatter_tile<<<tiles, V3_TILE, 0, stream>>>(src_keys, src_values, dst_keys, dst_values, n,
                                                    shift, mask, ws->scratch, tiles);
        CL_LAUNCH_CHECK();
    }
}

// --- v4: one sweep a pass, 8 bits --------------------------------------------------------------

// common/sort.cu's first design: 8 bits a pass, a histogram of every pass in one read,
// then one sweep a pass: tiles by ticket, warp ranking by ballots, per-digit decoupled
// look-back, writes staged in shared memory.
static void sort_v4(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                    uint32_t *values_out, size_t n, int bits, radix_workspace *ws,
                    cudaStream_t stream)
{
    cl_radix_sort_u32_v4(keys_in, values_in, keys_out, values_out, n, bits, ws->sort, stream);
}

// --- v5: the suite's sort -------------------------------------------------------------------

// common/sort.cu's v5 (the renderer bins with it too): counts published before the
// ranking, a wider look-back, full tiles unchecked, values copied in asynchronously.
static void sort_v5(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                    uint32_t *values_out, size_t n, int bits, radix_workspace *ws,
                    cudaStream_t stream)
{
    cl_radix_sort_u32(keys_in, values_in, keys_out, values_out, n, bits, ws->sort, stream);
}

// --- the workspace -----------------------------------------------------------------------------

extern "C" size_t radix_workspace_bytes(size_t n_max, int pairs)
{
    return cl_sort_workspace_bytes(n_max, pairs) + (n_max + 1) * sizeof(int32_t) +
           cl_scan_workspace_bytes(n_max + 1);
}

extern "C" radix_workspace *radix_workspace_create(size_t n_max, int pairs)
{
    radix_workspace *ws = new radix_workspace();
    ws->sort = cl_sort_workspace_create(n_max, pairs);
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->scratch, (n_max + 1) * sizeof(int32_t)));
    ws->scan = cl_scan_workspace_create(n_max + 1);
    return ws;
}

extern "C" void radix_workspace_destroy(radix_workspace *ws)
{
    cl_sort_workspace_destroy(ws->sort);
    CL_CUDA_CHECK(cudaFree(ws->scratch));
    cl_scan_workspace_destroy(ws->scan);
    delete ws;
}

extern "C" uint32_t *radix_workspace_keys(radix_workspace *ws)
{
    return cl_sort_workspace_keys(ws->sort);
}
extern "C" uint32_t *radix_workspace_values(radix_workspace *ws)
{
    return cl_sort_workspace_values(ws->sort);
}
extern "C" int32_t *radix_workspace_scratch(radix_workspace *ws) { return ws->scratch; }
extern "C" cl_scan_workspace *radix_workspace_scan(radix_workspace *ws) { return ws->scan; }

// --- the peer: CUB ---------------------------------------------------------------------------

struct radix_peer {
    cl_device_scratch temp;
};

extern "C" radix_peer *radix_peer_create(size_t n_max, int pairs)
{
    radix_peer *peer = new radix_peer{};
    const int n = (int)n_max;
    size_t bytes = 0;
    if (pairs)
        CL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
            nullptr, bytes, (const uint32_t *)nullptr, (uint32_t *)nullptr,
            (const uint32_t *)nullptr, (uint32_t *)nullptr, n, 0, 32));
    else
        CL_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, (const uint32_t *)nullptr,
                                                     (uint32_t *)nullptr, n, 0, 32));
    cl_scratch_reserve(&peer->temp, bytes);
    return peer;
}

extern "C" void radix_peer_run(radix_peer *peer, const uint32_t *keys_in, const uint32_t *values_in,
                               uint32_t *keys_out, uint32_t *values_out, size_t n, int bits)
{
    size_t bytes = peer->temp.bytes;
    if (values_in)
        CL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(peer->temp.ptr, bytes, keys_in, keys_out,
                                                      values_in, values_out, (int)n, 0, bits));
    else
        CL_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(peer->temp.ptr, bytes, keys_in, keys_out,
                                                     (int)n, 0, bits));
}

extern "C" void radix_peer_destroy(radix_peer *peer)
{
    cl_scratch_free(&peer->temp);
    delete peer;
}

// --- the version table ------------------------------------------------------------------------

extern "C" const radix_version radix_versions[] = {
    {{"v1-warp", "one warp, 32 keys, a bit a pass: __ballot_sync + __popc"}, sort_v1, 32},
    {{"v2-block", "one block, 1024 keys, a bit a pass: shared-memory scans"}, sort_v2, V2_THREADS},
    {{"v3-4bit", "4 bits a pass: tile counts, the suite's scan, stable scatter"},
     sort_v3,
     SIZE_MAX},
    {{"v4-onesweep", "8 bits a pass, one sweep: warp ranks + per-digit look-back"},
     sort_v4,
     SIZE_MAX},
    {{"v5-early-counts", "v4 reordered: counts published before ranking, wide look-back"},
     sort_v5,
     SIZE_MAX},
    {{"yours", radix_yours_idea}, radix_yours, SIZE_MAX},
};
extern "C" const int radix_version_count = sizeof radix_versions / sizeof radix_versions[0];
extern "C" const char radix_fastest_version[] = "v5-early-counts";

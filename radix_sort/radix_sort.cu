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
//   v4-onesweep    any n, 8 bits a pass, one launch a pass after one histogram of
//                  all passes: 8192-key tiles by ticket rank their keys per warp
//                  (ballots find the lanes sharing a digit), publish their 256 digit counts and
//                  look back over earlier tiles' counts (decoupled look-back, per digit), then
//                  stage the keys in shared memory in sorted order so that the
//                  writes of each digit's run coalesce (Adinets & Merrill 2022)
//   yours          yours.cu: the learner's slot
//
// Napkin math: a pass reads and writes every key (8 bytes a key, 16 with values): at
// 256M keys 2.1 GB, 0.72 ms at an H100's ~2.97 TB/s copy rate; four 8-bit passes plus
// the histogram's read, 3.2 ms, ~80 Gkeys/s. v3's 4-bit passes and extra launches
// double the bytes and the count pass reads the keys once more. Measured (H100, 256M):
// v4 7.7 ms (33 Gkeys/s), CUB 6.1 ms: v4's passes run at 40% of the copy rate,
// bound by latency (the look-back goes one tile at a time), not bytes.
#include <cub/device/device_radix_sort.cuh>

#include "check.h"
#include "device.h"
#include "radix_sort.h"
#include "scan.cuh"
#include "scan.h"

struct radix_workspace {
    size_t n_max;
    int pairs;
    uint32_t *keys, *values;     // the alternate buffers
    int32_t *scratch;            // n_max + 1: v3's (digit, tile) counts, yours' flags
    cl_scan_workspace *scan;     // scans of scratch
    cl_scan_workspace *lookback; // v4: a status word per (tile, digit)
    unsigned *digit_starts;      // v4: [4][256] counts, then exclusive sums
};

// The buffers pass p reads and writes when a sort takes `passes` passes: the last one
// writes out, the ones before alternate with the workspace, the first reads in.
template <typename T>
static void pass_buffers(int p, int passes, const T *in, T *out, T *alternate, const T **src,
                         T **dst)
{
    *dst = (passes - 1 - p) % 2 == 0 ? out : alternate;
    *src = p == 0 ? in : ((passes - p) % 2 == 0 ? out : alternate);
}

__device__ __forceinline__ unsigned digit_of(uint32_t key, int shift, unsigned mask)
{
    return (key >> shift) & mask;
}

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
        pass_buffers(p, passes, keys_in, keys_out, ws->keys, &src_keys, &dst_keys);
        if (values_in)
            pass_buffers(p, passes, values_in, values_out, ws->values, &src_values, &dst_values);
        count_digits<<<tiles, V3_TILE, 0, stream>>>(src_keys, n, shift, mask, ws->scratch, tiles);
        CL_LAUNCH_CHECK();
        cl_exclusive_scan_i32(ws->scratch, ws->scratch, (size_t)V3_RADIX * tiles, ws->scan, stream);
        scatter_tile<<<tiles, V3_TILE, 0, stream>>>(src_keys, src_values, dst_keys, dst_values, n,
                                                    shift, mask, ws->scratch, tiles);
        CL_LAUNCH_CHECK();
    }
}

// --- v4: one sweep a pass, 8 bits --------------------------------------------------------------

#define V4_RADIX 256
#define V4_THREADS 256
// Keys a thread: 32 for keys alone (8192-key tiles, half as many look-backs: 256M keys
// 11.94 -> 10.12 ms, 16M unchanged, 1M and 4M slower), 16 with values (their staging
// would not fit in 48 KB of shared memory).
template <bool PAIRS> struct v4_shape {
    static constexpr int items = PAIRS ? 16 : 32, tile = V4_THREADS * items;
};
#define V4_WARPS (V4_THREADS / 32)
#define V4_MAX_PASSES 4

// One read of the keys counts the digits of every pass: block histograms in shared
// memory (two copies, even and odd warps, to halve the collisions of the atomics),
// four keys in flight a thread, then one atomicAdd a bin a block.
__global__ void __launch_bounds__(V4_THREADS)
    count_all_digits(const uint32_t *keys, size_t n, int bits, unsigned *counts)
{
    __shared__ unsigned block_counts[2][V4_MAX_PASSES * V4_RADIX];
    const int passes = (bits + 7) / 8;
    unsigned masks[V4_MAX_PASSES];
#pragma unroll
    for (int p = 0; p < V4_MAX_PASSES; p++)
        masks[p] = p < passes ? (bits - 8 * p < 8 ? (1u << (bits - 8 * p)) - 1 : 0xFFu) : 0;
    for (int j = threadIdx.x; j < 2 * V4_MAX_PASSES * V4_RADIX; j += V4_THREADS)
        block_counts[j / (V4_MAX_PASSES * V4_RADIX)][j % (V4_MAX_PASSES * V4_RADIX)] = 0;
    __syncthreads();
    unsigned *mine = block_counts[(threadIdx.x >> 5) & 1];
    const size_t stride = (size_t)gridDim.x * V4_THREADS;
    for (size_t i = (size_t)blockIdx.x * V4_THREADS + threadIdx.x; i < n; i += 4 * stride) {
        uint32_t key[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            key[u] = i + u * stride < n ? keys[i + u * stride] : 0;
#pragma unroll
        for (int u = 0; u < 4; u++)
            if (i + u * stride < n)
#pragma unroll
                for (int p = 0; p < V4_MAX_PASSES; p++)
                    if (p < passes)
                        atomicAdd(&mine[p * V4_RADIX + digit_of(key[u], 8 * p, masks[p])], 1u);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < passes * V4_RADIX; j += V4_THREADS) {
        const unsigned c = block_counts[0][j] + block_counts[1][j];
        if (c)
            atomicAdd(&counts[j], c);
    }
}

// Each pass's counts become exclusive sums: where each digit's keys start.
__global__ void __launch_bounds__(V4_RADIX) digit_starts_from_counts(unsigned *counts)
{
    unsigned *pass = counts + blockIdx.x * V4_RADIX, total;
    pass[threadIdx.x] = block_exclusive_scan<unsigned, V4_RADIX>(pass[threadIdx.x], total);
}

// Thread d of tile `tile`: the number of digit-d keys in all earlier tiles. Walks back
// through the tiles' status words for digit d, adding aggregates until it meets an
// inclusive prefix. Spins only on tiles that took earlier tickets, which are running.
__device__ unsigned digit_lookback(scan_tile_state st, unsigned tile, unsigned d)
{
    unsigned sum = 0;
    for (long pred = (long)tile - 1; pred >= 0; pred--) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(
            st.status[(size_t)pred * V4_RADIX + d]);
        unsigned long long w;
        unsigned flag;
        do {
            w = word.load(cuda::memory_order_relaxed);
            flag = (w >> 34) == st.epoch ? (unsigned)(w >> 32) & 3u : 0u;
        } while (flag == 0);
        sum += (uint32_t)w;
        if (flag == TILE_PREFIX)
            break;
    }
    return sum;
}

// The lanes among `holders` whose digit equals this lane's: the AND, over the digit's
// 8 bits, of the ballot of the lanes with that bit set (or its complement). Eight
// ballots replace __match_any_sync, whose latency dominated the ranking (ncu: 63% of
// the stalls were short-scoreboard waits).
__device__ __forceinline__ unsigned lanes_with_digit(unsigned holders, unsigned d)
{
    unsigned peers = holders;
#pragma unroll
    for (int b = 0; b < 8; b++) {
        const unsigned set = __ballot_sync(holders, (d >> b) & 1);
        peers &= (d >> b) & 1 ? set : ~set;
    }
    return peers;
}

// One pass. The tile is warp-contiguous: warp w owns keys [w W, (w + 1) W) of the
// tile, W = 32 V4_ITEMS, and takes them 32 at a time (item i of lane l is key
// w W + 32 i + l), so loads coalesce and the order (warp, item, lane) is the input
// order. Ranking item by item, eight ballots find the lanes holding the same digit; a
// key's rank in its warp is the warp's count of that digit so far plus its peers in
// lower lanes. Then per digit (thread d): the warps' counts become offsets, the tile's
// total is published, the look-back gives the keys of digit d before this tile. Keys
// go to shared memory in tile-sorted order and from there to global memory: each
// digit's run is contiguous. README.md lists what each step of this design measured.
// Three blocks an SM (80 registers): with values the compiler took 92 (two blocks),
// and 256M pairs ran 13.3 ms instead of 11.2.
template <bool PAIRS>
__global__ void __launch_bounds__(V4_THREADS, 3)
    onesweep_pass(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                  uint32_t *values_out, size_t n, int shift, unsigned mask,
                  const unsigned *digit_starts, scan_tile_state st, unsigned num_tiles)
{
    __shared__ unsigned warp_counts[V4_WARPS][V4_RADIX];
    constexpr int V4_ITEMS = v4_shape<PAIRS>::items, V4_TILE = v4_shape<PAIRS>::tile;
    __shared__ uint32_t staged_keys[V4_TILE];
    __shared__ uint32_t staged_values[PAIRS ? V4_TILE : 1];
    __shared__ unsigned tile_first_of_digit[V4_RADIX], output_base[V4_RADIX];
    __shared__ unsigned ticket;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    if (t == 0) {
        const unsigned taken = atomicAdd(st.tile_counter, 1u);
        if (taken == num_tiles - 1) // every ticket is taken: reset for the next launch
            atomicExch(st.tile_counter, 0u);
        ticket = taken;
    }
    for (int j = t; j < V4_WARPS * V4_RADIX; j += V4_THREADS)
        warp_counts[j / V4_RADIX][j % V4_RADIX] = 0;
    __syncthreads();
    const unsigned tile = ticket;
    const size_t tile_first = (size_t)tile * V4_TILE;
    const size_t warp_first = tile_first + (size_t)warp * 32 * V4_ITEMS;

    uint32_t keys[V4_ITEMS], values[V4_ITEMS];
    unsigned ranks[V4_ITEMS];
#pragma unroll
    for (int i = 0; i < V4_ITEMS; i++) {
        const size_t at = warp_first + 32 * i + lane;
        keys[i] = at < n ? keys_in[at] : 0;
        if (PAIRS)
            values[i] = at < n ? values_in[at] : 0;
    }
    const unsigned lanes_below = (1u << lane) - 1;
#pragma unroll
    for (int i = 0; i < V4_ITEMS; i++) {
        const bool valid = warp_first + 32 * i + lane < n;
        const unsigned holders = __ballot_sync(~0u, valid);
        const unsigned d = digit_of(keys[i], shift, mask);
        if (valid) {
            // The group's lowest lane adds the group to the warp's count of its digit and
            // passes the old count on. A warp's shared atomics run in program order, so
            // the 16 items' updates need no barrier and their latencies overlap.
            const unsigned peers = lanes_with_digit(holders, d);
            const int leader = __ffs(peers) - 1;
            unsigned before = 0;
            if (lane == leader)
                before = atomicAdd(&warp_counts[warp][d], (unsigned)__popc(peers));
            before = __shfl_sync(holders, before, leader);
            ranks[i] = before + __popc(peers & lanes_below);
        }
    }
    __syncthreads();

    // Thread t owns digit t: the warps' counts become offsets, the tile's total.
    unsigned tile_count = 0;
#pragma unroll
    for (int w = 0; w < V4_WARPS; w++) {
        const unsigned c = warp_counts[w][t];
        warp_counts[w][t] = tile_count;
        tile_count += c;
    }
    unsigned before_tile = 0;
    if (tile == 0) {
        publish_tile(st, t, TILE_PREFIX, tile_count);
    } else {
        publish_tile(st, tile * V4_RADIX + t, TILE_AGGREGATE, tile_count);
        before_tile = digit_lookback(st, tile, t);
        publish_tile(st, tile * V4_RADIX + t, TILE_PREFIX, before_tile + tile_count);
    }
    unsigned tile_keys;
    const unsigned first = block_exclusive_scan<unsigned, V4_RADIX>(tile_count, tile_keys);
    tile_first_of_digit[t] = first;
    // Slot j of the sorted tile, of digit d, goes to output_base[d] + j (mod 2^32).
    output_base[t] = digit_starts[t] + before_tile - first;
    __syncthreads();

#pragma unroll
    for (int i = 0; i < V4_ITEMS; i++) {
        if (warp_first + 32 * i + lane < n) {
            const unsigned d = digit_of(keys[i], shift, mask);
            const unsigned slot = tile_first_of_digit[d] + warp_counts[warp][d] + ranks[i];
            staged_keys[slot] = keys[i];
            if (PAIRS)
                staged_values[slot] = values[i];
        }
    }
    __syncthreads();
    for (unsigned j = t; j < tile_keys; j += V4_THREADS) {
        const uint32_t key = staged_keys[j];
        const unsigned to = output_base[digit_of(key, shift, mask)] + j; // < n < 2^32
        keys_out[to] = key;
        if (PAIRS)
            values_out[to] = staged_values[j];
    }
}

static void sort_v4(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                    uint32_t *values_out, size_t n, int bits, radix_workspace *ws,
                    cudaStream_t stream)
{
    const int passes = (bits + 7) / 8;
    const int tile_keys = values_in ? v4_shape<true>::tile : v4_shape<false>::tile;
    const unsigned tiles = (unsigned)((n + tile_keys - 1) / tile_keys);
    CL_CUDA_CHECK(
        cudaMemsetAsync(ws->digit_starts, 0, V4_MAX_PASSES * V4_RADIX * sizeof(unsigned), stream));
    const unsigned count_blocks = tiles < 1024 ? tiles : 1024;
    count_all_digits<<<count_blocks, V4_THREADS, 0, stream>>>(keys_in, n, bits, ws->digit_starts);
    CL_LAUNCH_CHECK();
    digit_starts_from_counts<<<passes, V4_RADIX, 0, stream>>>(ws->digit_starts);
    CL_LAUNCH_CHECK();
    for (int p = 0; p < passes; p++) {
        const int shift = 8 * p, width = bits - shift < 8 ? bits - shift : 8;
        const unsigned mask = (1u << width) - 1;
        const uint32_t *src_keys, *src_values = NULL;
        uint32_t *dst_keys, *dst_values = NULL;
        pass_buffers(p, passes, keys_in, keys_out, ws->keys, &src_keys, &dst_keys);
        const unsigned *starts = ws->digit_starts + p * V4_RADIX;
        scan_tile_state st = cl_scan_tile_state(ws->lookback, (size_t)tiles * V4_RADIX);
        if (values_in) {
            pass_buffers(p, passes, values_in, values_out, ws->values, &src_values, &dst_values);
            onesweep_pass<true><<<tiles, V4_THREADS, 0, stream>>>(
                src_keys, src_values, dst_keys, dst_values, n, shift, mask, starts, st, tiles);
        } else {
            onesweep_pass<false><<<tiles, V4_THREADS, 0, stream>>>(
                src_keys, NULL, dst_keys, NULL, n, shift, mask, starts, st, tiles);
        }
        CL_LAUNCH_CHECK();
    }
}

// --- the workspace -----------------------------------------------------------------------------

// The smaller tiles (pairs) make the most.
static size_t v4_tiles(size_t n_max)
{
    return (n_max + v4_shape<true>::tile - 1) / v4_shape<true>::tile;
}

extern "C" size_t radix_workspace_bytes(size_t n_max, int pairs)
{
    return (pairs ? 2 : 1) * n_max * sizeof(uint32_t) + (n_max + 1) * sizeof(int32_t) +
           (n_max / CL_SCAN_MIN_TILE + 2) * sizeof(unsigned long long) +
           (v4_tiles(n_max) * V4_RADIX + 1) * sizeof(unsigned long long);
}

extern "C" radix_workspace *radix_workspace_create(size_t n_max, int pairs)
{
    radix_workspace *ws = new radix_workspace();
    ws->n_max = n_max;
    ws->pairs = pairs;
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->keys, n_max * sizeof(uint32_t)));
    if (pairs)
        CL_CUDA_CHECK(cudaMalloc((void **)&ws->values, n_max * sizeof(uint32_t)));
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->scratch, (n_max + 1) * sizeof(int32_t)));
    CL_CUDA_CHECK(
        cudaMalloc((void **)&ws->digit_starts, V4_MAX_PASSES * V4_RADIX * sizeof(unsigned)));
    ws->scan = cl_scan_workspace_create(n_max + 1);
    // The look-back workspace holds a status word per CL_SCAN_MIN_TILE elements.
    ws->lookback = cl_scan_workspace_create(v4_tiles(n_max) * V4_RADIX * CL_SCAN_MIN_TILE);
    return ws;
}

extern "C" void radix_workspace_destroy(radix_workspace *ws)
{
    CL_CUDA_CHECK(cudaFree(ws->keys));
    CL_CUDA_CHECK(cudaFree(ws->values));
    CL_CUDA_CHECK(cudaFree(ws->scratch));
    CL_CUDA_CHECK(cudaFree(ws->digit_starts));
    cl_scan_workspace_destroy(ws->scan);
    cl_scan_workspace_destroy(ws->lookback);
    delete ws;
}

extern "C" uint32_t *radix_workspace_keys(radix_workspace *ws) { return ws->keys; }
extern "C" uint32_t *radix_workspace_values(radix_workspace *ws) { return ws->values; }
extern "C" int32_t *radix_workspace_scratch(radix_workspace *ws) { return ws->scratch; }
extern "C" cl_scan_workspace *radix_workspace_scan(radix_workspace *ws) { return ws->scan; }

// --- the peer: CUB ---------------------------------------------------------------------------

struct radix_peer {
    void *temp;
    size_t temp_bytes;
};

extern "C" radix_peer *radix_peer_create(size_t n_max, int pairs)
{
    radix_peer *peer = new radix_peer();
    const int n = (int)n_max;
    if (pairs)
        CL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
            nullptr, peer->temp_bytes, (const uint32_t *)nullptr, (uint32_t *)nullptr,
            (const uint32_t *)nullptr, (uint32_t *)nullptr, n, 0, 32));
    else
        CL_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(
            nullptr, peer->temp_bytes, (const uint32_t *)nullptr, (uint32_t *)nullptr, n, 0, 32));
    cl_require_device_memory(peer->temp_bytes, 0);
    CL_CUDA_CHECK(cudaMalloc(&peer->temp, peer->temp_bytes));
    return peer;
}

extern "C" void radix_peer_run(radix_peer *peer, const uint32_t *keys_in, const uint32_t *values_in,
                               uint32_t *keys_out, uint32_t *values_out, size_t n, int bits)
{
    size_t bytes = peer->temp_bytes;
    if (values_in)
        CL_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(peer->temp, bytes, keys_in, keys_out,
                                                      values_in, values_out, (int)n, 0, bits));
    else
        CL_CUDA_CHECK(
            cub::DeviceRadixSort::SortKeys(peer->temp, bytes, keys_in, keys_out, (int)n, 0, bits));
}

extern "C" void radix_peer_destroy(radix_peer *peer)
{
    CL_CUDA_CHECK(cudaFree(peer->temp));
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
    {{"yours", radix_yours_idea}, radix_yours, SIZE_MAX},
};
extern "C" const int radix_version_count = sizeof radix_versions / sizeof radix_versions[0];
extern "C" const int radix_fastest_version = 3;

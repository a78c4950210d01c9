// The suite's device-wide radix sort (sort.h): stable LSD, 8 bits a pass, one sweep a
// pass (Adinets & Merrill, "Onesweep", 2022). radix_sort's README measures it as v4 and
// walks through the steps that made it fast.
//
// A sort: count_all_digits reads the keys once and counts the digits of every pass;
// digit_starts_from_counts turns each pass's counts into where each digit starts; then
// one onesweep_pass launch a pass: 8192-key tiles (4096 with values) take tickets,
// rank their keys per warp (ballots find the lanes sharing a digit), publish their 256
// digit counts and look back over earlier tiles' counts (decoupled look-back, per
// digit), then stage the keys in shared memory in sorted order so that the writes of
// each digit's run coalesce.
//
// Napkin math: a pass reads and writes every key (8 bytes a key, 16 with values): at
// 256M keys 2.1 GB, 0.72 ms at an H100's ~2.97 TB/s copy rate; four 8-bit passes plus
// the histogram's read, 3.2 ms, ~80 Gkeys/s. The passes run at about 40% of the copy
// rate (radix_sort's README has the times), bound by latency (the look-back goes one
// tile at a time), not bytes.
#include <cuda/atomic>

#include "check.h"
#include "device.h"
#include "scan.cuh"
#include "scan.h"
#include "sort.cuh"
#include "sort.h"

struct cl_sort_workspace {
    size_t n_max;
    uint32_t *keys, *values;     // the alternate buffers (values: NULL without pairs)
    unsigned *digit_starts;      // [4][256] counts, then exclusive sums
    cl_scan_workspace *lookback; // a status word per (tile, digit)
};

#define V4_RADIX 256
#define V4_THREADS 256
// Keys a thread: 32 for keys alone (8192-key tiles: half as many look-backs, faster
// from 64M keys up, slower at 1M and 4M), 16 with values (their staging would not fit
// in 48 KB of static shared memory). radix_sort's README has the measurements.
template <bool PAIRS> struct v4_shape {
    static constexpr int items = PAIRS ? 16 : 32, tile = V4_THREADS * items;
};
#define V4_WARPS (V4_THREADS / 32)
// The pass's per-digit steps give thread t digit t (its counts, its look-back, its
// output base), and the digits' exclusive scan is a block scan of one digit a thread.
static_assert(V4_THREADS == V4_RADIX, "onesweep_pass: thread t owns digit t");
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

// One pass. The tile is warp-contiguous: warp w owns keys [w W, (w + 1) W) of the
// tile, W = 32 V4_ITEMS, and takes them 32 at a time (item i of lane l is key
// w W + 32 i + l), so loads coalesce and the order (warp, item, lane) is the input
// order. Ranking item by item, eight ballots find the lanes holding the same digit; a
// key's rank in its warp is the warp's count of that digit so far plus its peers in
// lower lanes. Then per digit (thread d): the warps' counts become offsets, the tile's
// total is published, the look-back gives the keys of digit d before this tile. Keys
// go to shared memory in tile-sorted order and from there to global memory: each
// digit's run is contiguous. radix_sort/README.md lists what each step of this design
// measured. Three blocks an SM (80 registers): with values the compiler took 92 (two
// blocks), and the pairs' passes ran slower.
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
            // passes the old count on. What keeps the items in order (stability) without
            // a barrier: item i + 1's leader adds only after the __shfl_sync of item i,
            // which it joins (valid for i + 1 means valid for i) and which cannot finish
            // before item i's leader has its atomicAdd's result; so a digit's counts are
            // added item by item, and CUDA need not order the lanes' atomics for us.
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

extern "C" void cl_radix_sort_u32(const uint32_t *keys_in, const uint32_t *values_in,
                                  uint32_t *keys_out, uint32_t *values_out, size_t n, int bits,
                                  cl_sort_workspace *ws, cudaStream_t stream)
{
    if (n == 0)
        return;
    if (n > ws->n_max || (values_in && !ws->values))
        cl_die(CL_EXIT_CUDA, "sort workspace holds %zu keys%s; %zu keys%s asked for", ws->n_max,
               ws->values ? " and values" : "", n, values_in ? " and values" : "");
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
static size_t max_tiles(size_t n_max)
{
    return (n_max + v4_shape<true>::tile - 1) / v4_shape<true>::tile;
}

extern "C" size_t cl_sort_workspace_bytes(size_t n_max, int pairs)
{
    return (pairs ? 2 : 1) * n_max * sizeof(uint32_t) +
           V4_MAX_PASSES * V4_RADIX * sizeof(unsigned) +
           cl_scan_workspace_words_bytes(max_tiles(n_max) * V4_RADIX);
}

extern "C" cl_sort_workspace *cl_sort_workspace_create(size_t n_max, int pairs)
{
    cl_sort_workspace *ws = new cl_sort_workspace();
    ws->n_max = n_max;
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->keys, n_max * sizeof(uint32_t)));
    if (pairs)
        CL_CUDA_CHECK(cudaMalloc((void **)&ws->values, n_max * sizeof(uint32_t)));
    CL_CUDA_CHECK(
        cudaMalloc((void **)&ws->digit_starts, V4_MAX_PASSES * V4_RADIX * sizeof(unsigned)));
    ws->lookback = cl_scan_workspace_create_words(max_tiles(n_max) * V4_RADIX);
    return ws;
}

extern "C" void cl_sort_workspace_destroy(cl_sort_workspace *ws)
{
    CL_CUDA_CHECK(cudaFree(ws->keys));
    CL_CUDA_CHECK(cudaFree(ws->values));
    CL_CUDA_CHECK(cudaFree(ws->digit_starts));
    cl_scan_workspace_destroy(ws->lookback);
    delete ws;
}

extern "C" uint32_t *cl_sort_workspace_keys(cl_sort_workspace *ws) { return ws->keys; }
extern "C" uint32_t *cl_sort_workspace_values(cl_sort_workspace *ws) { return ws->values; }

// The suite's device-wide radix sort (sort.h): stable LSD, 8 bits a pass, one sweep a
// pass (Adinets & Merrill, "Onesweep", 2022). radix_sort's README measures it and
// walks through the steps that made it fast: v4 (onesweep_pass) is the first design,
// v5 (onesweep_pass_v5) the suite's sort.
//
// A sort: count_all_digits reads the keys once and counts the digits of every pass;
// digit_starts_from_counts turns each pass's counts into where each digit starts; then
// one launch a pass: 8192-key tiles take tickets, rank their keys per warp (ballots
// find the lanes sharing a digit), publish their 256 digit counts and look back over
// earlier tiles' counts (decoupled look-back, per digit), then stage the keys in
// shared memory in sorted order so that the writes of each digit's run coalesce.
// The last section spreads the sort over GPUs (sort.h: radix_sort --gpus' m4): v5's pass
// with its stores to the GPU holding each place (to_parts), and by segments.
//
// Napkin math: a pass reads and writes every key (8 bytes a key, 16 with values): at
// 256M keys 2.1 GB, 0.72 ms at an H100's ~2.97 TB/s copy rate; four 8-bit passes plus
// the histogram's read, 3.2 ms, ~80 Gkeys/s. v4 sorts 256M keys at about 50% of the copy
// rate, v5 at about 65% (H100; the v5 section below says what bounds it).
#include "bulk_copy.cuh"
#include "check.h"
#include "dependent_launch.cuh"
#include "device.h"
#include "launch.h"
#include "scan.cuh"
#include "scan.h"
#include "sort.cuh"
#include "sort.h"

struct cl_sort_workspace {
    size_t n_max;
    uint32_t *keys, *values;     // the alternate buffers (values: NULL without pairs)
    unsigned *digit_counts;      // [4][256], zero between sorts (the scan of them clears them)
    unsigned *digit_starts;      // [4][256]: exclusive sums of the counts
    cl_scan_workspace *lookback; // a status word per (tile, digit)
    // a spread sort's: the segments of its tail, their digit counts ([3][256][256], zero
    // between sorts) and starts; made at the first spread call (spread_state)
    cl_sort_segments *segments;
    unsigned *segment_counts, *segment_starts;
    size_t shared_optin; // the most shared memory the GPU gives a block
};

// Every pass sorts by 8 bits (256 digits), and every kernel of the sort (the histogram,
// the digits' scan, v4's and v5's passes) runs blocks of 256 threads.
#define RADIX 256
#define SORT_THREADS 256
// Keys a thread: 32 for keys alone (8192-key tiles: half as many look-backs, faster
// from 64M keys up, slower at 1M and 4M), 16 with values (their staging would not fit
// in 48 KB of static shared memory). radix_sort's README has the measurements.
template <bool PAIRS> struct v4_shape {
    static constexpr int items = PAIRS ? 16 : 32, tile = SORT_THREADS * items;
};
#define SORT_WARPS (SORT_THREADS / 32)
// The pass's per-digit steps give thread t digit t (its counts, its look-back, its
// output base), and the digits' exclusive scan is a block scan of one digit a thread.
static_assert(SORT_THREADS == RADIX, "onesweep_pass: thread t owns digit t");
#define MAX_PASSES 4

// Pass p of `bits`: the digit's shift and mask.
__host__ __device__ static int pass_shift(int p) { return 8 * p; }
__host__ __device__ static unsigned pass_mask(int p, int bits)
{
    const int width = bits - 8 * p < 8 ? bits - 8 * p : 8;
    return (1u << width) - 1;
}

// Block level: the digits of up to PASSES passes counted over a block's keys, the piece
// the sort's three histograms share (every pass over the whole input, one pass, the
// lower passes of a segment). Two copies of the counts in shared memory (even and odd
// warps: half the collisions of the atomics), then one atomicAdd a bin a block.
// The keys come 16 bytes a load, two loads in flight a thread, and a digit costs a
// shift, an AND and the shared atomicAdd. Napkin (H200, 512M keys, four passes): 2 GB
// read, 0.5 ms at 4.1 TB/s; 2 G atomics over 132 SMs. One key a load with 64-bit
// bounds checks around each ran 1.46 ms (ncu): ~60 instructions a key, the issue slots
// 71% busy, DRAM 29%.
template <int PASSES> struct block_digit_counts {
    unsigned copies[2][PASSES][RADIX];

    // Before add, and a __syncthreads between.
    __device__ void clear()
    {
        for (int j = threadIdx.x; j < 2 * PASSES * RADIX; j += SORT_THREADS)
            copies[j / (PASSES * RADIX)][j / RADIX % PASSES][j % RADIX] = 0;
    }

    // Passes first .. first + passes - 1 of `bits` counted over keys[lo, hi), dealt to
    // `workers` threads of which this is `worker`: the whole 16-byte words in the range
    // round robin, a word a load; the keys before the first word and after the last one
    // key each.
    __device__ void add(const uint32_t *keys, size_t lo, size_t hi, size_t worker, size_t workers,
                        int first, int passes, int bits)
    {
        int shifts[PASSES];
        unsigned masks[PASSES];
#pragma unroll
        for (int p = 0; p < PASSES; p++) {
            shifts[p] = p < passes ? pass_shift(first + p) : 0;
            masks[p] = p < passes ? pass_mask(first + p, bits) : 0;
        }
        unsigned(*mine)[RADIX] = copies[(threadIdx.x >> 5) & 1];
        const auto count = [&](uint32_t key) {
#pragma unroll
            for (int p = 0; p < PASSES; p++)
                if (p < passes)
                    atomicAdd(&mine[p][digit_of(key, shifts[p], masks[p])], 1u);
        };
        if (lo >= hi)
            return;
        const size_t to_word = (16 - ((uintptr_t)(keys + lo) & 15)) % 16 / sizeof(uint32_t);
        const size_t head = to_word < hi - lo ? to_word : hi - lo;
        if (worker < head)
            count(keys[lo + worker]);
        lo += head;
        const uint4 *words = reinterpret_cast<const uint4 *>(keys + lo);
        const size_t nwords = (hi - lo) / 4;
        if (worker < (hi - lo) % 4)
            count(keys[lo + 4 * nwords + worker]);
        for (size_t w = worker; w < nwords; w += 2 * workers) {
            const bool second = w + workers < nwords;
            const uint4 x = words[w];
            const uint4 y = second ? words[w + workers] : make_uint4(0, 0, 0, 0);
            count(x.x), count(x.y), count(x.z), count(x.w);
            if (second)
                count(y.x), count(y.y), count(y.z), count(y.w);
        }
    }

    // After add and a __syncthreads: the block's count of pass p's digit d added to
    // out[p * pass_stride + d].
    __device__ void flush(unsigned *out, size_t pass_stride, int passes) const
    {
        for (int j = threadIdx.x; j < passes * RADIX; j += SORT_THREADS) {
            const unsigned c = copies[0][j / RADIX][j % RADIX] + copies[1][j / RADIX][j % RADIX];
            if (c)
                atomicAdd(&out[(size_t)(j / RADIX) * pass_stride + j % RADIX], c);
        }
    }
};

// One read of the keys counts the digits of every pass (a grid-stride loop),
// into counts[pass][digit].
__global__ void __launch_bounds__(SORT_THREADS)
    count_all_digits(const uint32_t *keys, size_t n, int bits, unsigned *counts)
{
    __shared__ block_digit_counts<MAX_PASSES> block;
    let_next_grid_launch();
    const int passes = (bits + 7) / 8;
    block.clear();
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * SORT_THREADS;
    block.add(keys, 0, n, (size_t)blockIdx.x * SORT_THREADS + threadIdx.x, stride, 0, passes, bits);
    __syncthreads();
    block.flush(counts, RADIX, passes);
}

// Each pass's counts become exclusive sums: where each digit's keys start. The counts
// are cleared for the next sort (so no memset launch is needed).
__global__ void __launch_bounds__(RADIX)
    digit_starts_from_counts(unsigned *counts, unsigned *starts)
{
    wait_for_previous_grid();
    let_next_grid_launch();
    const unsigned at = blockIdx.x * RADIX + threadIdx.x;
    const unsigned count = counts[at];
    counts[at] = 0;
    unsigned total;
    starts[at] = block_exclusive_scan<unsigned, RADIX>(count, total);
}

// Thread d of tile `tile`: the number of digit-d keys in all earlier tiles. Walks back
// through the tiles' status words for digit d, adding aggregates until it meets an
// inclusive prefix. Spins only on tiles that took earlier tickets, which are running.
__device__ unsigned digit_lookback(scan_tile_state st, unsigned tile, unsigned d)
{
    unsigned sum = 0;
    for (long pred = (long)tile - 1; pred >= 0; pred--) {
        unsigned long long w;
        unsigned flag;
        do {
            w = read_status(st, (long long)((size_t)pred * RADIX + d));
            flag = published_flag(st, w);
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
__global__ void __launch_bounds__(SORT_THREADS, 3)
    onesweep_pass(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                  uint32_t *values_out, size_t n, int shift, unsigned mask,
                  const unsigned *digit_starts, scan_tile_state st, unsigned num_tiles)
{
    __shared__ unsigned warp_counts[SORT_WARPS][RADIX];
    constexpr int V4_ITEMS = v4_shape<PAIRS>::items, V4_TILE = v4_shape<PAIRS>::tile;
    __shared__ uint32_t staged_keys[V4_TILE];
    __shared__ uint32_t staged_values[PAIRS ? V4_TILE : 1];
    __shared__ unsigned tile_first_of_digit[RADIX], output_base[RADIX];
    __shared__ unsigned ticket;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    if (t == 0)
        ticket = take_tile_ticket(st, num_tiles);
    for (int j = t; j < SORT_WARPS * RADIX; j += SORT_THREADS)
        warp_counts[j / RADIX][j % RADIX] = 0;
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
#pragma unroll
    for (int i = 0; i < V4_ITEMS; i++) {
        const bool valid = warp_first + 32 * i + lane < n;
        const unsigned holders = __ballot_sync(~0u, valid);
        const unsigned d = digit_of(keys[i], shift, mask);
        if (valid)
            ranks[i] = warp_rank_by_digit(holders, d, warp_counts[warp]);
    }
    __syncthreads();

    // Thread t owns digit t: the warps' counts become offsets, the tile's total.
    unsigned tile_count = 0;
#pragma unroll
    for (int w = 0; w < SORT_WARPS; w++) {
        const unsigned c = warp_counts[w][t];
        warp_counts[w][t] = tile_count;
        tile_count += c;
    }
    unsigned before_tile = 0;
    if (tile == 0) {
        publish_tile(st, t, TILE_PREFIX, tile_count);
    } else {
        publish_tile(st, tile * RADIX + t, TILE_AGGREGATE, tile_count);
        before_tile = digit_lookback(st, tile, t);
        publish_tile(st, tile * RADIX + t, TILE_PREFIX, before_tile + tile_count);
    }
    unsigned tile_keys;
    const unsigned first = block_exclusive_scan<unsigned, RADIX>(tile_count, tile_keys);
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
    for (unsigned j = t; j < tile_keys; j += SORT_THREADS) {
        const uint32_t key = staged_keys[j];
        const unsigned to = output_base[digit_of(key, shift, mask)] + j; // < n < 2^32
        keys_out[to] = key;
        if (PAIRS)
            values_out[to] = staged_values[j];
    }
}

// --- v5: counts first, the keys of a full tile unchecked, values copied in async -----------
//
// The same pass as v4, reordered around its critical path, the chain of look-backs: a
// tile publishes its digit counts as soon as it has them, and only then ranks its keys.
//   1. Each warp counts its keys' digits (shared atomics into the warp's row).
//   2. Thread d publishes the tile's count of digit d at once (the aggregate its
//      successors wait for: in v4 it came only after the ranking), and the counts
//      become where each warp's digit-d keys go in the sorted tile.
//   3. Ranking gives each key its slot in the sorted tile directly: the group's
//      leader takes the slots from its warp's row with one shared atomicAdd.
//   4. Only now the look-back, 4 predecessors a load round: by then the tiles before
//      have had a ranking's time to publish. (With values the keys are staged before it.)
//   5. Keys staged in sorted order, stored as runs. With values, the tile's values were
//      copied into shared memory (cp.async) in step 1, so they arrive while the keys
//      are ranked and take no registers; they follow the keys through the staging
//      buffer, and pairs keep 8192-key tiles.
// Keys alone, a block that takes its ticket has the L2 fetch the keys of a tile 132 tickets
// on (a bulk prefetch, sm_90), so that the loads the counting waits for find them in L2.
// Every tile but the last is full: it runs a copy of the code without bounds checks
// (they were 64-bit compares and branches around each of the 32 items in five loops). Single-use
// loads and stores are streaming (__ldcs/__stcs, evict first). Kernels after a sort's first are
// programmatic dependent launches (sm_90): they start while the one before drains.
// radix_sort's README has each step's measurements.
//
// Napkin math, 256M keys on an H100: a pass moves 2 GB (8 bytes a key: 16 with
// values), 0.72 ms at the 2.97 TB/s copy rate; four passes plus the histogram's read,
// 3.2 ms. v5 takes 4.76 ms (65% of that rate): before the ballots went into PTX (3
// instructions a bit, not ~7) ncu (64M keys, one pass) had the ranking at 2/3 of the
// warps' stall samples and the ALU pipe the busiest, so the pass is bound by the
// ranking's instructions and latency, not bytes (the L2 prefetch of a tile ahead took
// 4.97 ms to 4.76: part of the latency was the tile's first loads). Pairs add the
// values' staging and stores: 10.3 ms at 256M on the H100 (7.8 on the H200), its warps
// waiting on the MIO queue (shared memory and copies: ncu, 64M pairs) more than issuing.

#define V5_ITEMS 32   // keys a thread: 8192-key tiles, with or without values
#define V5_LOOKBACK 4 // status words a look-back thread reads at once
#define V5_MIN_BLOCKS 3
// Keys alone, the L2 prefetch's distance in tiles (about one an SM: 132 on an H100). H100,
// 256M keys: none 4.97 ms, 16 tiles 4.85, 48 4.77, 132 4.76, 264 4.76, 396 4.88. With values
// every distance measured slower (256M pairs 9.76 ms: keys 16 tiles 10.13, 132 9.99; keys
// and values 16 tiles 10.15, 132 10.19, 396 12.15), so pairs do without.
#define V5_PREFETCH_AHEAD 132

__device__ __forceinline__ uint32_t load_once(const uint32_t *p) { return __ldcs(p); }
__device__ __forceinline__ void store_once(uint32_t *p, uint32_t v) { __stcs(p, v); }

// Thread d of tile `tile`: the digit-d keys of all earlier tiles, reading the status
// words of K predecessors at once. Words are used nearest first; the walk stops at
// the first inclusive prefix and resumes (re-reading) at the first word not yet
// published. Wider reads measured slower (K = 8 and 16 at 256M keys: more L2 traffic
// than round trips saved).
template <int K>
__device__ unsigned digit_lookback_wide(scan_tile_state st, unsigned tile, unsigned d)
{
    unsigned sum = 0;
    long pred = (long)tile - 1;
    while (true) {
        unsigned long long w[K];
#pragma unroll
        for (int j = 0; j < K; j++) {
            if (pred - j >= 0)
                w[j] = read_status(st, (long long)((size_t)(pred - j) * RADIX + d));
            else
                w[j] = tile_word(st.epoch, TILE_PREFIX, 0);
        }
        int used = 0;
#pragma unroll
        for (int j = 0; j < K; j++) {
            if (used < j)
                break;
            const unsigned flag = published_flag(st, w[j]);
            if (flag == 0)
                break;
            sum += (uint32_t)w[j];
            if (flag == TILE_PREFIX)
                return sum;
            used = j + 1;
        }
        pred -= used;
    }
}

constexpr int V5_TILE = SORT_THREADS * V5_ITEMS;

// Where a v5 pass stores its tile: slot j of the tile's sorted run of digit d goes to
// place base(d) + j of the output. Two kinds of output, each with the per-block state
// it keeps in shared memory (`staged`):
// to_buffer: one GPU's buffer, places in 32-bit arithmetic (mod 2^32: a base may wrap
// below zero, a place never does, being < n < 2^32). Every pass of a one-GPU sort, and
// of a spread sort's finish (one row of starts a segment).
struct to_buffer {
    uint32_t *keys, *values;
    const unsigned *starts; // where each digit's keys start (a row of 256 a run of keys)
    typedef unsigned place;
    struct staged {
    };
    __device__ void begin(staged &) const {}
    __device__ place base(staged &, unsigned row, unsigned d, unsigned before_tile,
                          unsigned first) const
    {
        return starts[row * RADIX + d] + before_tile - first;
    }
    // base + j in 32 bits, then one wide multiply-add to the address (keys + base + j
    // added base and j as 64-bit numbers first: 3 more instructions a key).
    __device__ void store_key(const staged &, unsigned, place base, unsigned j, uint32_t key) const
    {
        store_once(keys + (base + j), key);
    }
    __device__ void store_value(const staged &, unsigned, place base, unsigned j,
                                uint32_t value) const
    {
        store_once(values + (base + j), value);
    }
};

// to_parts: the scatters of a sort spread over GPUs (cl_sort_spread_pass): places in the
// whole sorted sequence (64-bit: the parts together may hold 2^32 keys or more), each
// stored on the part (GPU) holding it, through a peer pointer. A tile's run of digit d
// is contiguous in the sequence, so thread d finds the part of the run's first place
// once (run_part) and a key moves on from there only where the run crosses into the
// next part. Napkin (2 H200s, 2^29 keys a GPU): the pass alone takes ~2.8 ms; half its
// stores, 1 GB, cross NVLink, 2.8 ms at the ~380 GB/s a direction of peer copies. Stored
// to the peers it measured 4.9 ms: ~220 GB/s of keys, as a tile's 256 runs are ~32 keys,
// 128-byte pieces at unaligned places. ncu counts 1.9x the keys on the wire (1.3x as
// user data: partly filled sectors; the rest packet headers of the small writes) at
// ~400 GB/s. So radix_sort's m4 points the other parts at local mirrors for its large
// scatters and has copy engines carry each digit's run over (3.3 ms).
struct to_parts {
    cl_sort_spread to;
    const unsigned long long
        *starts; // the whole sequence's place of this GPU's first key of each digit
    typedef unsigned long long place;
    struct staged {
        unsigned long long first[CL_SORT_MAX_PARTS + 1];
        uint8_t run_part[RADIX];
    };
    static_assert(CL_SORT_MAX_PARTS <= 256, "a part number fits a byte");
    __device__ void begin(staged &sp) const
    {
        for (int p = threadIdx.x; p <= to.parts; p += blockDim.x)
            sp.first[p] = to.first[p];
    }
    __device__ place base(staged &sp, unsigned, unsigned d, unsigned before_tile,
                          unsigned first) const
    {
        const place run = starts[d] + before_tile;
        int p = 0;
        while (p + 1 < to.parts && run >= sp.first[p + 1])
            p++;
        sp.run_part[d] = (uint8_t)p;
        return run - first;
    }
    __device__ int part_of(const staged &sp, unsigned d, place at) const
    {
        int p = sp.run_part[d];
        while (at >= sp.first[p + 1])
            p++;
        return p;
    }
    __device__ void store_key(const staged &sp, unsigned d, place base, unsigned j,
                              uint32_t key) const
    {
        const place at = base + j;
        const int p = part_of(sp, d, at);
        store_once(to.keys[p] + (at - sp.first[p]), key);
    }
    __device__ void store_value(const staged &sp, unsigned d, place base, unsigned j,
                                uint32_t value) const
    {
        const place at = base + j;
        const int p = part_of(sp, d, at);
        store_once(to.values[p] + (at - sp.first[p]), value);
    }
};

// Which keys a v5 tile sorts: [first, end), the first tile of its run of keys or not
// (the look-back stops at a run's first tile), the run's row of digit starts.
struct tile_span {
    size_t first, end;
    bool opens_run;
    unsigned row;
};

// Every sort: one run of n keys, tile k its k-th 8192.
struct one_run {
    size_t n;
    __device__ tile_span span(unsigned tile) const
    {
        const size_t first = (size_t)tile * V5_TILE, end = first + V5_TILE;
        return {first, end < n ? end : n, tile == 0, 0};
    }
};

// The tail of a spread sort: runs of keys (segments, at most 256: cl_sort_segments),
// each sorted on its own, tiled from its start; tile k of the launch is the one the
// table numbers k. Tiles past the last (the launch has a bound, not the count) are empty.
static_assert(CL_SORT_TILE == V5_TILE, "sort.h's tile is v5's");
struct segments {
    const cl_sort_segments *table;
    __device__ tile_span span(unsigned tile) const
    {
        if (tile >= table->first_tile[RADIX])
            return {0, 0, false, 0};
        // The last segment whose first tile is at most `tile`: not empty, as an empty
        // segment's first tile is the next one's.
        unsigned lo = 0, hi = RADIX;
        while (hi - lo > 1) {
            const unsigned mid = (lo + hi) / 2;
            if (table->first_tile[mid] <= tile)
                lo = mid;
            else
                hi = mid;
        }
        const unsigned within = tile - table->first_tile[lo];
        const size_t first = table->first[lo] + (size_t)within * V5_TILE,
                     end = first + V5_TILE < table->first[lo + 1] ? first + V5_TILE
                                                                  : table->first[lo + 1];
        return {first, end, within == 0, lo};
    }
};

// A v5 block's shared memory (dynamic: 42 KB for keys, 74 KB with values; 1.8 KB more
// spread over GPUs, where three blocks an SM still fit).
template <bool PAIRS, class Out> struct v5_shared {
    // Each warp's digit counts, then where its next key of each digit goes in the sorted
    // tile; with values, after the keys are stored, each sorted slot's digit (bytes).
    union {
        unsigned warp_slots[SORT_WARPS][RADIX];
        uint8_t slot_digit[V5_TILE];
    } rows;
    static_assert(V5_TILE <= sizeof(unsigned) * SORT_WARPS * RADIX, "slot digits fit the rows");
    uint32_t staged[V5_TILE];             // keys, then values, in tile-sorted order
    uint32_t values[PAIRS ? V5_TILE : 1]; // the tile's values in input order
    typename Out::place output_base[RADIX];
    typename Out::staged out;
    unsigned ticket;
};

// One tile of a v5 pass. FULL: all V5_TILE keys exist (every tile but the last), so
// no key needs a bounds check. Item i of lane l in warp w is key w W + 32 i + l of the
// tile (W = 32 V5_ITEMS), as in v4.
template <bool PAIRS, bool FULL, class Out>
__device__ __forceinline__ void onesweep_tile(v5_shared<PAIRS, Out> &sm, unsigned tile,
                                              tile_span span, const uint32_t *keys_in,
                                              const uint32_t *values_in, const Out out, int shift,
                                              unsigned mask, scan_tile_state st)
{
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const size_t warp_first = span.first + (size_t)warp * 32 * V5_ITEMS, end = span.end;
    const size_t first_key = warp_first + lane;
    // This thread's keys: all, or those below the tile's end.
    const unsigned mine = FULL              ? V5_ITEMS
                          : first_key < end ? (unsigned)((end - first_key + 31) / 32)
                                            : 0;
    const uint32_t *my_keys = keys_in + first_key;
    uint32_t *my_values_sm = sm.values + (PAIRS ? warp * 32 * V5_ITEMS + lane : 0);

    uint32_t keys[V5_ITEMS];
    unsigned slots[V5_ITEMS];
#pragma unroll
    for (int i = 0; i < V5_ITEMS; i++)
        keys[i] = FULL || (unsigned)i < mine ? load_once(my_keys + 32 * i) : 0;
    if (PAIRS) {
#pragma unroll
        for (int i = 0; i < V5_ITEMS; i++)
            if (FULL || (unsigned)i < mine)
                copy_async_4(my_values_sm + 32 * i, values_in + first_key + 32 * i, 4);
    }

    // 1-2: counts, published; each warp's first slot of each digit.
#pragma unroll
    for (int i = 0; i < V5_ITEMS; i++)
        if (FULL || (unsigned)i < mine)
            atomicAdd(&sm.rows.warp_slots[warp][digit_of(keys[i], shift, mask)], 1u);
    __syncthreads();
    unsigned tile_count = 0, tile_keys;
#pragma unroll
    for (int w = 0; w < SORT_WARPS; w++)
        tile_count += sm.rows.warp_slots[w][t];
    publish_tile(st, tile * RADIX + t, span.opens_run ? TILE_PREFIX : TILE_AGGREGATE, tile_count);
    const unsigned first = block_exclusive_scan<unsigned, RADIX>(tile_count, tile_keys);
    unsigned at = first;
#pragma unroll
    for (int w = 0; w < SORT_WARPS; w++) {
        const unsigned c = sm.rows.warp_slots[w][t];
        sm.rows.warp_slots[w][t] = at;
        at += c;
    }
    __syncthreads();

    // 3: slots.
#pragma unroll
    for (int i = 0; i < V5_ITEMS; i++) {
        const bool valid = FULL || (unsigned)i < mine;
        const unsigned holders = FULL ? ~0u : __ballot_sync(~0u, valid);
        const unsigned d = digit_of(keys[i], shift, mask);
        if (valid)
            slots[i] = warp_rank_by_digit(holders, d, sm.rows.warp_slots[warp]);
    }
    __syncthreads();
    // With values, the keys go to their slots now, where the look-back's waits hide the
    // stores (with keys alone, after it: 256M keys 4.97 -> 5.00 ms before it).
    const auto stage_keys = [&] {
#pragma unroll
        for (int i = 0; i < V5_ITEMS; i++)
            if (FULL || (unsigned)i < mine)
                sm.staged[slots[i]] = keys[i];
    };
    if (PAIRS)
        stage_keys();

    // 4: the look-back.
    unsigned before_tile = 0;
    if (!span.opens_run) {
        before_tile = digit_lookback_wide<V5_LOOKBACK>(st, tile, t);
        publish_tile(st, tile * RADIX + t, TILE_PREFIX, before_tile + tile_count);
    }
    // Slot j of the sorted tile, of digit d, goes to output_base[d] + j.
    sm.output_base[t] = out.base(sm.out, span.row, t, before_tile, first);

    // 5: keys, then values, through the staging buffer.
    if (!PAIRS)
        stage_keys();
    __syncthreads();
    // Slots t, t + SORT_THREADS, ... of the staged tile: a full tile's count a constant
    // (looping from j = t to the tile's end, ptxas built a remainder loop besides).
    const unsigned rounds =
        FULL ? V5_TILE / SORT_THREADS : (tile_keys + SORT_THREADS - 1 - t) / SORT_THREADS;
    // A full tile of pairs into one buffer: each slot's place kept in a register from the
    // keys' stores to the values' (32 a thread), instead of its digit in shared memory
    // and its base read again: 3 fewer shared-memory accesses a pair.
    constexpr bool KEEP_PLACES = PAIRS && FULL && sizeof(typename Out::place) == 4;
    // The values (copied in while the keys were ranked) to their slots, once the keys
    // have left the staging buffer.
    const auto stage_values = [&] {
        copy_async_wait_all();
        __syncthreads();
#pragma unroll
        for (int i = 0; i < V5_ITEMS; i++)
            if (FULL || (unsigned)i < mine)
                sm.staged[slots[i]] = my_values_sm[32 * i];
        __syncthreads();
    };
    if constexpr (KEEP_PLACES) {
        constexpr int ROUNDS = V5_TILE / SORT_THREADS;
        unsigned places[ROUNDS];
#pragma unroll
        for (int k = 0; k < ROUNDS; k++) {
            const unsigned j = t + k * SORT_THREADS;
            const uint32_t key = sm.staged[j];
            const unsigned d = digit_of(key, shift, mask);
            places[k] = (unsigned)(sm.output_base[d] + j);
            out.store_key(sm.out, d, places[k], 0, key);
        }
        stage_values();
#pragma unroll
        for (int k = 0; k < ROUNDS; k++)
            out.store_value(sm.out, 0, places[k], 0, sm.staged[t + k * SORT_THREADS]);
    } else {
#pragma unroll 4
        for (unsigned k = 0; k < rounds; k++) {
            const unsigned j = t + k * SORT_THREADS;
            const uint32_t key = sm.staged[j];
            const unsigned d = digit_of(key, shift, mask);
            out.store_key(sm.out, d, sm.output_base[d], j, key);
            if (PAIRS)
                sm.rows.slot_digit[j] = (uint8_t)d;
        }
        if (PAIRS) {
            stage_values();
#pragma unroll 4
            for (unsigned k = 0; k < rounds; k++) {
                const unsigned j = t + k * SORT_THREADS;
                const unsigned d = sm.rows.slot_digit[j];
                out.store_value(sm.out, d, sm.output_base[d], j, sm.staged[j]);
            }
        }
    }
}

template <bool PAIRS, class Out, class Tiles>
__global__ void __launch_bounds__(SORT_THREADS, V5_MIN_BLOCKS)
    onesweep_pass_v5(const uint32_t *keys_in, const uint32_t *values_in, Out out, Tiles tiles,
                     int shift, unsigned mask, scan_tile_state st, unsigned num_tiles)
{
    extern __shared__ __align__(16) unsigned char v5_dynamic_shared[];
    v5_shared<PAIRS, Out> &sm = *reinterpret_cast<v5_shared<PAIRS, Out> *>(v5_dynamic_shared);
    const int t = threadIdx.x;
    wait_for_previous_grid();
    if (t == 0)
        sm.ticket = take_tile_ticket(st, num_tiles);
    for (int j = t; j < SORT_WARPS * RADIX; j += SORT_THREADS)
        sm.rows.warp_slots[j / RADIX][j % RADIX] = 0;
    out.begin(sm.out);
    __syncthreads();
    let_next_grid_launch();
    const unsigned tile = sm.ticket;
    const tile_span span = tiles.span(tile);
#ifdef CL_HAVE_BULK_COPY
    // Keys alone: the keys of a tile ahead into L2 (the v5 section's header says why).
    if (!PAIRS && t == 0 && tile + V5_PREFETCH_AHEAD < num_tiles) {
        // The tile's addresses rounded down to 16 bytes, as the prefetch needs: the
        // addresses, not their offsets from keys_in, which a spread sort's refining
        // scatter starts anywhere in its buffer (m4 at 2.5Gi keys on 2 GPUs faulted with a
        // misaligned address when it rounded the offsets).
        const tile_span ahead = tiles.span(tile + V5_PREFETCH_AHEAD);
        const uintptr_t from = (uintptr_t)(keys_in + ahead.first) & ~(uintptr_t)15,
                        to = (uintptr_t)(keys_in + ahead.end) & ~(uintptr_t)15;
        if (to > from)
            bulk_prefetch_l2((const void *)from, (unsigned)(to - from));
    }
#endif
    if (span.end - span.first == V5_TILE)
        onesweep_tile<PAIRS, true>(sm, tile, span, keys_in, values_in, out, shift, mask, st);
    else if (span.end > span.first)
        onesweep_tile<PAIRS, false>(sm, tile, span, keys_in, values_in, out, shift, mask, st);
}

// A sort's size checked against its workspace; its tiles.
static unsigned sort_tiles(size_t n, bool pairs, bool v5, const cl_sort_workspace *ws)
{
    if (n > ws->n_max || (pairs && !ws->values))
        cl_die(CL_EXIT_CUDA, "sort workspace holds %zu keys%s; %zu keys%s asked for", ws->n_max,
               ws->values ? " and values" : "", n, pairs ? " and values" : "");
    const int tile_keys = v5 ? V5_TILE : pairs ? v4_shape<true>::tile : v4_shape<false>::tile;
    return (unsigned)((n + tile_keys - 1) / tile_keys);
}

static void count_digits(const uint32_t *keys, size_t n, int bits, unsigned tiles,
                         cl_sort_workspace *ws, cudaStream_t stream)
{
    cl_launch(false, count_all_digits, tiles < 1024 ? tiles : 1024, SORT_THREADS, 0, stream, keys,
              n, bits, ws->digit_counts);
}

// One v5 pass (a programmatic dependent launch) over `tiles` (a launch of `grid` of
// them), stored by `out`.
template <class Out, class Tiles>
static void v5_pass(const uint32_t *keys, const uint32_t *values, const Out &out,
                    const Tiles &tiles, unsigned grid, int p, int bits, cl_sort_workspace *ws,
                    cudaStream_t stream)
{
    const scan_tile_state st = cl_scan_tile_state(ws->lookback, (size_t)grid * RADIX);
    if (values)
        cl_launch(true, onesweep_pass_v5<true, Out, Tiles>, grid, SORT_THREADS,
                  sizeof(v5_shared<true, Out>), stream, keys, values, out, tiles, pass_shift(p),
                  pass_mask(p, bits), st, grid);
    else
        cl_launch(true, onesweep_pass_v5<false, Out, Tiles>, grid, SORT_THREADS,
                  sizeof(v5_shared<false, Out>), stream, keys, values, out, tiles, pass_shift(p),
                  pass_mask(p, bits), st, grid);
}

// One sort: the histogram of every pass, its scan, one launch a pass. `v5` picks the
// pass kernel (radix_sort's ladder runs v4 too).
static void radix_sort(const uint32_t *keys_in, const uint32_t *values_in, uint32_t *keys_out,
                       uint32_t *values_out, size_t n, int bits, cl_sort_workspace *ws,
                       cudaStream_t stream, bool v5)
{
    if (n == 0)
        return;
    const bool pairs = values_in != NULL;
    // v5 with values needs 74 KB of shared memory a block: GPUs that cannot give it
    // (sm_75: 64 KB) sort pairs with v4's pass.
    v5 = v5 && (!pairs || ws->shared_optin >= sizeof(v5_shared<true, to_buffer>));
    const unsigned tiles = sort_tiles(n, pairs, v5, ws);
    const int passes = (bits + 7) / 8;
    count_digits(keys_in, n, bits, tiles, ws, stream);
    cl_launch(v5, digit_starts_from_counts, (unsigned)passes, RADIX, 0, stream, ws->digit_counts,
              ws->digit_starts);
    for (int p = 0; p < passes; p++) {
        const uint32_t *src_keys, *src_values = NULL;
        uint32_t *dst_keys, *dst_values = NULL;
        pass_buffers(p, passes, keys_in, keys_out, ws->keys, &src_keys, &dst_keys);
        if (pairs)
            pass_buffers(p, passes, values_in, values_out, ws->values, &src_values, &dst_values);
        const unsigned *starts = ws->digit_starts + p * RADIX;
        if (v5) {
            v5_pass(src_keys, src_values, to_buffer{dst_keys, dst_values, starts}, one_run{n},
                    tiles, p, bits, ws, stream);
        } else {
            const scan_tile_state st = cl_scan_tile_state(ws->lookback, (size_t)tiles * RADIX);
            cl_launch(false, pairs ? onesweep_pass<true> : onesweep_pass<false>, tiles,
                      SORT_THREADS, 0, stream, src_keys, src_values, dst_keys, dst_values, n,
                      pass_shift(p), pass_mask(p, bits), starts, st, tiles);
        }
    }
}

extern "C" void cl_radix_sort_u32(const uint32_t *keys_in, const uint32_t *values_in,
                                  uint32_t *keys_out, uint32_t *values_out, size_t n, int bits,
                                  cl_sort_workspace *ws, cudaStream_t stream)
{
    radix_sort(keys_in, values_in, keys_out, values_out, n, bits, ws, stream, true);
}

extern "C" void cl_radix_sort_u32_v4(const uint32_t *keys_in, const uint32_t *values_in,
                                     uint32_t *keys_out, uint32_t *values_out, size_t n, int bits,
                                     cl_sort_workspace *ws, cudaStream_t stream)
{
    radix_sort(keys_in, values_in, keys_out, values_out, n, bits, ws, stream, false);
}

// --- a sort spread over GPUs -------------------------------------------------------------------
//
// sort.h's spread sort. Beyond the one-GPU sort's kernels: a count of one digit, v5's pass
// into to_parts (a scatter), and for the finish a count by segment, its scan and v5's
// passes over the segments' tiles. The plans (where each digit starts, the segments)
// come from the host. Napkin (2 H200s, 2^30 keys): the four passes of a share (~10 ms)
// with the scatter's ~1 ms more for the link; measured 12.2 ms (radix_sort's README).

// The 256 counts of one pass's digit over each chunk of keys[0..n) (block_digit_counts
// over a grid-stride loop; the blocks of row y of the grid count chunk y) into
// counts[y * 256 ..] (zeroed before the launch). Napkin: reads 4 bytes a key, 2^29 keys
// in ~0.5 ms at an H200's 4.1 TB/s; radix_sort's m4 measured 0.7 ms with the gathering
// of the counts (8 chunks as 8 launches, before this one launch for all).
__global__ void __launch_bounds__(SORT_THREADS)
    count_pass_digits(const uint32_t *keys, size_t n, size_t chunk, int pass, int bits,
                      unsigned *counts)
{
    __shared__ block_digit_counts<1> block;
    block.clear();
    __syncthreads();
    const size_t stride = (size_t)gridDim.x * SORT_THREADS, first = blockIdx.y * chunk,
                 end = n - first < chunk ? n : first + chunk;
    block.add(keys, first, end, (size_t)blockIdx.x * SORT_THREADS + threadIdx.x, stride, pass, 1,
              bits);
    __syncthreads();
    block.flush(counts + (size_t)blockIdx.y * RADIX, RADIX, 1);
}

// The digits of every pass below the segments' digit, counted per segment: a block a
// tile of the segments' tiling (so a tile lies in one segment), into
// counts[pass][segment][digit] (block_digit_counts over the tile). Napkin: one read of
// the keys, ~0.5 ms for 2^29 on an H200; with one key in flight and one copy it took
// ~0.5 ms more (radix_sort's m4: its sort by segments 10.13 -> 9.67 ms).
__global__ void __launch_bounds__(SORT_THREADS)
    count_segment_digits(const uint32_t *keys, segments tiles, int passes, int bits,
                         unsigned *counts)
{
    __shared__ block_digit_counts<MAX_PASSES - 1> block;
    block.clear();
    const tile_span span = tiles.span(blockIdx.x);
    __syncthreads();
    block.add(keys, span.first, span.end, threadIdx.x, SORT_THREADS, 0, passes, bits);
    __syncthreads();
    block.flush(counts + (size_t)span.row * RADIX, (size_t)RADIX * RADIX, passes);
}

// Block (pass, segment): where each digit's keys of the segment start, from the
// segment's start; the counts are cleared for the next sort.
__global__ void __launch_bounds__(RADIX)
    segment_digit_starts(unsigned *counts, const cl_sort_segments *segments, unsigned *starts)
{
    wait_for_previous_grid();
    let_next_grid_launch();
    const size_t at = (size_t)blockIdx.x * RADIX + threadIdx.x;
    const unsigned count = counts[at];
    counts[at] = 0;
    unsigned total;
    starts[at] =
        segments->first[blockIdx.x % RADIX] + block_exclusive_scan<unsigned, RADIX>(count, total);
}

extern "C" void cl_sort_count_pass(const uint32_t *keys, size_t n, size_t chunk, int chunks,
                                   int bits, int pass, unsigned *counts, cudaStream_t stream)
{
    CL_CUDA_CHECK(cudaMemsetAsync(counts, 0, (size_t)chunks * RADIX * sizeof(unsigned), stream));
    if (n == 0)
        return;
    // A chunk's blocks: one a tile, up to 1024 over all chunks.
    const size_t rows = (n + chunk - 1) / chunk, tiles = (chunk + V5_TILE - 1) / V5_TILE,
                 per_row = 1024 / rows > 0 ? 1024 / rows : 1;
    if (rows > (size_t)chunks)
        cl_die(CL_EXIT_CUDA, "a count of %zu keys in chunks of %zu: more than %d", n, chunk,
               chunks);
    cl_launch(false, count_pass_digits,
              dim3((unsigned)(tiles < per_row ? tiles : per_row), (unsigned)rows), SORT_THREADS, 0,
              stream, keys, n, chunk, pass, bits, counts);
}

extern "C" uint32_t *cl_sort_spread_inbox(cl_sort_workspace *ws, uint32_t *out, int values,
                                          int bits)
{
    // The tail alternates between the inbox and the other buffer, ending in `out`.
    return (bits + 7) / 8 % 2 == 1 ? out : values ? ws->values : ws->keys;
}

// A spread sort's tail: a count and a start for each (pass, segment, digit).
#define SEGMENT_DIGITS ((MAX_PASSES - 1) * RADIX * RADIX)

// A spread sort's state, made at the workspace's first spread call (a sort's warm-up
// run, outside timing), so the one-GPU sorts never hold it (1.5 MB and a memset).
static void spread_state(cl_sort_workspace *ws, cudaStream_t stream)
{
    if (ws->segment_counts)
        return;
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->segments, sizeof(cl_sort_segments)));
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->segment_starts, SEGMENT_DIGITS * sizeof(unsigned)));
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->segment_counts, SEGMENT_DIGITS * sizeof(unsigned)));
    CL_CUDA_CHECK(
        cudaMemsetAsync(ws->segment_counts, 0, SEGMENT_DIGITS * sizeof(unsigned), stream));
}

extern "C" void cl_sort_spread_pass(const uint32_t *keys, const uint32_t *values, size_t n,
                                    int bits, int pass, const unsigned long long *starts,
                                    const cl_sort_spread *to, cl_sort_workspace *ws,
                                    cudaStream_t stream)
{
    const bool pairs = values != NULL;
    if (pairs && ws->shared_optin < sizeof(v5_shared<true, to_parts>))
        cl_die(CL_EXIT_CUDA,
               "a sort of pairs spread over GPUs needs %zu bytes of shared memory "
               "a block, which this GPU cannot give",
               sizeof(v5_shared<true, to_parts>));
    if (to->parts < 1 || to->parts > CL_SORT_MAX_PARTS)
        cl_die(CL_EXIT_CUDA, "a spread sort over %d parts (1 to %d)", to->parts, CL_SORT_MAX_PARTS);
    const unsigned tiles = sort_tiles(n, pairs, true, ws);
    if (n == 0)
        return;
    spread_state(ws, stream);
    v5_pass(keys, values, to_parts{*to, starts}, one_run{n}, tiles, pass, bits, ws, stream);
}

extern "C" void cl_sort_spread_finish(uint32_t *keys_out, uint32_t *values_out, size_t count,
                                      int bits, const cl_sort_segments *segments,
                                      cl_sort_workspace *ws, cudaStream_t stream)
{
    const bool pairs = values_out != NULL;
    const int passes = (bits + 7) / 8 - 1;
    if (count == 0 || passes == 0)
        return;
    sort_tiles(count, pairs, true, ws);
    if (segments->first[RADIX] != count ||
        segments->first_tile[RADIX] > CL_SORT_FINISH_TILES(count))
        cl_die(CL_EXIT_CUDA, "spread sort: segments of %u keys in %u tiles for a part of %zu",
               segments->first[RADIX], segments->first_tile[RADIX], count);
    spread_state(ws, stream);
    CL_CUDA_CHECK(
        cudaMemcpyAsync(ws->segments, segments, sizeof *segments, cudaMemcpyHostToDevice, stream));
    const unsigned grid = segments->first_tile[RADIX];
    const struct segments tiles = {ws->segments};
    uint32_t *keys = cl_sort_spread_inbox(ws, keys_out, 0, bits),
             *values = pairs ? cl_sort_spread_inbox(ws, values_out, 1, bits) : NULL;
    cl_launch(false, count_segment_digits, grid, SORT_THREADS, 0, stream, (const uint32_t *)keys,
              tiles, passes, bits, ws->segment_counts);
    cl_launch(true, segment_digit_starts, (unsigned)passes * RADIX, RADIX, 0, stream,
              ws->segment_counts, (const cl_sort_segments *)ws->segments, ws->segment_starts);
    uint32_t *other_keys = keys == keys_out ? ws->keys : keys_out,
             *other_values = !pairs                 ? NULL
                             : values == values_out ? ws->values
                                                    : values_out;
    for (int p = 0; p < passes; p++) {
        v5_pass(keys, values,
                to_buffer{other_keys, other_values, ws->segment_starts + (size_t)p * RADIX * RADIX},
                tiles, grid, p, bits, ws, stream);
        uint32_t *k = keys, *v = values;
        keys = other_keys, values = other_values;
        other_keys = k, other_values = v;
    }
}

// --- the workspace -----------------------------------------------------------------------------

// v4's pairs tiles, the smallest, make the most.
static_assert(V5_TILE >= v4_shape<true>::tile,
              "the workspace has a status word per (smallest tile, digit)");
// Plus a partial tile for each of a spread sort's segments.
static size_t max_tiles(size_t n_max)
{
    return (n_max + v4_shape<true>::tile - 1) / v4_shape<true>::tile + RADIX;
}

extern "C" size_t cl_sort_workspace_bytes(size_t n_max, int pairs)
{
    return (pairs ? 2 : 1) * n_max * sizeof(uint32_t) + 2 * MAX_PASSES * RADIX * sizeof(unsigned) +
           RADIX * sizeof(unsigned long long) + sizeof(cl_sort_segments) +
           2 * SEGMENT_DIGITS * sizeof(unsigned) +
           cl_scan_workspace_words_bytes(max_tiles(n_max) * RADIX);
}

extern "C" cl_sort_workspace *cl_sort_workspace_create(size_t n_max, int pairs)
{
    if (n_max > CL_SORT_MAX_KEYS)
        cl_die(CL_EXIT_CUDA,
               "the sort takes at most %u keys (32-bit counts and offsets); %zu asked for",
               CL_SORT_MAX_KEYS, n_max);
    cl_sort_workspace *ws = new cl_sort_workspace();
    ws->n_max = n_max;
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->keys, n_max * sizeof(uint32_t)));
    if (pairs)
        CL_CUDA_CHECK(cudaMalloc((void **)&ws->values, n_max * sizeof(uint32_t)));
    const size_t digit_bytes = MAX_PASSES * RADIX * sizeof(unsigned);
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->digit_counts, digit_bytes));
    CL_CUDA_CHECK(cudaMemset(ws->digit_counts, 0, digit_bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->digit_starts, digit_bytes));
    int device, shared_optin;
    CL_CUDA_CHECK(cudaGetDevice(&device));
    CL_CUDA_CHECK(
        cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    ws->shared_optin = (size_t)shared_optin;
    ws->lookback = cl_scan_workspace_create_words(max_tiles(n_max) * RADIX);
    return ws;
}

extern "C" void cl_sort_workspace_destroy(cl_sort_workspace *ws)
{
    CL_CUDA_CHECK(cudaFree(ws->keys));
    CL_CUDA_CHECK(cudaFree(ws->values));
    CL_CUDA_CHECK(cudaFree(ws->digit_counts));
    CL_CUDA_CHECK(cudaFree(ws->digit_starts));
    CL_CUDA_CHECK(cudaFree(ws->segments));
    CL_CUDA_CHECK(cudaFree(ws->segment_counts));
    CL_CUDA_CHECK(cudaFree(ws->segment_starts));
    cl_scan_workspace_destroy(ws->lookback);
    delete ws;
}

extern "C" uint32_t *cl_sort_workspace_keys(cl_sort_workspace *ws) { return ws->keys; }
extern "C" uint32_t *cl_sort_workspace_values(cl_sort_workspace *ws) { return ws->values; }

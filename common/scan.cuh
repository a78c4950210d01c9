// Scan building blocks, CUB-style layers: warp (shuffles) -> block (warp scans +
// one scan of warp totals) -> device (a single pass over tiles with decoupled
// look-back, Merrill & Garland 2016). The device layer is a kernel template that
// takes a tile operation, so fused kernels (find_repeats' flags + scatter) reuse
// the whole machinery with their own loads and stores. Device code only.
#ifndef CUDALAB_SCAN_CUH
#define CUDALAB_SCAN_CUH

#include <cuda/atomic>

#include "block_reduce.cuh"
#include "bulk_copy.cuh"
#include "check.h"
#include "scan.h"

// Inclusive sum over a full warp: log2(32) = 5 shuffle-up steps, no shared memory.
template <typename T> __device__ __forceinline__ T warp_inclusive_scan(T v)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        T up = __shfl_up_sync(0xffffffffu, v, offset);
        if (lane >= offset)
            v += up;
    }
    return v;
}

// Exclusive sum of one value per thread over a block of THREADS (a multiple of 32,
// at most 1024): each warp scans by shuffles, warp 0 scans the warp totals, each
// thread adds its warp's offset. Sets `total` to the block's sum in every thread.
// Three barriers, the last so the shared array can be reused by the next call.
template <typename T, int THREADS> __device__ T block_exclusive_scan(T v, T &total)
{
    constexpr int WARPS = THREADS / 32;
    __shared__ T warp_offsets[WARPS + 1];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T inclusive = warp_inclusive_scan(v);
    if (lane == 31)
        warp_offsets[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        T w = lane < WARPS ? warp_offsets[lane] : T(0);
        T w_inclusive = warp_inclusive_scan(w);
        if (lane < WARPS)
            warp_offsets[lane] = w_inclusive - w;
        if (lane == WARPS - 1)
            warp_offsets[WARPS] = w_inclusive;
    }
    __syncthreads();
    T result = warp_offsets[warp] + inclusive - v;
    total = warp_offsets[WARPS];
    __syncthreads();
    return result;
}

// --- the device layer: single-pass scan with decoupled look-back -----------------

// A tile's status word: epoch (30 bits) | flag (2 bits) | value (32 bits). A word
// from another launch (other epoch) reads as "not yet published", so no launch
// needs the status array cleared first.
enum : unsigned { TILE_AGGREGATE = 1, TILE_PREFIX = 2 };
enum { CL_SCAN_MIN_TILE = 1024 };

struct scan_tile_state {
    unsigned long long *status; // one word per tile
    unsigned *tile_counter;     // [0] tickets: tiles start in ticket order, not blockIdx
                                // order; [1] the persistent kernel's blocks that are done
    unsigned epoch;             // 1 .. 2^30 - 1
};

__device__ __forceinline__ unsigned long long tile_word(unsigned epoch, unsigned flag,
                                                        uint32_t value)
{
    return ((unsigned long long)epoch << 34) | ((unsigned long long)flag << 32) | value;
}

__device__ __forceinline__ void publish_tile(scan_tile_state st, unsigned tile, unsigned flag,
                                             uint32_t value)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(st.status[tile]);
    word.store(tile_word(st.epoch, flag, value), cuda::memory_order_relaxed);
}

// The last of a launch's `draws` tickets resets the counter for the next launch.
__device__ __forceinline__ void reset_after_last_ticket(scan_tile_state st, unsigned ticket,
                                                        unsigned draws)
{
    if (ticket == draws - 1)
        atomicExch(st.tile_counter, 0u);
}

// Thread 0 of a block: the block's tile, the next ticket of this launch (tiles start
// in ticket order, so a tile waits only on tiles already running).
__device__ __forceinline__ unsigned take_tile_ticket(scan_tile_state st, unsigned draws)
{
    const unsigned t = atomicAdd(st.tile_counter, 1u);
    reset_after_last_ticket(st, t, draws);
    return t;
}

// Status word i (a tile's; in the sort, a tile's digit's), read without ordering (the
// flag and value travel in one word); whether it was published in this launch; its flag,
// or 0 where it was not.
__device__ __forceinline__ unsigned long long read_status(scan_tile_state st, long long i)
{
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(st.status[i]);
    return word.load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ bool is_published(scan_tile_state st, unsigned long long w)
{
    return (unsigned)(w >> 34) == st.epoch;
}
// Its own test of the epoch, on the whole shifted word, rather than a call of
// is_published: through is_published the sort's look-back compiles to longer code.
__device__ __forceinline__ unsigned published_flag(scan_tile_state st, unsigned long long w)
{
    return (w >> 34) == st.epoch ? (unsigned)(w >> 32) & 3u : 0u;
}

// Warp 0 of a tile: the sum of everything before `tile`. Each round the warp reads the
// status of the 32 nearest predecessors not yet summed (lane l: the (l + 1)-th nearest),
// one load of two 128-byte lines: every block reads the same few status lines, and
// scattered reads would multiply the requests to them. When a word holds an inclusive
// prefix, the sum stops at the nearest one, otherwise the aggregates are added and the
// window moves back. Spins only on tiles that took earlier tickets, which are already
// running, so it cannot deadlock.
__device__ inline uint32_t tile_lookback(scan_tile_state st, unsigned tile)
{
    const int lane = threadIdx.x & 31;
    uint32_t exclusive = 0;
    long long pred = (long long)tile - 1 - lane;
    while (true) {
        unsigned long long w;
        do // before tile 0: a prefix of 0 ends the walk
            w = pred >= 0 ? read_status(st, pred) : tile_word(st.epoch, TILE_PREFIX, 0);
        while (!__all_sync(0xffffffffu, is_published(st, w)));
        // The nearest prefix: the lowest lane whose word holds one.
        const unsigned lanes = __ballot_sync(0xffffffffu, ((w >> 32) & 3u) == TILE_PREFIX);
        const int stop = lanes ? __ffs(lanes) - 1 : 32;
        exclusive += warp_sum_all(lane <= stop ? (uint32_t)w : 0u); // up to the prefix
        if (lanes)
            return exclusive;
        pred -= 32;
    }
}

// Warp 0 of a tile past the first, once its aggregate is out: the sum before it (the
// look-back), published with the tile's own total as its inclusive prefix.
__device__ inline uint32_t lookback_and_publish(scan_tile_state st, unsigned tile,
                                                uint32_t tile_total)
{
    const uint32_t tile_prefix = tile_lookback(st, tile);
    if (threadIdx.x == 0)
        publish_tile(st, tile, TILE_PREFIX, tile_prefix + tile_total);
    return tile_prefix;
}

// A thread's exclusive results from the sum before its first item; returns the sum up
// to and including its last.
template <int ITEMS>
__device__ __forceinline__ uint32_t thread_exclusive(uint32_t running,
                                                     const uint32_t (&items)[ITEMS],
                                                     uint32_t (&exclusive)[ITEMS])
{
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        exclusive[i] = running;
        running += items[i];
    }
    return running;
}

// The single-pass kernel. TileOp supplies, for the ITEMS consecutive elements a
// thread owns (a blocked arrangement):
//   void load(size_t first, uint32_t (&items)[ITEMS]) const;   values to scan
//   void store(size_t first, const uint32_t (&items)[ITEMS], const uint32_t (&exclusive)[ITEMS],
//              uint32_t thread_end) const;
// where exclusive[i] is the scan result for element first + i and thread_end the
// sum of everything up to and including the thread's last item.
// Launch exactly num_tiles blocks of THREADS, num_tiles = ceil(n / (THREADS * ITEMS)),
// with THREADS * ITEMS >= CL_SCAN_MIN_TILE (the workspace has a word per such tile).
// MIN_BLOCKS caps registers so that many blocks stay resident: while one block
// waits in its look-back, the others keep loads in flight. It is clamped to what
// the SM holds (1024 threads on sm_75, 1536 on sm_86/89, 2048 on sm_80/90).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define CL_THREADS_PER_SM 1024
#elif defined(__CUDA_ARCH__) &&                                                                    \
    (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
#define CL_THREADS_PER_SM 1536
#else
#define CL_THREADS_PER_SM 2048
#endif
template <int THREADS, int ITEMS, int MIN_BLOCKS, typename TileOp>
__global__ void __launch_bounds__(THREADS, (MIN_BLOCKS * THREADS <= CL_THREADS_PER_SM
                                                ? MIN_BLOCKS
                                                : CL_THREADS_PER_SM / THREADS))
    single_pass_scan_kernel(TileOp op, scan_tile_state st, unsigned num_tiles)
{
    __shared__ unsigned tile_shared;
    __shared__ uint32_t tile_prefix_shared;
    if (threadIdx.x == 0)
        tile_shared = take_tile_ticket(st, num_tiles);
    __syncthreads();
    const unsigned tile = tile_shared;
    const size_t first = ((size_t)tile * THREADS + threadIdx.x) * ITEMS;

    uint32_t items[ITEMS];
    op.load(first, items);
    uint32_t thread_sum = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
        thread_sum += items[i];
    uint32_t tile_total;
    uint32_t thread_offset = block_exclusive_scan<uint32_t, THREADS>(thread_sum, tile_total);

    if (threadIdx.x < 32) {
        uint32_t tile_prefix = 0;
        if (tile == 0) {
            if (threadIdx.x == 0)
                publish_tile(st, tile, TILE_PREFIX, tile_total);
        } else {
            if (threadIdx.x == 0) // let successors start summing before our prefix is known
                publish_tile(st, tile, TILE_AGGREGATE, tile_total);
            tile_prefix = lookback_and_publish(st, tile, tile_total);
        }
        if (threadIdx.x == 0)
            tile_prefix_shared = tile_prefix;
    }
    __syncthreads();
    uint32_t exclusive[ITEMS];
    const uint32_t thread_end =
        thread_exclusive(tile_prefix_shared + thread_offset, items, exclusive);
    op.store(first, items, exclusive, thread_end);
}

// --- the device layer fed by the bulk-copy engine (sm_90) ----------------------------
//
// single_pass_scan_kernel loads a tile, scans it, stores it: while a block waits on its
// loads nothing else of its own is in flight, so DRAM sees only what the other resident
// blocks happen to be loading (75-84% of the copy rate). Here a block is persistent and
// keeps STAGES tiles in shared memory: the bulk-copy engine (cp.async.bulk, Hopper's TMA
// in its plain, non-tensor form) fills the next STAGES - 1 tiles while the block scans
// one, an mbarrier per stage says when a tile's bytes have landed, and the scanned tile
// leaves by a bulk store from the same buffer. One thread issues a whole tile's copy, so
// the other threads spend no instructions on addresses. The PTX (bulk_copy.cuh) is
// sm_90's; the kernel is empty on older GPUs and the launchers run
// single_pass_scan_kernel there.

// A thread's ITEMS consecutive words of a tile in shared memory, as CHUNKS 16-byte
// chunks. Read in order, the lanes of a quarter-warp (which share one shared-memory
// wavefront for 16-byte accesses) would sit ITEMS * 4 bytes apart and hit the same banks
// (4-way at ITEMS = 16). Each lane starts at a different chunk instead, rotated by
// r = (lane / (8 / CHUNKS)) % CHUNKS, so the quarter-warp's 8 chunks cover all 32 banks
// once; the registers are rotated back with CHUNKS log2 CHUNKS selects.
template <int ITEMS> struct rotated_chunks {
    static constexpr int CHUNKS = ITEMS / 4;
    static_assert(ITEMS % 4 == 0 && (CHUNKS & (CHUNKS - 1)) == 0 && CHUNKS <= 8,
                  "ITEMS must be 4, 8, 16 or 32");
    __device__ static int rotation() { return ((threadIdx.x & 31) / (8 / CHUNKS)) % CHUNKS; }

    // q[k] <- q[(k - r) mod CHUNKS] (right) or q[(k + r) mod CHUNKS] (left), by bits of r.
    template <bool RIGHT> __device__ static void rotate(uint4 (&q)[CHUNKS], int r)
    {
#pragma unroll
        for (int step = 1; step < CHUNKS; step <<= 1) {
            uint4 t[CHUNKS];
#pragma unroll
            for (int k = 0; k < CHUNKS; k++)
                t[k] = q[RIGHT ? (k - step + CHUNKS) % CHUNKS : (k + step) % CHUNKS];
            if (r & step) {
#pragma unroll
                for (int k = 0; k < CHUNKS; k++)
                    q[k] = t[k];
            }
        }
    }

    __device__ static void load(const uint32_t *tile, uint32_t (&items)[ITEMS])
    {
        const uint4 *mine = reinterpret_cast<const uint4 *>(tile) + threadIdx.x * CHUNKS;
        const int r = rotation();
        uint4 q[CHUNKS];
#pragma unroll
        for (int k = 0; k < CHUNKS; k++)
            q[k] = mine[(k + r) % CHUNKS]; // q[k] holds chunk (k + r) mod CHUNKS
        rotate<true>(q, r);                // now q[c] holds chunk c
#pragma unroll
        for (int c = 0; c < CHUNKS; c++) {
            items[4 * c] = q[c].x;
            items[4 * c + 1] = q[c].y;
            items[4 * c + 2] = q[c].z;
            items[4 * c + 3] = q[c].w;
        }
    }

    __device__ static void store(uint32_t *tile, const uint32_t (&items)[ITEMS])
    {
        uint4 *mine = reinterpret_cast<uint4 *>(tile) + threadIdx.x * CHUNKS;
        const int r = rotation();
        uint4 q[CHUNKS];
#pragma unroll
        for (int c = 0; c < CHUNKS; c++)
            q[c] = make_uint4(items[4 * c], items[4 * c + 1], items[4 * c + 2], items[4 * c + 3]);
        rotate<false>(q, r); // q[k] holds chunk (k + r) mod CHUNKS
#pragma unroll
        for (int k = 0; k < CHUNKS; k++)
            mine[(k + r) % CHUNKS] = q[k];
    }
};

// Warp 0 of a persistent block: the status words of tiles lo, lo + 1, ... below hi,
// 32 neighbouring words a load (lane l of load j: tile lo + 32 j + l), WINDOWS loads
// issued back to back, so the window costs one L2 round trip. Tiles at or past hi read
// as published aggregates of 0.
template <int WINDOWS>
__device__ __forceinline__ void read_tile_span(scan_tile_state st, long long lo, long long hi,
                                               unsigned long long (&w)[WINDOWS])
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int j = 0; j < WINDOWS; j++) {
        const long long t = lo + 32 * j + lane;
        w[j] = t < hi ? read_status(st, t) : tile_word(st.epoch, TILE_AGGREGATE, 0);
    }
}

// Warp 0: the sum of the aggregates of tiles lo .. hi - 1, from a first window `w` read
// by read_tile_span(st, lo, hi, w) a while ago. Words not yet published are read again
// until they are; spans longer than the window go on window by window.
template <int WINDOWS>
__device__ inline uint32_t sum_tile_span(scan_tile_state st, long long lo, long long hi,
                                         unsigned long long (&w)[WINDOWS])
{
    const int lane = threadIdx.x & 31;
    uint32_t sum = 0;
    while (true) {
        while (true) {
            bool published = true;
#pragma unroll
            for (int j = 0; j < WINDOWS; j++)
                published &= is_published(st, w[j]);
            if (__all_sync(0xffffffffu, published))
                break;
#pragma unroll
            for (int j = 0; j < WINDOWS; j++) // the words past hi read as published
                if (!is_published(st, w[j]))
                    w[j] = read_status(st, lo + 32 * j + lane);
        }
        uint32_t value = 0;
#pragma unroll
        for (int j = 0; j < WINDOWS; j++)
            value += (uint32_t)w[j];
        sum += warp_sum_all(value);
        lo += 32 * WINDOWS;
        if (lo >= hi)
            return sum;
        read_tile_span(st, lo, hi, w);
    }
}

// The persistent single-pass kernel. TileOp supplies:
//   const uint32_t *src; size_t n;            the words the tiles are copied from
//   static constexpr bool STORES_TILE;         true: the exclusive results replace the
//                                              tile in shared memory and a bulk store
//                                              writes them to `uint32_t *dst` (op.dst)
//   static constexpr bool NEEDS_NEXT;          items() wants the word after the thread's last
//   static constexpr bool FLAG_ITEMS;          the items are flags (0 or 1), given and
//                                              taken as a bit mask a thread
//   void items(const uint32_t (&words)[ITEMS], uint32_t next, size_t first,
//              uint32_t (&items)[ITEMS]) const;  values to scan from the words
//   void store(size_t first, items, exclusive, thread_end) const;   if !STORES_TILE
// or, with FLAG_ITEMS (and not STORES_TILE):
//   uint32_t flags(const uint32_t (&words)[ITEMS], uint32_t next, size_t first) const;
//                                              bit k: item k's flag
//   void store_flags(size_t first, uint32_t flags, uint32_t exclusive, uint32_t thread_end)
//                                              const;  exclusive: the result at item 0
// with `first` the index of the thread's first word, as in single_pass_scan_kernel.
// Flags as a bit mask: their sum is one popcount, a tile waiting for its prefix holds
// one register a thread instead of ITEMS, and a store visits only the set bits.
//
// The look-back, out of the way. Persistent blocks move in step: the G tiles of a
// round (G blocks) finish their scans at nearly the same moment, so a look-back right
// after the scan spins until the round's predecessors have published, and even one
// done an iteration later walks back through a round of words in the block's critical
// path. Here nothing waits on another block's look-back and no walk is in the way:
//   - a block knows the inclusive prefix of the last tile it finished itself, so the
//     prefix of its next one is that plus the aggregates of the tiles between them
//     (the other blocks' tiles of about one round, G - 1 words): no inclusive prefix
//     is published or read, every block needs only aggregates, which a block publishes
//     as soon as it has scanned a tile;
//   - iteration i scans tile i and publishes its aggregate, and finishes tile i - 2
//     (adds its prefix, stores it), whose span the other blocks published more than an
//     iteration ago; warp 0 asks for that span at the end of iteration i - 1, so the
//     L2 round trip (1-2 us while DRAM streams) overlaps a wait and a scan.
// Every L2 round trip is asked for an iteration before its answer is needed: the
// loader thread (warp 1's first lane) draws the next refill's ticket an iteration
// ahead too. An iteration has two barriers (three when the results leave through
// shared memory): after the warps' sums; after warp 0 has turned them into offsets and
// found tile i - 2's prefix, while the loader refills a stage.
// The price: two scanned tiles wait in registers (items, offsets), and, when the
// results leave through the tile's own stage, two stages hold results.
//
// Launch at most as many blocks as stay resident (each takes tiles until the tickets
// run out), STAGES * THREADS * ITEMS * 4 bytes of dynamic shared memory, src (and dst)
// 16-byte aligned. Tickets: the first num_tiles name tiles; a block stops drawing once
// it has drawn past them, and the last block out resets the counter. A block finishes
// its tiles in ticket order. No deadlock: a block scans and publishes a tile before it
// waits on anything in that iteration, and it waits only on aggregates of tiles with
// lower tickets than the one it finishes; the lowest tile without an aggregate belongs
// to a block whose earlier waits need only tiles below it.
template <int THREADS, int ITEMS, int STAGES, int WINDOWS, typename TileOp>
__global__ void __launch_bounds__(THREADS)
    bulk_single_pass_scan_kernel(TileOp op, scan_tile_state st, unsigned num_tiles)
{
    // Iteration i refills the stage of tile i - REFILL_LAG: when the results leave
    // through their stage (STORES_TILE), tile i - 3's, whose bulk store was issued last
    // iteration; otherwise tile i's own, whose words are in registers by then.
    constexpr int REFILL_LAG = TileOp::STORES_TILE ? 3 : 0;
    static_assert(STAGES >= REFILL_LAG + 2, "too few stages for the refill lag");
    static_assert(THREADS >= 64 && THREADS % 32 == 0, "a loader warp besides warp 0");
    static_assert(!(TileOp::FLAG_ITEMS && TileOp::STORES_TILE), "flags are not stored back");
#ifdef CL_HAVE_BULK_COPY
    constexpr int TILE = THREADS * ITEMS, WARPS = THREADS / 32, LOADER = 32;
    constexpr int HELD = TileOp::FLAG_ITEMS ? 1 : ITEMS; // registers a scanned tile's items take
    constexpr unsigned NO_TILE = 0xffffffffu;
    extern __shared__ __align__(128) uint32_t stage_words[]; // STAGES x TILE
    __shared__ unsigned long long landed[STAGES];            // a phase per fill
    __shared__ unsigned stage_tile[STAGES];
    // By iteration parity (an iteration's two barriers are all that separate its reads
    // from the next one's writes): the warps' offsets in the tile, the tile's total, and
    // the prefix of the tile finished in the iteration.
    __shared__ uint32_t scan_shared[2][WARPS + 2];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    // Words of the tile starting at `first`: TILE, except for the last tile.
    auto tile_words_from = [&](size_t first) {
        return op.n - first < (size_t)TILE ? op.n - first : (size_t)TILE;
    };

    // --- the loader's steps (thread LOADER) ---
    // Fill: the tile of `ticket` into stage s, or the mark that the tiles ran out.
    bool drawing = true;
    auto fill = [&](int s, unsigned ticket) {
        if (!drawing || ticket >= num_tiles) {
            drawing = false;
            stage_tile[s] = NO_TILE;
            return;
        }
        stage_tile[s] = ticket;
        const size_t first = (size_t)ticket * TILE;
        const size_t count = tile_words_from(first);
        const unsigned bytes = (unsigned)(count & ~(size_t)3) * 4u; // whole 16-byte chunks
        mbarrier_arrive_expect_bytes(&landed[s], bytes);
        if (bytes)
            bulk_load(stage_words + s * TILE, op.src + first, bytes, &landed[s]);
    };
    auto draw = [&]() { return drawing ? atomicAdd(st.tile_counter, 1u) : NO_TILE; };

    // The first stage's tile now, the other stages' while it loads, one ticket at a time
    // (drawn back to back, or two at a time, a block's tickets would be neighbours:
    // where there are few tiles a block, a few blocks would do them all, and each block
    // would wait on the one before it through its first tiles).
    unsigned ticket_in_hand = NO_TILE; // the next refill's, drawn ahead
    if (threadIdx.x == LOADER) {
        for (int s = 0; s < STAGES; s++)
            mbarrier_init(&landed[s], 1);
        mbarrier_init_fence();
        fill(0, draw());
    }
    __syncthreads();

    // Tiles scanned one (p1) and two (p2) iterations ago, waiting for their prefixes.
    unsigned p1_tile = NO_TILE, p2_tile = NO_TILE;
    uint32_t p1_items[HELD] = {}, p1_offset = 0, p1_total = 0;
    uint32_t p2_items[HELD] = {}, p2_offset = 0, p2_total = 0;
    // Warp 0: the first tile after the last one this block finished, the sum of
    // everything before it, and the words of the next span, asked for an iteration ahead.
    long long span_first = 0;
    uint32_t finished_sum = 0;
    unsigned long long span[WINDOWS];

    // --- the steps of an iteration ---
    // 1. Scan: tile i's items (stage s) and the thread's sum of them (zeros in the last
    // two iterations, which only finish tiles).
    auto scan_items = [&](unsigned i, int s, unsigned tile, uint32_t(&items)[HELD]) {
        uint32_t thread_sum = 0;
        if (tile == NO_TILE) {
#pragma unroll
            for (int k = 0; k < HELD; k++)
                items[k] = 0;
            return thread_sum;
        }
        uint32_t *tile_words = stage_words + s * TILE;
        const size_t tile_first = (size_t)tile * TILE;
        mbarrier_wait_parity(&landed[s], (i / STAGES) & 1u);
        const size_t count = tile_words_from(tile_first);
        if (count < (size_t)TILE) { // the last tile: the bulk copy brought whole chunks;
                                    // the rest, and zeros past n
            for (size_t w = (count & ~(size_t)3) + threadIdx.x; w < (size_t)TILE; w += THREADS)
                tile_words[w] = w < count ? op.src[tile_first + w] : 0u;
            __syncthreads();
        }
        uint32_t words[ITEMS];
        rotated_chunks<ITEMS>::load(tile_words, words);
        uint32_t next = 0;
        if constexpr (TileOp::NEEDS_NEXT) { // the first word of the next thread's run
            next = __shfl_down_sync(0xffffffffu, words[0], 1);
            if (lane == 31) {
                const size_t after = tile_first + (size_t)(threadIdx.x + 1) * ITEMS;
                next = threadIdx.x + 1 < THREADS ? tile_words[(threadIdx.x + 1) * ITEMS]
                       : after < op.n            ? op.src[after]
                                                 : 0u;
            }
        }
        const size_t first = tile_first + (size_t)threadIdx.x * ITEMS;
        if constexpr (TileOp::FLAG_ITEMS) {
            items[0] = op.flags(words, next, first);
            thread_sum = __popc(items[0]);
        } else {
            op.items(words, next, first, items);
#pragma unroll
            for (int k = 0; k < ITEMS; k++)
                thread_sum += items[k];
        }
        return thread_sum;
    };

    // 2. Combine (warp 0): the warps' offsets and tile i's total, published as its
    // aggregate; tile i - 2's prefix from its span. Refill (the loader, meanwhile): a
    // stage and the next ticket.
    auto combine_and_refill = [&](unsigned i, int parity, unsigned tile) {
        if (warp == 0) {
            const uint32_t w = lane < WARPS ? scan_shared[parity][lane] : 0u;
            const uint32_t w_inclusive = warp_inclusive_scan(w);
            if (lane < WARPS)
                scan_shared[parity][lane] = w_inclusive - w;
            if (lane == WARPS - 1) {
                scan_shared[parity][WARPS] = w_inclusive;
                if (tile != NO_TILE)
                    publish_tile(st, tile, TILE_AGGREGATE, w_inclusive);
            }
            if (p2_tile != NO_TILE) {
                const uint32_t prefix = finished_sum + sum_tile_span(st, span_first, p2_tile, span);
                finished_sum = prefix + p2_total;
                span_first = (long long)p2_tile + 1;
                if (lane == 0)
                    scan_shared[parity][WARPS + 1] = prefix;
            }
        } else if (threadIdx.x == LOADER && (long long)i >= REFILL_LAG) {
            if constexpr (TileOp::STORES_TILE)
                bulk_store_wait_read<0>(); // tile i - 3's store, issued last iteration
            fill((int)((i - REFILL_LAG) % STAGES), ticket_in_hand);
            ticket_in_hand = draw();
        }
    };

    // 3. Finish: tile i - 2's results, its prefix added, out.
    auto finish_tile = [&](unsigned i, int parity) {
        const uint32_t thread_prefix = scan_shared[parity][WARPS + 1] + p2_offset;
        const size_t p2_first = (size_t)p2_tile * TILE;
        if constexpr (TileOp::FLAG_ITEMS) {
            op.store_flags(p2_first + (size_t)threadIdx.x * ITEMS, p2_items[0], thread_prefix,
                           thread_prefix + __popc(p2_items[0]));
        } else if constexpr (TileOp::STORES_TILE) {
            uint32_t exclusive[ITEMS];
            thread_exclusive(thread_prefix, p2_items, exclusive);
            uint32_t *p2_words = stage_words + (int)((i - 2) % STAGES) * TILE;
            rotated_chunks<ITEMS>::store(p2_words, exclusive);
            fence_shared_for_bulk_copy();
            __syncthreads();
            const size_t count = tile_words_from(p2_first);
            const size_t chunked = count & ~(size_t)3;
            if (threadIdx.x == LOADER && chunked)
                bulk_store(op.dst + p2_first, p2_words, (unsigned)chunked * 4u);
            for (size_t w = chunked + threadIdx.x; w < count; w += THREADS)
                op.dst[p2_first + w] = p2_words[w];
        } else {
            uint32_t exclusive[ITEMS];
            const uint32_t thread_end = thread_exclusive(thread_prefix, p2_items, exclusive);
            op.store(p2_first + (size_t)threadIdx.x * ITEMS, p2_items, exclusive, thread_end);
        }
    };

    for (unsigned i = 0;; i++) {
        const int s = (int)(i % STAGES), parity = (int)(i & 1);
        const unsigned tile = stage_tile[s];
        if (tile == NO_TILE && p1_tile == NO_TILE && p2_tile == NO_TILE)
            break;
        if (i == 0 && threadIdx.x == LOADER) { // read from iteration 1 on, after two barriers
            for (int k = 1; k < STAGES; k++)
                fill(k, draw());
            ticket_in_hand = draw();
        }
        uint32_t items[HELD];
        const uint32_t thread_sum = scan_items(i, s, tile, items);
        const uint32_t inclusive = warp_inclusive_scan(thread_sum);
        if (lane == 31)
            scan_shared[parity][warp] = inclusive;
        __syncthreads();
        combine_and_refill(i, parity, tile);
        __syncthreads();
        const uint32_t thread_offset = scan_shared[parity][warp] + inclusive - thread_sum;
        const uint32_t tile_total = scan_shared[parity][WARPS];
        if (p2_tile != NO_TILE)
            finish_tile(i, parity);

        // The tiles move up a place: i - 1 waits as i - 2 next iteration, i as i - 1.
        p2_tile = p1_tile;
        p2_offset = p1_offset;
        p2_total = p1_total;
        p1_tile = tile;
        p1_offset = thread_offset;
        p1_total = tile_total;
#pragma unroll
        for (int k = 0; k < HELD; k++) {
            p2_items[k] = p1_items[k];
            p1_items[k] = items[k];
        }
        // 4. Warp 0 asks for the span of the tile it finishes next iteration.
        if (warp == 0 && p2_tile != NO_TILE)
            read_tile_span(st, span_first, p2_tile, span);
    }
    if (threadIdx.x == LOADER) {
        if constexpr (TileOp::STORES_TILE)
            bulk_store_wait_all();
        // The last block out resets the ticket counter for the next launch.
        if (atomicAdd(st.tile_counter + 1, 1u) == gridDim.x - 1) {
            atomicExch(st.tile_counter, 0u);
            atomicExch(st.tile_counter + 1, 0u);
        }
    }
#endif
}

// Host side of bulk_single_pass_scan_kernel: launches it over num_tiles tiles of
// THREADS * ITEMS words, as many blocks as stay resident (at most num_tiles), and
// returns true; returns false, launching nothing, where the kernel's code was compiled
// without the bulk-copy engine (for a GPU before sm_90: its body is empty there) or a
// pointer is not 16-byte aligned, so the caller runs single_pass_scan_kernel instead.
template <int THREADS, int ITEMS, int STAGES, int WINDOWS, typename TileOp>
bool launch_bulk_single_pass_scan(const TileOp &op, bool aligned, scan_tile_state st,
                                  size_t num_tiles, cudaStream_t stream)
{
    constexpr size_t SHARED = (size_t)STAGES * THREADS * ITEMS * sizeof(uint32_t);
    auto kernel = bulk_single_pass_scan_kernel<THREADS, ITEMS, STAGES, WINDOWS, TileOp>;
    if (!aligned)
        return false;
    const cl_kernel_fit fit = cl_kernel_fit_for((const void *)kernel, THREADS, SHARED);
    if (fit.code_arch < CL_BULK_COPY_ARCH)
        return false;
    if (fit.blocks_per_sm < 1)
        cl_die(CL_EXIT_CUDA, "the bulk-copy scan kernel (%zu bytes of shared memory) fits no SM",
               SHARED);
    const size_t grid = (size_t)fit.resident < num_tiles ? (size_t)fit.resident : num_tiles;
    kernel<<<(unsigned)grid, THREADS, SHARED, stream>>>(op, st, (unsigned)num_tiles);
    CL_LAUNCH_CHECK();
    return true;
}

// The workspace's state for a launch over num_tiles tiles (a new epoch each call);
// exits 3 if the workspace was made for fewer tiles.
scan_tile_state cl_scan_tile_state(cl_scan_workspace *ws, size_t num_tiles);

// Moves ITEMS consecutive 32-bit values per thread (a blocked arrangement) between
// global memory and registers through a warp transpose in shared memory: global
// accesses are warp-striped, so each 16-byte load or store instruction of a warp
// covers 512 contiguous bytes (fully coalesced), and threads still own consecutive
// items. Shared memory is padded one word per 32 (word e at e + e / 32). Bank
// conflicts: the striped side has none (lane l's word k of a 16-byte chunk is at
// 4 l + k + l / 8: 32 banks). On the blocked side lane l's item i is at
// ITEMS l + i + (ITEMS l + i) / 32: none when ITEMS divides 32 (4, 8, 16, 32); 2-way
// for the other multiples of 4 up to 56 and for 64 (64: bank 2 l + i, so lanes l and
// l + 16 share one; the suite's scan pays that); 60 would be 3-way, 128 4-way.
// THREADS * ITEMS words (+ padding) per block.
template <int THREADS, int ITEMS> struct tile_io {
    static_assert(ITEMS % 4 == 0, "ITEMS must be a multiple of 4");
    static_assert(32 % ITEMS == 0 || ITEMS <= 56 || ITEMS == 64,
                  "the blocked side would conflict more than 2-way: see the comment above");
    static constexpr int WARP_ITEMS = 32 * ITEMS;
    static constexpr int WARP_STAGE = WARP_ITEMS + ITEMS; // one pad word per 32

    __device__ static int pad(int e) { return e + e / 32; }
    __device__ static uint32_t *warp_stage()
    {
        __shared__ uint32_t stage[THREADS / 32 * WARP_STAGE];
        return stage + (threadIdx.x >> 5) * WARP_STAGE;
    }

    // `first` is the thread's first element (thread-blocked, warps contiguous).
    __device__ static void load(const uint32_t *src, size_t first, size_t n, bool aligned,
                                uint32_t (&items)[ITEMS], uint32_t fill)
    {
        const int lane = threadIdx.x & 31;
        const size_t warp_first = first - (size_t)lane * ITEMS;
        uint32_t *stage = warp_stage();
        if (aligned && warp_first + WARP_ITEMS <= n) {
            const uint4 *v = reinterpret_cast<const uint4 *>(src + warp_first);
#pragma unroll
            for (int j = 0; j < ITEMS / 4; j++) {
                uint4 q = v[j * 32 + lane];
                int e = (j * 32 + lane) * 4;
                stage[pad(e)] = q.x;
                stage[pad(e + 1)] = q.y;
                stage[pad(e + 2)] = q.z;
                stage[pad(e + 3)] = q.w;
            }
        } else {
#pragma unroll
            for (int j = 0; j < ITEMS; j++) {
                int e = j * 32 + lane;
                stage[pad(e)] = warp_first + e < n ? src[warp_first + e] : fill;
            }
        }
        __syncwarp();
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            items[i] = stage[pad(lane * ITEMS + i)];
        __syncwarp(); // the stage is reused by the next load or store
    }

    __device__ static void store(uint32_t *dst, size_t first, size_t n, bool aligned,
                                 const uint32_t (&items)[ITEMS])
    {
        const int lane = threadIdx.x & 31;
        const size_t warp_first = first - (size_t)lane * ITEMS;
        uint32_t *stage = warp_stage();
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            stage[pad(lane * ITEMS + i)] = items[i];
        __syncwarp();
        if (aligned && warp_first + WARP_ITEMS <= n) {
            uint4 *v = reinterpret_cast<uint4 *>(dst + warp_first);
#pragma unroll
            for (int j = 0; j < ITEMS / 4; j++) {
                int e = (j * 32 + lane) * 4;
                v[j * 32 + lane] = make_uint4(stage[pad(e)], stage[pad(e + 1)], stage[pad(e + 2)],
                                              stage[pad(e + 3)]);
            }
        } else {
#pragma unroll
            for (int j = 0; j < ITEMS; j++) {
                int e = j * 32 + lane;
                if (warp_first + e < n)
                    dst[warp_first + e] = stage[pad(e)];
            }
        }
        __syncwarp();
    }
};

#endif

// Scan building blocks, CUB-style layers: warp (shuffles) -> block (warp scans +
// one scan of warp totals) -> device (a single pass over tiles with decoupled
// look-back, Merrill & Garland 2016). The device layer is a kernel template that
// takes a tile operation, so fused kernels (find_repeats' flags + scatter) reuse
// the whole machinery with their own loads and stores. Device code only.
#ifndef CUDALAB_SCAN_CUH
#define CUDALAB_SCAN_CUH

#include <cuda/atomic>

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
    unsigned *tile_counter;     // tickets: tiles start in ticket order, not blockIdx order
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

// Thread 0 of a block: the block's tile, the next ticket of this launch (tiles start
// in ticket order, so a tile waits only on tiles already running). The last ticket
// resets the counter for the next launch.
__device__ __forceinline__ unsigned take_tile_ticket(scan_tile_state st, unsigned num_tiles)
{
    const unsigned t = atomicAdd(st.tile_counter, 1u);
    if (t == num_tiles - 1)
        atomicExch(st.tile_counter, 0u);
    return t;
}

// Warp 0 of a tile: the sum of everything before `tile`. Each round the 32 lanes read
// the status of the 32 nearest predecessors not yet summed; when one holds an
// inclusive prefix, the sum stops there, otherwise the aggregates are added and the
// window moves 32 tiles back. Spins only on tiles that took earlier tickets, which
// are already running, so it cannot deadlock.
__device__ inline uint32_t tile_lookback(scan_tile_state st, unsigned tile)
{
    const int lane = threadIdx.x & 31;
    uint32_t exclusive = 0;
    long long pred = (long long)tile - 1 - lane;
    while (true) {
        unsigned long long w;
        while (true) {
            if (pred >= 0) {
                cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> word(
                    st.status[pred]);
                w = word.load(cuda::memory_order_relaxed);
            } else { // before tile 0: a prefix of 0 ends the walk
                w = tile_word(st.epoch, TILE_PREFIX, 0);
            }
            if (__all_sync(0xffffffffu, (unsigned)(w >> 34) == st.epoch))
                break;
        }
        unsigned prefix_lanes = __ballot_sync(0xffffffffu, ((w >> 32) & 3u) == TILE_PREFIX);
        uint32_t value = (uint32_t)w;
        if (prefix_lanes) // lanes past the nearest prefix must not count
            value = lane <= __ffs(prefix_lanes) - 1 ? value : 0u;
#pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1)
            value += __shfl_xor_sync(0xffffffffu, value, offset);
        exclusive += value;
        if (prefix_lanes)
            return exclusive;
        pred -= 32;
    }
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
            tile_prefix = tile_lookback(st, tile);
            if (threadIdx.x == 0)
                publish_tile(st, tile, TILE_PREFIX, tile_prefix + tile_total);
        }
        if (threadIdx.x == 0)
            tile_prefix_shared = tile_prefix;
    }
    __syncthreads();
    uint32_t running = tile_prefix_shared + thread_offset;
    uint32_t exclusive[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        exclusive[i] = running;
        running += items[i];
    }
    op.store(first, items, exclusive, running);
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

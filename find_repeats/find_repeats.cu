// find_repeats: the indices i with A[i] == A[i+1], in order — stream compaction.
//
// Versions:
//   v1-scan-scatter  flags[i] = (A[i] == A[i+1]); positions = exclusive scan of the
//                    flags (the suite's scan, common/scan.cu); indices[positions[i]] = i
//                    where flagged. Three launches, 4n bytes of flags and 4n of
//                    positions written and read back.
//   v2-fused         one launch: the single-pass scan kernel (common/scan.cuh) with a
//                    tile operation that computes the flags as it loads A and scatters
//                    as it stores; flags and positions never touch memory.
//   v3-bulk          v2's flags and scatter in the bulk-copy scan (common/scan.cuh):
//                    persistent blocks keep 2 tiles of A in flight by the bulk-copy
//                    engine while they scan one, a thread's flags one bit mask (sm_90;
//                    v2's kernel on older GPUs).
//
// Napkin math: v2 reads A once (4n bytes) and writes 4 bytes per repeat (about n/10
// for rand % 10): 4.4n bytes, 1.1 GB at 256M, 0.27 ms at 4.2 TB/s. v1 moves ~24n.
#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_select.cuh>

#include "check.h"
#include "device.h"
#include "find_repeats.h"
#include "scan.cuh"

// --- v1: flags, scan, scatter ---------------------------------------------------------

__global__ void repeat_flags(const int32_t *a, size_t n, int32_t *flags)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        flags[i] = i + 1 < n && a[i] == a[i + 1];
}

__global__ void scatter_repeats(const int32_t *flags, const int32_t *positions, size_t n,
                                int32_t *indices, int32_t *count)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (flags[i])
            indices[positions[i]] = (int32_t)i;
        if (i == n - 1)
            *count = positions[i] + flags[i];
    }
}

// --- v2's tile operation: flags from A, then the scatter ----------------------------

// flags[i] = (A[first + i] == A[first + i + 1]) for a thread's ITEMS words v, `next`
// the word after them (anything past n: never flagged).
template <int ITEMS>
__device__ __forceinline__ void repeat_flags_of(const uint32_t (&v)[ITEMS], uint32_t next,
                                                size_t first, size_t n, uint32_t (&flags)[ITEMS])
{
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        uint32_t right = i + 1 < ITEMS ? v[i + 1] : next;
        flags[i] = first + i + 1 < n && v[i] == right;
    }
}

// Writes each flagged index at its position (the exclusive scan of the flags); the
// thread owning element n - 1 writes the count.
template <int ITEMS>
__device__ __forceinline__ void
scatter_repeats_of(size_t first, size_t n, const uint32_t (&flags)[ITEMS],
                   const uint32_t (&position)[ITEMS], uint32_t thread_end, int32_t *indices,
                   int32_t *count)
{
#pragma unroll
    for (int i = 0; i < ITEMS; i++)
        if (flags[i])
            indices[position[i]] = (int32_t)(first + i);
    if (first < n && n - 1 - first < ITEMS)
        *count = (int32_t)thread_end;
}

// --- v2: fused into the single-pass scan ----------------------------------------------

// Tile shape: 256 threads x 32 items, registers capped for 6 blocks an SM; the
// fastest of the shapes tried (README.md has the measurements).
enum { FUSED_THREADS = 256, FUSED_ITEMS = 32, FUSED_MIN_BLOCKS = 6 };

// The scan's tile operation: items are the flags of the thread's FUSED_ITEMS (32)
// elements (computed from A and the next element), the store scatters flagged indices
// and the thread owning element n-1 writes the count.
struct repeats_tile_op {
    const uint32_t *a;
    int32_t *indices, *count;
    size_t n;
    bool aligned;
    __device__ void load(size_t first, uint32_t (&flags)[FUSED_ITEMS]) const
    {
        uint32_t v[FUSED_ITEMS];
        tile_io<FUSED_THREADS, FUSED_ITEMS>::load(a, first, n, aligned, v, 0u);
        uint32_t next = first + FUSED_ITEMS < n ? a[first + FUSED_ITEMS] : 0u;
        repeat_flags_of(v, next, first, n, flags);
    }
    __device__ void store(size_t first, const uint32_t (&flags)[FUSED_ITEMS],
                          const uint32_t (&position)[FUSED_ITEMS], uint32_t thread_end) const
    {
        scatter_repeats_of(first, n, flags, position, thread_end, indices, count);
    }
};

// --- v3: v2's flags and scatter, tiles fed by the bulk-copy engine ------------------

// 1024 threads x 16 items (64 KB tiles), 3 stages (192 KB, one block an SM; nothing
// leaves through the stage, so a stage is refilled as soon as its words are in
// registers: 2 tiles in flight). The kernel was bound by instructions, not DRAM (ncu,
// H200: 440 warp instructions a 16-item tile, schedulers 60% busy, DRAM 48%); flags as
// a bit mask halved the flag and scatter work and left 1024 threads room in 64
// registers (64 used, no spill), so the block's fixed costs (barriers, the span, the
// ticket) spread over more bytes: 99% / 87% of copy at 256M on the H100 / H200, ahead
// of 768 x 16 x 4 (README.md has more).
enum { BULK_THREADS = 1024, BULK_ITEMS = 16, BULK_STAGES = 3, BULK_SPAN_WINDOWS = 5 };

struct bulk_repeats_op {
    static constexpr bool STORES_TILE = false, NEEDS_NEXT = true, FLAG_ITEMS = true;
    const uint32_t *src;
    size_t n;
    int32_t *indices, *count;
    // Bit i: A[first + i] == A[first + i + 1] (v's words, `next` the one after them);
    // an element whose successor is past n is never flagged. Two instructions an item
    // (a compare, a select-or into the mask) where v2's flags array costs six (a 64-bit
    // bound test each) and a sum.
    __device__ uint32_t flags(const uint32_t (&v)[BULK_ITEMS], uint32_t next, size_t first) const
    {
        uint32_t mask = 0;
#pragma unroll
        for (int i = 0; i < BULK_ITEMS; i++)
            mask |= v[i] == (i + 1 < BULK_ITEMS ? v[i + 1] : next) ? 1u << i : 0u;
        if (first + BULK_ITEMS >= n) // the run holding element n - 1: i + 1 < n - first
            mask &= first + 1 < n ? (1u << (n - 1 - first)) - 1u : 0u;
        return mask;
    }
    // The flagged indices, one store a set bit from `position` on: about 1.6 flags in 16
    // elements (rand % 10), so the warp loops a few times where v2 issues 16 predicated
    // stores. The thread owning element n - 1 writes the count.
    __device__ void store_flags(size_t first, uint32_t mask, uint32_t position,
                                uint32_t thread_end) const
    {
        int32_t *out = indices + position;
        for (; mask; mask &= mask - 1u)
            *out++ = (int32_t)first + __ffs(mask) - 1;
        if (first < n && n - 1 - first < BULK_ITEMS)
            *count = (int32_t)thread_end;
    }
};

// --- workspace and launchers ------------------------------------------------------------

struct find_repeats_workspace {
    int32_t *flags, *positions;
    cl_scan_workspace *scan;
};

extern "C" size_t find_repeats_workspace_bytes(size_t n_max)
{
    return 2 * n_max * sizeof(int32_t) + cl_scan_workspace_bytes(n_max);
}

extern "C" find_repeats_workspace *find_repeats_workspace_create(size_t n_max)
{
    find_repeats_workspace *ws = new find_repeats_workspace;
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->flags, n_max * sizeof(int32_t)));
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->positions, n_max * sizeof(int32_t)));
    ws->scan = cl_scan_workspace_create(n_max);
    return ws;
}

extern "C" int32_t *find_repeats_workspace_scratch(find_repeats_workspace *ws) { return ws->flags; }

extern "C" void find_repeats_workspace_destroy(find_repeats_workspace *ws)
{
    CL_CUDA_CHECK(cudaFree(ws->flags));
    CL_CUDA_CHECK(cudaFree(ws->positions));
    cl_scan_workspace_destroy(ws->scan);
    delete ws;
}

static void launch_v1(const int32_t *a, size_t n, int32_t *indices, int32_t *count,
                      find_repeats_workspace *ws, cudaStream_t s)
{
    unsigned blocks = (unsigned)((n + 255) / 256);
    repeat_flags<<<blocks, 256, 0, s>>>(a, n, ws->flags);
    CL_LAUNCH_CHECK();
    cl_exclusive_scan_i32(ws->flags, ws->positions, n, ws->scan, s);
    scatter_repeats<<<blocks, 256, 0, s>>>(ws->flags, ws->positions, n, indices, count);
    CL_LAUNCH_CHECK();
}

static void launch_v2(const int32_t *a, size_t n, int32_t *indices, int32_t *count,
                      find_repeats_workspace *ws, cudaStream_t s)
{
    const size_t tile = (size_t)FUSED_THREADS * FUSED_ITEMS;
    size_t tiles = (n + tile - 1) / tile;
    repeats_tile_op op{reinterpret_cast<const uint32_t *>(a), indices, count, n,
                       ((uintptr_t)a & 15u) == 0};
    single_pass_scan_kernel<FUSED_THREADS, FUSED_ITEMS, FUSED_MIN_BLOCKS>
        <<<(unsigned)tiles, FUSED_THREADS, 0, s>>>(op, cl_scan_tile_state(ws->scan, tiles),
                                                   (unsigned)tiles);
    CL_LAUNCH_CHECK();
}

static void launch_v3(const int32_t *a, size_t n, int32_t *indices, int32_t *count,
                      find_repeats_workspace *ws, cudaStream_t s)
{
    const size_t tile = (size_t)BULK_THREADS * BULK_ITEMS;
    const size_t tiles = (n + tile - 1) / tile;
    bulk_repeats_op op{reinterpret_cast<const uint32_t *>(a), n, indices, count};
    if (!launch_bulk_single_pass_scan<BULK_THREADS, BULK_ITEMS, BULK_STAGES, BULK_SPAN_WINDOWS>(
            op, ((uintptr_t)a & 15u) == 0, cl_scan_tile_state(ws->scan, tiles), tiles, s))
        launch_v2(a, n, indices, count, ws, s);
}

extern "C" const find_repeats_version find_repeats_versions[] = {
    {{"v1-scan-scatter", "flags, the suite's exclusive scan, scatter: three launches"}, launch_v1},
    {{"v2-fused", "one launch: flags and scatter fused into the single-pass scan"}, launch_v2},
    {{"v3-bulk", "v2's flags as bit masks, persistent blocks fed by the bulk-copy engine (sm_90)"},
     launch_v3},
    {{"yours", find_repeats_yours_idea}, find_repeats_yours},
};
extern "C" const int find_repeats_version_count =
    sizeof find_repeats_versions / sizeof find_repeats_versions[0];
extern "C" const char find_repeats_fastest_version[] = "v3-bulk";

// --- the peer: CUB ------------------------------------------------------------------------

namespace
{
struct is_repeat {
    const int32_t *a;
    int64_t n;
    __device__ bool operator()(int32_t i) const { return i + 1 < n && a[i] == a[i + 1]; }
};
} // namespace

struct find_repeats_peer {
    cl_device_scratch temp;
};

extern "C" find_repeats_peer *find_repeats_peer_create(size_t n_max)
{
    find_repeats_peer *peer = new find_repeats_peer{};
    size_t bytes = 0;
    CL_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, thrust::counting_iterator<int32_t>(0),
                                        (int32_t *)nullptr, (int32_t *)nullptr, (int64_t)n_max,
                                        is_repeat{nullptr, 0}));
    cl_scratch_reserve(&peer->temp, bytes);
    return peer;
}

extern "C" void find_repeats_peer_run(find_repeats_peer *peer, const int32_t *a, size_t n,
                                      int32_t *indices, int32_t *count)
{
    size_t bytes = peer->temp.bytes;
    CL_CUDA_CHECK(cub::DeviceSelect::If(peer->temp.ptr, bytes,
                                        thrust::counting_iterator<int32_t>(0), indices, count,
                                        (int64_t)n, is_repeat{a, (int64_t)n}, 0));
}

extern "C" void find_repeats_peer_destroy(find_repeats_peer *peer)
{
    cl_scratch_free(&peer->temp);
    delete peer;
}

// scan: exclusive prefix sum of int32, from Blelloch's tree to a single pass.
//
// Versions:
//   v1-blelloch      work-efficient up-sweep/down-sweep on a power-of-two padded
//                    buffer in global memory, one launch a level (2 log2 n launches)
//   v2-hillis-steele one block: Hillis-Steele in shared memory over 1024-element
//                    chunks, a running carry between chunks
//   v3-multiblock    tiles scanned by Blelloch in shared memory, the tile sums scanned
//                    (recursively), then added back: three launches up to 1M elements
//   v4-shuffle       v3 with warp-shuffle tile scans and 8 items a thread
//   v5-lookback      one launch: tiles in ticket order, decoupled look-back
//                    (common/scan.cu, cl_exclusive_scan_i32_v5)
//   v6-bulk          persistent blocks that keep 3 tiles in flight, brought in and
//                    written out by the bulk-copy engine; a block finishes a tile two
//                    iterations after scanning it, from its own last prefix and the
//                    aggregates between, asked for an iteration ahead (sm_90; the v5
//                    kernel on older GPUs). common/scan.cu, the scan every exercise
//                    links.
//
// Napkin math: a scan reads 4n and writes 4n bytes. Floor at 2M: 16 MB, ~4 us at
// 4.2 TB/s, so at the check table's sizes the launches decide: CUB takes two, v3
// three, v1 ~2 log2 n. At 256M: 2.05 GB, 0.69 ms at an H100's copy rate (2977 GB/s,
// read + written), 0.50 ms at an H200's (4137 GB/s).
//
// --op recurrence: v[i] = s[i] v[i-1] + u[i] is the composition of the affine maps
// x -> s[i] x + u[i], which is associative, so it is a scan (three passes here:
// tile aggregates, a scan of those, then each tile again with its prefix).
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "check.h"
#include "device.h"
#include "scan.cuh"
#include "scan.h"

// --- v1: Blelloch in global memory, one launch a level ------------------------------

// Level with stride d (pairs 2d apart): element i*2d + 2d - 1 adds its left half.
__global__ void blelloch_upsweep(uint32_t *a, size_t pairs, size_t d)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < pairs) {
        size_t right = (t + 1) * 2 * d - 1;
        a[right] += a[right - d];
    }
}

// The mirror of the up-sweep: the left half takes the parent's prefix, the right
// half the parent's prefix plus the left half's sum.
__global__ void blelloch_downsweep(uint32_t *a, size_t pairs, size_t d)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < pairs) {
        size_t right = (t + 1) * 2 * d - 1;
        uint32_t left = a[right - d];
        a[right - d] = a[right];
        a[right] += left;
    }
}

// --- v2: Hillis-Steele, one block --------------------------------------------------

enum { HS_THREADS = 1024 };
// Each step every element adds the one `offset` to its left (log2 1024 = 10 steps,
// n log n adds: not work-efficient, but every thread is busy every step). Double
// buffered so a step reads only the previous step's values.
__global__ void hillis_steele_one_block(const uint32_t *in, uint32_t *out, size_t n)
{
    __shared__ uint32_t buf[2][HS_THREADS];
    const int t = threadIdx.x;
    uint32_t carry = 0;
    for (size_t base = 0; base < n; base += HS_THREADS) {
        size_t i = base + t;
        uint32_t v = i < n ? in[i] : 0u;
        int cur = 0;
        buf[0][t] = v;
        __syncthreads();
        for (int offset = 1; offset < HS_THREADS; offset <<= 1) {
            uint32_t x = buf[cur][t];
            if (t >= offset)
                x += buf[cur][t - offset];
            buf[cur ^ 1][t] = x;
            cur ^= 1;
            __syncthreads();
        }
        if (i < n)
            out[i] = carry + buf[cur][t] - v; // inclusive -> exclusive
        carry += buf[cur][HS_THREADS - 1];
        __syncthreads(); // the next chunk overwrites buf
    }
}

// --- v3 and v4: scan tiles, scan the tile sums, add back ---------------------------

enum { V3_THREADS = 512, V3_TILE = 1024 };
// Blelloch in shared memory over one 1024-element tile (two elements a thread);
// writes the tile's exclusive scan and its total.
__global__ void tile_scan_blelloch(const uint32_t *in, uint32_t *out, size_t n, uint32_t *tile_sums)
{
    __shared__ uint32_t s[V3_TILE];
    const size_t base = (size_t)blockIdx.x * V3_TILE;
    const int t = threadIdx.x;
    for (int k = t; k < V3_TILE; k += V3_THREADS)
        s[k] = base + k < n ? in[base + k] : 0u;
    for (int d = 1; d < V3_TILE; d <<= 1) {
        __syncthreads();
        int right = (t + 1) * 2 * d - 1;
        if (right < V3_TILE)
            s[right] += s[right - d];
    }
    __syncthreads();
    if (t == 0) {
        tile_sums[blockIdx.x] = s[V3_TILE - 1];
        s[V3_TILE - 1] = 0;
    }
    for (int d = V3_TILE / 2; d >= 1; d >>= 1) {
        __syncthreads();
        int right = (t + 1) * 2 * d - 1;
        if (right < V3_TILE) {
            uint32_t left = s[right - d];
            s[right - d] = s[right];
            s[right] += left;
        }
    }
    __syncthreads();
    for (int k = t; k < V3_TILE; k += V3_THREADS)
        if (base + k < n)
            out[base + k] = s[k];
}

enum { V4_THREADS = 256, V4_ITEMS = 8, V4_TILE = V4_THREADS * V4_ITEMS };
// A thread sums its 8 consecutive items, the block scans the 256 thread sums with
// warp shuffles (block_exclusive_scan: 3 barriers instead of v3's 21), and each
// thread writes its items' prefixes; global accesses are coalesced 16-byte ones
// through a warp transpose (tile_io). 2048 elements a tile.
__global__ void __launch_bounds__(V4_THREADS)
    tile_scan_shuffle(const uint32_t *in, uint32_t *out, size_t n, uint32_t *tile_sums)
{
    const size_t first = ((size_t)blockIdx.x * V4_THREADS + threadIdx.x) * V4_ITEMS;
    const bool aligned = (((uintptr_t)in | (uintptr_t)out) & 15u) == 0;
    uint32_t items[V4_ITEMS];
    tile_io<V4_THREADS, V4_ITEMS>::load(in, first, n, aligned, items, 0u);
    uint32_t sum = 0;
#pragma unroll
    for (int i = 0; i < V4_ITEMS; i++)
        sum += items[i];
    uint32_t total;
    uint32_t running = block_exclusive_scan<uint32_t, V4_THREADS>(sum, total);
#pragma unroll
    for (int i = 0; i < V4_ITEMS; i++) {
        uint32_t v = items[i];
        items[i] = running;
        running += v;
    }
    tile_io<V4_THREADS, V4_ITEMS>::store(out, first, n, aligned, items);
    if (threadIdx.x == 0)
        tile_sums[blockIdx.x] = total;
}

// out[i] += scanned_tile_sums[i / tile], four elements a thread.
__global__ void add_tile_prefixes(uint32_t *out, size_t n, const uint32_t *tile_prefix, int tile)
{
    size_t first = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 4;
    for (size_t i = first; i < first + 4 && i < n; i++)
        out[i] += tile_prefix[i / tile];
}

// --- the recurrence: a scan over affine maps ---------------------------------------

struct affine {
    double a, b; // x -> a x + b
};

// First f, then g.
__device__ __forceinline__ affine compose(affine f, affine g)
{
    return {g.a * f.a, g.a * f.b + g.b};
}

__device__ __forceinline__ affine shfl_up(affine f, int offset)
{
    return {__shfl_up_sync(0xffffffffu, f.a, offset), __shfl_up_sync(0xffffffffu, f.b, offset)};
}

enum { REC_THREADS = 256, REC_ITEMS = 4, REC_TILE = REC_THREADS * REC_ITEMS };

// Inclusive scan of one map per thread across the block (the order matters: maps
// do not commute). Warp shuffles, then the warp totals, as block_exclusive_scan.
__device__ affine block_inclusive_compose(affine f, affine *block_total)
{
    __shared__ affine warp_totals[REC_THREADS / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int offset = 1; offset < 32; offset <<= 1) {
        affine left = shfl_up(f, offset);
        if (lane >= offset)
            f = compose(left, f);
    }
    if (lane == 31)
        warp_totals[warp] = f;
    __syncthreads();
    affine before = {1.0, 0.0};
    for (int w = 0; w < warp; w++)
        before = compose(before, warp_totals[w]);
    f = compose(before, f);
    if (block_total) {
        affine all = {1.0, 0.0};
        for (int w = 0; w < REC_THREADS / 32; w++)
            all = compose(all, warp_totals[w]);
        *block_total = all;
    }
    __syncthreads();
    return f;
}

// The block-wide exclusive prefix of a thread from everyone's inclusive one: the
// previous lane's, or for a warp's lane 0 the previous warp's last.
__device__ affine exclusive_from_inclusive(affine inclusive)
{
    __shared__ affine warp_last[REC_THREADS / 32];
    affine before = shfl_up(inclusive, 1); // every lane shuffles, then lane 0 replaces it
    if ((threadIdx.x & 31) == 31)
        warp_last[threadIdx.x >> 5] = inclusive;
    __syncthreads();
    if ((threadIdx.x & 31) == 0)
        before = threadIdx.x == 0 ? affine{1.0, 0.0} : warp_last[(threadIdx.x >> 5) - 1];
    __syncthreads();
    return before;
}

__device__ __forceinline__ affine thread_maps(const double *s, const double *u, size_t n,
                                              size_t first, affine (&maps)[REC_ITEMS])
{
    affine acc = {1.0, 0.0};
#pragma unroll
    for (int k = 0; k < REC_ITEMS; k++) {
        size_t i = first + k;
        // v[0] = u[0]: the first map ignores its input.
        maps[k] = i < n ? affine{i == 0 ? 0.0 : s[i], u[i]} : affine{1.0, 0.0};
        acc = compose(acc, maps[k]);
    }
    return acc;
}

// Pass 1: each tile's composed map.
__global__ void recurrence_tile_maps(const double *s, const double *u, size_t n, affine *tile_maps)
{
    affine maps[REC_ITEMS], total;
    affine mine =
        thread_maps(s, u, n, ((size_t)blockIdx.x * REC_THREADS + threadIdx.x) * REC_ITEMS, maps);
    block_inclusive_compose(mine, &total);
    if (threadIdx.x == 0)
        tile_maps[blockIdx.x] = total;
}

// Pass 2, one block: tile_maps becomes the exclusive scan (the map before each tile).
__global__ void recurrence_scan_tile_maps(affine *tile_maps, size_t tiles)
{
    affine carry = {1.0, 0.0};
    for (size_t base = 0; base < tiles; base += REC_THREADS) {
        size_t i = base + threadIdx.x;
        affine f = i < tiles ? tile_maps[i] : affine{1.0, 0.0};
        affine chunk;
        affine inclusive = block_inclusive_compose(f, &chunk);
        // exclusive = carry then everything before me in this chunk
        affine before = exclusive_from_inclusive(inclusive);
        if (i < tiles)
            tile_maps[i] = compose(carry, before);
        carry = compose(carry, chunk);
        __syncthreads();
    }
}

// Pass 3: each tile again, starting from its prefix map; v[i] = the map applied to 0.
__global__ void recurrence_apply(const double *s, const double *u, double *v, size_t n,
                                 const affine *tile_prefix)
{
    const size_t first = ((size_t)blockIdx.x * REC_THREADS + threadIdx.x) * REC_ITEMS;
    affine maps[REC_ITEMS];
    affine mine = thread_maps(s, u, n, first, maps);
    affine inclusive = block_inclusive_compose(mine, nullptr);
    // The thread's exclusive prefix: the tile prefix, then the block's maps before it.
    affine running = compose(tile_prefix[blockIdx.x], exclusive_from_inclusive(inclusive));
#pragma unroll
    for (int k = 0; k < REC_ITEMS; k++) {
        running = compose(running, maps[k]);
        if (first + k < n)
            v[first + k] = running.b;
    }
}

// --- workspace and launchers --------------------------------------------------------

enum { MAX_LEVELS = 8 };

struct scan_workspace {
    uint32_t *padded;                 // v1: next power of two >= n_max
    uint32_t *level_sums[MAX_LEVELS]; // v3, v4: tile sums per recursion level
    cl_scan_workspace *single_pass;   // v5
    affine *tile_maps;                // recurrence
};

static size_t next_pow2(size_t n)
{
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

static size_t level_elements(size_t n_max, int level)
{
    size_t count = n_max;
    for (int l = 0; l <= level; l++)
        count = (count + V3_TILE - 1) / V3_TILE; // v3's tile is the smaller one
    return count;
}

extern "C" size_t scan_workspace_bytes(size_t n_max)
{
    size_t bytes = next_pow2(n_max) * sizeof(uint32_t);
    for (int l = 0; l < MAX_LEVELS; l++)
        bytes += (level_elements(n_max, l) + 4) * sizeof(uint32_t);
    bytes += (n_max / REC_TILE + 1) * sizeof(affine);
    bytes += cl_scan_workspace_bytes(n_max);
    return bytes;
}

extern "C" scan_workspace *scan_workspace_create(size_t n_max)
{
    scan_workspace *ws = new scan_workspace;
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->padded, next_pow2(n_max) * sizeof(uint32_t)));
    for (int l = 0; l < MAX_LEVELS; l++)
        CL_CUDA_CHECK(cudaMalloc((void **)&ws->level_sums[l],
                                 (level_elements(n_max, l) + 4) * sizeof(uint32_t)));
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->tile_maps, (n_max / REC_TILE + 1) * sizeof(affine)));
    ws->single_pass = cl_scan_workspace_create(n_max);
    return ws;
}

extern "C" int32_t *scan_workspace_scratch(scan_workspace *ws)
{
    return reinterpret_cast<int32_t *>(ws->padded);
}

extern "C" void scan_workspace_destroy(scan_workspace *ws)
{
    CL_CUDA_CHECK(cudaFree(ws->padded));
    for (int l = 0; l < MAX_LEVELS; l++)
        CL_CUDA_CHECK(cudaFree(ws->level_sums[l]));
    CL_CUDA_CHECK(cudaFree(ws->tile_maps));
    cl_scan_workspace_destroy(ws->single_pass);
    delete ws;
}

static unsigned blocks_for(size_t threads, unsigned per_block)
{
    return (unsigned)((threads + per_block - 1) / per_block);
}

static void launch_v1(const int32_t *in, int32_t *out, size_t n, scan_workspace *ws, cudaStream_t s)
{
    const size_t padded = next_pow2(n);
    uint32_t *a = ws->padded;
    CL_CUDA_CHECK(cudaMemcpyAsync(a, in, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice, s));
    if (padded > n)
        CL_CUDA_CHECK(cudaMemsetAsync(a + n, 0, (padded - n) * sizeof(uint32_t), s));
    for (size_t d = 1; d < padded; d *= 2) {
        size_t pairs = padded / (2 * d);
        blelloch_upsweep<<<blocks_for(pairs, 256), 256, 0, s>>>(a, pairs, d);
        CL_LAUNCH_CHECK();
    }
    CL_CUDA_CHECK(cudaMemsetAsync(a + padded - 1, 0, sizeof(uint32_t), s));
    for (size_t d = padded / 2; d >= 1; d /= 2) {
        size_t pairs = padded / (2 * d);
        blelloch_downsweep<<<blocks_for(pairs, 256), 256, 0, s>>>(a, pairs, d);
        CL_LAUNCH_CHECK();
    }
    CL_CUDA_CHECK(cudaMemcpyAsync(out, a, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice, s));
}

static void launch_v2(const int32_t *in, int32_t *out, size_t n, scan_workspace *, cudaStream_t s)
{
    hillis_steele_one_block<<<1, HS_THREADS, 0, s>>>((const uint32_t *)in, (uint32_t *)out, n);
    CL_LAUNCH_CHECK();
}

typedef void (*tile_scan_kernel)(const uint32_t *, uint32_t *, size_t, uint32_t *);

// Scan tiles (writing tile sums), scan the tile sums in place the same way one
// level down, add them back. Three launches while the sums fit one tile.
static void multi_block_scan(const uint32_t *in, uint32_t *out, size_t n, int level,
                             tile_scan_kernel kernel, int tile, int threads, scan_workspace *ws,
                             cudaStream_t s)
{
    size_t tiles = (n + tile - 1) / tile;
    uint32_t *sums = ws->level_sums[level];
    kernel<<<(unsigned)tiles, threads, 0, s>>>(in, out, n, sums);
    CL_LAUNCH_CHECK();
    if (tiles > 1) {
        multi_block_scan(sums, sums, tiles, level + 1, kernel, tile, threads, ws, s);
        add_tile_prefixes<<<blocks_for((n + 3) / 4, 256), 256, 0, s>>>(out, n, sums, tile);
        CL_LAUNCH_CHECK();
    }
}

static void launch_v3(const int32_t *in, int32_t *out, size_t n, scan_workspace *ws, cudaStream_t s)
{
    multi_block_scan((const uint32_t *)in, (uint32_t *)out, n, 0, tile_scan_blelloch, V3_TILE,
                     V3_THREADS, ws, s);
}

static void launch_v4(const int32_t *in, int32_t *out, size_t n, scan_workspace *ws, cudaStream_t s)
{
    multi_block_scan((const uint32_t *)in, (uint32_t *)out, n, 0, tile_scan_shuffle, V4_TILE,
                     V4_THREADS, ws, s);
}

static void launch_v5(const int32_t *in, int32_t *out, size_t n, scan_workspace *ws, cudaStream_t s)
{
    cl_exclusive_scan_i32_v5(in, out, n, ws->single_pass, s);
}

static void launch_v6(const int32_t *in, int32_t *out, size_t n, scan_workspace *ws, cudaStream_t s)
{
    cl_exclusive_scan_i32(in, out, n, ws->single_pass, s);
}

extern "C" const scan_version scan_versions[] = {
    {{"v1-blelloch", "up-sweep/down-sweep in global memory, padded to 2^k, a launch a level"},
     launch_v1},
    {{"v2-hillis-steele", "one block, Hillis-Steele in shared memory, 1024-element chunks"},
     launch_v2},
    {{"v3-multiblock", "Blelloch tiles in shared memory + scan of tile sums + add-back"},
     launch_v3},
    {{"v4-shuffle", "v3 with warp-shuffle tile scans, 8 items a thread, 16-byte accesses"},
     launch_v4},
    {{"v5-lookback", "single pass, a block a tile by ticket, decoupled look-back"}, launch_v5},
    {{"v6-bulk",
      "persistent blocks fed by the bulk-copy engine, look-back an iteration ahead (sm_90)"},
     launch_v6},
    {{"yours", scan_yours_idea}, scan_yours},
};
extern "C" const int scan_version_count = sizeof scan_versions / sizeof scan_versions[0];
extern "C" const char scan_fastest_version[] = "v6-bulk";

extern "C" void recurrence_run(const double *s, const double *u, double *v, size_t n,
                               scan_workspace *ws, cudaStream_t stream)
{
    unsigned tiles = blocks_for(n, REC_TILE);
    recurrence_tile_maps<<<tiles, REC_THREADS, 0, stream>>>(s, u, n, ws->tile_maps);
    CL_LAUNCH_CHECK();
    recurrence_scan_tile_maps<<<1, REC_THREADS, 0, stream>>>(ws->tile_maps, tiles);
    CL_LAUNCH_CHECK();
    recurrence_apply<<<tiles, REC_THREADS, 0, stream>>>(s, u, v, n, ws->tile_maps);
    CL_LAUNCH_CHECK();
}

// --- the peers: CUB -------------------------------------------------------------------

struct scan_peer {
    cl_device_scratch temp;
};

extern "C" scan_peer *scan_peer_create(size_t n_max)
{
    scan_peer *peer = new scan_peer{};
    size_t bytes = 0;
    CL_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, (const int32_t *)nullptr,
                                                (int32_t *)nullptr, (int64_t)n_max));
    cl_scratch_reserve(&peer->temp, bytes);
    return peer;
}

extern "C" void scan_peer_run(scan_peer *peer, const int32_t *in, int32_t *out, size_t n)
{
    size_t bytes = peer->temp.bytes;
    CL_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(peer->temp.ptr, bytes, in, out, (int64_t)n, 0));
}

extern "C" void scan_peer_destroy(scan_peer *peer)
{
    cl_scratch_free(&peer->temp);
    delete peer;
}

namespace
{
struct compose_op {
    __device__ affine operator()(const affine &f, const affine &g) const { return compose(f, g); }
};
// The map of element i, read on the fly (v[0] = u[0]: the first map ignores its input).
struct map_of {
    const double *s, *u;
    __device__ affine operator()(int64_t i) const { return {i == 0 ? 0.0 : s[i], u[i]}; }
};
struct map_b {
    __device__ double operator()(const affine &f) const { return f.b; }
};
} // namespace

struct recurrence_peer {
    cl_device_scratch temp;
};

typedef thrust::transform_iterator<map_of, thrust::counting_iterator<int64_t>, affine> maps_in;

extern "C" recurrence_peer *recurrence_peer_create(size_t n_max)
{
    recurrence_peer *peer = new recurrence_peer{};
    size_t bytes = 0;
    maps_in in(thrust::counting_iterator<int64_t>(0), map_of{nullptr, nullptr});
    thrust::transform_output_iterator<map_b, double *> out(nullptr, map_b{});
    CL_CUDA_CHECK(
        cub::DeviceScan::InclusiveScan(nullptr, bytes, in, out, compose_op{}, (int64_t)n_max));
    cl_scratch_reserve(&peer->temp, bytes);
    return peer;
}

extern "C" void recurrence_peer_run(recurrence_peer *peer, const double *s, const double *u,
                                    double *v, size_t n, cudaStream_t stream)
{
    maps_in in(thrust::counting_iterator<int64_t>(0), map_of{s, u});
    thrust::transform_output_iterator<map_b, double *> out(v, map_b{});
    size_t bytes = peer->temp.bytes;
    CL_CUDA_CHECK(cub::DeviceScan::InclusiveScan(peer->temp.ptr, bytes, in, out, compose_op{},
                                                 (int64_t)n, stream));
}

extern "C" void recurrence_peer_destroy(recurrence_peer *peer)
{
    cl_scratch_free(&peer->temp);
    delete peer;
}

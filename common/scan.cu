// The device-wide exclusive scan every exercise links. Two kernels from scan.cuh:
//   cl_exclusive_scan_i32_v5  single_pass_scan_kernel: a block a tile, plain loads and
//                             stores through a warp transpose
//   cl_exclusive_scan_i32     bulk_single_pass_scan_kernel: persistent blocks, tiles
//                             brought in and written out by the bulk-copy engine,
//                             STAGES - 3 tiles in flight a block (code for sm_90;
//                             in a build for older GPUs, or for pointers not 16-byte
//                             aligned, the v5 kernel)
// Napkin math: reads 4n and writes 4n bytes, one launch; 256M ints = 2.05 GB, 0.69 ms
// at an H100's 2977 GB/s copy rate (read + write), 0.50 ms at an H200's 4137. The
// look-back adds a short serial chain per tile, hidden while other tiles stream
// (the persistent kernel asks for it an iteration before it needs it: 100% of copy on
// an H100, 93-95% on an H200).
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "device.h"
#include "scan.cuh"

struct cl_scan_workspace {
    unsigned long long *status;
    unsigned *tile_counter;
    size_t max_tiles;
    unsigned epoch;
};

// A status word a tile of CL_SCAN_MIN_TILE elements or more, and one to spare.
static size_t words_for(size_t n_max) { return n_max / CL_SCAN_MIN_TILE + 1; }

extern "C" size_t cl_scan_workspace_words_bytes(size_t words)
{
    return words * sizeof(unsigned long long) + 2 * sizeof(unsigned);
}

extern "C" size_t cl_scan_workspace_bytes(size_t n_max)
{
    return cl_scan_workspace_words_bytes(words_for(n_max));
}

extern "C" cl_scan_workspace *cl_scan_workspace_create_words(size_t words)
{
    cl_scan_workspace *ws = new cl_scan_workspace;
    ws->max_tiles = words;
    ws->epoch = 0;
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->status, ws->max_tiles * sizeof(unsigned long long)));
    CL_CUDA_CHECK(cudaMemset(ws->status, 0, ws->max_tiles * sizeof(unsigned long long)));
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->tile_counter, 2 * sizeof(unsigned)));
    CL_CUDA_CHECK(cudaMemset(ws->tile_counter, 0, 2 * sizeof(unsigned)));
    return ws;
}

extern "C" cl_scan_workspace *cl_scan_workspace_create(size_t n_max)
{
    return cl_scan_workspace_create_words(words_for(n_max));
}

extern "C" void cl_scan_workspace_destroy(cl_scan_workspace *ws)
{
    CL_CUDA_CHECK(cudaFree(ws->status));
    CL_CUDA_CHECK(cudaFree(ws->tile_counter));
    delete ws;
}

scan_tile_state cl_scan_tile_state(cl_scan_workspace *ws, size_t num_tiles)
{
    if (num_tiles > ws->max_tiles)
        cl_die(CL_EXIT_CUDA, "scan workspace holds %zu tiles, %zu needed", ws->max_tiles,
               num_tiles);
    // Epoch 0 is what a cleared status word holds, so it is never used.
    ws->epoch = ws->epoch % ((1u << 30) - 1) + 1;
    return scan_tile_state{ws->status, ws->tile_counter, ws->epoch};
}

namespace
{
// v5's tile shape: 128 threads x 64 items. The per-tile cost (ticket, block scan, look-back)
// is fixed, so long tiles amortize it, and more items a thread keep more loads in
// flight; registers capped for 6 resident blocks an SM beat the compiler's choice.
// What bounds it is each tile's load, scan, store with nothing prefetched, not the
// look-back (a scan without it was no faster). scan/README.md has the measurements.
enum { SCAN_THREADS = 128, SCAN_ITEMS = 64, SCAN_MIN_BLOCKS = 6 };

struct plain_scan_op {
    const uint32_t *in;
    uint32_t *out;
    size_t n;
    bool aligned;
    __device__ void load(size_t first, uint32_t (&items)[SCAN_ITEMS]) const
    {
        tile_io<SCAN_THREADS, SCAN_ITEMS>::load(in, first, n, aligned, items, 0u);
    }
    __device__ void store(size_t first, const uint32_t (&)[SCAN_ITEMS],
                          const uint32_t (&exclusive)[SCAN_ITEMS], uint32_t) const
    {
        tile_io<SCAN_THREADS, SCAN_ITEMS>::store(out, first, n, aligned, exclusive);
    }
};
} // namespace

// v6's tile shape: 512 threads x 16 items (32 KB tiles), 6 stages (192 KB of shared
// memory, one block an SM). Two stages hold results waiting for their prefixes, one
// is scanned, so 3 tiles (96 KB) are in flight where Little's law asks for ~40 KB an
// SM (4.2 TB/s x ~1.2 us / 132 SMs). One block an SM: a span is G - 1 = 131 status
// words, read as 5 windows of 32 at once. scan/README.md has the shapes measured.
enum { BULK_THREADS = 512, BULK_ITEMS = 16, BULK_STAGES = 6, BULK_SPAN_WINDOWS = 5 };

struct bulk_plain_scan_op {
    static constexpr bool STORES_TILE = true, NEEDS_NEXT = false, FLAG_ITEMS = false;
    const uint32_t *src;
    uint32_t *dst;
    size_t n;
    __device__ void items(const uint32_t (&words)[BULK_ITEMS], uint32_t, size_t,
                          uint32_t (&items)[BULK_ITEMS]) const
    {
#pragma unroll
        for (int k = 0; k < BULK_ITEMS; k++)
            items[k] = words[k];
    }
    __device__ void store(size_t, const uint32_t (&)[BULK_ITEMS], const uint32_t (&)[BULK_ITEMS],
                          uint32_t) const
    {
    }
};

extern "C" const char *cl_scan_bulk_path(void)
{
    static char text[160];
    const int code_arch = cl_kernel_code_arch(
        (const void *)bulk_single_pass_scan_kernel<BULK_THREADS, BULK_ITEMS, BULK_STAGES,
                                                   BULK_SPAN_WINDOWS, bulk_plain_scan_op>);
    const cl_device_info *device = cl_device_current();
    const int gpu_arch = 10 * device->cc_major + device->cc_minor;
    if (code_arch >= CL_BULK_COPY_ARCH)
        snprintf(text, sizeof text, "on the bulk-copy engine (sm_%d, code for sm_%d)", gpu_arch,
                 code_arch);
    else if (gpu_arch >= CL_BULK_COPY_ARCH)
        snprintf(text, sizeof text,
                 "v5's kernel: this build's code is for sm_%d, without the bulk-copy engine "
                 "(make ARCH=auto builds for this GPU)",
                 code_arch);
    else
        snprintf(text, sizeof text, "v5's kernel: this GPU (sm_%d) has no bulk-copy engine",
                 gpu_arch);
    return text;
}

extern "C" void cl_exclusive_scan_i32_v5(const int32_t *in, int32_t *out, size_t n,
                                         cl_scan_workspace *ws, cudaStream_t stream)
{
    if (n == 0)
        return;
    const size_t tile = (size_t)SCAN_THREADS * SCAN_ITEMS;
    size_t num_tiles = (n + tile - 1) / tile;
    bool aligned = (((uintptr_t)in | (uintptr_t)out) & 15u) == 0;
    plain_scan_op op{reinterpret_cast<const uint32_t *>(in), reinterpret_cast<uint32_t *>(out), n,
                     aligned};
    single_pass_scan_kernel<SCAN_THREADS, SCAN_ITEMS, SCAN_MIN_BLOCKS>
        <<<(unsigned)num_tiles, SCAN_THREADS, 0, stream>>>(op, cl_scan_tile_state(ws, num_tiles),
                                                           (unsigned)num_tiles);
    CL_LAUNCH_CHECK();
}

extern "C" void cl_exclusive_scan_i32(const int32_t *in, int32_t *out, size_t n,
                                      cl_scan_workspace *ws, cudaStream_t stream)
{
    if (n == 0)
        return;
    const size_t tile = (size_t)BULK_THREADS * BULK_ITEMS;
    const size_t num_tiles = (n + tile - 1) / tile;
    const bool aligned = (((uintptr_t)in | (uintptr_t)out) & 15u) == 0;
    bulk_plain_scan_op op{reinterpret_cast<const uint32_t *>(in), reinterpret_cast<uint32_t *>(out),
                          n};
    if (!launch_bulk_single_pass_scan<BULK_THREADS, BULK_ITEMS, BULK_STAGES, BULK_SPAN_WINDOWS>(
            op, aligned, cl_scan_tile_state(ws, num_tiles), num_tiles, stream))
        cl_exclusive_scan_i32_v5(in, out, n, ws, stream);
}

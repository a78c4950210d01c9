// The device-wide exclusive scan every exercise links: single_pass_scan_kernel
// (scan.cuh) with plain loads and stores.
// Napkin math: reads 4n and writes 4n bytes, one launch; 256M ints = 2.05 GB, 0.49 ms
// at 4.2 TB/s. The look-back adds a short serial chain per tile, hidden while
// other tiles stream.
#include <stdint.h>

#include "check.h"
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
    return words * sizeof(unsigned long long) + sizeof(unsigned);
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
    CL_CUDA_CHECK(cudaMalloc((void **)&ws->tile_counter, sizeof(unsigned)));
    CL_CUDA_CHECK(cudaMemset(ws->tile_counter, 0, sizeof(unsigned)));
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
// Tile shape: 128 threads x 64 items. The per-tile cost (ticket, block scan, look-back)
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

extern "C" void cl_exclusive_scan_i32(const int32_t *in, int32_t *out, size_t n,
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

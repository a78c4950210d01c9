// yours: your exclusive prefix sum of int32. `bin/scan -k yours` runs and verifies it
// (every element), `make check_scan K=yours` scores it against the faster of the default
// version and cub::DeviceScan::ExclusiveSum. Edit only this file.
//
// What is here: one block, reduce-then-scan. Each of 1024 threads owns a contiguous
// slice of the input: it sums its slice, one thread scans the 1024 slice sums, then
// every thread walks its slice again writing prefixes. Correct for any n (sums wrap
// around as int32 does), but one SM does everything and neighbouring threads read
// addresses a slice apart (uncoalesced).
// Things to try (the ladder's times at 256M elements on an H200, where reading and
// writing 2 GB takes ~0.49 ms at the copy rate; CUB takes 0.65):
//  - many blocks: each block scans a tile in shared memory and writes its total to
//    scratch (scan_workspace_scratch gives n ints), a second launch scans the totals,
//    a third adds them back (v3: 3.7 ms; coalesced because a tile's threads read
//    neighbouring elements);
//  - warp shuffles (__shfl_up_sync) for the scans inside a block, several items a
//    thread (v4: 1.7 ms);
//  - one launch: tiles take a number from an atomic counter and look back at their
//    predecessors' published sums (decoupled look-back, v5: 0.66 ms). Never make a
//    block wait on a lower blockIdx: blocks are not scheduled in order.
#include <stdint.h>

#include "check.h"
#include "scan.h"

extern "C" const char scan_yours_idea[] =
    "your kernel (scan/yours.cu): one block, reduce-then-scan of thread slices";

enum { YOURS_THREADS = 1024 };

__global__ void __launch_bounds__(YOURS_THREADS)
    scan_yours_kernel(const uint32_t *in, uint32_t *out, size_t n)
{
    __shared__ uint32_t slice_prefix[YOURS_THREADS];
    size_t slice = (n + YOURS_THREADS - 1) / YOURS_THREADS;
    size_t begin = threadIdx.x * slice;
    size_t end = begin + slice < n ? begin + slice : n;

    uint32_t sum = 0;
    for (size_t i = begin; i < end; i++)
        sum += in[i];
    slice_prefix[threadIdx.x] = sum;
    __syncthreads();

    if (threadIdx.x == 0) {
        uint32_t running = 0;
        for (int t = 0; t < YOURS_THREADS; t++) {
            uint32_t total = slice_prefix[t];
            slice_prefix[t] = running;
            running += total;
        }
    }
    __syncthreads();

    uint32_t running = slice_prefix[threadIdx.x];
    for (size_t i = begin; i < end; i++) {
        uint32_t v = in[i];
        out[i] = running;
        running += v;
    }
}

extern "C" void scan_yours(const int32_t *in, int32_t *out, size_t n, scan_workspace *ws,
                           cudaStream_t stream)
{
    (void)ws; // scan_workspace_scratch(ws, ...) when you need scratch
    scan_yours_kernel<<<1, YOURS_THREADS, 0, stream>>>(reinterpret_cast<const uint32_t *>(in),
                                                       reinterpret_cast<uint32_t *>(out), n);
    CL_LAUNCH_CHECK();
}

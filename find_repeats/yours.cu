// yours: your find_repeats, every index i with A[i] == A[i+1], ascending, and their count.
// `bin/find_repeats -k yours` runs and verifies it, `make check_find_repeats K=yours`
// scores it against the faster of the default version and cub::DeviceSelect::If. Edit only
// this file.
//
// What is here: one block walks A in chunks of 1024: each thread flags its element,
// the block scans the flags in shared memory (Hillis-Steele: log2(1024) = 10 steps),
// flagged threads write their index at (repeats found so far + their prefix). Correct
// and in order, but one SM does everything.
// Things to try (the ladder's times at 256M elements on an H200; CUB takes 0.63 ms):
//  - many blocks: flags to scratch (find_repeats_workspace_scratch gives n ints), the
//    suite's device-wide scan cl_exclusive_scan_i32 (common/scan.h) over them, then a
//    scatter kernel (v1: 2.4 ms: the flags and positions go through memory);
//  - fuse: compute the flags while loading A and scatter while storing, inside one
//    single-pass scan (v2: 0.54 ms, only A read and the indices written).
#include <stdint.h>

#include "check.h"
#include "find_repeats.h"

extern "C" const char find_repeats_yours_idea[] =
    "your kernel (find_repeats/yours.cu): one block, chunks of 1024, shared-memory scan";

enum { YOURS_THREADS = 1024 };

__global__ void __launch_bounds__(YOURS_THREADS)
    find_repeats_yours_kernel(const int32_t *a, size_t n, int32_t *indices, int32_t *count)
{
    __shared__ int32_t prefix[YOURS_THREADS];
    int32_t found = 0; // repeats in the chunks before this one, the same in every thread
    for (size_t chunk = 0; chunk < n; chunk += YOURS_THREADS) {
        size_t i = chunk + threadIdx.x;
        int32_t flag = i + 1 < n && a[i] == a[i + 1];
        prefix[threadIdx.x] = flag;
        __syncthreads();
        // Inclusive scan: each step adds the value `offset` to the left. Read, wait
        // until every thread has read, then write.
        for (int offset = 1; offset < YOURS_THREADS; offset *= 2) {
            int32_t left = threadIdx.x >= offset ? prefix[threadIdx.x - offset] : 0;
            __syncthreads();
            prefix[threadIdx.x] += left;
            __syncthreads();
        }
        if (flag)
            indices[found + prefix[threadIdx.x] - 1] = (int32_t)i;
        found += prefix[YOURS_THREADS - 1];
        __syncthreads(); // everyone has read the total before the next chunk overwrites it
    }
    if (threadIdx.x == 0)
        *count = found;
}

extern "C" void find_repeats_yours(const int32_t *a, size_t n, int32_t *indices, int32_t *count,
                                   find_repeats_workspace *ws, cudaStream_t stream)
{
    (void)ws; // find_repeats_workspace_scratch(ws) when you need scratch
    find_repeats_yours_kernel<<<1, YOURS_THREADS, 0, stream>>>(a, n, indices, count);
    CL_LAUNCH_CHECK();
}

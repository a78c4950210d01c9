// yours: your saxpy, z = a*x + y. `bin/saxpy -k yours` runs and verifies it,
// `make check_saxpy K=yours` scores it against the faster of the default version and
// cublasSaxpy. Edit only this file.
//
// What is here: the plainest correct kernel, one thread an element.
// Things to try (the times are this suite's ladder at 100M elements on an H200,
// where moving the 1.2 GB takes ~0.29 ms at the copy rate):
//  - a grid-stride loop over a grid that fills the GPU once (v2): fewer, longer-lived
//    threads, no tail of tiny blocks; 0.37 -> 0.33 ms;
//  - float4 loads and stores (v3): one 16-byte access instead of four 4-byte ones,
//    a quarter of the instructions; -> 0.30 ms (n % 4 leftovers need a scalar tail);
//  - several independent float4 loads in flight a thread before the first add, with
//    __ldcs/__stcs streaming hints (v4): more bytes in flight hide DRAM latency
//    (Little's law); -> 0.28 ms, faster than cublasSaxpy's 0.36.
#include "check.h"
#include "saxpy.h"

extern "C" const char saxpy_yours_idea[] = "your kernel (saxpy/yours.cu): one thread an element";

__global__ void saxpy_yours_kernel(size_t n, float a, const float *x, const float *y, float *z)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = a * x[i] + y[i];
}

extern "C" void saxpy_yours(size_t n, float a, const float *x, const float *y, float *z,
                            cudaStream_t stream)
{
    const unsigned threads = 256;
    unsigned blocks = (unsigned)((n + threads - 1) / threads);
    saxpy_yours_kernel<<<blocks, threads, 0, stream>>>(n, a, x, y, z);
    CL_LAUNCH_CHECK();
}

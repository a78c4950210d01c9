// yours: your 1D stencil, out[i] = in[i] + in[i + 1] + ... + in[i + 2R] (in holds n + 2R
// values). `bin/stencil1d -k yours` runs and verifies it, `make check_stencil1d K=yours`
// scores it against the faster of the default version and v2, the CUDA-basics notes'
// kernel. Edit only this file.
//
// What is here: a thread an output, every input read from global memory (v1's loop).
// Correct for any n, radius and type; slow once R grows.
// Things to try (README.md has the ladder's times at 2^28 ints and the copy rate):
//  - the notes' shared tile: stage the block's inputs and the 2R halo values once, then
//    sum from shared memory (v2): one global load an input instead of 2R + 1, but L1
//    already serves v1's repeats, so v2 is no faster than v1 up to R = 16 and pays off
//    only at larger radii (the README's tables at R = 16 and R = 64);
//  - a sliding sum: a thread that owns several consecutive outputs adds the value that
//    enters and subtracts the one that leaves, 2 reads an output whatever R is (v3);
//  - 16-byte loads (int4 / float4) and enough of them in flight a thread; inputs shared
//    between lanes by __shfl_sync instead of shared memory (v4).
// Floats: a result may differ from the double gold by the rounding of its partial sums;
// see stencil_float_tolerance in gold.c for what is allowed.
#include <stdint.h>

#include "check.h"
#include "stencil1d.h"

extern "C" const char stencil_yours_idea[] =
    "your kernel (stencil1d/yours.cu): a thread an output, inputs from global memory";

enum { YOURS_THREADS = 256 };

template <typename T>
__global__ void stencil_yours_kernel(const T *in, T *out, size_t n, int radius)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    T sum = 0;
    for (int j = 0; j <= 2 * radius; j++)
        sum += in[i + j];
    out[i] = sum;
}

extern "C" void stencil_yours(const stencil_args *a, cudaStream_t stream)
{
    unsigned blocks = (unsigned)((a->n + YOURS_THREADS - 1) / YOURS_THREADS);
    if (a->type == STENCIL_INT)
        stencil_yours_kernel<<<blocks, YOURS_THREADS, 0, stream>>>(
            static_cast<const int32_t *>(a->in), static_cast<int32_t *>(a->out), a->n, a->radius);
    else
        stencil_yours_kernel<<<blocks, YOURS_THREADS, 0, stream>>>(
            static_cast<const float *>(a->in), static_cast<float *>(a->out), a->n, a->radius);
    CL_LAUNCH_CHECK();
}

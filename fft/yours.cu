// yours: your batched FFT. `bin/fft -k yours` runs and verifies it, `make check_fft
// K=yours` scores it against the faster of the default version and cuFFT. Edit only this
// file.
//
// What is here: v1's loop, the definition y_k = sum_j x_j e^{-+2 pi i jk/n}, a thread an
// output, adding in double. It is O(n^2), so the suite runs it up to n = 4096 only
// (fft_yours_max_n below) and out of place. Things to try (README.md has the times):
//  - a radix-2 Stockham stage a launch (v2): log2(n) passes over memory, but n log n work;
//  - all the stages in shared memory, one block a transform (v3): one pass over memory;
//  - radix-8 butterflies in registers with a twiddle table, several transforms a block
//    (v4): fewer barriers and shared-memory trips, near the copy rate.
// args->in and args->out hold args->batch transforms of args->n points (float2: re, im),
// transform b at b n; args->inverse: e^{+2 pi i jk/n}, unnormalised.
#include "check.h"
#include "fft.h"

extern "C" const char fft_yours_idea[] =
    "your kernel (fft/yours.cu): the definition, a thread an output";
// The longest n yours takes (O(n^2) work); raise it when yours is an FFT.
extern "C" const int fft_yours_max_n = FFT_DIRECT_MAX_N;

__global__ void fft_yours_kernel(const float2 *in, float2 *out, int n, size_t batch, bool inverse)
{
    const size_t idx = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (size_t)n * batch)
        return;
    const int k = (int)(idx % n);
    const float2 *x = in + (idx - k);
    double re = 0.0, im = 0.0;
    int e = 0; // jk mod n, exact: k is added each step
    for (int j = 0; j < n; j++) {
        float s, c;
        sincospif((inverse ? 2.0f : -2.0f) * (float)e / (float)n, &s, &c);
        re += (double)x[j].x * c - (double)x[j].y * s;
        im += (double)x[j].x * s + (double)x[j].y * c;
        e += k;
        if (e >= n)
            e -= n;
    }
    out[idx] = make_float2((float)re, (float)im);
}

extern "C" void fft_yours(const fft_args *args, cudaStream_t stream)
{
    const size_t total = (size_t)args->n * args->batch;
    fft_yours_kernel<<<(unsigned)((total + 255) / 256), 256, 0, stream>>>(
        (const float2 *)args->in, (float2 *)args->out, args->n, args->batch, args->inverse);
    CL_LAUNCH_CHECK();
}

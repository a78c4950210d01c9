// fft's peer and the convolution's other kernels: cuFFT's batched C2C plan (made before
// the timing, as the suite's own plans are) and, for --conv (the Oxford practical 5's
// convolution), the direct convolution on the GPU and the pointwise product.
#include <cufft.h>
#include <stdio.h>

#include "check.h"
#include "check_libs.h"
#include "device.h"
#include "fft.h"
#include "passes.cuh"

// --- the peer: cuFFT ---------------------------------------------------------------------------

struct fft_peer {
    cufftHandle plan;
    void *work;
};

extern "C" fft_peer *fft_peer_create(int n, size_t batch)
{
    fft_peer *peer = new fft_peer();
    CL_CUFFT_CHECK(cufftCreate(&peer->plan));
    CL_CUFFT_CHECK(cufftSetAutoAllocation(peer->plan, 0));
    long long len = n, embed = n;
    size_t work = 0;
    CL_CUFFT_CHECK(cufftMakePlanMany64(peer->plan, 1, &len, &embed, 1, n, &embed, 1, n, CUFFT_C2C,
                                       (long long)batch, &work));
    cl_require_device_memory(work, 0);
    CL_CUDA_CHECK(cudaMalloc(&peer->work, work ? work : 1));
    CL_CUFFT_CHECK(cufftSetWorkArea(peer->plan, peer->work));
    return peer;
}

extern "C" void fft_peer_run(fft_peer *peer, const fft_args *a)
{
    CL_CUFFT_CHECK(cufftExecC2C(peer->plan, (cufftComplex *)a->in, (cufftComplex *)a->out,
                                a->inverse ? CUFFT_INVERSE : CUFFT_FORWARD));
}

extern "C" void fft_peer_destroy(fft_peer *peer)
{
    CL_CUFFT_CHECK(cufftDestroy(peer->plan));
    CL_CUDA_CHECK(cudaFree(peer->work));
    delete peer;
}

// --- the convolution's other kernels -------------------------------------------------------------

// The direct convolution: a thread an output, F taps, the filter read through L1.
// F complex multiply-adds an output: at 10^6 outputs and 4097 taps, 4.1e9 of them.
__global__ void convolve_direct_kernel(const float2 *signal, int n_signal,
                                       const float2 *__restrict__ filter, int n_filter, float2 *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_signal)
        return;
    const int min_radius = n_filter / 2, max_radius = n_filter - min_radius;
    float2 sum = make_float2(0.0f, 0.0f);
    for (int j = -max_radius + 1; j <= min_radius; j++) {
        const int k = i + j;
        if (k >= 0 && k < n_signal)
            sum = cadd(sum, cmul(signal[k], __ldg(&filter[min_radius - j])));
    }
    out[i] = sum;
}

extern "C" void fft_convolve_direct(const void *signal, int n_signal, const void *filter,
                                    int n_filter, void *out, cudaStream_t stream)
{
    convolve_direct_kernel<<<cl_ceil_div(n_signal, 256), 256, 0, stream>>>(
        (const float2 *)signal, n_signal, (const float2 *)filter, n_filter, (float2 *)out);
    CL_LAUNCH_CHECK();
}

// The practical's ComplexPointwiseMulAndScale.
__global__ void pointwise_mul_scale_kernel(float2 *a, const float2 *b, size_t count, float scale)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    const float2 p = cmul(a[i], b[i]);
    a[i] = make_float2(p.x * scale, p.y * scale);
}

extern "C" void fft_pointwise_mul_scale(void *a, const void *b, size_t count, float scale,
                                        cudaStream_t stream)
{
    pointwise_mul_scale_kernel<<<cl_ceil_div(count, 256), 256, 0, stream>>>(
        (float2 *)a, (const float2 *)b, count, scale);
    CL_LAUNCH_CHECK();
}

// heat --verify fft: the exact result of n steps of the explicit scheme with the sources
// off, computed in Fourier space with cuFFT.
//
// Why it works: reflect the DIM x DIM field into a 2 DIM x 2 DIM grid (x and 2 DIM - 1 - x
// hold the same value, likewise y). On that grid, taken as periodic, the left neighbour
// of x = 0 is x = 2 DIM - 1, which holds cell 0 itself: exactly the edge rule. A
// periodic 5-point step multiplies each Fourier mode (p, q) by
// g = 1 - 4k (sin^2(pi p / 2 DIM) + sin^2(pi q / 2 DIM)), so n steps multiply it by
// g^n. Forward transform, scale, inverse transform, keep the first quadrant. Done in
// double precision, the result differs from the float stepping only by the stepping's
// rounding.
#include <cufft.h>
#include <math.h>

#include "check.h"
#include "check_libs.h"
#include "device.h"
#include "heat.h"

__global__ void mirror(const float *field, double *mirrored, int dim)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const int side = 2 * dim;
    if (x >= side || y >= side)
        return;
    const int fx = x < dim ? x : side - 1 - x, fy = y < dim ? y : side - 1 - y;
    mirrored[(size_t)y * side + x] = field[(size_t)fy * dim + fx];
}

// The R2C output: 2 DIM rows (p) of DIM + 1 columns (q).
__global__ void advance_modes(cufftDoubleComplex *modes, int dim, double k, double steps)
{
    const int q = blockIdx.x * blockDim.x + threadIdx.x, p = blockIdx.y * blockDim.y + threadIdx.y;
    const int side = 2 * dim;
    if (q > dim || p >= side)
        return;
    const double sp = sin(M_PI * p / side), sq = sin(M_PI * q / side);
    const double g = 1.0 - 4.0 * k * (sp * sp + sq * sq);
    const double scale = pow(g, steps) / ((double)side * side); // cuFFT's inverse is unscaled
    cufftDoubleComplex &m = modes[(size_t)p * (dim + 1) + q];
    m.x *= scale;
    m.y *= scale;
}

__global__ void first_quadrant(const double *mirrored, double *result, int dim)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < dim && y < dim)
        result[(size_t)y * dim + x] = mirrored[(size_t)y * 2 * dim + x];
}

extern "C" void heat_spectral_steps(const float *start, double *result, int dim, double k,
                                    long steps)
{
    const size_t side = 2 * (size_t)dim, cells = (size_t)dim * dim;
    const size_t real_bytes = side * side * sizeof(double);
    const size_t mode_bytes = side * (dim + 1) * sizeof(cufftDoubleComplex);
    // The transforms' work area is about the size of the modes.
    cl_require_device_memory(cells * (sizeof(float) + sizeof(double)) + real_bytes + 2 * mode_bytes,
                             0);
    float *field;
    double *mirrored, *quadrant;
    cufftDoubleComplex *modes;
    CL_CUDA_CHECK(cudaMalloc((void **)&field, cells * sizeof(float)));
    CL_CUDA_CHECK(cudaMalloc((void **)&quadrant, cells * sizeof(double)));
    CL_CUDA_CHECK(cudaMalloc((void **)&mirrored, real_bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&modes, mode_bytes));
    CL_CUDA_CHECK(cudaMemcpy(field, start, cells * sizeof(float), cudaMemcpyHostToDevice));

    cufftHandle forward, inverse;
    CL_CUFFT_CHECK(cufftPlan2d(&forward, (int)side, (int)side, CUFFT_D2Z));
    CL_CUFFT_CHECK(cufftPlan2d(&inverse, (int)side, (int)side, CUFFT_Z2D));
    const dim3 threads(32, 8);
    const dim3 mirror_blocks((unsigned)(side + 31) / 32, (unsigned)(side + 7) / 8);
    const dim3 mode_blocks((dim + 1 + 31) / 32, (unsigned)(side + 7) / 8);
    const dim3 quadrant_blocks((dim + 31) / 32, (dim + 7) / 8);
    mirror<<<mirror_blocks, threads>>>(field, mirrored, dim);
    CL_LAUNCH_CHECK();
    CL_CUFFT_CHECK(cufftExecD2Z(forward, mirrored, modes));
    advance_modes<<<mode_blocks, threads>>>(modes, dim, k, (double)steps);
    CL_LAUNCH_CHECK();
    CL_CUFFT_CHECK(cufftExecZ2D(inverse, modes, mirrored));
    first_quadrant<<<quadrant_blocks, threads>>>(mirrored, quadrant, dim);
    CL_LAUNCH_CHECK();
    CL_CUDA_CHECK(cudaMemcpy(result, quadrant, cells * sizeof(double), cudaMemcpyDeviceToHost));

    CL_CUFFT_CHECK(cufftDestroy(forward));
    CL_CUFFT_CHECK(cufftDestroy(inverse));
    CL_CUDA_CHECK(cudaFree(field));
    CL_CUDA_CHECK(cudaFree(quadrant));
    CL_CUDA_CHECK(cudaFree(mirrored));
    CL_CUDA_CHECK(cudaFree(modes));
}

// yours: your Jacobi iteration. `bin/laplace3d -k yours` runs it and compares every point
// with the CPU's, `make check_laplace3d K=yours` scores it against the faster of the
// default version and v2 (3D blocks). Edit only this file.
//
// What is here: one thread a point over a 1D grid of all NX NY NZ points, each
// dividing its index into (i, j, k); a launch an iteration, the buffers swapped.
// Keep the arithmetic (x-1 + x+1 + y-1 + y+1 + z-1 + z+1) * (1/6) in this order: the
// check expects results identical to the CPU's.
// Things to try (the ladder in README.md):
//  - 2D blocks marching in z (v1), and keep the column's z neighbours in registers (v3);
//  - two iterations a pass with the planes in shared memory (v4): the grid is read
//    and written half as often;
//  - 16-byte loads with the next planes in flight (v5), and T iterations a pass (v6).
#include "check.h"
#include "laplace3d.h"

extern "C" const char laplace_yours_idea[] =
    "your kernel (laplace3d/yours.cu): a thread a point, 1D grid";

__global__ void laplace_yours_kernel(const float *in, float *out, grid_shape g)
{
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t plane = (size_t)g.nx * g.ny;
    if (p >= plane * g.nz)
        return;
    const int i = (int)(p % g.nx), j = (int)(p / g.nx % g.ny), k = (int)(p / plane);
    if (i == 0 || i == g.nx - 1 || j == 0 || j == g.ny - 1 || k == 0 || k == g.nz - 1)
        return; // the boundary keeps its value (both buffers hold it)
    out[p] = (in[p - 1] + in[p + 1] + in[p - g.nx] + in[p + g.nx] + in[p - plane] + in[p + plane]) *
             (1.0f / 6.0f);
}

extern "C" void laplace_yours(float **in, float **out, grid_shape g, int iterations,
                              block_shape block, cudaStream_t stream)
{
    (void)block; // --block is for v1 and v2
    const unsigned threads = 256;
    const size_t points = (size_t)g.nx * g.ny * g.nz;
    const unsigned blocks = (unsigned)((points + threads - 1) / threads);
    for (int it = 0; it < iterations; it++) {
        laplace_yours_kernel<<<blocks, threads, 0, stream>>>(*in, *out, g);
        CL_LAUNCH_CHECK();
        float *t = *in;
        *in = *out;
        *out = t;
    }
}

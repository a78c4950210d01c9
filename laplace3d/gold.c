#include <stddef.h>

#include "laplace3d.h"

void laplace_gold(float *u, float *scratch, grid_shape g, int iterations)
{
    const size_t jstride = (size_t)g.nx, kstride = (size_t)g.nx * g.ny;
    const float sixth = 1.0f / 6.0f;
    float *in = u, *out = scratch;
    for (int it = 0; it < iterations; it++) {
#pragma omp parallel for schedule(static)
        for (int k = 0; k < g.nz; k++)
            for (int j = 0; j < g.ny; j++)
                for (int i = 0; i < g.nx; i++) {
                    size_t p = i + j * jstride + k * kstride;
                    if (i == 0 || i == g.nx - 1 || j == 0 || j == g.ny - 1 || k == 0 ||
                        k == g.nz - 1)
                        out[p] = in[p];
                    else
                        out[p] = (in[p - 1] + in[p + 1] + in[p - jstride] + in[p + jstride] +
                                  in[p - kstride] + in[p + kstride]) *
                                 sixth;
                }
        float *t = in;
        in = out;
        out = t;
    }
    if (in != u)
        for (size_t p = 0; p < kstride * g.nz; p++)
            u[p] = in[p];
}

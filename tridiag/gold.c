#include <stdlib.h>

#include "tridiag.h"

// Thomas: eliminate the sub-diagonal top to bottom, then substitute bottom to top.
// c' and the pivots do not depend on the right-hand side, so each system computes
// them once for its niter solves.
void tridiag_gold(const float *a, const float *b, const float *c, const float *d, double *x,
                  tridiag_shape shape)
{
    const int nx = shape.nx;
#pragma omp parallel
    {
        double *c_prime = malloc((size_t)nx * sizeof *c_prime);
        double *inverse_pivot = malloc((size_t)nx * sizeof *inverse_pivot);
#pragma omp for schedule(static)
        for (size_t s = 0; s < shape.m; s++) {
            const float *as = a + s * nx, *bs = b + s * nx, *cs = c + s * nx;
            double *xs = x + s * nx;
            for (int i = 0; i < nx; i++) {
                double pivot = bs[i] - (i ? as[i] * c_prime[i - 1] : 0.0);
                inverse_pivot[i] = 1.0 / pivot;
                c_prime[i] = cs[i] * inverse_pivot[i];
                xs[i] = d[s * nx + i];
            }
            for (int it = 0; it < shape.niter; it++) {
                for (int i = 0; i < nx; i++) // xs becomes d' (the forward sweep)
                    xs[i] =
                        (shape.lambda * xs[i] - (i ? as[i] * xs[i - 1] : 0.0)) * inverse_pivot[i];
                for (int i = nx - 2; i >= 0; i--)
                    xs[i] -= c_prime[i] * xs[i + 1];
            }
        }
        free(c_prime);
        free(inverse_pivot);
    }
}

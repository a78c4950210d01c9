#include "saxpy.h"

void saxpy_gold(size_t n, float a, const float *x, const float *y, double *z)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        z[i] = (double)a * x[i] + y[i];
}

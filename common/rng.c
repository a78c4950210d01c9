#include "rng.h"

uint64_t cl_rng_key(uint64_t seed, uint64_t stream) { return cl_rng_u64(seed, stream); }

double cl_rng_uniform_f64(uint64_t key, uint64_t index)
{
    return (double)(cl_rng_u64(key, index) >> 11) * 0x1.0p-53;
}

void cl_fill_uniform_f32(float *out, size_t n, uint64_t key, float lo, float hi)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        out[i] = lo + (hi - lo) * cl_rng_uniform_f32(key, i);
}

void cl_fill_below_i32(int32_t *out, size_t n, uint64_t key, uint32_t bound)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        out[i] = (int32_t)cl_rng_below(key, i, bound);
}

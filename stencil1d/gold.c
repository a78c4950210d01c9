// stencil1d's CPU reference: each chunk of outputs starts with a full sum of its first
// window and slides from there (add the value that enters, subtract the one that
// leaves). Ints wrap as the GPU's adds do; floats are summed in double, restarting every
// chunk so the slide's own rounding (2^-53 a step) stays far below a float's.
#include "stencil1d.h"

enum { GOLD_CHUNK = 4096 };

void stencil_gold_int(const int32_t *in, size_t n, int radius, int32_t *out)
{
    const size_t width = 2 * (size_t)radius + 1;
#pragma omp parallel for schedule(static)
    for (size_t first = 0; first < n; first += GOLD_CHUNK) {
        size_t end = first + GOLD_CHUNK < n ? first + GOLD_CHUNK : n;
        uint32_t sum = 0; // unsigned: wraps where int32 overflow would be undefined
        for (size_t j = 0; j < width; j++)
            sum += (uint32_t)in[first + j];
        out[first] = (int32_t)sum;
        for (size_t i = first + 1; i < end; i++) {
            sum += (uint32_t)in[i + width - 1] - (uint32_t)in[i - 1];
            out[i] = (int32_t)sum;
        }
    }
}

void stencil_gold_float(const float *in, size_t n, int radius, double *out)
{
    const size_t width = 2 * (size_t)radius + 1;
#pragma omp parallel for schedule(static)
    for (size_t first = 0; first < n; first += GOLD_CHUNK) {
        size_t end = first + GOLD_CHUNK < n ? first + GOLD_CHUNK : n;
        double sum = 0.0;
        for (size_t j = 0; j < width; j++)
            sum += in[first + j];
        out[first] = sum;
        for (size_t i = first + 1; i < end; i++) {
            sum += (double)in[i + width - 1] - (double)in[i - 1];
            out[i] = sum;
        }
    }
}

// The float versions' worst case, as (roundings, span of the partial sums):
//  - a direct sum (v1, v2, yours): 2R additions of partial sums of at most 2R + 1 inputs;
//  - v3's sliding sum: its first window (2R) and two a step for STENCIL_SLIDE - 1 steps,
//    partial sums of at most 2R + 2 inputs;
//  - v4's prefix differences: a prefix within a segment takes at most 3 (within a lane)
//    + 5 (the warp scan) + 1 additions, an output two prefixes and the segment's total
//    with three more: at most 24, over partial sums of at most 2 segments.
double stencil_float_tolerance(int radius, double max_abs_input)
{
    const double r2 = 2.0 * radius;
    double direct = r2 * (r2 + 1.0);
    double sliding = (r2 + 2.0 * (STENCIL_SLIDE - 1)) * (r2 + 2.0);
    double prefix = 24.0 * 2.0 * STENCIL_SEGMENT;
    double worst = direct > sliding ? direct : sliding;
    worst = worst > prefix ? worst : prefix;
    return worst * max_abs_input * 0x1.0p-24;
}

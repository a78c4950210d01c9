#include "scan.h"

// Sequential, in uint32 so overflow wraps as the GPU's does (signed overflow is UB).
void scan_gold(const int32_t *in, int32_t *out, size_t n)
{
    uint32_t running = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)in[i];
        out[i] = (int32_t)running;
        running += v;
    }
}

void recurrence_gold(const double *s, const double *u, double *v, size_t n)
{
    double prev = 0.0;
    for (size_t i = 0; i < n; i++) {
        prev = (i == 0 ? 0.0 : s[i] * prev) + u[i];
        v[i] = prev;
    }
}

#include "reduction.h"

enum { GOLD_CHUNK = 1 << 16 };

double reduction_gold(const float *x, size_t n)
{
    size_t chunks = (n + GOLD_CHUNK - 1) / GOLD_CHUNK;
    double total = 0.0;
    // Each chunk is summed by one thread; the chunk sums are then added in order, so
    // the thread count does not change the result.
#pragma omp parallel for ordered schedule(static, 1)
    for (size_t c = 0; c < chunks; c++) {
        size_t end = (c + 1) * GOLD_CHUNK < n ? (c + 1) * GOLD_CHUNK : n;
        double chunk_sum = 0.0;
        for (size_t i = c * GOLD_CHUNK; i < end; i++)
            chunk_sum += x[i];
#pragma omp ordered
        total += chunk_sum;
    }
    return total;
}

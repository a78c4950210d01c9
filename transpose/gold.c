// transpose's CPU reference: 32 x 32 blocks, so both the rows read and the rows written
// stay in cache while a block is done; blocks of rows in parallel (each output element
// is written once, so the order does not matter).
#include "transpose.h"

enum { GOLD_BLOCK = 32 };

void transpose_gold(const float *a, float *b, size_t rows, size_t cols)
{
#pragma omp parallel for schedule(static)
    for (size_t r0 = 0; r0 < rows; r0 += GOLD_BLOCK)
        for (size_t c0 = 0; c0 < cols; c0 += GOLD_BLOCK)
            for (size_t r = r0; r < r0 + GOLD_BLOCK && r < rows; r++)
                for (size_t c = c0; c < c0 + GOLD_BLOCK && c < cols; c++)
                    b[c * rows + r] = a[r * cols + c];
}

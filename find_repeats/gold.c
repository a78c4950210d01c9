#include "find_repeats.h"

size_t find_repeats_gold(const int32_t *a, size_t n, int32_t *indices)
{
    size_t count = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (a[i] == a[i + 1])
            indices[count++] = (int32_t)i;
    return count;
}

#include <string.h>

#include "radix_sort.h"

// LSD radix sort, 8 bits a pass: count each digit, place each key after all keys with a
// smaller digit and after the earlier keys with the same digit (stable).
void radix_gold(uint32_t *keys, uint32_t *values, size_t n, int bits, uint32_t *scratch_keys,
                uint32_t *scratch_values)
{
    uint32_t *src_k = keys, *dst_k = scratch_keys, *src_v = values, *dst_v = scratch_values;
    for (int shift = 0; shift < bits; shift += 8) {
        const int width = bits - shift < 8 ? bits - shift : 8;
        const uint32_t mask = (1u << width) - 1;
        size_t start[256] = {0};
        for (size_t i = 0; i < n; i++)
            start[(src_k[i] >> shift) & mask]++;
        size_t sum = 0;
        for (int d = 0; d < 256; d++) {
            size_t count = start[d];
            start[d] = sum;
            sum += count;
        }
        for (size_t i = 0; i < n; i++) {
            size_t to = start[(src_k[i] >> shift) & mask]++;
            dst_k[to] = src_k[i];
            if (values)
                dst_v[to] = src_v[i];
        }
        uint32_t *t = src_k;
        src_k = dst_k;
        dst_k = t;
        t = src_v;
        src_v = dst_v;
        dst_v = t;
    }
    if (src_k != keys) {
        memcpy(keys, src_k, n * sizeof *keys);
        if (values)
            memcpy(values, src_v, n * sizeof *values);
    }
}

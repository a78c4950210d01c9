// Unit tests of radix_sort's CPU gold.
#include <stdlib.h>
#include <string.h>

#include "radix_sort.h"
#include "unit.h"

// A reference: qsort on (key & mask, original index), which makes any sort stable.
typedef struct {
    uint32_t key, index;
    uint32_t mask;
} keyed;

static int by_key_then_index(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    uint32_t kx = x->key & x->mask, ky = y->key & y->mask;
    if (kx != ky)
        return kx < ky ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

// Sorts n keys (values = indices) with the gold and with qsort; true when they agree.
static int gold_matches_qsort(const uint32_t *input, size_t n, int bits)
{
    uint32_t *keys = malloc(n * 4), *values = malloc(n * 4), *sk = malloc(n * 4),
             *sv = malloc(n * 4);
    keyed *ref = malloc(n * sizeof *ref);
    const uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
    for (size_t i = 0; i < n; i++) {
        keys[i] = input[i];
        values[i] = (uint32_t)i;
        ref[i] = (keyed){input[i], (uint32_t)i, mask};
    }
    radix_gold(keys, values, n, bits, sk, sv);
    qsort(ref, n, sizeof *ref, by_key_then_index);
    int same = 1;
    for (size_t i = 0; i < n; i++)
        same = same && keys[i] == ref[i].key && values[i] == ref[i].index;
    free(keys);
    free(values);
    free(sk);
    free(sv);
    free(ref);
    return same;
}

static uint32_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*state >> 32);
}

// By hand: 5 keys, two pairs of equal keys keep their order (values = indices).
static void test_small_by_hand(void)
{
    uint32_t keys[] = {7, 3, 0xFFFFFFFF, 3, 7}, values[] = {0, 1, 2, 3, 4}, sk[5], sv[5];
    radix_gold(keys, values, 5, 32, sk, sv);
    const uint32_t want_keys[] = {3, 3, 7, 7, 0xFFFFFFFF}, want_values[] = {1, 3, 0, 4, 2};
    EXPECT(memcmp(keys, want_keys, sizeof keys) == 0);
    EXPECT(memcmp(values, want_values, sizeof values) == 0);
}

// --bits 4: only the low nibble orders; keys keep their high bits, ties their order.
static void test_low_bits_only(void)
{
    uint32_t keys[] = {0x10, 0x01, 0x21, 0x00}, sk[4];
    radix_gold(keys, NULL, 4, 4, sk, NULL);
    const uint32_t want[] = {0x10, 0x00, 0x01, 0x21};
    EXPECT(memcmp(keys, want, sizeof keys) == 0);
}

// Random keys, every bit count (odd counts leave a last pass of fewer than 8 bits), and
// keys with few distinct values: the gold agrees with a stable qsort.
static void test_random_against_qsort(void)
{
    enum { N = 20011 };
    uint32_t *input = malloc(N * 4);
    uint64_t state = 42;
    for (int i = 0; i < N; i++)
        input[i] = next_random(&state);
    for (int bits = 1; bits <= 32; bits++)
        EXPECT(gold_matches_qsort(input, N, bits));
    for (int i = 0; i < N; i++)
        input[i] = (next_random(&state) % 8) * 0x20000001u;
    EXPECT(gold_matches_qsort(input, N, 32));
    EXPECT(gold_matches_qsort(input, 1, 32));
    free(input);
}

int main(void)
{
    RUN_TEST(test_small_by_hand);
    RUN_TEST(test_low_bits_only);
    RUN_TEST(test_random_against_qsort);
    return UNIT_RESULT();
}

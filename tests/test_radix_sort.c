// Unit tests of radix_sort's CPU gold.
#include <stdlib.h>
#include <string.h>

#include "multi_gpu.h"
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

// The shares of --gpus: in order, no gaps, the first n % gpus one key more.
static void test_shares(void)
{
    const size_t ns[] = {1, 2, 7, 1000, 1u << 30};
    for (int t = 0; t < 5; t++)
        for (int gpus = 1; gpus <= 9; gpus++) {
            size_t next = 0;
            for (int r = 0; r < gpus; r++) {
                const radix_share s = radix_share_of(ns[t], gpus, r);
                EXPECT(s.first == next);
                EXPECT(s.count == ns[t] / gpus + ((size_t)r < ns[t] % gpus));
                next += s.count;
            }
            EXPECT(next == ns[t]);
        }
}

// A team simulated on the CPU: each rank's keys sorted by the gold, bounds counted by
// binary search, as the GPUs' radix_bounds counts them.
typedef struct {
    int gpus;
    uint32_t mask;
    uint32_t **keys;
    size_t *count;
    int calls;
} cpu_team;

static void cpu_bounds(void *ctx, const uint32_t *probes, int nprobes, uint64_t *lt, uint64_t *le)
{
    cpu_team *t = ctx;
    t->calls++;
    for (int r = 0; r < t->gpus; r++)
        for (int j = 0; j < nprobes; j++) {
            lt[r * nprobes + j] =
                radix_first_above(t->keys[r], t->count[r], t->mask, probes[j], false);
            le[r * nprobes + j] =
                radix_first_above(t->keys[r], t->count[r], t->mask, probes[j], true);
        }
}

// The whole sort of --gpus done on the CPU: shares sorted, cut, dealt out, each rank's
// runs sorted again; the ranks' results laid end to end must be the gold's stable sort
// of the whole input, key and value (the global index) alike, each rank holding its
// share's count; at most `bits` + 1 rounds of bounds.
static int cpu_sort_across(const uint32_t *input, size_t n, int gpus, int bits)
{
    const uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
    uint32_t *keys[16] = {0}, *values[16] = {0};
    size_t count[16] = {0};
    uint32_t *sk = malloc(n * 4 + 4), *sv = malloc(n * 4 + 4);
    for (int r = 0; r < gpus; r++) {
        const radix_share s = radix_share_of(n, gpus, r);
        count[r] = s.count;
        keys[r] = malloc(s.count * 4 + 4);
        values[r] = malloc(s.count * 4 + 4);
        for (size_t i = 0; i < s.count; i++) {
            keys[r][i] = input[s.first + i];
            values[r][i] = (uint32_t)(s.first + i);
        }
        radix_gold(keys[r], values[r], s.count, bits, sk, sv);
    }
    cpu_team team = {gpus, mask, keys, count, 0};
    uint64_t cuts[16 * 17];
    radix_find_cuts(n, gpus, bits, cpu_bounds, &team, cuts);
    uint32_t *got_keys = malloc(n * 4 + 4), *got_values = malloc(n * 4 + 4);
    int ok = team.calls <= bits + 1;
    size_t at = 0;
    for (int d = 0; d < gpus; d++) {
        const size_t start = at;
        for (int r = 0; r < gpus; r++) {
            const uint64_t from = cuts[r * (gpus + 1) + d], to = cuts[r * (gpus + 1) + d + 1];
            ok = ok && from <= to && to <= count[r];
            for (uint64_t i = from; i < to && ok; i++, at++) {
                got_keys[at] = keys[r][i];
                got_values[at] = values[r][i];
            }
        }
        ok = ok && at - start == radix_share_of(n, gpus, d).count;
        if (ok)
            radix_gold(got_keys + start, got_values + start, at - start, bits, sk, sv);
    }
    uint32_t *want_keys = malloc(n * 4 + 4), *want_values = malloc(n * 4 + 4);
    for (size_t i = 0; i < n; i++) {
        want_keys[i] = input[i];
        want_values[i] = (uint32_t)i;
    }
    radix_gold(want_keys, want_values, n, bits, sk, sv);
    ok = ok && at == n && memcmp(got_keys, want_keys, n * 4) == 0 &&
         memcmp(got_values, want_values, n * 4) == 0;
    for (int r = 0; r < gpus; r++) {
        free(keys[r]);
        free(values[r]);
    }
    free(sk);
    free(sv);
    free(got_keys);
    free(got_values);
    free(want_keys);
    free(want_values);
    return ok;
}

// Uniform keys, few values, all equal, sorted and reversed, low bits only, on 1 to 7
// ranks, down to one key a rank: every cut exact and stable.
static void test_cuts_give_the_stable_sort(void)
{
    enum { N = 5003 };
    uint32_t *input = malloc(N * 4);
    uint64_t state = 7;
    for (int kind = 0; kind < 5; kind++) {
        for (int i = 0; i < N; i++) {
            const uint32_t r = next_random(&state);
            input[i] = kind == 0   ? r
                       : kind == 1 ? (r % 8) * 0x20000001u
                       : kind == 2 ? 5
                       : kind == 3 ? (uint32_t)i * 3
                                   : 0xFFFFFFFFu - (uint32_t)i;
        }
        for (int gpus = 1; gpus <= 7; gpus++) {
            EXPECT(cpu_sort_across(input, N, gpus, 32));
            EXPECT(cpu_sort_across(input, N, gpus, 3));
            EXPECT(cpu_sort_across(input, (size_t)gpus, gpus, 32));
            EXPECT(cpu_sort_across(input, 2 * (size_t)gpus + 1, gpus, 17));
        }
    }
    free(input);
}

// The merge as the GPU runs it (multi_gpu_kernels.cu), on the CPU: block starts by
// merge_split over the whole runs, each thread's start by merge_split within its block's
// pieces, `items` outputs a thread by merge_run; against the gold's stable sort of the
// two runs laid end to end (a first among equal keys).
static int merge_matches_gold(const uint32_t *input, size_t na, size_t nb, int bits, size_t items,
                              size_t threads)
{
    const uint32_t mask = bits == 32 ? 0xFFFFFFFFu : (1u << bits) - 1;
    const size_t n = na + nb, block_items = items * threads;
    uint32_t *keys = malloc(n * 4 + 4), *values = malloc(n * 4 + 4), *sk = malloc(n * 4 + 4),
             *sv = malloc(n * 4 + 4), *out = malloc(n * 4 + 4), *outv = malloc(n * 4 + 4);
    for (size_t i = 0; i < n; i++) {
        keys[i] = input[i];
        values[i] = (uint32_t)i;
    }
    radix_gold(keys, values, na, bits, sk, sv);
    radix_gold(keys + na, values + na, nb, bits, sk, sv);
    const uint32_t *a = keys, *b = keys + na, *av = values, *bv = values + na;
    for (size_t d0 = 0; d0 < n; d0 += block_items) {
        const size_t d1 = d0 + block_items < n ? d0 + block_items : n;
        const size_t i0 = merge_split(a, na, b, nb, d0, mask), j0 = d0 - i0;
        const size_t i1 = merge_split(a, na, b, nb, d1, mask), j1 = d1 - i1;
        for (size_t mine = 0; d0 + mine < d1; mine += items) {
            const size_t count = d1 - d0 - mine < items ? d1 - d0 - mine : items;
            const size_t i = i0 + merge_split(a + i0, i1 - i0, b + j0, j1 - j0, mine, mask);
            merge_run(a, av, na, b, bv, nb, i, d0 + mine - i, count, mask, out + d0 + mine,
                      outv + d0 + mine);
        }
    }
    radix_gold(keys, values, n, bits, sk, sv); // stable: a's keys before b's equal ones
    const int same = memcmp(out, keys, n * 4) == 0 && memcmp(outv, values, n * 4) == 0;
    free(keys);
    free(values);
    free(sk);
    free(sv);
    free(out);
    free(outv);
    return same;
}

// Runs of every relation: empty, one key, uneven, all equal across both, few values,
// low bits only; blocks and threads of the GPU's shape and of odd small ones.
static void test_merge_path(void)
{
    enum { N = 9001 };
    uint32_t *input = malloc(N * 4);
    uint64_t state = 11;
    for (int kind = 0; kind < 3; kind++) {
        for (int i = 0; i < N; i++) {
            const uint32_t r = next_random(&state);
            input[i] = kind == 0 ? r : kind == 1 ? (r % 5) * 0x30000001u : 42;
        }
        const size_t splits[][2] = {{0, 0},       {0, 9},    {9, 0},    {1, 1},
                                    {4500, 4501}, {7, 8994}, {8994, 7}, {3000, 6001}};
        for (int t = 0; t < 8; t++) {
            EXPECT(merge_matches_gold(input, splits[t][0], splits[t][1], 32, 8, 256));
            EXPECT(merge_matches_gold(input, splits[t][0], splits[t][1], 32, 3, 4));
            EXPECT(merge_matches_gold(input, splits[t][0], splits[t][1], 5, 8, 3));
        }
    }
    free(input);
}

// The device's generator and the host's are one function: spot values by hand.
static void test_input_keys(void)
{
    uint32_t few[8];
    radix_few_values(1, few);
    EXPECT(radix_input_key(RADIX_INPUT_SORTED, 0, 4, 0, few) == 0);
    EXPECT(radix_input_key(RADIX_INPUT_SORTED, 2, 4, 0, few) == 0x80000000u);
    EXPECT(radix_input_key(RADIX_INPUT_REVERSED, 3, 4, 0, few) == 0x3FFFFFFFu);
    EXPECT(radix_input_key(RADIX_INPUT_ZERO, 3, 4, 0, few) == 0);
    EXPECT(radix_input_key(RADIX_INPUT_UNIFORM, 0, 4, 0, few) == 0x7b1dcdafu);
    bool in_few = true;
    for (size_t i = 0; i < 100; i++) {
        const uint32_t k = radix_input_key(RADIX_INPUT_FEW, i, 100, 9, few);
        bool found = false;
        for (int j = 0; j < 8; j++)
            found = found || k == few[j];
        in_few = in_few && found;
    }
    EXPECT(in_few);
}

int main(void)
{
    RUN_TEST(test_small_by_hand);
    RUN_TEST(test_low_bits_only);
    RUN_TEST(test_random_against_qsort);
    RUN_TEST(test_shares);
    RUN_TEST(test_cuts_give_the_stable_sort);
    RUN_TEST(test_merge_path);
    RUN_TEST(test_input_keys);
    return UNIT_RESULT();
}

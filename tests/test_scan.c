// Unit tests of scan's CPU gold: the prefix sum and the recurrence.
#include <math.h>
#include <stdlib.h>

#include "scan.h"
#include "unit.h"

// Against the definition out[i] = sum of in[0..i), at the edge sizes.
static void test_scan_gold_edge_sizes(void)
{
    const size_t sizes[] = {1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 4095, 4097, 65537, 999983};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        int32_t *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
        for (size_t i = 0; i < n; i++)
            in[i] = (int32_t)((i * 7 + 3) % 10);
        scan_gold(in, out, n);
        // Closed form of the sum of ((j*7+3) % 10) over j < i: whole cycles of 10
        // sum to 45, plus the partial cycle.
        bool all = true;
        for (size_t i = 0; i < n; i++) {
            int64_t want = (int64_t)(i / 10) * 45;
            for (size_t j = i / 10 * 10; j < i; j++)
                want += (int64_t)((j * 7 + 3) % 10);
            all = all && out[i] == (int32_t)want;
        }
        if (!all)
            printf("  n = %zu\n", n);
        EXPECT(all);
        free(in);
        free(out);
    }
}

static void test_scan_gold_wraps_like_int32(void)
{
    int32_t in[3] = {2147483647, 1, 5}, out[3];
    scan_gold(in, out, 3);
    EXPECT(out[0] == 0 && out[1] == 2147483647 && out[2] == (int32_t)0x80000000u);
}

static void test_scan_gold_in_place(void)
{
    int32_t a[4] = {1, 2, 3, 4};
    scan_gold(a, a, 4);
    EXPECT(a[0] == 0 && a[1] == 1 && a[2] == 3 && a[3] == 6);
}

static void test_recurrence_gold(void)
{
    double s[4] = {9.0, 0.5, -2.0, 0.0}, u[4] = {1.0, 1.0, 0.25, 3.0}, v[4];
    recurrence_gold(s, u, v, 4);
    // v0 = u0 (s0 unused), v1 = 0.5*1 + 1, v2 = -2*1.5 + 0.25, v3 = 0*v2 + 3
    EXPECT(v[0] == 1.0 && v[1] == 1.5 && v[2] == -2.75 && v[3] == 3.0);
}

int main(void)
{
    RUN_TEST(test_scan_gold_edge_sizes);
    RUN_TEST(test_scan_gold_wraps_like_int32);
    RUN_TEST(test_scan_gold_in_place);
    RUN_TEST(test_recurrence_gold);
    return UNIT_RESULT();
}

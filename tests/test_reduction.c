// Unit tests of reduction's CPU gold.
#include <omp.h>
#include <stdlib.h>

#include "reduction.h"
#include "unit.h"

static void test_gold_small(void)
{
    float x[5] = {1.0f, 2.5f, -3.0f, 0.25f, 9.0f};
    EXPECT(reduction_gold(x, 5) == 9.75);
    EXPECT(reduction_gold(x, 1) == 1.0);
    EXPECT(reduction_gold(x, 0) == 0.0);
}

// Integer inputs across many chunks sum exactly: 0..9 repeated, n = 3 chunks + 7.
static void test_gold_exact_integers(void)
{
    size_t n = 3 * 65536 + 7;
    float *x = malloc(n * sizeof *x);
    double want = 0.0;
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)(i % 10);
        want += (double)(i % 10);
    }
    EXPECT(reduction_gold(x, n) == want);
    free(x);
}

// The order is fixed by n alone: 1 thread and 4 threads give the same bits on
// values where the order matters.
static void test_gold_independent_of_threads(void)
{
    size_t n = 10 * 65536 + 123;
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = (i % 3 == 0) ? 1e8f : 1.0f / (float)(i + 1);
    omp_set_num_threads(1);
    double one = reduction_gold(x, n);
    omp_set_num_threads(4);
    double four = reduction_gold(x, n);
    EXPECT(one == four);
    free(x);
}

int main(void)
{
    RUN_TEST(test_gold_small);
    RUN_TEST(test_gold_exact_integers);
    RUN_TEST(test_gold_independent_of_threads);
    return UNIT_RESULT();
}

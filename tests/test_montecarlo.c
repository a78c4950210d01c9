// Unit tests of montecarlo's model arithmetic, statistics and CPU references.
#include <math.h>
#include <omp.h>

#include "montecarlo.h"
#include "unit.h"

static void test_practical_constants(void)
{
    mc_model m = mc_model_practical(9600000, 100, 1234, MC_GEN_DEFAULT);
    EXPECT(m.T == 1.0f && m.r == 0.05f && m.sigma == 0.1f && m.rho == 0.5f);
    EXPECT(fabsf(m.alpha - sqrtf(0.75f)) < 1e-7f);
    EXPECT(fabsf(m.dt - 0.01f) < 1e-9f);
    EXPECT(fabsf(m.con1 - 1.0005f) < 1e-7f && fabsf(m.con2 - 0.01f) < 1e-9f);
}

// The practical's formula: mean = sum / n, se = sqrt((sum_sq / n - mean^2) / n).
static void test_estimate_and_distance(void)
{
    mc_estimate e = mc_estimate_from_sums(2.0, 2.0, 4); // payoffs 0, 1, 0, 1
    EXPECT(e.mean == 0.5 && e.se == 0.25);
    mc_estimate a = {1.0, 0.3}, b = {1.5, 0.4};
    EXPECT(fabs(mc_distance(a, b) - 1.0) < 1e-12); // 0.5 / sqrt(0.09 + 0.16)
    EXPECT(mc_distance(a, a) == 0.0);
    EXPECT(isinf(mc_distance((mc_estimate){1.0, 0.0}, (mc_estimate){2.0, 0.0})));
}

// The CPU pricer reproduces the practical's figure (0.41793859 +- 0.00015237) within
// 3 combined standard errors, and a model with rho's sign flipped is far from it:
// the check the versions go through can fail.
static void test_gold_reproduces_practical(void)
{
    const size_t paths = 200000;
    const mc_estimate practical = {MC_PRACTICAL_MEAN, MC_PRACTICAL_SE};
    mc_model m = mc_model_practical(paths, 100, 1234, MC_GEN_DEFAULT);
    double sum, sum_sq;
    mc_gold(&m, paths, &sum, &sum_sq);
    mc_estimate good = mc_estimate_from_sums(sum, sum_sq, paths);
    printf("  CPU pricer, %zu paths: %.6f +- %.6f (%.2f s.e. from the practical)\n", paths,
           good.mean, good.se, mc_distance(good, practical));
    EXPECT(mc_distance(good, practical) <= 3.0);

    m.rho = -m.rho;
    mc_gold(&m, paths, &sum, &sum_sq);
    mc_estimate flipped = mc_estimate_from_sums(sum, sum_sq, paths);
    printf("  rho flipped: %.6f +- %.6f (%.1f s.e. from the practical)\n", flipped.mean, flipped.se,
           mc_distance(flipped, practical));
    EXPECT(mc_distance(flipped, practical) > 10.0);
}

// The sums do not depend on the thread count (chunk sums join in order).
static void test_gold_independent_of_threads(void)
{
    mc_model m = mc_model_practical(50001, 7, 99, MC_GEN_DEFAULT);
    double one[2], four[2];
    omp_set_num_threads(1);
    mc_gold(&m, m.npath, &one[0], &one[1]);
    omp_set_num_threads(4);
    mc_gold(&m, m.npath, &four[0], &four[1]);
    EXPECT(one[0] == four[0] && one[1] == four[1]);
}

static void test_quadratic_cpu(void)
{
    const float z[4] = {0.0f, 1.0f, -1.0f, 2.0f}; // z^2 + 2z + 3 = 3, 6, 2, 11
    double sums[2];
    quadratic_cpu(z, 4, 1.0f, 2.0f, 3.0f, sums);
    EXPECT(sums[0] == 22.0 && sums[1] == 170.0);
    quadratic_cpu(z, 1, 1.0f, 2.0f, 3.0f, sums);
    EXPECT(sums[0] == 3.0 && sums[1] == 9.0);
}

int main(void)
{
    RUN_TEST(test_practical_constants);
    RUN_TEST(test_estimate_and_distance);
    RUN_TEST(test_gold_reproduces_practical);
    RUN_TEST(test_gold_independent_of_threads);
    RUN_TEST(test_quadratic_cpu);
    return UNIT_RESULT();
}

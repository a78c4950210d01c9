// Unit tests of saxpy's CPU gold.
#include <math.h>

#include "saxpy.h"
#include "unit.h"

static void test_gold_values(void)
{
    float x[4] = {1.0f, -2.0f, 0.5f, 0.0f}, y[4] = {0.0f, 1.0f, -1.0f, 7.0f};
    double z[4];
    saxpy_gold(4, 2.0f, x, y, z);
    EXPECT(z[0] == 2.0 && z[1] == -3.0 && z[2] == 0.0 && z[3] == 7.0);
}

// The gold keeps what float arithmetic would round away: 2*3 + 1e-8 is 6 in float.
static void test_gold_is_double(void)
{
    float x = 3.0f, y = 1e-8f;
    double z;
    saxpy_gold(1, 2.0f, &x, &y, &z);
    EXPECT(z != 6.0 && fabs(z - (6.0 + (double)1e-8f)) < 1e-15);
}

// The course input: x[i] = y[i] = i % 10 gives z[i] = 3 (i % 10).
static void test_gold_course_input(void)
{
    enum { N = 1000003 };
    static float x[N];
    static double z[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)(i % 10);
    saxpy_gold(N, 2.0f, x, x, z);
    bool all = true;
    for (int i = 0; i < N; i++)
        all = all && z[i] == 3.0 * (i % 10);
    EXPECT(all);
}

int main(void)
{
    RUN_TEST(test_gold_values);
    RUN_TEST(test_gold_is_double);
    RUN_TEST(test_gold_course_input);
    return UNIT_RESULT();
}

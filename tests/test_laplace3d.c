// Unit tests of laplace3d's CPU gold.
#include <math.h>
#include <stdlib.h>

#include "laplace3d.h"
#include "unit.h"

static float *start_grid(grid_shape g)
{
    float *u = malloc((size_t)g.nx * g.ny * g.nz * sizeof *u);
    for (int k = 0; k < g.nz; k++)
        for (int j = 0; j < g.ny; j++)
            for (int i = 0; i < g.nx; i++)
                u[i + g.nx * (j + g.ny * k)] =
                    i == 0 || i == g.nx - 1 || j == 0 || j == g.ny - 1 || k == 0 || k == g.nz - 1
                        ? 1.0f
                        : 0.0f;
    return u;
}

static float at(const float *u, grid_shape g, int i, int j, int k)
{
    return u[i + g.nx * (j + g.ny * k)];
}

// 3^3: the one interior point sees six boundary points: 1 after one iteration.
static void test_cube_3(void)
{
    grid_shape g = {3, 3, 3};
    float *u = start_grid(g), *scratch = malloc(27 * sizeof *scratch);
    laplace_gold(u, scratch, g, 1);
    EXPECT(at(u, g, 1, 1, 1) == 1.0f);
    EXPECT(at(u, g, 0, 1, 1) == 1.0f && at(u, g, 2, 2, 2) == 1.0f); // the boundary stays
    free(u);
    free(scratch);
}

// 5 x 7 x 9, by hand. One iteration: an interior point becomes (its boundary
// neighbours) / 6: 3/6 next to a corner, 2/6 next to an edge, 1/6 next to a face, 0
// deeper. Two iterations: (1,1,1) sees 3 boundary points and three 2/6 points:
// (3 + 1) / 6; (2,3,4) sees two 1/6 points: 2/36.
static void test_box_by_hand(void)
{
    grid_shape g = {5, 7, 9};
    float *u = start_grid(g), *scratch = malloc(5 * 7 * 9 * sizeof *scratch);
    laplace_gold(u, scratch, g, 1);
    EXPECT(fabsf(at(u, g, 1, 1, 1) - 0.5f) < 1e-7f);
    EXPECT(fabsf(at(u, g, 2, 1, 1) - 2.0f / 6.0f) < 1e-7f);
    EXPECT(fabsf(at(u, g, 2, 3, 1) - 1.0f / 6.0f) < 1e-7f);
    EXPECT(at(u, g, 2, 3, 4) == 0.0f);
    free(u);
    u = start_grid(g);
    laplace_gold(u, scratch, g, 2);
    EXPECT(fabsf(at(u, g, 1, 1, 1) - 4.0f / 6.0f) < 1e-6f);
    // (2,3,4) is two points from the x faces: its x neighbours were 1/6 each.
    EXPECT(fabsf(at(u, g, 2, 3, 4) - 2.0f / 36.0f) < 1e-7f);
    EXPECT(at(u, g, 4, 6, 8) == 1.0f);
    free(u);
    free(scratch);
}

// An odd number of iterations leaves the result in u, not in scratch.
static void test_result_in_u(void)
{
    grid_shape g = {4, 4, 4};
    float *u = start_grid(g), *scratch = malloc(64 * sizeof *scratch);
    laplace_gold(u, scratch, g, 3);
    float *v = start_grid(g);
    laplace_gold(v, scratch, g, 2);
    laplace_gold(v, scratch, g, 1);
    for (int p = 0; p < 64; p++)
        EXPECT(u[p] == v[p]);
    free(u);
    free(v);
    free(scratch);
}

int main(void)
{
    RUN_TEST(test_cube_3);
    RUN_TEST(test_box_by_hand);
    RUN_TEST(test_result_in_u);
    return UNIT_RESULT();
}

// Unit tests of laplace3d's CPU gold, its light-cone boxes and the arithmetic of --gpus'
// cut into slabs.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "laplace3d.h"
#include "multi_gpu.h"
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

// Slabs for N = 1..8 and grids from the fewest planes up: every inside plane owned by
// exactly one slab, in order, sizes differing by at most one (the larger first), the
// neighbours chained, and laplace_slab_holding agreeing, the boundary planes included.
static void test_slabs_cover_the_grid(void)
{
    for (int n = 1; n <= 8; n++)
        for (int nz = n + 2; nz <= n + 40; nz += 3) {
            int next = 1;
            for (int s = 0; s < n; s++) {
                const laplace_slab slab = laplace_slab_of(nz, n, s);
                EXPECT(slab.first == next);
                EXPECT(slab.planes == (nz - 2) / n || slab.planes == (nz - 2) / n + 1);
                EXPECT(s == 0 || slab.planes <= laplace_slab_of(nz, n, s - 1).planes);
                EXPECT(slab.below == (s == 0 ? -1 : s - 1));
                EXPECT(slab.above == (s == n - 1 ? -1 : s + 1));
                for (int k = slab.first; k < slab.first + slab.planes; k++)
                    EXPECT(laplace_slab_holding(nz, n, k) == s);
                next += slab.planes;
            }
            EXPECT(next == nz - 1);
            EXPECT(laplace_slab_holding(nz, n, 0) == 0);
            EXPECT(laplace_slab_holding(nz, n, nz - 1) == n - 1);
        }
    // 1022 inside planes in 3: 341, 341, 340.
    EXPECT(laplace_slab_of(1024, 3, 0).planes == 341 && laplace_slab_of(1024, 3, 2).planes == 340);
    EXPECT(laplace_slab_of(1024, 3, 2).first == 683);
}

// The checked boxes lie inside the grid, touch its faces, and one straddles each slab
// boundary; small grids give boxes as large as the grid.
static void test_check_boxes(void)
{
    grid_box boxes[LAPLACE_MAX_CHECK_BOXES];
    const grid_shape g = {100, 90, 200};
    for (int n = 1; n <= 8; n++) {
        const int count = laplace_check_boxes(g, n, 42, boxes);
        EXPECT(count == 7 + n - 1);
        bool x0 = false, far_corner = false;
        for (int b = 0; b < count; b++) {
            const grid_box box = boxes[b];
            EXPECT(box.x >= 0 && box.y >= 0 && box.z >= 0 && box.nx == 32 && box.ny == 32 &&
                   box.nz == 32 && box.x + box.nx <= g.nx && box.y + box.ny <= g.ny &&
                   box.z + box.nz <= g.nz);
            x0 = x0 || box.x == 0;
            far_corner = far_corner || (box.x + box.nx == g.nx && box.y + box.ny == g.ny &&
                                        box.z + box.nz == g.nz);
        }
        EXPECT(x0 && far_corner);
        for (int s = 1; s < n; s++) {
            const int k = laplace_slab_of(g.nz, n, s).first;
            EXPECT(boxes[4 + s].z < k && boxes[4 + s].z + boxes[4 + s].nz > k);
        }
    }
    const int count = laplace_check_boxes((grid_shape){5, 4, 3}, 1, 1, boxes);
    for (int b = 0; b < count; b++)
        EXPECT(boxes[b].x == 0 && boxes[b].nx == 5 && boxes[b].ny == 4 && boxes[b].nz == 3);
}

// A box's light cone equals the same box of the whole grid's gold, bit for bit: in the
// middle, at a corner and at a face, for both inputs.
static void test_light_cone(void)
{
    const grid_shape g = {40, 37, 45};
    const size_t n = (size_t)g.nx * g.ny * g.nz;
    float *u = malloc(n * sizeof *u), *scratch = malloc(n * sizeof *scratch);
    float *box_values = malloc(12 * 12 * 12 * sizeof *box_values);
    const grid_box boxes[] = {{14, 13, 16, 12, 12, 12},
                              {0, 0, 0, 12, 12, 12},
                              {28, 25, 33, 12, 12, 12},
                              {0, 10, 20, 12, 12, 12}};
    for (int random = 0; random < 2; random++) {
        for (int k = 0; k < g.nz; k++)
            for (int j = 0; j < g.ny; j++)
                for (int i = 0; i < g.nx; i++)
                    u[i + g.nx * (j + g.ny * k)] = laplace_start_value(g, i, j, k, random, 99);
        laplace_gold(u, scratch, g, 7);
        for (int b = 0; b < 4; b++) {
            const grid_box box = boxes[b];
            laplace_gold_box(g, box, 7, random, 99, box_values);
            bool same = true;
            for (int k = 0; k < box.nz; k++)
                for (int j = 0; j < box.ny; j++)
                    same = same && memcmp(box_values + box.nx * (j + box.ny * k),
                                          u + box.x + g.nx * (box.y + j + g.ny * (box.z + k)),
                                          box.nx * sizeof(float)) == 0;
            EXPECT(same);
        }
    }
    free(u);
    free(scratch);
    free(box_values);
}

int main(void)
{
    RUN_TEST(test_cube_3);
    RUN_TEST(test_box_by_hand);
    RUN_TEST(test_result_in_u);
    RUN_TEST(test_slabs_cover_the_grid);
    RUN_TEST(test_check_boxes);
    RUN_TEST(test_light_cone);
    return UNIT_RESULT();
}

// Unit tests of heat's CPU gold and source layout.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heat.h"
#include "unit.h"

static heat_grid free_grid(int dim) // no sources
{
    return (heat_grid){.dim = dim, .k = HEAT_SPEED};
}

static float *zeros(int dim) { return calloc((size_t)dim * dim, sizeof(float)); }

// A hot cell in the middle, no sources, by hand with k = 1/4. Step 1: the cell gives
// everything away, 1/4 to each neighbour. Step 2: it gets back 4 x 1/16; a cell two
// away gets 1/16, a diagonal one 2/16, a direct neighbour 1/4 - 1/4 = 0.
static void test_hot_cell_spreads(void)
{
    const int n = 9;
    heat_grid g = free_grid(n);
    float *t = zeros(n), *scratch = zeros(n);
    t[4 * n + 4] = 1.0f;
    heat_gold_steps(t, scratch, &g, 1);
    EXPECT(t[4 * n + 4] == 0.0f);
    EXPECT(t[3 * n + 4] == 0.25f && t[5 * n + 4] == 0.25f && t[4 * n + 3] == 0.25f &&
           t[4 * n + 5] == 0.25f);
    EXPECT(t[3 * n + 3] == 0.0f);
    heat_gold_steps(t, scratch, &g, 1);
    EXPECT(t[4 * n + 4] == 0.25f);
    EXPECT(t[2 * n + 4] == 0.0625f && t[4 * n + 6] == 0.0625f);
    EXPECT(t[3 * n + 3] == 0.125f && t[5 * n + 5] == 0.125f);
    EXPECT(t[3 * n + 4] == 0.0f);
    free(t);
    free(scratch);
}

// A hot corner: the missing top and left neighbours are the corner itself, so it keeps
// half, and each edge neighbour gets 1/4. The edge rule loses no heat: the total stays 1.
static void test_edges_use_themselves(void)
{
    const int n = 7;
    heat_grid g = free_grid(n);
    float *t = zeros(n), *scratch = zeros(n);
    t[0] = 1.0f;
    heat_gold_steps(t, scratch, &g, 1);
    EXPECT(t[0] == 0.5f && t[1] == 0.25f && t[n] == 0.25f && t[n + 1] == 0.0f);
    heat_gold_steps(t, scratch, &g, 49);
    double total = 0.0;
    for (int c = 0; c < n * n; c++)
        total += t[c];
    EXPECT(fabs(total - 1.0) < 1e-5);
    free(t);
    free(scratch);
}

// The sources are restored before every step: inside the large source the field stays
// at MAX_TEMP (a cell whose neighbours are all sources at 1 blends to 1); one step from
// the start, the cell right of the point source (100, 100) holds a quarter of it.
static void test_sources_held(void)
{
    const int n = HEAT_LAYOUT_DIM;
    heat_grid g = {.dim = n, .k = HEAT_SPEED, .sources = heat_book_sources(n)};
    float *t = zeros(n), *scratch = zeros(n);
    heat_start_field(t, n);
    heat_gold_steps(t, scratch, &g, 1);
    const float mid = (HEAT_MAX_TEMP + HEAT_MIN_TEMP) / 2;
    EXPECT(t[100 * n + 101] == 0.25f * mid);
    heat_gold_steps(t, scratch, &g, 30);
    EXPECT(t[450 * n + 450] == HEAT_MAX_TEMP);
    EXPECT(fabsf(t[850 * n + 450] - HEAT_MIN_TEMP) < 1e-9f);
    // Without sources the same field cools down there.
    heat_grid off = free_grid(n);
    heat_start_field(t, n);
    heat_gold_steps(t, scratch, &off, 31);
    EXPECT(t[310 * n + 450] < 0.9f);
    free(t);
    free(scratch);
}

// The book's coordinates at DIM 1024, and at every DIM the program accepts up to 4096
// the six rectangles are non-empty, inside the grid and disjoint.
static void test_layout_scales(void)
{
    heat_layout book = heat_book_sources(HEAT_LAYOUT_DIM);
    EXPECT(book.count == 6);
    EXPECT(book.rect[0].x0 == 301 && book.rect[0].x1 == 600 && book.rect[0].y0 == 311 &&
           book.rect[0].y1 == 601 && book.rect[0].temp == HEAT_MAX_TEMP);
    EXPECT(book.rect[4].x0 == 700 && book.rect[4].x1 == 701 && book.rect[4].y0 == 200);
    EXPECT(heat_source_at(&book, 400, 850) == HEAT_MIN_TEMP);
    EXPECT(heat_source_at(&book, 300, 400) == 0.0f);
    int bad = 0;
    for (int dim = HEAT_DIM_MIN; dim <= 4096; dim++) {
        heat_layout l = heat_book_sources(dim);
        for (int i = 0; i < l.count; i++) {
            const heat_rect *a = &l.rect[i];
            bad += !(0 <= a->x0 && a->x0 < a->x1 && a->x1 <= dim && 0 <= a->y0 && a->y0 < a->y1 &&
                     a->y1 <= dim);
            for (int j = i + 1; j < l.count; j++) {
                const heat_rect *b = &l.rect[j];
                bad += a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
            }
        }
    }
    EXPECT(bad == 0);
}

// The start field: the sources plus the warm bottom-left block (not a source).
static void test_start_field(void)
{
    const int n = HEAT_LAYOUT_DIM;
    float *t = zeros(n);
    heat_start_field(t, n);
    EXPECT(t[1023 * n + 0] == HEAT_MAX_TEMP && t[800 * n + 199] == HEAT_MAX_TEMP);
    EXPECT(t[800 * n + 200] == 0.0f && t[799 * n + 0] == 0.0f);
    EXPECT(t[300 * n + 300] == HEAT_MIN_TEMP && t[311 * n + 301] == HEAT_MAX_TEMP);
    heat_layout l = heat_book_sources(n);
    EXPECT(heat_source_at(&l, 0, 1023) == 0.0f);
    free(t);
}

int main(void)
{
    RUN_TEST(test_hot_cell_spreads);
    RUN_TEST(test_edges_use_themselves);
    RUN_TEST(test_sources_held);
    RUN_TEST(test_layout_scales);
    RUN_TEST(test_start_field);
    return UNIT_RESULT();
}

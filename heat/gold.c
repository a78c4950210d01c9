#include <string.h>

#include "heat.h"

// A book coordinate on a DIM grid.
static int scaled(int c, int dim) { return (int)((long)c * dim / HEAT_LAYOUT_DIM); }

// The book's rectangle [x0, x1) x [y0, y1) scaled to dim, at least one cell a side.
static heat_rect book_rect(int x0, int x1, int y0, int y1, float temp, int dim)
{
    heat_rect r = {scaled(x0, dim), scaled(x1, dim), scaled(y0, dim), scaled(y1, dim), temp};
    if (r.x1 <= r.x0)
        r.x1 = r.x0 + 1;
    if (r.y1 <= r.y0)
        r.y1 = r.y0 + 1;
    return r;
}

float heat_source_at(const heat_layout *l, int x, int y)
{
    for (int i = 0; i < l->count; i++) {
        const heat_rect *r = &l->rect[i];
        if (x >= r->x0 && x < r->x1 && y >= r->y0 && y < r->y1)
            return r->temp;
    }
    return 0.0f;
}

heat_layout heat_book_sources(int dim)
{
    const float mid = (HEAT_MAX_TEMP + HEAT_MIN_TEMP) / 2;
    heat_layout l = {.count = 6};
    l.rect[0] = book_rect(301, 600, 311, 601, HEAT_MAX_TEMP, dim); // 300 < x < 600, 310 < y < 601
    l.rect[1] = book_rect(100, 101, 100, 101, mid, dim);
    l.rect[2] = book_rect(100, 101, 700, 701, HEAT_MIN_TEMP, dim);
    l.rect[3] = book_rect(300, 301, 300, 301, HEAT_MIN_TEMP, dim);
    l.rect[4] = book_rect(700, 701, 200, 201, HEAT_MIN_TEMP, dim);
    l.rect[5] = book_rect(400, 500, 800, 900, HEAT_MIN_TEMP, dim);
    return l;
}

void heat_start_field(float *field, int dim)
{
    heat_layout sources = heat_book_sources(dim);
    const int warm_x1 = scaled(200, dim), warm_y0 = scaled(800, dim);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < dim; y++)
        for (int x = 0; x < dim; x++) {
            float t = heat_source_at(&sources, x, y);
            field[(size_t)y * dim + x] = x < warm_x1 && y >= warm_y0 ? HEAT_MAX_TEMP : t;
        }
}

// As the book does it: restore the sources into the field, then blend into the other
// buffer, then swap.
void heat_gold_steps(float *field, float *scratch, const heat_grid *g, long steps)
{
    const int n = g->dim;
    const float k = g->k;
    const heat_rect *rects = g->sources.rect;
    float *in = field, *out = scratch;
    for (long s = 0; s < steps; s++) {
        for (int i = 0; i < g->sources.count; i++)
            for (int y = rects[i].y0; y < rects[i].y1; y++)
                for (int x = rects[i].x0; x < rects[i].x1; x++)
                    in[(size_t)y * n + x] = rects[i].temp;
#pragma omp parallel for schedule(static)
        for (int y = 0; y < n; y++) {
            const float *row = in + (size_t)y * n;
            const float *up = y > 0 ? row - n : row, *down = y < n - 1 ? row + n : row;
            for (int x = 0; x < n; x++) {
                // An edge cell is its own missing neighbour.
                float c = row[x], l = row[x > 0 ? x - 1 : x], r = row[x < n - 1 ? x + 1 : x];
                float sum = ((up[x] + down[x]) + l) + r;
                out[(size_t)y * n + x] = c + k * (sum - 4.0f * c);
            }
        }
        float *swap = in;
        in = out;
        out = swap;
    }
    if (in != field)
        memcpy(field, in, (size_t)n * n * sizeof *field);
}

// The renderer's CPU reference (`-r cpuref`, the gold): plain loops. OpenMP takes
// bands of rows; each band draws every circle in index order, so each pixel sees the
// circles in order whatever the threads do.
#include <math.h>

#include "renderer.h"

void render_clear_cpu(float *image, int width, int height, render_shading shading)
{
#pragma omp parallel for
    for (int y = 0; y < height; y++) {
        const float grey = render_background(shading, y, height);
        for (int x = 0; x < width; x++) {
            float *p = image + 4 * ((size_t)y * width + x);
            p[0] = p[1] = p[2] = grey;
            p[3] = 1.0f;
        }
    }
}

enum { BAND_ROWS = 8 };

void render_cpu(const render_scene *s, float *image, int width, int height)
{
    const int bands = (height + BAND_ROWS - 1) / BAND_ROWS;
#pragma omp parallel for schedule(dynamic, 1)
    for (int band = 0; band < bands; band++) {
        const int row0 = band * BAND_ROWS,
                  row1 = row0 + BAND_ROWS < height ? row0 + BAND_ROWS : height;
        for (int i = 0; i < s->n; i++) {
            const render_box b = render_circle_box(s->x[i], s->y[i], s->r[i], width, height);
            const int y0 = b.y0 > row0 ? b.y0 : row0, y1 = b.y1 < row1 ? b.y1 : row1;
            for (int y = y0; y < y1; y++)
                for (int x = b.x0; x < b.x1; x++) {
                    const float d2 = render_distance2(s->x[i], s->y[i], x, y, width, height);
                    if (!render_covered(d2, s->r[i]))
                        continue;
                    float colour[3];
                    const float alpha =
                        render_shade(s->shading, s->rgb + 3 * i, s->z[i], s->r[i], d2, colour);
                    render_blend(image + 4 * ((size_t)y * width + x), colour, alpha);
                }
        }
    }
}

double render_score(double ref_ms, double your_ms, bool correct)
{
    if (!correct || !(your_ms > 0.0))
        return 0.0;
    if (your_ms <= 1.2 * ref_ms)
        return 12.0;
    if (your_ms > 10.0 * ref_ms)
        return 2.0;
    return 2.0 + ceil(10.0 * ref_ms / your_ms);
}

#include <math.h>
#include <string.h>

#include "mosaic.h"
#include "rng.h"

// One cell: sum its pixels, then write the average to each of them.
static void cell_mosaic(const uint8_t *in, uint8_t *out, mosaic_shape s, int cx, int cy,
                        uint64_t sums[3])
{
    const int x0 = cx * s.cell, y0 = cy * s.cell;
    const int x1 = x0 + s.cell < s.width ? x0 + s.cell : s.width;
    const int y1 = y0 + s.cell < s.height ? y0 + s.cell : s.height;
    sums[0] = sums[1] = sums[2] = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            for (int c = 0; c < 3; c++)
                sums[c] += in[((size_t)y * s.width + x) * 3 + c];
    const uint64_t count = (uint64_t)(x1 - x0) * (uint64_t)(y1 - y0);
    const uint8_t average[3] = {mosaic_average(sums[0], count), mosaic_average(sums[1], count),
                                mosaic_average(sums[2], count)};
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            memcpy(out + ((size_t)y * s.width + x) * 3, average, 3);
}

void mosaic_gold(const uint8_t *in, uint8_t *out, mosaic_shape s, uint64_t totals[3])
{
    totals[0] = totals[1] = totals[2] = 0;
    for (int cy = 0; cy < mosaic_cells_y(s); cy++)
        for (int cx = 0; cx < mosaic_cells_x(s); cx++) {
            uint64_t sums[3];
            cell_mosaic(in, out, s, cx, cy, sums);
            for (int c = 0; c < 3; c++)
                totals[c] += sums[c];
        }
}

void mosaic_openmp(const uint8_t *in, uint8_t *out, mosaic_shape s, uint64_t totals[3])
{
    uint64_t t0 = 0, t1 = 0, t2 = 0; // integer sums: the order of the additions is free
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : t0, t1, t2)
    for (int cy = 0; cy < mosaic_cells_y(s); cy++)
        for (int cx = 0; cx < mosaic_cells_x(s); cx++) {
            uint64_t sums[3];
            cell_mosaic(in, out, s, cx, cy, sums);
            t0 += sums[0];
            t1 += sums[1];
            t2 += sums[2];
        }
    totals[0] = t0;
    totals[1] = t1;
    totals[2] = t2;
}

// Smooth fields plus a few soft-edged shapes plus pixel noise, in [0, 255].
void mosaic_synthetic(uint8_t *rgb, int width, int height, uint64_t seed)
{
    const uint64_t key = cl_rng_key(seed, 7);
    double shapes[8][6]; // centre x, y (0..1), radius, r, g, b
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 6; j++)
            shapes[i][j] = cl_rng_uniform_f64(key, (uint64_t)i * 6 + j);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            const double u = (x + 0.5) / width, v = (y + 0.5) / height;
            double colour[3] = {0.25 + 0.5 * u, 0.2 + 0.3 * sin(6.0 * v + 2.0 * u),
                                0.6 - 0.4 * v * u};
            for (int i = 0; i < 8; i++) {
                const double dx = u - shapes[i][0], dy = v - shapes[i][1];
                const double r = 0.05 + 0.2 * shapes[i][2], d = sqrt(dx * dx + dy * dy);
                const double inside = 1.0 / (1.0 + exp((d - r) * 200.0)); // a soft edge
                for (int c = 0; c < 3; c++)
                    colour[c] += inside * (shapes[i][3 + c] - colour[c]);
            }
            const size_t p = ((size_t)y * width + x) * 3;
            for (int c = 0; c < 3; c++) {
                const double noise =
                    (cl_rng_uniform_f64(key, 1000 + 3 * ((uint64_t)y * width + x) + c) - 0.5) *
                    0.08;
                const double value = 255.0 * (colour[c] + noise);
                rgb[p + c] = (uint8_t)(value < 0.0 ? 0.0 : value > 255.0 ? 255.0 : value + 0.5);
            }
        }
}

// yours: your mosaic filter. `bin/mosaic -k yours` runs it and compares every byte with the
// CPU's, `make check_mosaic K=yours` scores it against the faster of the default version
// and v2 (the write-up's staged sums). Edit only this file.
//
// What is here: a thread a cell sums the cell's pixels (one thread reads c^2 pixels,
// so few threads are busy and the reads do not coalesce), then a thread a pixel writes
// its cell's average; the totals come from the cell sums (mosaic_totals_from_cells).
// Keep the rounding rule of mosaic.h: the check expects the CPU's bytes exactly.
// Things to try (the ladder in README.md):
//  - a block a row of cells with a block reduction: every thread busy, coalesced reads,
//    one pass that writes the cells from the block that summed them (v3);
//  - 16-byte loads and stores, several loads in flight a thread (v3, v4).
#include "check.h"
#include "mosaic.h"

extern "C" const char mosaic_yours_idea[] =
    "your filter (mosaic/yours.cu): a thread a cell sums, a thread a pixel writes";

__global__ void mosaic_yours_sum_cells(const uint8_t *in, unsigned long long *cell_sums,
                                       mosaic_shape s)
{
    const int cells_x = (s.width + s.cell - 1) / s.cell, cells_y = (s.height + s.cell - 1) / s.cell;
    const int cell = blockIdx.x * blockDim.x + threadIdx.x;
    if (cell >= cells_x * cells_y)
        return;
    const int x0 = cell % cells_x * s.cell, y0 = cell / cells_x * s.cell;
    unsigned long long sum[3] = {0, 0, 0};
    for (int y = y0; y < min(y0 + s.cell, s.height); y++)
        for (int x = x0; x < min(x0 + s.cell, s.width); x++)
            for (int c = 0; c < 3; c++)
                sum[c] += in[3 * ((size_t)y * s.width + x) + c];
    for (int c = 0; c < 3; c++)
        cell_sums[3 * cell + c] = sum[c];
}

__global__ void mosaic_yours_write(const unsigned long long *cell_sums, uint8_t *out,
                                   mosaic_shape s)
{
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= (size_t)s.width * s.height)
        return;
    const int x = (int)(p % s.width), y = (int)(p / s.width),
              cells_x = (s.width + s.cell - 1) / s.cell;
    const int cx = x / s.cell, cy = y / s.cell;
    const unsigned long long w = min(s.cell, s.width - cx * s.cell),
                             h = min(s.cell, s.height - cy * s.cell);
    const unsigned long long *sum = cell_sums + 3 * ((size_t)cy * cells_x + cx);
    for (int c = 0; c < 3; c++)
        out[3 * p + c] = (uint8_t)((sum[c] + w * h / 2) / (w * h));
}

extern "C" void mosaic_yours(const uint8_t *in, uint8_t *out, unsigned long long *totals,
                             mosaic_shape s, mosaic_workspace *ws, cudaStream_t stream)
{
    unsigned long long *cell_sums = mosaic_workspace_cell_sums(ws);
    const size_t cells = (size_t)mosaic_cells_x(s) * mosaic_cells_y(s),
                 pixels = (size_t)s.width * s.height;
    mosaic_yours_sum_cells<<<(unsigned)((cells + 127) / 128), 128, 0, stream>>>(in, cell_sums, s);
    CL_LAUNCH_CHECK();
    mosaic_yours_write<<<(unsigned)((pixels + 255) / 256), 256, 0, stream>>>(cell_sums, out, s);
    CL_LAUNCH_CHECK();
    mosaic_totals_from_cells(cell_sums, cells, totals, stream);
}

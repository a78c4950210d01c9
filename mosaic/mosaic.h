// mosaic: the photo-mosaic filter (every c x c cell of an RGB image becomes the cell's
// average colour) and the image's average colour. The C interface between main.c, the
// CPU versions (gold.c) and mosaic.cu.
#ifndef MOSAIC_H
#define MOSAIC_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

// A width x height image of 8-bit RGB, rows top to bottom, 3 bytes a pixel, cut into
// cells of cell x cell pixels from the top-left corner; the cells of the last column
// and row may be partial and average only their own pixels.
typedef struct {
    int width, height, cell;
} mosaic_shape;

static inline int mosaic_cells_x(mosaic_shape s) { return (s.width + s.cell - 1) / s.cell; }
static inline int mosaic_cells_y(mosaic_shape s) { return (s.height + s.cell - 1) / s.cell; }

// The rounding rule, everywhere (CPU and GPU): the average of `count` values summing to
// `sum` is floor((sum + count / 2) / count), nearest with halves rounded up, computed
// on 64-bit integers so no cell or image overflows.
static inline uint8_t mosaic_average(uint64_t sum, uint64_t count)
{
    return (uint8_t)((sum + count / 2) / count);
}

// The serial CPU gold: writes the mosaic to out and the image's per-channel sums to
// totals (the average colour is mosaic_average(totals[c], width * height)).
void mosaic_gold(const uint8_t *in, uint8_t *out, mosaic_shape s, uint64_t totals[3]);

// The same with OpenMP: threads take rows of cells; the totals add the cells' sums.
void mosaic_openmp(const uint8_t *in, uint8_t *out, mosaic_shape s, uint64_t totals[3]);

// --- the GPU versions (mosaic.cu) ---------------------------------------------------------

// Device scratch for one shape: per-cell channel sums and version 2's level buffers.
typedef struct mosaic_workspace mosaic_workspace;
mosaic_workspace *mosaic_workspace_create(mosaic_shape s);
void mosaic_workspace_destroy(mosaic_workspace *ws);
size_t mosaic_workspace_bytes(mosaic_shape s);
// Per-cell sums, 3 uint64 a cell (row-major cells), that yours.cu may use.
unsigned long long *mosaic_workspace_cell_sums(mosaic_workspace *ws);

// Enqueues the filter: in and out are device images (width * height * 3 bytes);
// totals (device, 3 uint64) receives the image's per-channel sums.
typedef void (*mosaic_launcher)(const uint8_t *in, uint8_t *out, unsigned long long *totals,
                                mosaic_shape s, mosaic_workspace *ws, cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    mosaic_launcher launch;
} mosaic_version;

extern const mosaic_version mosaic_versions[];
extern const int mosaic_version_count;
extern const char mosaic_fastest_version[]; // the default version's name

// yours.cu: the learner's version, listed last as "yours"; its idea for --help.
extern const char mosaic_yours_idea[];
void mosaic_yours(const uint8_t *in, uint8_t *out, unsigned long long *totals, mosaic_shape s,
                  mosaic_workspace *ws, cudaStream_t stream);

// Enqueues totals = the sum of the per-cell sums (a block reduction a channel); the
// versions that build cell sums share it.
void mosaic_totals_from_cells(const unsigned long long *cell_sums, size_t cells,
                              unsigned long long *totals, cudaStream_t stream);

// A deterministic photo-like test image (smooth gradients, discs and rectangles with
// soft edges, fine noise), so that partial cells and rounding show: pixel (x, y) depends
// only on x, y and the seed.
void mosaic_synthetic(uint8_t *rgb, int width, int height, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif

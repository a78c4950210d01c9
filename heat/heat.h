// heat: 2D heat transfer (CUDA by Example, chapter 7). The C interface between
// main.c and heat.cu.
#ifndef HEAT_H
#define HEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

// The book's constants: temperatures lie in [MIN, MAX]; SPEED is k in
// T_new = T + k (T_top + T_bottom + T_left + T_right - 4 T).
#define HEAT_MAX_TEMP 1.0f
#define HEAT_MIN_TEMP 0.0001f
#define HEAT_SPEED 0.25f
#define HEAT_STEPS_PER_FRAME 90

// The book's picture is drawn on a 1024 x 1024 grid; on DIM x DIM every coordinate c
// of it becomes c * DIM / 1024 (rounded down), so every DIM shows the same picture.
// Below HEAT_DIM_MIN (83 and under) some scaled rectangles overlap.
#define HEAT_LAYOUT_DIM 1024
#define HEAT_DIM_MIN 100
#define HEAT_MAX_SOURCES 6

// A rectangle of cells [x0, x1) x [y0, y1) (x right, y down) held at `temp`.
typedef struct {
    int x0, x1, y0, y1;
    float temp;
} heat_rect;

// The constant heat sources: restored before every step. An empty layout (count 0)
// turns the sources off (--verify fft).
typedef struct {
    heat_rect rect[HEAT_MAX_SOURCES];
    int count;
} heat_layout;

// One problem: a DIM x DIM field stored row by row, `pitch` floats a row on the
// device (cudaMallocPitch's; >= dim), dim floats a row on the host.
typedef struct {
    int dim;
    size_t pitch;
    float k;
    heat_layout sources;
} heat_grid;

// The device state the launchers step: field[current] holds the temperature, the
// other buffer is the next step's output (ping-pong). `source_map` holds each cell's
// source temperature, 0 where there is none (the book's constant array); `tex`
// are texture objects over field[0], field[1] and source_map (version 2's).
typedef struct {
    float *field[2];
    float *source_map;
    cudaTextureObject_t tex[3];
    int current;
} heat_state;

// Advances the field `steps` steps (restore the sources, then blend, each step); on
// return field[current] holds the result.
typedef void (*heat_launcher)(heat_state *s, const heat_grid *g, int steps, cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    heat_launcher launch;
} heat_version;

extern const heat_version heat_versions[];
extern const int heat_version_count;
extern const char heat_fastest_version[]; // the default version's name

// yours.cu: the learner's version, listed last as "yours"; its idea for --help.
extern const char heat_yours_idea[];
void heat_yours(heat_state *s, const heat_grid *g, int steps, cudaStream_t stream);

// heat.cu: texture objects over the state's buffers (once, at setup) and their release.
void heat_create_textures(heat_state *s, const heat_grid *g);
void heat_destroy_textures(heat_state *s);

// spectral.cu (--verify fft): the exact result of `steps` steps of the scheme with the
// sources off, from `start` (dim x dim floats): on the mirrored 2 dim x 2 dim grid
// each Fourier mode (p, q) is multiplied by g^steps, g = 1 - 4k (sin^2(pi p / 2dim) +
// sin^2(pi q / 2dim)), with cuFFT in double precision. `result`: dim x dim doubles.
void heat_spectral_steps(const float *start, double *result, int dim, double k, long steps);

// gold.c.
// The book's sources on a DIM x DIM grid (see HEAT_LAYOUT_DIM).
heat_layout heat_book_sources(int dim);
// The source temperature at cell (x, y), 0 where there is none.
float heat_source_at(const heat_layout *l, int x, int y);
// The start field: the sources, plus MAX_TEMP on the bottom-left block (x < 200,
// y >= 800 in the book's coordinates; not a source), 0 elsewhere.
void heat_start_field(float *field, int dim);
// `steps` steps on the CPU (OpenMP over rows): field holds the start and, on return,
// the result; scratch is a second dim x dim buffer.
void heat_gold_steps(float *field, float *scratch, const heat_grid *g, long steps);

#ifdef __cplusplus
}
#endif

// One cell's step, the arithmetic every version and the gold share, in this order:
// c + k * (((top + bottom) + left) + right - 4 c). The compiler fuses the multiplies
// into the adds (an FMA rounds once where the CPU rounds twice), but k = 1/4 is a
// power of two: 4 c and k (...) are exact, so both forms round alike, unless k (...)
// is below float's normal range (~1e-38), where the FMA keeps bits the CPU's product
// loses: results equal the CPU's to ~1e-40.
#ifdef __CUDACC__
__device__ __forceinline__ float heat_blend(float c, float top, float bottom, float left,
                                            float right, float k)
{
    return c + k * (((top + bottom) + left) + right - 4.0f * c);
}

// The restore step for a cell read: its source temperature if it has one.
__device__ __forceinline__ float heat_restore(float value, float source)
{
    return source != 0.0f ? source : value;
}
#endif

#endif

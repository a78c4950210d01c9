// stencil1d: out[i] = the sum of the 2R + 1 inputs around i. The C interface between
// main.c and stencil1d.cu.
//
// The input carries R extra values at each end (the CUDA-basics notes' layout): `in`
// holds n + 2R values and out[i] = in[i] + in[i + 1] + ... + in[i + 2R], i in [0, n),
// which is the notes' in[i - R .. i + R] with `in` pointing R values before the first
// centre.
#ifndef STENCIL1D_H
#define STENCIL1D_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    STENCIL_RADIUS_MAX = 64,
    // v3: the outputs a thread sums with one sliding sum (odd, so a warp's 32 threads,
    // STENCIL_SLIDE apart in shared memory, read 32 different banks).
    STENCIL_SLIDE = 15,
    // v4: the inputs one warp-wide prefix covers (32 lanes x 4 values); a window's sum is
    // the difference of two prefixes over at most two of these.
    STENCIL_SEGMENT = 128,
};

typedef enum { STENCIL_INT, STENCIL_FLOAT } stencil_type;

typedef struct {
    const void *in; // n + 2 radius values of `type` (int32 or float), device
    void *out;      // n values, device
    size_t n;
    int radius; // 1 .. STENCIL_RADIUS_MAX
    stencil_type type;
    int block; // threads a block for the versions that take it (v1, v2)
} stencil_args;

// Enqueues out = stencil(in) on `stream`.
typedef void (*stencil_launcher)(const stencil_args *a, cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    stencil_launcher launch;
} stencil_version;

extern const stencil_version stencil_versions[];
extern const int stencil_version_count;
extern const char stencil_fastest_version[];

// yours.cu: the learner's version, listed last as "yours".
extern const char stencil_yours_idea[];
void stencil_yours(const stencil_args *a, cudaStream_t stream);

// gold.c: the same sums on the CPU, ints exactly (two's-complement wraparound, as the GPU
// adds), floats in double.
void stencil_gold_int(const int32_t *in, size_t n, int radius, int32_t *out);
void stencil_gold_float(const float *in, size_t n, int radius, double *out);
// The error a float result may carry: every version forms each output from partial sums
// that span at most `span` inputs and pass through at most `roundings` float additions
// (see gold.c); each rounding costs at most 2^-24 of its partial sum, so
// |error| <= roundings x span x max|in| x 2^-24.
double stencil_float_tolerance(int radius, double max_abs_input);

#ifdef __cplusplus
}
#endif

#endif

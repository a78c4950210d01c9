// renderer: draws N coloured circles into an RGBA float image, strictly in index order
// (circle i + 1 over circle i where they overlap), as in CMU 15-418's assignment 2.
// The C interface between main.c, the scenes and the CPU reference (scenes.c, gold.c)
// and the GPU renderers (renderer.cu), and the per-pixel rules all of them share.
#ifndef RENDERER_H
#define RENDERER_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { SHADE_FLAT, SHADE_SNOW } render_shading;

// A scene: circles in index order (index order = drawing order, far to near), all
// coordinates in [0, 1]^2 with y down the image, z in [0, 1] (larger = farther).
// Animated scenes keep their frame-0 state in x0, y0, r0 and compute frame f from it.
typedef struct {
    const char *name;
    int n;
    render_shading shading;
    int animated;
    float *x, *y, *z, *r, *rgb;    // the current frame; rgb holds 3 a circle
    float *x0, *y0, *r0, *vx, *vy; // animation state (NULL for still scenes)
    uint64_t seed;
} render_scene;

extern const char *const render_scene_names[]; // NULL-terminated
// Builds scene `name` at frame 0 (NULL for an unknown name).
render_scene *render_scene_create(const char *name, uint64_t seed);
void render_scene_destroy(render_scene *s);
// Moves an animated scene to frame f (a function of f and frame 0 alone); still
// scenes stay as they are.
void render_scene_at(render_scene *s, int frame);

// --- the rules every renderer keeps (C and CUDA) --------------------------------------------

#ifdef __CUDACC__
#define RENDER_FN __host__ __device__ static inline
#else
#define RENDER_FN static inline
#endif
// The coverage test rounds every product and sum on its own (no fused multiply-add on
// the GPU), so every renderer decides each pixel's coverage with the same bits.
#ifdef __CUDA_ARCH__
#define RENDER_MUL(a, b) __fmul_rn(a, b)
#define RENDER_ADD(a, b) __fadd_rn(a, b)
#define RENDER_SUB(a, b) __fsub_rn(a, b)
#else
#define RENDER_MUL(a, b) ((a) * (b))
#define RENDER_ADD(a, b) ((a) + (b))
#define RENDER_SUB(a, b) ((a) - (b))
#endif

// A circle's pixel box [x0, x1) x [y0, y1): [int((x - r) W), int((x + r) W) + 1),
// clamped to the image (empty when x0 >= x1 or y0 >= y1).
typedef struct {
    int x0, y0, x1, y1;
} render_box;

RENDER_FN int render_clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

RENDER_FN render_box render_circle_box(float x, float y, float r, int width, int height)
{
    const float fw = (float)width, fh = (float)height;
    render_box b;
    // Clamp in float first: the int conversion of a value out of int's range is undefined.
    b.x0 = render_clamp((int)fmaxf(RENDER_MUL(RENDER_SUB(x, r), fw), -1.0f), 0, width);
    b.x1 = render_clamp((int)fminf(RENDER_MUL(RENDER_ADD(x, r), fw), fw) + 1, 0, width);
    b.y0 = render_clamp((int)fmaxf(RENDER_MUL(RENDER_SUB(y, r), fh), -1.0f), 0, height);
    b.y1 = render_clamp((int)fminf(RENDER_MUL(RENDER_ADD(y, r), fh), fh) + 1, 0, height);
    return b;
}

// The squared distance from pixel (px, py)'s centre ((px + 0.5) / W, (py + 0.5) / H) to
// the circle's centre; the pixel is covered when it lies in the box and this is <= r^2.
RENDER_FN float render_distance2(float x, float y, int px, int py, int width, int height)
{
    const float dx = RENDER_SUB(((float)px + 0.5f) / (float)width, x);
    const float dy = RENDER_SUB(((float)py + 0.5f) / (float)height, y);
    return RENDER_ADD(RENDER_MUL(dx, dx), RENDER_MUL(dy, dy));
}

RENDER_FN int render_covered(float d2, float r) { return d2 <= RENDER_MUL(r, r); }

RENDER_FN int render_in_box(render_box b, int px, int py)
{
    return px >= b.x0 && px < b.x1 && py >= b.y0 && py < b.y1;
}

// The background a frame starts from: white, or for snow a grey per row
// 0.4 + 0.45 (H - y) / H; alpha 1.
RENDER_FN float render_background(render_shading shading, int py, int height)
{
    return shading == SHADE_SNOW ? 0.4f + 0.45f * (float)(height - py) / (float)height : 1.0f;
}

// What circle (colour rgb, depth z, radius r) adds at squared distance d2 (covered):
// its colour in out[0..2] and its alpha (returned). Flat: alpha 0.5, the circle's
// colour. Snow: d = dist / r, the colour from a 5-entry ramp interpolated linearly in
// d, alpha = 0.5 clamp(0.6 + 0.4 (1 - z), 0, 1) exp(-4 d^2).
RENDER_FN float render_shade(render_shading shading, const float *rgb, float z, float r, float d2,
                             float out[3])
{
    if (shading == SHADE_FLAT) {
        out[0] = rgb[0];
        out[1] = rgb[1];
        out[2] = rgb[2];
        return 0.5f;
    }
    // The ramp {1,1,1}, {1,1,1}, {.8,.9,1}, {.8,.9,1}, {.8,.8,1} at d = 0, .25, .5, .75, 1,
    // written out by segment (no array: on the GPU an indexed array lives in local memory).
    const float d = fminf(sqrtf(d2) / r, 1.0f), t = d * 4.0f;
    const int i = t >= 3.0f ? 3 : (int)t;
    const float f = t - (float)i;
    out[0] = i == 0 ? 1.0f : i == 1 ? 1.0f - 0.2f * f : 0.8f;
    out[1] = i == 0 ? 1.0f : i == 1 ? 1.0f - 0.1f * f : i == 2 ? 0.9f : 0.9f - 0.1f * f;
    out[2] = 1.0f;
    const float depth = fminf(fmaxf(0.6f + 0.4f * (1.0f - z), 0.0f), 1.0f);
    return 0.5f * depth * expf(-4.0f * d * d);
}

// One layer over a pixel, back to front: each channel alpha c + (1 - alpha) old; the
// stored alpha adds alpha.
RENDER_FN void render_blend(float pixel[4], const float colour[3], float alpha)
{
    for (int c = 0; c < 3; c++)
        pixel[c] = alpha * colour[c] + (1.0f - alpha) * pixel[c];
    pixel[3] += alpha;
}

// --- the CPU reference (gold.c) --------------------------------------------------------------

// Clears image (width x height RGBA floats, rows top to bottom) to the background.
void render_clear_cpu(float *image, int width, int height, render_shading shading);
// Draws every circle of s over image in index order (OpenMP over bands of rows; each
// band draws the circles in order, so every pixel sees them in order).
void render_cpu(const render_scene *s, float *image, int width, int height);

// The CMU 15-418 renderer checker's score, 12 points a scene: 2 for a correct image,
// plus 10 if your_ms <= 1.2 ref_ms, else ceil(10 ref_ms / your_ms), none past 10
// ref_ms; 0 in all for a wrong image.
double render_score(double ref_ms, double your_ms, bool correct);

// --- the GPU renderers (renderer.cu) ---------------------------------------------------------

// The circles on the device and the scratch the renderers need (tile lists, sort
// buffers); one a scene size. Created for at most n_max circles.
typedef struct render_device render_device;
render_device *render_device_create(int n_max, int width, int height);
void render_device_destroy(render_device *d);
// Copies the scene's current circles to the device (the "advance" step of a GPU
// frame); a still scene's only once.
void render_device_upload(render_device *d, const render_scene *s);
// The image on the device (width x height float4, RGBA).
float *render_device_image(render_device *d);
// Clears the device image to the scene's background.
void render_device_clear(render_device *d, render_shading shading);

// What a renderer reads: the device circles of the frame.
typedef struct {
    int n;
    render_shading shading;
    const float *x, *y, *z, *r, *rgb;
} render_circles;
render_circles render_device_circles(render_device *d, int n, render_shading shading);

// Enqueues on `stream` the drawing of the circles over the device image (width x height
// float4), in index order. (The binned renderers wait for `stream` once a frame: the
// host sizes the tile lists from the count of (tile, circle) pairs.)
typedef void (*render_launcher)(render_circles c, float4 *image, int width, int height,
                                render_device *d, cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    render_launcher launch;
} render_version;

extern const render_version render_versions[];
extern const int render_version_count;
extern const char render_fastest_version[]; // the default version's name
// The peer: a sort-based tile rasterizer on CUB (scan, radix sort of (tile, index)).
void render_peer(render_circles c, float4 *image, int width, int height, render_device *d,
                 cudaStream_t stream);

// yours.cu: the learner's version, listed last as "yours"; its idea for --help.
extern const char render_yours_idea[];
void render_yours(render_circles c, float4 *image, int width, int height, render_device *d,
                  cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif

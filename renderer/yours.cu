// yours: your circle renderer. `bin/renderer -k yours -c rand10k` compares a frame
// with the CPU reference, `make check_renderer K=yours` scores it against the peer
// (CUB's sort-based tile rasterizer). Edit only this file.
//
// What is here: a thread a pixel loops over every circle in index order and blends
// the ones that cover it (the rules are in renderer.h: render_circle_box,
// render_distance2, render_covered, render_shade, render_blend). Correct, but every
// pixel reads every circle: O(pixels x circles).
// Things to try (the ladder in README.md):
//  - tiles: a block a 16 x 16 tile keeps only the circles whose box meets the tile,
//    loaded in batches into shared memory and compacted in order with a block scan (v2);
//  - bin circles to tiles once (count, scan, sort by tile) and walk each tile's list (v3);
//  - composite front to back and stop when every pixel of a tile is opaque (v3).
#include "check.h"
#include "renderer.h"

extern "C" const char render_yours_idea[] =
    "your renderer (renderer/yours.cu): a thread a pixel loops over every circle";

__global__ void render_yours_pixels(render_circles c, float4 *image, int width, int height)
{
    const int px = blockIdx.x * blockDim.x + threadIdx.x,
              py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height)
        return;
    float4 *pixel = &image[(size_t)py * width + px];
    float p[4] = {pixel->x, pixel->y, pixel->z, pixel->w};
    for (int i = 0; i < c.n; i++) {
        const render_box box = render_circle_box(c.x[i], c.y[i], c.r[i], width, height);
        if (!render_in_box(box, px, py))
            continue;
        const float d2 = render_distance2(c.x[i], c.y[i], px, py, width, height);
        if (!render_covered(d2, c.r[i]))
            continue;
        float colour[3];
        const float alpha = render_shade(c.shading, &c.rgb[3 * i], c.z[i], c.r[i], d2, colour);
        render_blend(p, colour, alpha);
    }
    *pixel = make_float4(p[0], p[1], p[2], p[3]);
}

extern "C" void render_yours(render_circles c, float4 *image, int width, int height,
                             render_device *d, cudaStream_t stream)
{
    (void)d;
    const dim3 block(16, 16), grid((width + 15) / 16, (height + 15) / 16);
    render_yours_pixels<<<grid, block, 0, stream>>>(c, image, width, height);
    CL_LAUNCH_CHECK();
}

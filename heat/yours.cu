// yours: your heat step. `bin/heat -k yours` runs it and compares every cell with the
// CPU's, `make check_heat K=yours` scores it against the faster of the default version and
// v1 (the book's program). Edit only this file.
//
// What is here: one kernel a step, a thread a cell over 16x16 blocks; each of the five
// cells it reads is restored (a source reads as its temperature, from the source
// map) and blended with heat_blend (heat.h), whose arithmetic the check expects.
// Buffers are pitched: cell (x, y) is at y * g->pitch + x.
// Things to try (the ladder in README.md):
//  - a shared-memory tile with a one-cell halo (v3): each cell and its source read
//    once, not five times;
//  - several steps a launch (v4): at 1024^2 the launches, not the bytes, set the time.
#include "check.h"
#include "heat.h"

extern "C" const char heat_yours_idea[] = "your kernel (heat/yours.cu): one kernel a step, "
                                          "a thread a cell, sources restored as read";

__global__ void heat_yours_kernel(const float *in, float *out, const float *source_map, heat_grid g)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= g.dim || y >= g.dim)
        return;
    // An edge cell is its own missing neighbour.
    auto at = [&](int cx, int cy) {
        const size_t i = (size_t)min(max(cy, 0), g.dim - 1) * g.pitch + min(max(cx, 0), g.dim - 1);
        return heat_restore(in[i], source_map[i]);
    };
    out[(size_t)y * g.pitch + x] =
        heat_blend(at(x, y), at(x, y - 1), at(x, y + 1), at(x - 1, y), at(x + 1, y), g.k);
}

extern "C" void heat_yours(heat_state *s, const heat_grid *g, int steps, cudaStream_t stream)
{
    const dim3 threads(16, 16);
    const dim3 blocks((g->dim + 15) / 16, (g->dim + 15) / 16);
    for (int step = 0; step < steps; step++) {
        float *in = s->field[s->current], *out = s->field[s->current ^ 1];
        heat_yours_kernel<<<blocks, threads, 0, stream>>>(in, out, s->source_map, *g);
        CL_LAUNCH_CHECK();
        s->current ^= 1;
    }
}

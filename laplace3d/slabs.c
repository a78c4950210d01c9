// The arithmetic of laplace3d's cut into slabs (multi_gpu.h): which planes a slab owns,
// who holds a plane, which boxes the light-cone check looks at.
#include "multi_gpu.h"
#include "rng.h"

laplace_slab laplace_slab_of(int nz, int nslabs, int s)
{
    const int interior = nz > 2 ? nz - 2 : 0, base = interior / nslabs, extra = interior % nslabs;
    laplace_slab slab = {
        .first = 1 + s * base + (s < extra ? s : extra),
        .planes = base + (s < extra),
        .below = s > 0 ? s - 1 : -1,
        .above = s < nslabs - 1 ? s + 1 : -1,
    };
    return slab;
}

int laplace_slab_holding(int nz, int nslabs, int k)
{
    if (k <= 0)
        return 0;
    if (k >= nz - 1)
        return nslabs - 1;
    for (int s = 0; s < nslabs; s++) {
        const laplace_slab slab = laplace_slab_of(nz, nslabs, s);
        if (k < slab.first + slab.planes)
            return s;
    }
    return nslabs - 1;
}

enum { BOX_SIDE = 32 };

static int clamp_origin(int at, int side, int n)
{
    if (at > n - side)
        at = n - side;
    return at < 0 ? 0 : at;
}

// A box with its lowest corner near (x, y, z), moved inside the grid.
static grid_box box_at(grid_shape g, int x, int y, int z)
{
    grid_box b = {0,
                  0,
                  0,
                  g.nx < BOX_SIDE ? g.nx : BOX_SIDE,
                  g.ny < BOX_SIDE ? g.ny : BOX_SIDE,
                  g.nz < BOX_SIDE ? g.nz : BOX_SIDE};
    b.x = clamp_origin(x, b.nx, g.nx);
    b.y = clamp_origin(y, b.ny, g.ny);
    b.z = clamp_origin(z, b.nz, g.nz);
    return b;
}

int laplace_check_boxes(grid_shape g, int nslabs, uint64_t seed, grid_box *boxes)
{
    const int h = BOX_SIDE / 2;
    const uint64_t key = cl_rng_key(seed, 7);
    int n = 0;
    boxes[n++] = box_at(g, g.nx / 2 - h, g.ny / 2 - h, g.nz / 2 - h); // inside
    boxes[n++] = box_at(g, 0, 0, 0);                                  // a corner: 3 faces
    boxes[n++] = box_at(g, g.nx, g.ny, g.nz);                         // the opposite one
    boxes[n++] = box_at(g, 0, g.ny / 2 - h, g.nz / 3);                // the x = 0 face
    boxes[n++] = box_at(g, g.nx / 3, g.ny, 2 * g.nz / 3);             // the y = NY-1 face
    for (int s = 1; s < nslabs; s++) // across each slab boundary, x and y drawn
        boxes[n++] = box_at(g, (int)cl_rng_below(key, 2 * s, (uint32_t)g.nx),
                            (int)cl_rng_below(key, 2 * s + 1, (uint32_t)g.ny),
                            laplace_slab_of(g.nz, nslabs, s).first - h);
    for (int r = 0; r < 2; r++)
        boxes[n++] = box_at(g, (int)cl_rng_below(key, 1000 + 3 * r, (uint32_t)g.nx),
                            (int)cl_rng_below(key, 1001 + 3 * r, (uint32_t)g.ny),
                            (int)cl_rng_below(key, 1002 + 3 * r, (uint32_t)g.nz));
    return n;
}

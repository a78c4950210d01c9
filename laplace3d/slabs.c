// The arithmetic of laplace3d's cut into slabs (multi_gpu.h): which planes a slab owns,
// who holds a plane, which boxes the light-cone check looks at, where a launcher put
// this process.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

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

// The variable as a number in [lo, 2^20]; -1 when it is not set.
static int env_int(const char *name, int lo)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return -1;
    char *end;
    const long value = strtol(text, &end, 10);
    if (*end || value < lo || value > 1 << 20)
        cl_die(CL_EXIT_USAGE, "%s=%s: expected a whole number >= %d", name, text, lo);
    return (int)value;
}

laplace_launch laplace_launch_from_env(void)
{
    static const char *const vars[3][3] = {
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"}, // mpirun
        {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},                              // srun
        {"RANK", "WORLD_SIZE", "LOCAL_RANK"},                                           // torchrun
    };
    for (int v = 0; v < 3; v++) {
        const int rank = env_int(vars[v][0], 0);
        if (rank < 0)
            continue;
        laplace_launch l = {rank, env_int(vars[v][1], 1), env_int(vars[v][2], 0), vars[v][0]};
        if (l.world < 0)
            cl_die(CL_EXIT_USAGE, "%s is set but %s is not", vars[v][0], vars[v][1]);
        if (l.rank >= l.world)
            cl_die(CL_EXIT_USAGE, "%s=%d: not below %s=%d", vars[v][0], l.rank, vars[v][1],
                   l.world);
        return l;
    }
    return (laplace_launch){0, 1, -1, NULL};
}

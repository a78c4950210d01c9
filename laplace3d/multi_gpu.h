// laplace3d --gpus N: the grid cut along z into slabs, one a GPU, with halo planes
// exchanged every iteration (multi_gpu.c, on common/team.h's team of GPUs), and the
// arithmetic of the cut (slabs.c, pure C, unit-tested on the CPU).
#ifndef LAPLACE3D_MULTI_GPU_H
#define LAPLACE3D_MULTI_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "laplace3d.h"
#include "team.h"

#ifdef __cplusplus
extern "C" {
#endif

// Slab s of n: the interior planes 1 .. NZ-2 dealt out in order, the first
// (NZ-2) % n slabs one plane more. A slab owns `planes` planes from global plane
// `first` and holds one more a side (its ghost planes: copies of its neighbours' edge
// planes, or for the end slabs the grid's boundary planes 0 and NZ-1, which never
// change): planes + 2 planes, local plane p = global plane first - 1 + p. below/above:
// the neighbour slabs, -1 at the grid's ends.
typedef struct {
    int first, planes, below, above;
} laplace_slab;

laplace_slab laplace_slab_of(int nz, int nslabs, int s);
// The slab whose result holds global plane k: its owner; plane 0 is slab 0's lower ghost
// and plane NZ-1 the last slab's upper ghost (boundary planes, held by no one else).
int laplace_slab_holding(int nz, int nslabs, int k);

// Boxes (at most 32 points a side) whose light cones the check computes: the middle of
// the grid, two opposite corners (edges and faces of the grid), two faces, one across
// every slab boundary (z centred on it), and two drawn from `seed`. Returns the count
// (at most LAPLACE_MAX_CHECK_BOXES).
enum { LAPLACE_MAX_CHECK_BOXES = 7 + CL_TEAM_MAX_GPUS - 1 };
int laplace_check_boxes(grid_shape g, int nslabs, uint64_t seed, grid_box *boxes);

// The exchanges of the ladder (--exchange).
enum { EXCHANGE_HOST, EXCHANGE_PEER, EXCHANGE_NCCL, EXCHANGE_COUNT, EXCHANGE_ALL = EXCHANGE_COUNT };
extern const char *const laplace_exchange_names[]; // "m1-host", ..., "all", NULL

typedef struct {
    grid_shape g;
    int gpus, repeat, exchange, reps;
    int watchdog_s; // a GPU or rank silent this long ends the run (exit 3)
    bool random;
    uint64_t seed;
    const char *id_file; // --nccl-id-file: how the processes of a one-process-a-GPU run meet
} laplace_gpus_options;

// Runs the multi-GPU ladder and prints its table (rank 0); returns the exit code.
int laplace_run_gpus(const laplace_gpus_options *opt, cl_launch launch);

#ifdef __cplusplus
}
#endif

#endif

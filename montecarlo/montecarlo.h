// montecarlo: the Oxford practical-2 option pricer (two correlated assets, a digital
// payoff) and the quadratic-mean exercise. The C interface between main.c and
// montecarlo.cu.
#ifndef MONTECARLO_H
#define MONTECARLO_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

// The host API generators versions 1 and 2 (and --quadratic) draw from.
enum { MC_GEN_DEFAULT, MC_GEN_PHILOX, MC_GEN_MRG32K3A };

// The model: per path s1 = s2 = 1, then for each of nsteps steps, with z1, z2
// independent standard normals, y1 = z1, y2 = rho y1 + alpha z2,
// s1 *= con1 + con2 y1, s2 *= con1 + con2 y2; the payoff is exp(-r T) when
// |s1 - 1| < 0.1 and |s2 - 1| < 0.1, else 0.
typedef struct {
    size_t npath;
    int nsteps;
    float T, r, sigma, rho, alpha, dt, con1, con2;
    uint64_t seed;
    int generator; // MC_GEN_*
} mc_model;

// The practical's constants: T = 1, r = 0.05, sigma = 0.1, rho = 0.5,
// alpha = sqrt(1 - rho^2), dt = T / nsteps, con1 = 1 + r dt, con2 = sqrt(dt) sigma.
mc_model mc_model_practical(size_t npath, int nsteps, uint64_t seed, int generator);

// The practical's figure: cuRAND's default generator, seed 1234, 9.6M paths, 100
// steps, normals made up front and read coalesced.
#define MC_PRACTICAL_MEAN 0.41793859
#define MC_PRACTICAL_SE 0.00015237

// Mean and standard error from the sum and the sum of squares of n payoffs (the
// practical's formula: se = sqrt((sum_sq / n - mean^2) / n)).
typedef struct {
    double mean, se;
} mc_estimate;
mc_estimate mc_estimate_from_sums(double sum, double sum_sq, size_t n);

// Whether two independent estimates agree: |a - b| <= 3 sqrt(se_a^2 + se_b^2).
// Returns the distance in those combined standard errors.
double mc_distance(mc_estimate a, mc_estimate b);

// Device scratch for every version: the normals of one chunk of paths (host API
// versions), the payoffs, the device API states, the fused kernel's partial sums,
// and the host API generator. Chunks: the normals of all paths when they fit in
// about half the free device memory, else as many chunks as needed; at least
// min_chunks (for tests).
typedef struct mc_workspace mc_workspace;
mc_workspace *mc_workspace_create(const mc_model *m, int min_chunks);
void mc_workspace_destroy(mc_workspace *ws);
// Device bytes mc_workspace_create needs before the normals (for the memory guard).
size_t mc_workspace_fixed_bytes(const mc_model *m);
// Re-seeds the host API generator, so the next call of version 1 or 2 draws the
// sequence from its start (the practical's normals).
void mc_workspace_reseed(mc_workspace *ws);
int mc_workspace_chunks(const mc_workspace *ws);
size_t mc_workspace_chunk_paths(const mc_workspace *ws);
// Threads a block each version runs with (from the occupancy API); "" for yours.
void mc_workspace_describe_blocks(const mc_workspace *ws, char *text, size_t len);

// Enqueues the whole pricing of m's paths: sums[0] = the sum of the payoffs,
// sums[1] = the sum of their squares (device doubles, written, not accumulated).
typedef void (*mc_launcher)(const mc_model *m, mc_workspace *ws, double *sums, cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    mc_launcher launch;
} mc_version;

extern const mc_version mc_versions[];
extern const int mc_version_count;
extern const char mc_fastest_version[]; // the default version's name

// yours.cu: the learner's version, listed last as "yours"; its idea for --help.
extern const char mc_yours_idea[];
void mc_yours(const mc_model *m, mc_workspace *ws, double *sums, cudaStream_t stream);

// curandGenerateNormal with Philox alone, m's 2 nsteps npath normals in the
// workspace's chunks: the rate the fused version is measured against.
void mc_philox_generate_only(const mc_model *m, mc_workspace *ws);

// The path kernel of version 1 (coalesced) or 2 (strided) alone, over the normals
// already in the workspace (those of its first chunk): the cost of the access pattern
// without the generator's: min(npath, the chunk's paths).
void mc_path_kernel_only(const mc_model *m, mc_workspace *ws, int coalesced);

// --- --quadratic: the mean of a z^2 + b z + c over n standard normals ------------

// Fills z[0..n) with standard normals from the host API generator (seeded).
void quadratic_normals(float *z, size_t n, uint64_t seed, int generator);

// Scratch of the three GPU methods for n up to n_max.
typedef struct quadratic_workspace quadratic_workspace;
quadratic_workspace *quadratic_workspace_create(size_t n_max);
void quadratic_workspace_destroy(quadratic_workspace *ws);

// sums[0] = sum of f(z), sums[1] = sum of f(z)^2, f = a z^2 + b z + c in double, by:
//  partials: each block's sums to a device array, copied back and added on the host;
//  atomic:   each block adds its sums to one pair of doubles with atomicAdd;
//  thrust:   thrust::transform_reduce.
// z is device memory; sums host memory (each call synchronizes).
typedef void (*quadratic_method)(const float *z, size_t n, float a, float b, float c,
                                 quadratic_workspace *ws, double *sums);
void quadratic_partials(const float *z, size_t n, float a, float b, float c,
                        quadratic_workspace *ws, double *sums);
void quadratic_atomic(const float *z, size_t n, float a, float b, float c, quadratic_workspace *ws,
                      double *sums);
void quadratic_thrust(const float *z, size_t n, float a, float b, float c, quadratic_workspace *ws,
                      double *sums);

// --- gold.c ---------------------------------------------------------------------------

// The pricer on the CPU in double, with normals from the suite's generator (Box-Muller
// over cl_rng_uniform_f64; path p draws from its own counter range), OpenMP over
// paths; the sums come out the same for any thread count.
void mc_gold(const mc_model *m, size_t npath, double *sum, double *sum_sq);

// The quadratic on the CPU over host z (OpenMP, order fixed by n).
void quadratic_cpu(const float *z, size_t n, float a, float b, float c, double *sums);

#ifdef __cplusplus
}
#endif

#endif

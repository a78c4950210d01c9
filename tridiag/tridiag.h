// tridiag: batches of tridiagonal systems, backward Euler's A x_new = lambda x_old.
// The C interface between main.c and tridiag.cu.
#ifndef TRIDIAG_H
#define TRIDIAG_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

// M systems of NX rows, each system's rows contiguous (system s, row i at s nx + i):
// a the sub-diagonal (a[0] of each system is 0), b the diagonal, c the
// super-diagonal (c[nx-1] is 0), d the start vector. The job: niter steps of
// x <- A^-1 (lambda x) from x = d, written to x.
typedef struct {
    int nx;
    size_t m;
    int niter;
    float lambda;
} tridiag_shape;

// The longest systems the suite solves (v7 and v8, in segments across blocks).
enum { TRIDIAG_MAX_NX = 1000000 };

typedef struct tridiag_workspace tridiag_workspace;
tridiag_workspace *tridiag_workspace_create(void);
void tridiag_workspace_destroy(tridiag_workspace *ws);

typedef void (*tridiag_launcher)(const float *a, const float *b, const float *c, const float *d,
                                 float *x, tridiag_shape shape, tridiag_workspace *ws,
                                 cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    tridiag_launcher launch;
    int min_nx, max_nx; // the row counts the version solves
} tridiag_version;

extern const tridiag_version tridiag_versions[];
extern const int tridiag_version_count;
extern const char tridiag_fastest_version[]; // the default version's name

// yours.cu: the learner's version, listed last as "yours"; its idea for --help.
extern const char tridiag_yours_idea[];
extern const int tridiag_yours_max_nx; // the largest NX yours solves; -k yours refuses more
void tridiag_yours(const float *a, const float *b, const float *c, const float *d, float *x,
                   tridiag_shape shape, tridiag_workspace *ws, cudaStream_t stream);

// The peers, both from cuSPARSE, both solving in place: x = lambda d, then niter calls
// (lambda x between them), the buffer allocated up front; both need nx >= 3.
//  - cusparseSgtsv2StridedBatch (the check table's Ref): the layout above;
//  - cusparseSgtsvInterleavedBatch, algorithm 0 (cuThomasBatch, Barcelona
//    Supercomputing Center: Thomas, one thread a system): row i of system s at
//    i M + s, so a, b, c, d and x passed to it are in that layout. It overwrites c
//    with c' (measured), so each solve copies c first (4 bytes a row read, 4 written).
typedef enum { TRIDIAG_PEER_STRIDED, TRIDIAG_PEER_INTERLEAVED } tridiag_peer_kind;
typedef struct tridiag_peer tridiag_peer;
tridiag_peer *tridiag_peer_create(tridiag_peer_kind kind, float *a, float *b, float *c, float *x,
                                  tridiag_shape shape);
void tridiag_peer_run(tridiag_peer *peer, float *a, float *b, float *c, const float *d, float *x,
                      tridiag_shape shape);
void tridiag_peer_destroy(tridiag_peer *peer);
enum { TRIDIAG_PEER_MIN_NX = 3 };

// gold.c: the Thomas algorithm in double, OpenMP over systems.
void tridiag_gold(const float *a, const float *b, const float *c, const float *d, double *x,
                  tridiag_shape shape);

#ifdef __cplusplus
}
#endif

#endif

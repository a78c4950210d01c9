// yours: your batched tridiagonal solver. `bin/tridiag -k yours` runs and verifies it,
// `make check_tridiag K=yours` scores it against the faster of the default version and
// cusparseSgtsv2StridedBatch. Edit only this file.
//
// What is here: one thread a system, the Thomas algorithm straight on global
// memory, c' in a per-thread local array. Correct for NX up to 1024, but the 32
// threads of a warp read 32 addresses NX floats apart (uncoalesced), and every
// solve redoes the factorization.
// Things to try (see the ladder in README.md):
//  - load a block's systems into shared memory with coalesced reads, solve there,
//    write back coalesced; factor once for all NITER solves (v5);
//  - for small NX, one warp a system: PCR with __shfl_up_sync/__shfl_down_sync (v4);
//  - for large NX, one block a system: PCR in shared memory (v3), or PCR down to
//    small subsystems and Thomas on each.
#include "check.h"
#include "tridiag.h"

extern "C" const char tridiag_yours_idea[] =
    "your kernel (tridiag/yours.cu): Thomas a thread, on global memory";

// YOURS_MAX_NX bounds the local array c_prime; -k yours refuses a larger --nx. A
// version without the array (c' in shared memory, or not stored) can raise it.
enum { YOURS_MAX_NX = 1024, YOURS_THREADS = 128 };
extern "C" const int tridiag_yours_max_nx = YOURS_MAX_NX;

__global__ void tridiag_yours_kernel(const float *a, const float *b, const float *c, const float *d,
                                     float *x, tridiag_shape shape)
{
    size_t system = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (system >= shape.m)
        return;
    const int n = shape.nx;
    const size_t base = system * n;
    float c_prime[YOURS_MAX_NX];
    for (int i = 0; i < n; i++)
        x[base + i] = d[base + i];
    for (int it = 0; it < shape.niter; it++) {
        float c_prev = 0.0f, d_prev = 0.0f;
        for (int i = 0; i < n; i++) {
            float pivot = b[base + i] - a[base + i] * c_prev;
            c_prime[i] = c_prev = c[base + i] / pivot;
            x[base + i] = d_prev = (shape.lambda * x[base + i] - a[base + i] * d_prev) / pivot;
        }
        for (int i = n - 2; i >= 0; i--)
            x[base + i] -= c_prime[i] * x[base + i + 1];
    }
}

extern "C" void tridiag_yours(const float *a, const float *b, const float *c, const float *d,
                              float *x, tridiag_shape shape, tridiag_workspace *ws,
                              cudaStream_t stream)
{
    (void)ws; // the ladder's; yours needs none
    unsigned blocks = (unsigned)((shape.m + YOURS_THREADS - 1) / YOURS_THREADS);
    tridiag_yours_kernel<<<blocks, YOURS_THREADS, 0, stream>>>(a, b, c, d, x, shape);
    CL_LAUNCH_CHECK();
}

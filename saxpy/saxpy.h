// saxpy: z = a*x + y in float. The C interface between main.c and saxpy.cu.
#ifndef SAXPY_H
#define SAXPY_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "cli.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { SAXPY_THREADS = 512 }; // threads a block (the CMU 15-418 assignment's)

// Enqueues z = a*x + y for n elements on `stream`. Pointers are device (or
// managed) memory; z may not alias x or y.
typedef void (*saxpy_launcher)(size_t n, float a, const float *x, const float *y, float *z,
                               cudaStream_t stream);

typedef struct {
    cl_kernel_info info;
    saxpy_launcher launch;
} saxpy_version;

extern const saxpy_version saxpy_versions[];
extern const int saxpy_version_count;
extern const char saxpy_fastest_version[]; // the default version's name

// yours.cu: the learner's version, listed last as "yours"; its idea for --help.
extern const char saxpy_yours_idea[];
void saxpy_yours(size_t n, float a, const float *x, const float *y, float *z, cudaStream_t stream);

// The peer: cublasSaxpy (y = a*x + y in place) on the default stream.
typedef struct saxpy_peer saxpy_peer;
saxpy_peer *saxpy_peer_create(void);
void saxpy_peer_run(saxpy_peer *peer, size_t n, float a, const float *x, float *y);
void saxpy_peer_destroy(saxpy_peer *peer);

// gold.c: z[i] = a*x[i] + y[i] in double.
void saxpy_gold(size_t n, float a, const float *x, const float *y, double *z);

#ifdef __cplusplus
}
#endif

#endif

// Device selection, the one-line device summary, the memory guard and the
// device copy bandwidth that "% of peak" is measured against.
#ifndef CUDALAB_DEVICE_H
#define CUDALAB_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int index;
    char name[256];
    int sm_count;
    int cc_major, cc_minor;
    size_t total_bytes;
    size_t l2_bytes;
    int max_threads_per_sm;
    size_t shared_optin_bytes;    // the most shared memory a block may ask for
    size_t shared_sm_bytes;       // an SM's shared memory, for its blocks together
    size_t shared_reserved_bytes; // what each block's shared memory takes beside its own
    int concurrent_managed_access;
    double copy_gbps; // cudaMemcpy device-to-device, bytes read + written per second / 1e9
    // The memory's rated bandwidth (memory clock x 2 x bus width), GB/s: a fixed fact
    // of the GPU, for choices that must not move with load as copy_gbps may.
    double dram_rated_gbps;
} cl_device_info;

// Why there is no usable device, in words that say what to do, for the one line a
// binary prints before exit 77: no driver at all (driver_version 0), a driver older
// than the runtime this was built with, a driver and no GPU, CUDA_VISIBLE_DEVICES
// (visible, NULL when unset) hiding every GPU. no_device: cudaGetDeviceCount said
// cudaErrorNoDevice (or found none); error_text: CUDA's words for any other failure.
void cl_no_device_reason(int driver_version, int runtime_version, int no_device,
                         const char *visible, const char *error_text, char *out, size_t len);

// The number of CUDA devices; 0 when there is no usable one, with why in `why`
// (cl_no_device_reason's words). For a binary that runs its CPU parts first.
int cl_device_count_or_reason(char *why, size_t len);

// Selects device `index`. No usable device (no driver, no GPU, CUDA_VISIBLE_DEVICES
// hiding all): one line saying which and what to do, and exit 77. An index out of range: exit 2.
// Measures the copy bandwidth once and prints the summary line (a JSON object with --json).
const cl_device_info *cl_device_open(int index);

// The device opened by cl_device_open (NULL before).
const cl_device_info *cl_device_current(void);

// Exits 3 with "needs X GB of device memory, Y GB free" when `bytes` do not fit in
// the free device memory. bytes_per_n > 0 adds "try -n N" with the largest N that fits.
void cl_require_device_memory(size_t bytes, size_t bytes_per_n);

// Exits 3 with "needs X GB of host memory, Y GB in this machine" when `bytes`
// exceed the machine's physical memory (checked before allocating, so a huge -n
// fails cleanly instead of being killed mid-fill).
void cl_require_host_memory(size_t bytes, size_t bytes_per_n);

// How many copies of a working set of `bytes` to rotate through so that repeated
// timed runs read from DRAM, not from L2: enough for 3x the L2 size, at most 4096.
int cl_rotation_count(size_t bytes);

// `copies` device copies of one array, each starting on a 256-byte boundary.
typedef struct {
    char *base;
    size_t pitch; // bytes between copies
    int copies;
} cl_rotating;

cl_rotating cl_rotating_alloc(size_t bytes, int copies);
// Copies `bytes` of host data into every copy.
void cl_rotating_upload(const cl_rotating *r, const void *host, size_t bytes);
// Copies the first `bytes` of every copy of src into the same copy of dst (same count).
void cl_rotating_copy(const cl_rotating *dst, const cl_rotating *src, size_t bytes);
// Copy number rep % copies.
void *cl_rotating_at(const cl_rotating *r, int rep);
void cl_rotating_free(cl_rotating *r);

// Blocks (or tiles) of `per_block` that cover n (no overflow near SIZE_MAX).
static inline size_t cl_ceil_div(size_t n, size_t per_block)
{
    return n / per_block + (n % per_block != 0);
}

// The most blocks a launch's grid.x takes (CUDA's limit from compute capability 3.0 on).
#define CL_MAX_GRID_X 2147483647u

// cl_ceil_div(n, per_block) as a launch's grid.x: where that is past CL_MAX_GRID_X, exits 2
// with the numbers (a grid that wrapped would leave outputs unwritten, blamed on the kernel
// as a wrong result). `what` names the launch ("v1's grid").
unsigned cl_grid_blocks(size_t n, size_t per_block, const char *what);

// A grow-only device buffer: the temporary storage of the CUB peers (each asks CUB how
// much a call needs and reserves it before timing, so no timed call allocates) and any
// scratch that grows with the problem.
typedef struct {
    void *ptr;
    size_t bytes;
} cl_device_scratch;
// Room for `bytes` (a grow frees and allocates anew: contents are not kept; exits 3
// with the numbers when it does not fit). Returns ptr.
void *cl_scratch_reserve(cl_device_scratch *s, size_t bytes);
void cl_scratch_free(cl_device_scratch *s);

// Fills device memory with 0xFF bytes (NaN for float, -1 for int) so an element
// the kernel fails to write cannot pass verification.
void cl_poison_device(void *ptr, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif

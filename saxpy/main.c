// saxpy: z = a*x + y in float (CMU 15-418 assignment 2), a = 2, x[i] = y[i] = i % 10 by default.
//
// Order of a run: options; input and double-precision gold; each selected kernel
// verified and timed on device-resident data, with cublasSaxpy beside it; then the
// PCIe bound (x, y to the device and z back, each alone and both at once) and the
// whole job as a user sees it (host to device, kernel, device to host) from pageable
// and pinned memory and in bands on K streams, as % of that bound; with --managed the
// managed-memory variants; --check prints the score table instead.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "saxpy.h"

static const float saxpy_a = 2.0f;
static const double bytes_per_element = 12.0; // x and y read, z written

typedef struct {
    cl_common_args common;
    int input; // index into input_names
    long streams, band_mb;
    bool managed;
} options;

static const char *const input_names[] = {"mod10", "uniform", NULL};
enum { INPUT_MOD10, INPUT_UNIFORM };

// --- input and gold ------------------------------------------------------------

typedef struct {
    size_t n;
    float *x, *y;   // host, pageable
    double *gold;   // a*x + y in double
    double abs_tol; // rounding bound: a float FMA or multiply-add, relative to the terms
} problem;

static problem make_problem(size_t n, int input, uint64_t seed)
{
    problem p = {.n = n};
    p.x = cl_host_alloc(n * sizeof(float), "x");
    p.y = cl_host_alloc(n * sizeof(float), "y");
    p.gold = cl_host_alloc(n * sizeof(double), "gold");
    if (input == INPUT_MOD10) {
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            p.x[i] = p.y[i] = (float)(i % 10);
    } else {
        cl_fill_uniform_f32(p.x, n, cl_rng_key(seed, 0), -1.0f, 1.0f);
        cl_fill_uniform_f32(p.y, n, cl_rng_key(seed, 1), -1.0f, 1.0f);
    }
    saxpy_gold(n, saxpy_a, p.x, p.y, p.gold);
    // |a*x + y| terms are at most |a| * 9 + 9 (mod10) or |a| + 1 (uniform); a float
    // multiply-add rounds twice, each within 2^-24 of the terms' sum.
    double terms = input == INPUT_MOD10 ? fabs(saxpy_a) * 9.0 + 9.0 : fabs(saxpy_a) + 1.0;
    p.abs_tol = 2.0 * 0x1.0p-24 * terms;
    return p;
}

static void free_problem(problem *p)
{
    free(p->x);
    free(p->y);
    free(p->gold);
}

static bool verify(const problem *p, const float *z, const char *what)
{
    cl_compare c = cl_compare_f32(z, p->gold, p->n, 0.0, p->abs_tol);
    cl_compare_report(what, c);
    return c.ok;
}

// --- device data: copies of x, y, z rotated so timed runs read DRAM, not L2 ---

typedef struct {
    size_t n;
    cl_rotating x, y, z;
} device_data;

static device_data upload(const problem *p)
{
    size_t bytes = p->n * sizeof(float);
    int copies = cl_rotation_count((size_t)(bytes_per_element * p->n));
    cl_require_device_memory(3 * (bytes + 256) * copies, (size_t)bytes_per_element * copies);
    device_data d = {.n = p->n};
    d.x = cl_rotating_alloc(bytes, copies);
    d.y = cl_rotating_alloc(bytes, copies);
    d.z = cl_rotating_alloc(bytes, copies);
    cl_rotating_upload(&d.x, p->x, bytes);
    cl_rotating_upload(&d.y, p->y, bytes);
    return d;
}

static void free_device_data(device_data *d)
{
    cl_rotating_free(&d->x);
    cl_rotating_free(&d->y);
    cl_rotating_free(&d->z);
}

// --- one kernel version or the peer: verify once, then time -----------------

typedef struct {
    const problem *p;
    const device_data *d;
    saxpy_launcher launch; // NULL: the peer
    saxpy_peer *peer;
    int iters;
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    const device_data *d = t->d;
    const float *x = cl_rotating_at(&d->x, rep), *y = cl_rotating_at(&d->y, rep);
    float *z = cl_rotating_at(&d->z, rep);
    if (t->launch)
        t->launch(d->n, saxpy_a, x, y, z, 0);
    else // cublasSaxpy works in place: z, holding a copy of y, becomes a*x + z
        saxpy_peer_run(t->peer, d->n, saxpy_a, x, z);
}

// Version k or the peer (cl_version_measure): poisons z, runs once on copy 0 and
// verifies it, then times all copies in turn.
static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    (void)extra;
    timed_call *call = ctx;
    const device_data *d = call->d;
    call->launch = k == CL_PEER ? NULL : saxpy_versions[k].launch;
    cl_poison_device(d->z.base, d->z.pitch * d->z.copies);
    if (!call->launch)
        cl_rotating_copy(&d->z, &d->y, d->n * sizeof(float));
    run_call(call, 0);
    float *z = cl_host_alloc(d->n * sizeof(float), "z");
    CL_CUDA_CHECK(cudaMemcpy(z, d->z.base, d->n * sizeof(float), cudaMemcpyDeviceToHost));
    cl_measured m = {
        .ok = verify(call->p, z, k == CL_PEER ? "cublasSaxpy" : saxpy_versions[k].info.name)};
    free(z);
    m.ms = cl_time_gpu(run_call, call, call->iters).median_ms;
    return m;
}

static double gbps(size_t n, double ms) { return bytes_per_element * n / (ms * 1e-3) / 1e9; }

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(saxpy_versions, saxpy_version_count, saxpy_fastest_version);
}

// The selected version (or all of them, -k all) and the peer. Returns false if any
// result was wrong.
static bool run_kernels(const problem *p, const options *opt)
{
    device_data d = upload(p);
    cl_note("\nkernels on device-resident data: %zu elements, %.1f MB per call, input %s, "
            "timed over %d rotating copies",
            p->n, bytes_per_element * p->n / 1e6, input_names[opt->input], d.x.copies);
    timed_call call = {
        .p = p, .d = &d, .peer = saxpy_peer_create(), .iters = (int)opt->common.iters};
    bool ok = cl_run_ladder(&opt->common, versions(), "cublasSaxpy", p->n, bytes_per_element * p->n,
                            NULL, 0, measure_version, &call);
    saxpy_peer_destroy(call.peer);
    free_device_data(&d);
    return ok;
}

// --- the whole job: host to device, kernel, device to host --------------------

typedef enum {
    MEM_PAGEABLE,
    MEM_PINNED,
    MEM_MANAGED_ON_DEMAND,
    MEM_MANAGED_PREFETCH,
    MEM_STREAMS
} memory_mode;

typedef struct {
    const problem *p;
    memory_mode mode;
    saxpy_launcher launch;
    float *hx, *hy, *hz;   // host buffers (pageable or pinned), or the managed arrays
    float *dx, *dy, *dz;   // device buffers (unused for managed)
    cudaStream_t *streams; // the bands' kernels and z out, in turn
    int nstreams;
    cudaStream_t copy_in; // every band's x and y in, one after another
    cudaEvent_t band_in;  // the last band in (waited for as soon as recorded)
    size_t band;          // elements a band of the streamed job
    double bound_ms;      // the PCIe bound: x, y in and z out at once
} transfer_job;

// Elements of the band that starts at element lo (the last band may be short).
static size_t band_length(const transfer_job *j, size_t lo)
{
    return j->p->n - lo < j->band ? j->p->n - lo : j->band;
}

// The default stream waits for every stream, so a stop event on it covers them all.
static void join_streams(const cudaStream_t *streams, int count)
{
    for (int s = 0; s < count; s++) {
        cudaEvent_t done;
        CL_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
        CL_CUDA_CHECK(cudaEventRecord(done, streams[s]));
        CL_CUDA_CHECK(cudaStreamWaitEvent(0, done, 0));
        CL_CUDA_CHECK(cudaEventDestroy(done));
    }
}

static void prefetch(const void *ptr, size_t bytes, bool to_device)
{
    struct cudaMemLocation where = {.type = to_device ? cudaMemLocationTypeDevice
                                                      : cudaMemLocationTypeHost,
                                    .id = to_device ? cl_device_current()->index : 0};
    CL_CUDA_CHECK(cudaMemPrefetchAsync(ptr, bytes, where, 0, 0));
}

// The job in bands of j->band elements: x and y of every band in on one stream that
// never waits, each band's kernel and z out on stream i % K once its x and y are in.
// Copies in the two directions run at once on the GPU's copy engines, the kernels
// hide between them, and no copy in waits behind a copy out (as it would were band
// i + K's x queued behind band i's z on one stream: 94.8% of the bound on an H100).
// What is left over the bound is the last band's kernel and way out (16 MB of z,
// ~0.3 ms of ~16 at 100M elements on PCIe 5).
static void run_streamed(transfer_job *j)
{
    size_t n = j->p->n;
    for (size_t lo = 0, band = 0; lo < n; lo += j->band, band++) {
        size_t len = band_length(j, lo), bytes = len * sizeof(float);
        cudaStream_t st = j->streams[band % j->nstreams];
        CL_CUDA_CHECK(
            cudaMemcpyAsync(j->dx + lo, j->hx + lo, bytes, cudaMemcpyHostToDevice, j->copy_in));
        CL_CUDA_CHECK(
            cudaMemcpyAsync(j->dy + lo, j->hy + lo, bytes, cudaMemcpyHostToDevice, j->copy_in));
        CL_CUDA_CHECK(cudaEventRecord(j->band_in, j->copy_in));
        CL_CUDA_CHECK(cudaStreamWaitEvent(st, j->band_in, 0)); // this record, not a later one
        j->launch(len, saxpy_a, j->dx + lo, j->dy + lo, j->dz + lo, st);
        CL_CUDA_CHECK(cudaMemcpyAsync(j->hz + lo, j->dz + lo, bytes, cudaMemcpyDeviceToHost, st));
    }
    join_streams(&j->copy_in, 1);
    join_streams(j->streams, j->nstreams);
}

// Stages: 0 = x, y to the device, 1 = kernel, 2 = z to the host (one stage for
// streams, where they overlap). Stage -1 is the untimed preparation.
static void run_transfer_stage(void *ctx, int rep, int stage)
{
    (void)rep;
    transfer_job *j = ctx;
    size_t n = j->p->n, bytes = n * sizeof(float);
    bool managed = j->mode == MEM_MANAGED_ON_DEMAND || j->mode == MEM_MANAGED_PREFETCH;
    if (stage < 0) {
        // Poison z where the job must write it, so a mode that fails to deliver z
        // cannot pass on the previous mode's result. For managed memory these host
        // writes also move the pages back to the CPU.
        memset(j->hz, 0xFF, bytes);
        if (managed) {
            memcpy(j->hx, j->p->x, bytes);
            memcpy(j->hy, j->p->y, bytes);
        } else {
            cl_poison_device(j->dz, bytes);
        }
        return;
    }
    if (j->mode == MEM_STREAMS) {
        run_streamed(j);
        return;
    }
    float *x = managed ? j->hx : j->dx, *y = managed ? j->hy : j->dy, *z = managed ? j->hz : j->dz;
    switch (stage) {
    case 0:
        if (j->mode == MEM_MANAGED_PREFETCH) {
            prefetch(j->hx, bytes, true);
            prefetch(j->hy, bytes, true);
            prefetch(j->hz, bytes, true);
        } else if (!managed) {
            CL_CUDA_CHECK(cudaMemcpyAsync(j->dx, j->hx, bytes, cudaMemcpyHostToDevice, 0));
            CL_CUDA_CHECK(cudaMemcpyAsync(j->dy, j->hy, bytes, cudaMemcpyHostToDevice, 0));
        }
        break;
    case 1:
        j->launch(n, saxpy_a, x, y, z, 0);
        break;
    case 2:
        if (managed)
            prefetch(j->hz, bytes, false);
        else
            CL_CUDA_CHECK(cudaMemcpyAsync(j->hz, j->dz, bytes, cudaMemcpyDeviceToHost, 0));
        break;
    }
}

static const cl_column transfer_columns[] = {
    {"memory", "memory", 24, NULL},           {"h2d_ms", "H2D ms", 8, "%.3f"},
    {"kernel_ms", "kernel ms", 9, "%.3f"},    {"d2h_ms", "D2H ms", 8, "%.3f"},
    {"overall_ms", "overall ms", 10, "%.3f"}, {"overall_gbps", "GB/s", 6, "%.1f"},
    {"pct_bound", "% bound", 7, "%.1f"},      {"verified", "verified", 8, NULL},
};
static const cl_table transfer_table = {"transfer", transfer_columns, 8};

// --- the PCIe bound: the job's bytes moved with nothing to wait for -------------

typedef enum { BOUND_H2D, BOUND_D2H, BOUND_BOTH } bound_kind;
typedef struct {
    transfer_job *j;
    bound_kind kind;
} bound_call;

// The job's copies in its bands, with nothing to wait for: x and y in on one stream,
// z out on another, or both at once (issued band by band, alternating); pinned buffers.
static void run_bound(void *ctx, int rep)
{
    (void)rep;
    const bound_call *b = ctx;
    const transfer_job *j = b->j;
    size_t n = j->p->n;
    for (size_t lo = 0; lo < n; lo += j->band) {
        size_t bytes = band_length(j, lo) * sizeof(float);
        if (b->kind != BOUND_D2H) {
            CL_CUDA_CHECK(
                cudaMemcpyAsync(j->dx + lo, j->hx + lo, bytes, cudaMemcpyHostToDevice, j->copy_in));
            CL_CUDA_CHECK(
                cudaMemcpyAsync(j->dy + lo, j->hy + lo, bytes, cudaMemcpyHostToDevice, j->copy_in));
        }
        if (b->kind != BOUND_H2D)
            CL_CUDA_CHECK(cudaMemcpyAsync(j->hz + lo, j->dz + lo, bytes, cudaMemcpyDeviceToHost,
                                          j->streams[0]));
    }
    join_streams(&j->copy_in, 1);
    join_streams(j->streams, 1);
}

static const cl_column pcie_columns[] = {
    {"transfer", "transfer (pinned)", 28, NULL},
    {"ms", "ms", 8, "%.3f"},
    {"gbps", "GB/s", 6, "%.1f"},
};
static const cl_table pcie_table = {"pcie", pcie_columns, 3};

// Times the three and prints them; returns the both-at-once time: no order of the
// job's copies and kernels can move its bytes faster.
static double measure_pcie_bound(transfer_job *j, int iters)
{
    static const char *names[] = {"x, y to the device", "z to the host", "both at once"};
    static const double bytes_an_element[] = {8.0, 4.0, 12.0};
    cl_note("\nthe PCIe bound: the job's copies in its %zu MB bands, nothing to wait for (x, y in "
            "on one stream, z out on another)",
            (j->band * sizeof(float)) >> 20);
    cl_table_header(&pcie_table);
    double ms = NAN;
    for (int kind = BOUND_H2D; kind <= BOUND_BOTH; kind++) {
        bound_call b = {j, (bound_kind)kind};
        ms = cl_time_gpu(run_bound, &b, iters).median_ms;
        cl_table_row(&pcie_table,
                     (cl_cell[]){CL_STR(names[kind]), CL_NUM(ms),
                                 CL_NUM(bytes_an_element[kind] * j->p->n / (ms * 1e-3) / 1e9)});
    }
    return ms;
}

static const char *mode_name(const transfer_job *j, char *buf, size_t len)
{
    static const char *names[] = {"pageable (malloc)", "pinned (cudaMallocHost)",
                                  "managed, on demand", "managed, prefetched", ""};
    if (j->mode == MEM_STREAMS)
        snprintf(buf, len, "pinned, %zu MB bands, %d streams", (j->band * sizeof(float)) >> 20,
                 j->nstreams);
    else
        snprintf(buf, len, "%s", names[j->mode]);
    return buf;
}

// Runs the job in one memory mode, verifies z as the host sees it, prints a row.
// Returns the overall time, or NAN if the result was wrong.
static double run_transfer(transfer_job *j, int iters)
{
    int stages = j->mode == MEM_STREAMS ? 1 : 3;
    double stage_ms[3] = {NAN, NAN, NAN};
    cl_timing t = cl_time_stages(run_transfer_stage, j, stages, iters, stage_ms);
    CL_CUDA_CHECK(cudaDeviceSynchronize());
    char name[64];
    mode_name(j, name, sizeof name);
    bool ok = verify(j->p, j->hz, name);
    if (j->mode == MEM_STREAMS)
        stage_ms[0] = stage_ms[1] = stage_ms[2] = NAN;
    if (j->mode == MEM_MANAGED_ON_DEMAND)
        stage_ms[0] = NAN; // the migration of x and y happens inside the kernel
    cl_table_row(&transfer_table,
                 (cl_cell[]){CL_STR(name), CL_NUM(stage_ms[0]), CL_NUM(stage_ms[1]),
                             CL_NUM(stage_ms[2]), CL_NUM(t.median_ms),
                             CL_NUM(gbps(j->p->n, t.median_ms)),
                             CL_NUM(100.0 * j->bound_ms / t.median_ms), CL_BOOL(ok)});
    return ok ? t.median_ms : NAN;
}

static bool run_transfers(const problem *p, const options *opt, float **dumped_output)
{
    size_t n = p->n, bytes = n * sizeof(float);
    int k = opt->common.kernel_index < 0 ? versions().fastest : opt->common.kernel_index;
    cl_require_device_memory(3 * bytes, 3 * sizeof(float));
    transfer_job j = {.p = p, .launch = saxpy_versions[k].launch};
    CL_CUDA_CHECK(cudaMalloc((void **)&j.dx, bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&j.dy, bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&j.dz, bytes));
    bool ok = true;
    int iters = (int)opt->common.iters;
    j.nstreams = (int)opt->streams;
    j.band = ((size_t)opt->band_mb << 20) / sizeof(float);
    j.streams = cl_host_alloc(j.nstreams * sizeof(cudaStream_t), "streams");
    for (int s = 0; s < j.nstreams; s++)
        CL_CUDA_CHECK(cudaStreamCreate(&j.streams[s]));
    CL_CUDA_CHECK(cudaStreamCreate(&j.copy_in));
    CL_CUDA_CHECK(cudaEventCreateWithFlags(&j.band_in, cudaEventDisableTiming));
    float *pageable_z = cl_host_alloc(bytes, "z");
    CL_CUDA_CHECK(cudaMallocHost((void **)&j.hx, bytes));
    CL_CUDA_CHECK(cudaMallocHost((void **)&j.hy, bytes));
    CL_CUDA_CHECK(cudaMallocHost((void **)&j.hz, bytes));
    memcpy(j.hx, p->x, bytes);
    memcpy(j.hy, p->y, bytes);
    cl_poison_device(j.dz, bytes); // what the bound's copy of z moves out
    j.bound_ms = measure_pcie_bound(&j, iters);

    cl_note("\nthe whole job from host memory (kernel %s; GB/s = 12 bytes an element / overall; "
            "%% bound = the both-at-once time / overall)",
            saxpy_versions[k].info.name);
    cl_table_header(&transfer_table);
    float *pinned[3] = {j.hx, j.hy, j.hz};
    j.mode = MEM_PAGEABLE;
    j.hx = p->x;
    j.hy = p->y;
    j.hz = pageable_z;
    ok &= !isnan(run_transfer(&j, iters));
    *dumped_output = pageable_z;

    j.hx = pinned[0], j.hy = pinned[1], j.hz = pinned[2];
    j.mode = MEM_PINNED;
    double pinned_ms = run_transfer(&j, iters);
    ok &= !isnan(pinned_ms);

    j.mode = MEM_STREAMS;
    double streamed_ms = run_transfer(&j, iters);
    ok &= !isnan(streamed_ms);
    cl_note("%ld MB bands in on one stream, kernels and z out on %d: %.2fx one stream's time, "
            "%.1f%% of the PCIe bound (%.3f ms)",
            opt->band_mb, j.nstreams, pinned_ms / streamed_ms, 100.0 * j.bound_ms / streamed_ms,
            j.bound_ms);
    for (int s = 0; s < j.nstreams; s++)
        CL_CUDA_CHECK(cudaStreamDestroy(j.streams[s]));
    CL_CUDA_CHECK(cudaStreamDestroy(j.copy_in));
    CL_CUDA_CHECK(cudaEventDestroy(j.band_in));
    free(j.streams);
    CL_CUDA_CHECK(cudaFreeHost(j.hx));
    CL_CUDA_CHECK(cudaFreeHost(j.hy));
    CL_CUDA_CHECK(cudaFreeHost(j.hz));

    if (opt->managed) {
        if (!cl_device_current()->concurrent_managed_access) {
            cl_note("managed memory: this device cannot prefetch managed memory; rows skipped");
        } else {
            // Managed memory is never asked for beyond what the card has free.
            cl_require_device_memory(3 * bytes, 3 * sizeof(float));
            CL_CUDA_CHECK(cudaMallocManaged((void **)&j.hx, bytes, cudaMemAttachGlobal));
            CL_CUDA_CHECK(cudaMallocManaged((void **)&j.hy, bytes, cudaMemAttachGlobal));
            CL_CUDA_CHECK(cudaMallocManaged((void **)&j.hz, bytes, cudaMemAttachGlobal));
            j.mode = MEM_MANAGED_ON_DEMAND;
            ok &= !isnan(run_transfer(&j, iters));
            j.mode = MEM_MANAGED_PREFETCH;
            ok &= !isnan(run_transfer(&j, iters));
            CL_CUDA_CHECK(cudaFree(j.hx));
            CL_CUDA_CHECK(cudaFree(j.hy));
            CL_CUDA_CHECK(cudaFree(j.hz));
        }
    }
    CL_CUDA_CHECK(cudaFree(j.dx));
    CL_CUDA_CHECK(cudaFree(j.dy));
    CL_CUDA_CHECK(cudaFree(j.dz));
    return ok;
}

// --- --check: the score table -------------------------------------------------

typedef struct {
    const options *opt;
    saxpy_peer *peer;
} check_context;

static cl_check_point measure_size(void *ctx, size_t n, int k)
{
    const check_context *c = ctx;
    problem p = make_problem(n, c->opt->input, (uint64_t)c->opt->common.seed);
    device_data d = upload(&p);
    timed_call call = {.p = &p, .d = &d, .peer = c->peer, .iters = (int)c->opt->common.iters};
    cl_check_point point = cl_check_pair(measure_version, &call, k, bytes_per_element * n);
    free_device_data(&d);
    free_problem(&p);
    return point;
}

static bool run_check_table(const options *opt)
{
    static const size_t sizes[] = {1000000, 10000000, 100000000};
    check_context c = {opt, saxpy_peer_create()};
    bool ok = cl_run_check_table(&opt->common, versions(), "cublasSaxpy", sizes, 3, 1.25,
                                 measure_size, &c);
    saxpy_peer_destroy(c.peer);
    return ok;
}

static int run(int argc, char **argv)
{
    options opt = {.input = INPUT_MOD10, .streams = 4, .band_mb = 16};
    const cl_option own[] = {
        {0, "input", CL_ARG_CHOICE, &opt.input, "KIND",
         "mod10: x[i] = y[i] = i % 10 (the course's); uniform: x, y in [-1, 1) from -S", 0, 0,
         input_names},
        {0, "streams", CL_ARG_INT, &opt.streams, "K",
         "streams the banded whole job's kernels and copies out take turns on (its copies in "
         "have one more; default 4)",
         1, 64, NULL},
        {0, "band", CL_ARG_INT, &opt.band_mb, "MB",
         "MB of each array a band of the streamed job moves (default 16)", 1, 4096, NULL},
        {0, "managed", CL_ARG_FLAG, &opt.managed, NULL,
         "also run the whole job on managed memory (on demand and prefetched)", 0, 0, NULL},
        {0},
    };
    const cl_program prog = {
        .name = "saxpy",
        .summary = "z = a*x + y in float, a = 2 (12 bytes an element): kernel ladder, "
                   "transfers, cublasSaxpy as the peer.",
        .example = "saxpy -n 16M -k all --streams 4 --managed",
        .n_default = 100000000,
        .n_min = 1,
        .n_max = 100000000000,
        .n_meaning = "elements",
        .n_column = "elements",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    cl_device_open((int)opt.common.device);

    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    // Host: x, y, z pageable and pinned, gold in double; device: x, y, z.
    cl_require_host_memory(32 * opt.common.n, 32);
    cl_require_device_memory(12 * opt.common.n, 12);
    problem p = make_problem(opt.common.n, opt.input, (uint64_t)opt.common.seed);
    bool ok = run_kernels(&p, &opt);
    float *z = NULL;
    ok = run_transfers(&p, &opt, &z) && ok;
    if (opt.common.dump) {
        size_t shape2[2] = {2, p.n};
        float *xy = cl_host_alloc(2 * p.n * sizeof(float), "dump");
        memcpy(xy, p.x, p.n * sizeof(float));
        memcpy(xy + p.n, p.y, p.n * sizeof(float));
        cl_dump_npy(opt.common.dump, "input", "<f4", xy, sizeof(float), 2, shape2);
        cl_dump_npy(opt.common.dump, "output", "<f4", z, sizeof(float), 1, &p.n);
        cl_dump_npy(opt.common.dump, "gold", "<f8", p.gold, sizeof(double), 1, &p.n);
        free(xy);
    }
    free(z);
    free_problem(&p);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }

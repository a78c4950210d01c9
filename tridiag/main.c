// tridiag: backward Euler for the 1D heat equation (the Oxford CUDA course's practical
// 7): NITER solves of A x_new = lambda x_old, A = tridiag(-1, 2 + lambda, -1),
// lambda = 1, x = 1 at the start, for M systems of NX rows at once; --input random
// gives every system its own diagonally dominant matrix and start vector.
//
// Order of a run: options; the systems and the Thomas gold in double; each selected
// version (or all that solve this NX) verified and timed, cuSPARSE's two batched
// solvers beside them (gtsv2StridedBatch on the same layout, gtsvInterleavedBatch on
// an interleaved copy made on the host, untimed); --check prints the score table over
// three (NX, M) shapes against the first instead.
#include <math.h>
#include <stdlib.h>

#include "cudalab.h"
#include "tridiag.h"

typedef struct {
    cl_common_args common;
    long nx, niter;
    int input;
} options;

static const char *const input_names[] = {"practical", "random", NULL};
enum { INPUT_PRACTICAL, INPUT_RANDOM };
static const char peer_name[] = "cusparseSgtsv2StridedBatch",
                  interleaved_peer_name[] = "cusparseSgtsvInterleavedBatch";
static const float lambda = 1.0f;

// --- the systems and the gold -----------------------------------------------------------

typedef struct {
    tridiag_shape shape;
    float *a, *b, *c, *d;
    double *gold;
    double tolerance; // absolute: 1e-4 of the largest |x|
    double gold_ms;
} problem;

static size_t rows(tridiag_shape s) { return (size_t)s.nx * s.m; }

static problem make_problem(tridiag_shape shape, int input, uint64_t seed)
{
    size_t n = rows(shape);
    problem p = {.shape = shape};
    p.a = cl_host_alloc(n * sizeof(float), "a");
    p.b = cl_host_alloc(n * sizeof(float), "b");
    p.c = cl_host_alloc(n * sizeof(float), "c");
    p.d = cl_host_alloc(n * sizeof(float), "d");
    p.gold = cl_host_alloc(n * sizeof(double), "gold");
    uint64_t ka = cl_rng_key(seed, 0), kb = cl_rng_key(seed, 1), kc = cl_rng_key(seed, 2),
             kd = cl_rng_key(seed, 3);
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++) {
        int i = (int)(k % shape.nx);
        if (input == INPUT_PRACTICAL) {
            p.a[k] = -1.0f;
            p.b[k] = 2.0f + lambda;
            p.c[k] = -1.0f;
            p.d[k] = 1.0f;
        } else { // |b| > |a| + |c| + 1: diagonally dominant, every system different
            p.a[k] = 2.0f * cl_rng_uniform_f32(ka, k) - 1.0f;
            p.c[k] = 2.0f * cl_rng_uniform_f32(kc, k) - 1.0f;
            p.b[k] = 1.0f + fabsf(p.a[k]) + fabsf(p.c[k]) + cl_rng_uniform_f32(kb, k);
            p.d[k] = 2.0f * cl_rng_uniform_f32(kd, k) - 1.0f;
        }
        if (i == 0)
            p.a[k] = 0.0f;
        if (i == shape.nx - 1)
            p.c[k] = 0.0f;
    }
    double start = cl_wall_ms();
    tridiag_gold(p.a, p.b, p.c, p.d, p.gold, shape);
    p.gold_ms = cl_wall_ms() - start;
    double largest = 0.0;
    for (size_t k = 0; k < n; k++)
        largest = fmax(largest, fabs(p.gold[k]));
    p.tolerance = 1e-4 * fmax(largest, 1e-30);
    return p;
}

static void free_problem(problem *p)
{
    free(p->a);
    free(p->b);
    free(p->c);
    free(p->d);
    free(p->gold);
}

// --- one version or a peer: verify once, then time --------------------------------------

// The five arrays on the device, each in rotating copies.
typedef struct {
    cl_rotating a, b, c, d, x;
} device_arrays;

typedef struct {
    const problem *p;
    device_arrays rows;        // system s, row i at s NX + i
    device_arrays interleaved; // row i of system s at i M + s (the second peer; ladder only)
    float *host_x;             // the last verified output (--dump)
    tridiag_workspace *ws;
    tridiag_peer *peer, *interleaved_peer; // NULL when NX < 3 (or no ladder)
    // What run_call runs: a version (launch), else a peer on its arrays.
    tridiag_launcher launch;
    tridiag_peer *running_peer;
    const device_arrays *arrays;
    int iters;
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    float *a = cl_rotating_at(&t->arrays->a, rep), *b = cl_rotating_at(&t->arrays->b, rep),
          *c = cl_rotating_at(&t->arrays->c, rep), *d = cl_rotating_at(&t->arrays->d, rep),
          *x = cl_rotating_at(&t->arrays->x, rep);
    if (t->launch)
        t->launch(a, b, c, d, x, t->p->shape, t->ws, 0);
    else
        tridiag_peer_run(t->running_peer, a, b, c, d, x, t->p->shape);
}

// to[i M + s] = from[s NX + i] (interleave) or the other way round. The threads split
// the destination into runs of its own order, so no two write the same page: split by
// system instead, all 16 of a machine's threads wrote (and first touched) every page of
// the interleaved copy, and the page faults' locking took 10 s of kernel time for 400 MB
// (measured on the 16-core H100 machine; 0.3 s this way).
static void transpose(const float *from, float *to, tridiag_shape shape, bool interleave)
{
    const size_t m = shape.m, nx = (size_t)shape.nx, n = m * nx;
#pragma omp parallel for schedule(static)
    for (size_t to_at = 0; to_at < n; to_at++)
        to[to_at] =
            interleave ? from[to_at % m * nx + to_at / m] : from[to_at % nx * m + to_at / nx];
}

// Whether version k solves systems of nx rows; if not, why.
static bool version_solves(int k, int nx, char *why, size_t len)
{
    const tridiag_version *v = &tridiag_versions[k];
    if (nx >= v->min_nx && nx <= v->max_nx)
        return true;
    if (v->min_nx == v->max_nx)
        snprintf(why, len, "%s solves NX = %d only", v->info.name, v->min_nx);
    else
        snprintf(why, len, "%s solves NX = %d..%d", v->info.name, v->min_nx, v->max_nx);
    return false;
}

// Version k or a peer (cl_version_measure): poisons x, solves once and compares every
// element with the gold, then times. Skips what cannot solve this NX.
static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    timed_call *call = ctx;
    const tridiag_shape shape = call->p->shape;
    const bool peer = k < 0, interleaved = k == CL_SECOND_PEER;
    const char *name = !peer         ? tridiag_versions[k].info.name
                       : interleaved ? interleaved_peer_name
                                     : peer_name;
    char why[128];
    call->launch = peer ? NULL : tridiag_versions[k].launch;
    call->running_peer = interleaved ? call->interleaved_peer : call->peer;
    call->arrays = interleaved ? &call->interleaved : &call->rows;
    if (peer && !call->running_peer) {
        cl_note("%s: not run (it needs NX >= %d)", name, TRIDIAG_PEER_MIN_NX);
        return (cl_measured){.skipped = true};
    }
    if (!peer && !version_solves(k, shape.nx, why, sizeof why)) {
        cl_note("%s: not run (%s)", name, why);
        return (cl_measured){.skipped = true};
    }
    size_t n = rows(shape), bytes = n * sizeof(float);
    const cl_rotating *x = &call->arrays->x;
    cl_poison_device(x->base, x->pitch * x->copies);
    run_call(call, 0);
    if (interleaved) {
        float *by_row = cl_host_alloc(bytes, "interleaved x");
        CL_CUDA_CHECK(cudaMemcpy(by_row, x->base, bytes, cudaMemcpyDeviceToHost));
        transpose(by_row, call->host_x, shape, false);
        free(by_row);
    } else {
        CL_CUDA_CHECK(cudaMemcpy(call->host_x, x->base, bytes, cudaMemcpyDeviceToHost));
    }
    cl_compare cmp = cl_compare_f32(call->host_x, call->p->gold, n, 0.0, call->p->tolerance);
    cl_compare_report(name, cmp);
    double ms = cl_time_gpu(run_call, call, call->iters).median_ms;
    if (extra) {
        extra[0] = CL_NUM((double)shape.m / (ms * 1e-3) / 1e6);
        extra[1] = CL_NUM(cmp.max_abs_err);
    }
    return (cl_measured){.ms = ms, .ok = cmp.ok};
}

static void arrays_upload(device_arrays *on, const float *const host[4], size_t bytes, int copies)
{
    cl_rotating *arrays[5] = {&on->a, &on->b, &on->c, &on->d, &on->x};
    for (int i = 0; i < 5; i++) {
        *arrays[i] = cl_rotating_alloc(bytes, copies);
        if (i < 4)
            cl_rotating_upload(arrays[i], host[i], bytes);
    }
}

static void arrays_free(device_arrays *on)
{
    cl_rotating *arrays[5] = {&on->a, &on->b, &on->c, &on->d, &on->x};
    for (int i = 0; i < 5; i++)
        cl_rotating_free(arrays[i]);
}

// The arrays on the device and the first npeers peers (0: none, for --no-peer; 2: the
// second peer too, with its interleaved copies of a, b, c, d made here on the host).
static timed_call device_setup(const problem *p, int iters, int npeers)
{
    const tridiag_shape shape = p->shape;
    const bool peers = npeers > 0 && shape.nx >= TRIDIAG_PEER_MIN_NX;
    const bool with_interleaved = npeers > 1 && peers;
    size_t bytes = rows(shape) * sizeof(float);
    int copies = cl_rotation_count(5 * bytes), sets = with_interleaved ? 2 : 1;
    cl_require_device_memory(sets * 5 * (bytes + 256) * copies + bytes,
                             sets * 5 * sizeof(float) * copies + sizeof(float));
    timed_call call = {.p = p, .iters = iters};
    const float *host[4] = {p->a, p->b, p->c, p->d};
    arrays_upload(&call.rows, host, bytes, copies);
    call.host_x = cl_host_alloc(bytes, "x");
    call.ws = tridiag_workspace_create();
    if (peers)
        call.peer = tridiag_peer_create(
            TRIDIAG_PEER_STRIDED, cl_rotating_at(&call.rows.a, 0), cl_rotating_at(&call.rows.b, 0),
            cl_rotating_at(&call.rows.c, 0), cl_rotating_at(&call.rows.x, 0), shape);
    if (with_interleaved) {
        float *by_row[4];
        for (int i = 0; i < 4; i++) {
            by_row[i] = cl_host_alloc(bytes, "interleaved copy");
            transpose(host[i], by_row[i], shape, true);
        }
        arrays_upload(&call.interleaved, (const float *const *)by_row, bytes, copies);
        for (int i = 0; i < 4; i++)
            free(by_row[i]);
        call.interleaved_peer = tridiag_peer_create(
            TRIDIAG_PEER_INTERLEAVED, cl_rotating_at(&call.interleaved.a, 0),
            cl_rotating_at(&call.interleaved.b, 0), cl_rotating_at(&call.interleaved.c, 0),
            cl_rotating_at(&call.interleaved.x, 0), shape);
    }
    return call;
}

static void device_free(timed_call *call)
{
    arrays_free(&call->rows);
    free(call->host_x);
    tridiag_workspace_destroy(call->ws);
    if (call->peer)
        tridiag_peer_destroy(call->peer);
    if (call->interleaved_peer) {
        arrays_free(&call->interleaved);
        tridiag_peer_destroy(call->interleaved_peer);
    }
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(tridiag_versions, tridiag_version_count, tridiag_fastest_version);
}

static const cl_column own_columns[] = {
    {"msystems_per_s", "Msys/s", 9, "%.1f"},
    {"max_abs_error", "max error", 10, "%.2e"},
};

// --- --check: the score table over three shapes -------------------------------------------

static const tridiag_shape check_shapes[] = {
    {32, 1000000, 0, 0}, {128, 256000, 0, 0}, {1024, 32000, 0, 0}};

// -k's version must solve every NX the run asks for (before any device work).
static void require_version_solves(const options *opt)
{
    const int k = opt->common.kernel_index;
    char why[128];
    if (k < 0)
        return;
    if (!opt->common.check) {
        if (!version_solves(k, (int)opt->nx, why, sizeof why))
            cl_die(CL_EXIT_USAGE, "--nx %ld: %s (see --help)", opt->nx, why);
        return;
    }
    for (int s = 0; s < 3; s++)
        if (!version_solves(k, check_shapes[s].nx, why, sizeof why))
            cl_die(CL_EXIT_USAGE, "--check -k %s: %s; the table needs NX = 32, 128 and 1024",
                   tridiag_versions[k].info.name, why);
}

// Shape `index` of check_shapes: its point, sized by its systems (M).
static cl_check_point check_shape(void *ctx, size_t index, int k)
{
    const options *opt = ctx;
    tridiag_shape shape = check_shapes[index];
    shape.niter = (int)opt->niter;
    shape.lambda = lambda;
    problem p = make_problem(shape, INPUT_RANDOM, (uint64_t)opt->common.seed);
    timed_call call = device_setup(&p, (int)opt->common.iters, 1);
    cl_check_point point = cl_check_pair(measure_version, &call, k, 20.0 * rows(shape));
    point.size = (double)shape.m;
    device_free(&call);
    free_problem(&p);
    return point;
}

static bool run_check_table(const options *opt)
{
    static const size_t cases[] = {0, 1, 2};
    char text[3][32];
    const char *labels[3];
    for (int s = 0; s < 3; s++) {
        snprintf(text[s], sizeof text[s], "%d x %zu", check_shapes[s].nx, check_shapes[s].m);
        labels[s] = text[s];
    }
    return cl_run_check_table_labelled(&opt->common, versions(), peer_name, "NX x M", labels, cases,
                                       3, 1.0, check_shape, (void *)opt);
}

static int run(int argc, char **argv)
{
    options opt = {.nx = 128, .niter = 2, .input = INPUT_PRACTICAL};
    const cl_option own[] = {
        {0, "nx", CL_ARG_INT, &opt.nx, "NX", "rows a system (the practical's: 128)", 1,
         TRIDIAG_MAX_NX, NULL},
        {0, "niter", CL_ARG_INT, &opt.niter, "N", "backward Euler steps (solves) a system", 1, 1000,
         NULL},
        {0, "input", CL_ARG_CHOICE, &opt.input, "KIND",
         "practical: A = tridiag(-1, 3, -1), x = 1; random: every system its own diagonally "
         "dominant matrix and start",
         0, 0, input_names},
        {0},
    };
    const cl_program prog = {
        .name = "tridiag",
        .summary = "Batches of tridiagonal systems (backward Euler, Oxford practical 7): PCR "
                   "in a block, in a warp, Thomas a thread, a partitioned solve in registers, "
                   "segments across blocks for NX up to 1,000,000; cuSPARSE's two batched "
                   "solvers as the peers.",
        .example = "tridiag -k all --nx 32 -n 1M --input random",
        .n_default = 65536,
        .n_min = 1,
        .n_max = 100000000,
        .n_meaning = "systems (M)",
        .n_column = "systems",
        .n_long = "systems",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    if (opt.common.check && cl_option_given(&opt.nx))
        cl_die(CL_EXIT_USAGE, "--check times its table's own shapes; leave out --nx");
    require_version_solves(&opt);
    cl_device_open((int)opt.common.device);
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    tridiag_shape shape = {(int)opt.nx, opt.common.n, (int)opt.niter, lambda};
    // a, b, c, d, x and the double gold; the interleaved copies while setting up
    cl_require_host_memory(44 * rows(shape), 44);
    problem p = make_problem(shape, opt.input, (uint64_t)opt.common.seed);
    timed_call call = device_setup(&p, (int)opt.common.iters, opt.common.no_peer ? 0 : 2);
    cl_note("\n%zu systems of %d rows, %d solves each (lambda %g), input %s; gold (Thomas, "
            "double) %.1f ms; tolerance %.3g; timed over %d rotating copies",
            shape.m, shape.nx, shape.niter, lambda, input_names[opt.input], p.gold_ms, p.tolerance,
            call.rows.x.copies);
    if (call.interleaved_peer)
        cl_note("%s runs on interleaved copies of the arrays (made on the host, not timed)",
                interleaved_peer_name);
    bool ok =
        cl_run_ladder_two_peers(&opt.common, versions(), peer_name, interleaved_peer_name, shape.m,
                                20.0 * rows(shape), own_columns, 2, measure_version, &call);
    if (opt.common.dump) {
        size_t n = rows(shape), dims[2] = {4, n};
        float *input = cl_host_alloc(4 * n * sizeof(float), "dump");
        const float *arrays[4] = {p.a, p.b, p.c, p.d};
        for (int i = 0; i < 4; i++)
            for (size_t k = 0; k < n; k++)
                input[i * n + k] = arrays[i][k];
        cl_dump_npy(opt.common.dump, "input", "<f4", input, sizeof(float), 2, dims);
        cl_dump_npy(opt.common.dump, "output", "<f4", call.host_x, sizeof(float), 1, &n);
        cl_dump_npy(opt.common.dump, "gold", "<f8", p.gold, sizeof(double), 1, &n);
        free(input);
    }
    device_free(&call);
    free_problem(&p);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }

// tridiag: backward Euler for the 1D heat equation (the Oxford CUDA course's practical
// 7): NITER solves of A x_new = lambda x_old, A = tridiag(-1, 2 + lambda, -1),
// lambda = 1, x = 1 at the start, for M systems of NX rows at once; --input random
// gives every system its own diagonally dominant matrix and start vector.
//
// Order of a run: options; the systems and the Thomas gold in double; each selected
// version (or all that solve this NX) verified and timed, cusparseSgtsv2StridedBatch
// beside them; --check prints the score table over three (NX, M) shapes instead.
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
static const char peer_name[] = "cusparseSgtsv2StridedBatch";
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

// --- one version or the peer: verify once, then time --------------------------------------

typedef struct {
    const problem *p;
    cl_rotating a, b, c, d, x;
    float *host_x; // the last verified output (--dump)
    tridiag_workspace *ws;
    tridiag_launcher launch; // NULL: the peer
    tridiag_peer *peer;      // NULL when NX < 3
    int iters;
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    const float *a = cl_rotating_at(&t->a, rep), *b = cl_rotating_at(&t->b, rep),
                *c = cl_rotating_at(&t->c, rep), *d = cl_rotating_at(&t->d, rep);
    float *x = cl_rotating_at(&t->x, rep);
    if (t->launch)
        t->launch(a, b, c, d, x, t->p->shape, t->ws, 0);
    else
        tridiag_peer_run(t->peer, a, b, c, d, x, t->p->shape);
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

// Version k or the peer (cl_version_measure): poisons x, solves once and compares
// every element with the gold, then times. Skips what cannot solve this NX.
static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    timed_call *call = ctx;
    const tridiag_shape shape = call->p->shape;
    char why[128];
    if (k == CL_PEER && !call->peer) {
        cl_note("%s: not run (it needs NX >= %d)", peer_name, TRIDIAG_PEER_MIN_NX);
        return (cl_measured){.skipped = true};
    }
    if (k != CL_PEER && !version_solves(k, shape.nx, why, sizeof why)) {
        cl_note("%s: not run (%s)", tridiag_versions[k].info.name, why);
        return (cl_measured){.skipped = true};
    }
    call->launch = k == CL_PEER ? NULL : tridiag_versions[k].launch;
    size_t n = rows(shape);
    cl_poison_device(call->x.base, call->x.pitch * call->x.copies);
    run_call(call, 0);
    CL_CUDA_CHECK(
        cudaMemcpy(call->host_x, call->x.base, n * sizeof(float), cudaMemcpyDeviceToHost));
    cl_compare cmp = cl_compare_f32(call->host_x, call->p->gold, n, 0.0, call->p->tolerance);
    cl_compare_report(k == CL_PEER ? peer_name : tridiag_versions[k].info.name, cmp);
    double ms = cl_time_gpu(run_call, call, call->iters).median_ms;
    if (extra) {
        extra[0] = CL_NUM((double)shape.m / (ms * 1e-3) / 1e6);
        extra[1] = CL_NUM(cmp.max_abs_err);
    }
    return (cl_measured){.ms = ms, .ok = cmp.ok};
}

static timed_call device_setup(const problem *p, int iters)
{
    size_t bytes = rows(p->shape) * sizeof(float);
    int copies = cl_rotation_count(5 * bytes);
    cl_require_device_memory(5 * (bytes + 256) * copies + bytes,
                             5 * sizeof(float) * copies + sizeof(float));
    timed_call call = {.p = p, .iters = iters};
    cl_rotating *arrays[5] = {&call.a, &call.b, &call.c, &call.d, &call.x};
    const float *host[4] = {p->a, p->b, p->c, p->d};
    for (int i = 0; i < 5; i++) {
        *arrays[i] = cl_rotating_alloc(bytes, copies);
        if (i < 4)
            cl_rotating_upload(arrays[i], host[i], bytes);
    }
    call.host_x = cl_host_alloc(bytes, "x");
    call.ws = tridiag_workspace_create();
    if (p->shape.nx >= TRIDIAG_PEER_MIN_NX)
        call.peer =
            tridiag_peer_create(cl_rotating_at(&call.a, 0), cl_rotating_at(&call.b, 0),
                                cl_rotating_at(&call.c, 0), cl_rotating_at(&call.x, 0), p->shape);
    return call;
}

static void device_free(timed_call *call)
{
    cl_rotating *arrays[5] = {&call->a, &call->b, &call->c, &call->d, &call->x};
    for (int i = 0; i < 5; i++)
        cl_rotating_free(arrays[i]);
    free(call->host_x);
    tridiag_workspace_destroy(call->ws);
    if (call->peer)
        tridiag_peer_destroy(call->peer);
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
    timed_call call = device_setup(&p, (int)opt->common.iters);
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

int main(int argc, char **argv)
{
    options opt = {.nx = 128, .niter = 2, .input = INPUT_PRACTICAL};
    const cl_option own[] = {
        {0, "nx", CL_ARG_INT, &opt.nx, "NX", "rows a system (the practical's: 128)", 1, 4000, NULL},
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
                   "in a block, in a warp, Thomas a thread; cuSPARSE's batched solver as the "
                   "peer.",
        .example = "tridiag -k all --nx 32 -n 1M --input random",
        .n_default = 65536,
        .n_min = 1,
        .n_max = 100000000,
        .n_meaning = "systems (M)",
        .n_long = "systems",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    require_version_solves(&opt);
    cl_device_open((int)opt.common.device);
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    tridiag_shape shape = {(int)opt.nx, opt.common.n, (int)opt.niter, lambda};
    cl_require_host_memory(28 * rows(shape), 28);
    problem p = make_problem(shape, opt.input, (uint64_t)opt.common.seed);
    timed_call call = device_setup(&p, (int)opt.common.iters);
    cl_note("\n%zu systems of %d rows, %d solves each (lambda %g), input %s; gold (Thomas, "
            "double) %.1f ms; tolerance %.3g; timed over %d rotating copies",
            shape.m, shape.nx, shape.niter, lambda, input_names[opt.input], p.gold_ms, p.tolerance,
            call.x.copies);
    bool ok = cl_run_ladder(&opt.common, versions(), peer_name, shape.m, 20.0 * rows(shape),
                            own_columns, 2, measure_version, &call);
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

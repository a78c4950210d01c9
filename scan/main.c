// scan: exclusive prefix sum of int32, input rand % 10, any n (CMU 15-418 assignment 2); and
// --op recurrence, the linear recurrence v[i] = s[i] v[i-1] + u[i] in double.
//
// Order of a run: options; input and gold; each selected version (or all) verified
// and timed on device-resident data, cub::DeviceScan::ExclusiveSum beside them;
// --check prints the score table (10K..2M, --extended adds 10M..256M) instead.
#include <math.h>
#include <stdlib.h>

#include "cudalab.h"
#include "scan.h"

typedef struct {
    cl_common_args common;
    int op;
    bool extended;
} options;

static const char *const op_names[] = {"sum", "recurrence", NULL};
enum { OP_SUM, OP_RECURRENCE };

// --- the prefix sum -------------------------------------------------------------------

typedef struct {
    size_t n;
    int32_t *in, *gold;
} problem;

static problem make_problem(size_t n, uint64_t seed)
{
    problem p = {.n = n};
    p.in = cl_host_alloc(n * sizeof(int32_t), "input");
    p.gold = cl_host_alloc(n * sizeof(int32_t), "gold");
    cl_fill_below_i32(p.in, n, cl_rng_key(seed, 0), 10);
    scan_gold(p.in, p.gold, n);
    return p;
}

static void free_problem(problem *p)
{
    free(p->in);
    free(p->gold);
}

typedef struct {
    const problem *p;
    cl_rotating in, out;
    int32_t *host_out; // the last measured call's output (--dump)
    scan_workspace *ws;
    scan_launcher launch; // NULL: the peer
    scan_peer *peer;
    int iters;
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    const int32_t *in = cl_rotating_at(&t->in, rep);
    int32_t *out = cl_rotating_at(&t->out, rep);
    if (t->launch)
        t->launch(in, out, t->p->n, t->ws, 0);
    else
        scan_peer_run(t->peer, in, out, t->p->n);
}

// Version k or the peer (cl_version_measure): poisons the output, runs once on copy
// 0 and verifies every element, then times.
static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    (void)extra;
    timed_call *call = ctx;
    size_t n = call->p->n;
    call->launch = k == CL_PEER ? NULL : scan_versions[k].launch;
    cl_poison_device(call->out.base, call->out.pitch * call->out.copies);
    run_call(call, 0);
    CL_CUDA_CHECK(
        cudaMemcpy(call->host_out, call->out.base, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
    cl_compare c = cl_compare_i32(call->host_out, call->p->gold, n);
    cl_compare_report(k == CL_PEER ? "cub::DeviceScan::ExclusiveSum" : scan_versions[k].info.name,
                      c);
    return (cl_measured){.ms = cl_time_gpu(run_call, call, call->iters).median_ms, .ok = c.ok};
}

// Device memory: input and output copies, the versions' workspace, CUB's scratch.
static timed_call device_setup(const problem *p, int iters)
{
    size_t bytes = p->n * sizeof(int32_t);
    int copies = cl_rotation_count(2 * bytes);
    size_t need = 2 * (bytes + 256) * copies + 2 * bytes + scan_workspace_bytes(p->n);
    cl_require_device_memory(need, 2 * sizeof(int32_t) * copies + 6 * sizeof(int32_t));
    timed_call call = {.p = p,
                       .in = cl_rotating_alloc(bytes, copies),
                       .out = cl_rotating_alloc(bytes, copies),
                       .iters = iters};
    cl_rotating_upload(&call.in, p->in, bytes);
    call.host_out = cl_host_alloc(bytes, "output");
    call.ws = scan_workspace_create(p->n);
    call.peer = scan_peer_create(p->n);
    return call;
}

static void device_free(timed_call *call)
{
    cl_rotating_free(&call->in);
    cl_rotating_free(&call->out);
    free(call->host_out);
    scan_workspace_destroy(call->ws);
    scan_peer_destroy(call->peer);
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(scan_versions, scan_version_count, scan_fastest_version);
}

static bool run_versions(const problem *p, const options *opt)
{
    timed_call call = device_setup(p, (int)opt->common.iters);
    cl_note("\n%zu elements (%.1f MB read + written per call), input rand %% 10, timed over %d "
            "rotating copies; v6-bulk runs %s",
            p->n, 8.0 * p->n / 1e6, call.in.copies, cl_scan_bulk_path());
    bool ok = cl_run_ladder(&opt->common, versions(), "cub::DeviceScan::ExclusiveSum", p->n,
                            8.0 * p->n, NULL, 0, measure_version, &call);
    if (opt->common.dump) {
        cl_dump_npy(opt->common.dump, "input", "<i4", p->in, sizeof(int32_t), 1, &p->n);
        cl_dump_npy(opt->common.dump, "output", "<i4", call.host_out, sizeof(int32_t), 1, &p->n);
        cl_dump_npy(opt->common.dump, "gold", "<i4", p->gold, sizeof(int32_t), 1, &p->n);
    }
    device_free(&call);
    return ok;
}

static cl_check_point measure_size(void *ctx, size_t n, int k)
{
    const options *opt = ctx;
    problem p = make_problem(n, (uint64_t)opt->common.seed);
    timed_call call = device_setup(&p, (int)opt->common.iters);
    cl_check_point point = cl_check_pair(measure_version, &call, k, 8.0 * n);
    device_free(&call);
    free_problem(&p);
    return point;
}

static bool run_check_table(const options *opt)
{
    static const size_t sizes[] = {10000,    100000,   1000000,  2000000,
                                   10000000, 20000000, 40000000, 256000000};
    return cl_run_check_table(&opt->common, versions(), "cub::DeviceScan::ExclusiveSum", sizes,
                              opt->extended ? 8 : 4, 1.25, measure_size, (void *)opt);
}

// --- the recurrence -------------------------------------------------------------------

typedef struct {
    size_t n;
    const double *s, *u;
    double *v;
    const double *gold;
    double *host_v; // the last measured output (--dump)
    scan_workspace *ws;
    recurrence_peer *peer;
    bool run_peer; // the peer, or ours
    int iters;
} recurrence_call;

static void run_recurrence(void *ctx, int rep)
{
    (void)rep;
    const recurrence_call *c = ctx;
    if (c->run_peer)
        recurrence_peer_run(c->peer, c->s, c->u, c->v, c->n, 0);
    else
        recurrence_run(c->s, c->u, c->v, c->n, c->ws, 0);
}

static const cl_kernel_info recurrence_versions[] = {
    {"affine-map scan", "tile maps, a scan of the tile maps, then each element's value"}};
static const char recurrence_peer_name[] = "cub::DeviceScan::InclusiveScan";

// Ours (k = 0) or the peer: poisons v, runs once, checks every element, then times.
// Each v[i] is a sum of products of at most ~log2(n) rounded terms per level, all
// bounded by 10: an absolute tolerance of 1e-9 leaves room above double rounding
// (~1e-14) and is far below any wrong term (>= 1e-3 for these inputs).
static cl_measured measure_recurrence(void *ctx, int k, cl_cell *extra)
{
    recurrence_call *call = ctx;
    const size_t bytes = call->n * sizeof(double);
    call->run_peer = k == CL_PEER;
    cl_poison_device(call->v, bytes);
    run_recurrence(call, 0);
    CL_CUDA_CHECK(cudaMemcpy(call->host_v, call->v, bytes, cudaMemcpyDeviceToHost));
    cl_compare c = cl_compare_f64(call->host_v, call->gold, call->n, 0.0, 1e-9);
    cl_compare_report(k == CL_PEER ? recurrence_peer_name : recurrence_versions[0].name, c);
    extra[0] = CL_NUM(c.max_abs_err);
    return (cl_measured){.ms = cl_time_gpu(run_recurrence, call, call->iters).median_ms,
                         .ok = c.ok};
}

// |s| <= 0.9 and |u| <= 1 keep |v| <= 1 / (1 - 0.9) = 10.
static bool run_recurrence_op(const options *opt)
{
    size_t n = opt->common.n, bytes = n * sizeof(double);
    cl_require_host_memory(4 * bytes, 4 * sizeof(double));
    cl_require_device_memory(3 * bytes + scan_workspace_bytes(n), 3 * sizeof(double) + 12);
    double *s = cl_host_alloc(bytes, "s"), *u = cl_host_alloc(bytes, "u");
    double *gold = cl_host_alloc(bytes, "gold"), *got = cl_host_alloc(bytes, "v");
    uint64_t ks = cl_rng_key((uint64_t)opt->common.seed, 0),
             ku = cl_rng_key((uint64_t)opt->common.seed, 1);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        s[i] = -0.9 + 1.8 * cl_rng_uniform_f64(ks, i);
        u[i] = -1.0 + 2.0 * cl_rng_uniform_f64(ku, i);
    }
    recurrence_gold(s, u, gold, n);
    recurrence_call call = {.n = n,
                            .gold = gold,
                            .host_v = got,
                            .ws = scan_workspace_create(n),
                            .peer = recurrence_peer_create(n),
                            .iters = (int)opt->common.iters};
    double *ds, *du, *dv;
    CL_CUDA_CHECK(cudaMalloc((void **)&ds, bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&du, bytes));
    CL_CUDA_CHECK(cudaMalloc((void **)&dv, bytes));
    CL_CUDA_CHECK(cudaMemcpy(ds, s, bytes, cudaMemcpyHostToDevice));
    CL_CUDA_CHECK(cudaMemcpy(du, u, bytes, cudaMemcpyHostToDevice));
    call.s = ds;
    call.u = du;
    call.v = dv;
    static const cl_column columns[] = {{"max_abs_error", "max error", 10, "%.2e"}};
    cl_note("\nrecurrence v[i] = s[i] v[i-1] + u[i], %zu elements, s in [-0.9, 0.9], u in [-1, 1], "
            "tolerance 1e-9",
            n);
    cl_common_args one = opt->common; // -k names a scan version: the recurrence has one
    one.kernel_index = 0;
    const cl_kernel_list recurrence_list = cl_kernel_list_make(
        recurrence_versions, 1, sizeof recurrence_versions[0], recurrence_versions[0].name);
    const bool ok = cl_run_ladder(&one, recurrence_list, recurrence_peer_name, n, 3.0 * bytes,
                                  columns, 1, measure_recurrence, &call);
    if (opt->common.dump) {
        double *su = cl_host_alloc(2 * bytes, "dump");
        for (size_t i = 0; i < n; i++) {
            su[i] = s[i];
            su[n + i] = u[i];
        }
        size_t shape[2] = {2, n};
        cl_dump_npy(opt->common.dump, "input", "<f8", su, sizeof(double), 2, shape);
        cl_dump_npy(opt->common.dump, "output", "<f8", got, sizeof(double), 1, &n);
        cl_dump_npy(opt->common.dump, "gold", "<f8", gold, sizeof(double), 1, &n);
        free(su);
    }
    recurrence_peer_destroy(call.peer);
    scan_workspace_destroy(call.ws);
    CL_CUDA_CHECK(cudaFree(ds));
    CL_CUDA_CHECK(cudaFree(du));
    CL_CUDA_CHECK(cudaFree(dv));
    free(s);
    free(u);
    free(gold);
    free(got);
    return ok;
}

static int run(int argc, char **argv)
{
    options opt = {.op = OP_SUM};
    const cl_option own[] = {
        {0, "op", CL_ARG_CHOICE, &opt.op, "OP",
         "sum: exclusive prefix sum; recurrence: v[i] = s[i] v[i-1] + u[i] in double", 0, 0,
         op_names},
        {0, "extended", CL_ARG_FLAG, &opt.extended, NULL,
         "--check also at 10M, 20M, 40M and 256M elements", 0, 0, NULL},
        {0},
    };
    const cl_program prog = {
        .name = "scan",
        .summary = "Exclusive prefix sum of int32 (any n): Blelloch to a single-pass "
                   "decoupled look-back; cub::DeviceScan::ExclusiveSum as the peer.",
        .example = "scan -n 16M -k all",
        .n_default = 16000000,
        .n_min = 1,
        .n_max = 1000000000,
        .n_meaning = "elements",
        .n_column = "elements",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    if (opt.extended && !opt.common.check)
        cl_die(CL_EXIT_USAGE, "--extended adds sizes to --check's table; give it with --check");
    if (opt.op == OP_RECURRENCE && opt.common.check)
        cl_die(CL_EXIT_USAGE,
               "--op recurrence: --check scores the sum's versions; the recurrence has one "
               "version, timed against its peer without --check");
    if (opt.op == OP_RECURRENCE && opt.common.kernel)
        cl_die(CL_EXIT_USAGE,
               "--op recurrence: -k names a version of the sum; the recurrence has one version");
    cl_device_open((int)opt.common.device);
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;
    if (opt.op == OP_RECURRENCE)
        return run_recurrence_op(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    cl_require_host_memory(12 * opt.common.n, 12);
    problem p = make_problem(opt.common.n, (uint64_t)opt.common.seed);
    bool ok = run_versions(&p, &opt);
    free_problem(&p);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }

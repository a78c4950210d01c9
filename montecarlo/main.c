// montecarlo: the Oxford CUDA course's practical 2. (1) A digital option on two
// correlated assets priced over NPATH paths of N steps; every version's mean and
// standard error, checked statistically against a CPU pricer and the practical's
// figure. (2) --quadratic: the mean of a z^2 + b z + c over many normals, four ways.
//
// Order of a run: options; the model and the CPU pricer on up to --gold-paths paths;
// each selected version (or all) checked and timed (generation included), version 1
// (the practical's program) as the reference; the rate of curandGenerateNormal with
// Philox alone; --check prints the score table instead.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "montecarlo.h"

typedef struct {
    cl_common_args common;
    long steps;
    int generator;
    long chunks;
    size_t gold_paths;
    bool quadratic;
    size_t samples;
} options;

static const char *const generator_names[] = {"default", "philox", "mrg32k3a", NULL};
static const char peer_name[] = "v1 (practical 2's program)";

// --- the model and its CPU estimate -------------------------------------------------------

typedef struct {
    mc_model model;
    mc_estimate gold; // the CPU pricer
    double payoff_sd; // the payoffs' standard deviation, from the CPU pricer
    size_t gold_paths;
    double gold_ms;
} problem;

static problem make_problem(size_t npath, const options *opt)
{
    problem p = {.model = mc_model_practical(npath, (int)opt->steps, (uint64_t)opt->common.seed,
                                             opt->generator),
                 .gold_paths = opt->gold_paths};
    double sum, sum_sq, start = cl_wall_ms();
    mc_gold(&p.model, p.gold_paths, &sum, &sum_sq);
    p.gold_ms = cl_wall_ms() - start;
    p.gold = mc_estimate_from_sums(sum, sum_sq, p.gold_paths);
    p.payoff_sd = p.gold.se * sqrt((double)p.gold_paths);
    return p;
}

// The practical's figure holds for its model (100 steps); the path count only changes
// the standard error.
static bool practical_applies(const mc_model *m) { return m->nsteps == 100; }

// How many standard errors a version's mean lies from a reference estimate. The
// version's own standard error is the payoffs' standard deviation (known well from
// the CPU pricer's many paths) over sqrt(npath), so the check means the same at any
// path count, even one.
static double distance(const problem *p, double mean, mc_estimate reference)
{
    mc_estimate e = {mean, p->payoff_sd / sqrt((double)p->model.npath)};
    return mc_distance(e, reference);
}

// Wrong when more than WRONG_SIGMAS combined standard errors from the CPU pricer's
// mean or (for the practical's model) from the practical's figure. Not 3: a right
// version lands beyond 3 once in 370 comparisons, and a run of the tests makes
// hundreds; beyond 5 once in 1.7 million. A wrong model still fails by far (rho's
// sign flipped: ~80 standard errors at 960K paths). The 3-s.e. agreement the practical
// asks for is the 'vs prac' column.
enum { WRONG_SIGMAS = 5 };

static bool estimate_ok(const char *name, mc_estimate e, const problem *p)
{
    const mc_estimate practical = {MC_PRACTICAL_MEAN, MC_PRACTICAL_SE};
    double to_gold = distance(p, e.mean, p->gold);
    double to_practical = practical_applies(&p->model) ? distance(p, e.mean, practical) : 0.0;
    if (isfinite(e.mean) && to_gold <= WRONG_SIGMAS && to_practical <= WRONG_SIGMAS)
        return true;
    fprintf(stderr,
            "%s: %s: wrong result: mean %.8f +- %.8f is %.2f combined standard errors from the "
            "CPU pricer's %.8f +- %.8f and %.2f from the practical's %.8f +- %.8f (at most %d)\n",
            cl_progname, name, e.mean, e.se, to_gold, p->gold.mean, p->gold.se, to_practical,
            MC_PRACTICAL_MEAN, MC_PRACTICAL_SE, WRONG_SIGMAS);
    return false;
}

// --- one version: check once, then time ------------------------------------------------------

typedef struct {
    const problem *p;
    mc_workspace *ws;
    double *sums; // device: sum of payoffs, sum of squares
    mc_launcher launch;
    int iters;
    mc_estimate last; // the last checked estimate (--dump)
} timed_call;

static void run_call(void *ctx, int rep)
{
    (void)rep;
    const timed_call *t = ctx;
    t->launch(&t->p->model, t->ws, t->sums, 0);
}

// Version k, or for the peer version 1 (cl_version_measure): poisons the sums, prices
// once from a freshly seeded generator (so version 1 reproduces the practical's
// normals) and checks the estimate, then times (the generator runs on).
static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    timed_call *call = ctx;
    const mc_model *m = &call->p->model;
    int version = k == CL_PEER ? 0 : k;
    call->launch = mc_versions[version].launch;
    mc_workspace_reseed(call->ws);
    cl_poison_device(call->sums, 2 * sizeof(double));
    run_call(call, 0);
    double sums[2];
    CL_CUDA_CHECK(cudaMemcpy(sums, call->sums, sizeof sums, cudaMemcpyDeviceToHost));
    call->last = mc_estimate_from_sums(sums[0], sums[1], m->npath);
    bool ok = estimate_ok(k == CL_PEER ? peer_name : mc_versions[k].info.name, call->last, call->p);
    double ms = cl_time_gpu(run_call, call, call->iters).median_ms;
    if (extra) {
        double seconds = ms * 1e-3, normals = 2.0 * m->nsteps * (double)m->npath;
        extra[0] = CL_NUM((double)m->npath / seconds / 1e9);
        extra[1] = CL_NUM(normals / seconds / 1e9);
        extra[2] = CL_NUM(call->last.mean);
        extra[3] = CL_NUM(call->last.se);
        extra[4] = CL_NUM(distance(call->p, call->last.mean, call->p->gold));
        extra[5] = CL_NUM(practical_applies(m) && call->last.se > 0.0
                              ? fabs(call->last.mean - MC_PRACTICAL_MEAN) / call->last.se
                              : NAN);
    }
    return (cl_measured){.ms = ms, .ok = ok};
}

static timed_call device_setup(const problem *p, const options *opt)
{
    const mc_model *m = &p->model;
    size_t one_group = 128 * 2 * (size_t)m->nsteps * sizeof(float);
    cl_require_device_memory(mc_workspace_fixed_bytes(m) + one_group,
                             sizeof(float) + 48 /* a path's payoff and XORWOW state */);
    timed_call call = {
        .p = p, .ws = mc_workspace_create(m, (int)opt->chunks), .iters = (int)opt->common.iters};
    CL_CUDA_CHECK(cudaMalloc((void **)&call.sums, 2 * sizeof(double)));
    return call;
}

static void device_free(timed_call *call)
{
    mc_workspace_destroy(call->ws);
    CL_CUDA_CHECK(cudaFree(call->sums));
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(mc_versions, mc_version_count, mc_fastest_version);
}

static const cl_column estimate_columns[] = {
    {"gpaths_per_s", "Gpaths/s", 8, "%.3f"},
    {"gnormals_per_s", "Gnorm/s", 8, "%.1f"},
    {"mean", "mean", 11, "%.8f"},
    {"std_error", "s.e.", 11, "%.8f"},
    {"se_from_cpu", "vs CPU", 7, "%.2f"},
    {"own_se_from_practical", "vs prac", 7, "%.2f"},
};

// The parts of the ladder's work alone: v1's and v2's path kernels over normals
// already made (the coalesced/strided gap without the generator's time), and
// curandGenerateNormal with Philox making the normals into memory, nothing else (the
// rate the fused version must beat).
typedef struct {
    const mc_model *model;
    mc_workspace *ws;
    int part; // 0, 1: the path kernel, coalesced or strided; 2: Philox alone
} part_call;

static void run_part(void *ctx, int rep)
{
    (void)rep;
    const part_call *c = ctx;
    if (c->part == 2)
        mc_philox_generate_only(c->model, c->ws);
    else
        mc_path_kernel_only(c->model, c->ws, c->part == 0);
}

static void run_parts(const timed_call *call)
{
    static const cl_column columns[] = {
        {"part", "the parts alone", 40, NULL},    {"paths", "paths", 11, NULL},
        {"time_ms", "time ms", 9, "%.4f"},        {"gbps", "GB/s", 7, "%.0f"},
        {"gnormals_per_s", "Gnorm/s", 8, "%.1f"},
    };
    static const cl_table table = {"parts", columns, 5};
    static const char *const names[] = {"v1's path kernel, normals made (coalesced)",
                                        "v2's path kernel, normals made (strided)",
                                        "curandGenerateNormal, Philox4_32_10"};
    const mc_model *m = &call->p->model;
    part_call c = {m, call->ws, 0};
    // The normals the path kernels read: the first chunk's, from the first call of v1.
    mc_workspace_reseed(call->ws);
    mc_versions[0].launch(m, call->ws, call->sums, 0);
    cl_table_header(&table);
    for (c.part = 0; c.part < 3; c.part++) {
        size_t chunk = mc_workspace_chunk_paths(call->ws);
        size_t paths = c.part == 2 || m->npath < chunk ? m->npath : chunk;
        double ms = cl_time_gpu(run_part, &c, call->iters).median_ms;
        double normals = 2.0 * m->nsteps * (double)paths, seconds = ms * 1e-3;
        cl_table_row(&table, (cl_cell[]){CL_STR(names[c.part]), CL_INT(paths), CL_NUM(ms),
                                         CL_NUM(4.0 * normals / seconds / 1e9),
                                         CL_NUM(normals / seconds / 1e9)});
    }
}

static bool run_versions(const problem *p, const options *opt, mc_estimate *output)
{
    const mc_model *m = &p->model;
    timed_call call = device_setup(p, opt);
    char blocks[256];
    mc_workspace_describe_blocks(call.ws, blocks, sizeof blocks);
    cl_note("\n%zu paths x %d steps (%.3g normals), generator %s, seed %ld; normals of the "
            "host API versions made in %d chunk(s) of %zu paths",
            m->npath, m->nsteps, 2.0 * m->nsteps * (double)m->npath,
            generator_names[opt->generator], opt->common.seed, mc_workspace_chunks(call.ws),
            mc_workspace_chunk_paths(call.ws));
    cl_note("%s", blocks);
    cl_note("CPU pricer (double, OpenMP) on %zu paths: %.8f +- %.8f (%.0f ms); the practical: "
            "%.8f +- %.8f%s",
            p->gold_paths, p->gold.mean, p->gold.se, p->gold_ms, MC_PRACTICAL_MEAN, MC_PRACTICAL_SE,
            practical_applies(m) ? "" : " (another model: not compared)");
    cl_note("checked: within %d combined standard errors of both (a version's from the payoffs' "
            "s.d. %.4f); 'vs CPU' is that distance, 'vs prac' the distance from the practical's "
            "mean in the version's own s.e. (the practical asks for at most 3)",
            WRONG_SIGMAS, p->payoff_sd);
    bool ok = cl_run_ladder(&opt->common, versions(), peer_name, m->npath, NAN, estimate_columns, 6,
                            measure_version, &call);
    *output = call.last;
    run_parts(&call);
    device_free(&call);
    return ok;
}

// --- --check: the score table ---------------------------------------------------------------

typedef struct {
    const options *opt;
    const problem *base; // the model and its CPU estimate, the same at every size
} check_context;

static cl_check_point measure_size(void *ctx, size_t n, int k)
{
    const check_context *c = ctx;
    problem p = *c->base;
    p.model.npath = n;
    timed_call call = device_setup(&p, c->opt);
    cl_check_point point = cl_check_pair(measure_version, &call, k, 0); // a rate of paths
    device_free(&call);
    return point;
}

static bool run_check_table(const options *opt)
{
    static const size_t sizes[] = {960000, 9600000, 96000000};
    problem base = make_problem(sizes[0], opt);
    check_context c = {opt, &base};
    return cl_run_check_table(&opt->common, versions(), peer_name, sizes, 3, 1.0, measure_size, &c);
}

// --- --quadratic ------------------------------------------------------------------------------

typedef struct {
    quadratic_method run;
    const float *z;
    size_t n;
    float a, b, c;
    quadratic_workspace *ws;
} quadratic_call;

static void run_quadratic_call(void *ctx, int rep)
{
    (void)rep;
    const quadratic_call *q = ctx;
    double sums[2];
    q->run(q->z, q->n, q->a, q->b, q->c, q->ws, sums);
}

static bool run_quadratic(const options *opt)
{
    size_t n = opt->samples, bytes = n * sizeof(float);
    cl_require_host_memory(bytes, sizeof(float));
    cl_require_device_memory(bytes + 64 * 1024 * 1024, sizeof(float));
    quadratic_call call = {.n = n, .a = 1.0f, .b = 2.0f, .c = 3.0f};
    // E z^2 = 1, E z = 0; Var z^2 = 2, Cov(z^2, z) = 0: the mean and s.e. are known.
    const double expected = call.a + call.c;
    const double known_se = sqrt((2.0 * call.a * call.a + call.b * call.b) / (double)n);
    float *z;
    CL_CUDA_CHECK(cudaMalloc((void **)&z, bytes));
    quadratic_normals(z, n, (uint64_t)opt->common.seed, opt->generator);
    call.z = z;
    call.ws = quadratic_workspace_create(n);
    float *host_z = cl_host_alloc(bytes, "normals");
    CL_CUDA_CHECK(cudaMemcpy(host_z, z, bytes, cudaMemcpyDeviceToHost));
    cl_note("\nmean of %g z^2 + %g z + %g over %zu normals (generator %s): expect %g +- %.3g; "
            "checked: within %d of those s.e. and the sums within 1e-9 of the CPU's",
            call.a, call.b, call.c, n, generator_names[opt->generator], expected, known_se,
            WRONG_SIGMAS);

    static const cl_column columns[] = {
        {"method", "method", 36, NULL},           {"time_ms", "time ms", 9, "%.4f"},
        {"gsamples_per_s", "Gsamp/s", 8, "%.1f"}, {"mean", "mean", 12, "%.8f"},
        {"std_error", "s.e.", 11, "%.8f"},        {"known_se_from_expected", "vs a+c", 7, "%.2f"},
        {"verified", "verified", 8, NULL},
    };
    static const cl_table table = {"quadratic", columns, 7};
    static const struct {
        const char *name;
        quadratic_method run; // NULL: the CPU
    } methods[] = {
        {"per-block partials, summed on host", quadratic_partials},
        {"double atomicAdd, one pair a block", quadratic_atomic},
        {"thrust::transform_reduce", quadratic_thrust},
        {"CPU, OpenMP (the copy not timed)", NULL},
    };
    double cpu_sums[2], start = cl_wall_ms();
    quadratic_cpu(host_z, n, call.a, call.b, call.c, cpu_sums);
    double cpu_ms = cl_wall_ms() - start;
    mc_estimate estimates[4];
    bool all_ok = true;
    cl_table_header(&table);
    for (int i = 0; i < 4; i++) {
        double sums[2] = {cpu_sums[0], cpu_sums[1]}, ms = cpu_ms;
        if (methods[i].run) {
            call.run = methods[i].run;
            sums[0] = sums[1] = NAN;
            call.run(z, n, call.a, call.b, call.c, call.ws, sums);
            ms = cl_time_gpu(run_quadratic_call, &call, (int)opt->common.iters).median_ms;
        }
        mc_estimate e = estimates[i] = mc_estimate_from_sums(sums[0], sums[1], n);
        double from_expected = fabs(e.mean - expected) / known_se;
        bool ok = isfinite(e.mean) && from_expected <= WRONG_SIGMAS &&
                  fabs(sums[0] - cpu_sums[0]) <= 1e-9 * fabs(cpu_sums[0]) &&
                  fabs(sums[1] - cpu_sums[1]) <= 1e-9 * fabs(cpu_sums[1]);
        if (!ok)
            fprintf(stderr,
                    "%s: %s: wrong result: mean %.8f +- %.8f (%.2f s.e. from %g), sums %.17g "
                    "%.17g against the CPU's %.17g %.17g\n",
                    cl_progname, methods[i].name, e.mean, e.se, from_expected, expected, sums[0],
                    sums[1], cpu_sums[0], cpu_sums[1]);
        all_ok = all_ok && ok;
        cl_table_row(&table, (cl_cell[]){CL_STR(methods[i].name), CL_NUM(ms),
                                         CL_NUM((double)n / (ms * 1e-3) / 1e9), CL_NUM(e.mean),
                                         CL_NUM(e.se), CL_NUM(from_expected), CL_BOOL(ok)});
    }
    if (opt->common.dump) { // output: thrust's estimate; gold: the CPU's
        double input[4] = {call.a, call.b, call.c, (double)n};
        double output[2] = {estimates[2].mean, estimates[2].se};
        double gold[2] = {estimates[3].mean, estimates[3].se};
        size_t four = 4, two = 2;
        cl_dump_npy(opt->common.dump, "input", "<f8", input, sizeof(double), 1, &four);
        cl_dump_npy(opt->common.dump, "output", "<f8", output, sizeof(double), 1, &two);
        cl_dump_npy(opt->common.dump, "gold", "<f8", gold, sizeof(double), 1, &two);
    }
    quadratic_workspace_destroy(call.ws);
    free(host_z);
    CL_CUDA_CHECK(cudaFree(z));
    return all_ok;
}

static int run(int argc, char **argv)
{
    options opt = {
        .steps = 100, .generator = MC_GEN_DEFAULT, .gold_paths = 1000000, .samples = 1280000000};
    const cl_option own[] = {
        {0, "steps", CL_ARG_INT, &opt.steps, "N", "time steps a path (the practical's: 100)", 1,
         100000, NULL},
        {0, "generator", CL_ARG_CHOICE, &opt.generator, "GEN",
         "host API generator of v1, v2 and --quadratic (default: cuRAND's default, XORWOW, as the "
         "practical)",
         0, 0, generator_names},
        {0, "chunks", CL_ARG_INT, &opt.chunks, "K",
         "make v1/v2's normals in at least K chunks of paths (0: only as memory requires)", 0,
         1000000, NULL},
        {0, "gold-paths", CL_ARG_SIZE, &opt.gold_paths, "P",
         "paths of the CPU pricer the versions are checked against", 1000, 1e9, NULL},
        {0, "quadratic", CL_ARG_FLAG, &opt.quadratic, NULL,
         "instead: the mean of z^2 + 2z + 3 over --samples normals, four ways", 0, 0, NULL},
        {0, "samples", CL_ARG_SIZE, &opt.samples, "S",
         "normals of --quadratic (the practical's: 1.28M x 1000)", 1, 4e9, NULL},
        {0},
    };
    const cl_program prog = {
        .name = "montecarlo",
        .summary = "Monte Carlo pricing of a digital option on two correlated assets (Oxford "
                   "practical 2): cuRAND's host API up to a fused Philox kernel.",
        .example = "montecarlo -k all",
        .n_default = 9600000,
        .n_min = 1,
        .n_max = 10000000000,
        .n_meaning = "paths",
        .n_column = "paths",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    cl_device_open((int)opt.common.device);
    if (opt.quadratic)
        return run_quadratic(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    problem p = make_problem(opt.common.n, &opt);
    mc_estimate output = {NAN, NAN};
    bool ok = run_versions(&p, &opt, &output);
    if (opt.common.dump) {
        const mc_model *m = &p.model;
        double input[6] = {m->T, m->r, m->sigma, m->rho, (double)m->npath, m->nsteps};
        double gold[2] = {p.gold.mean, p.gold.se}, result[2] = {output.mean, output.se};
        size_t six = 6, two = 2;
        cl_dump_npy(opt.common.dump, "input", "<f8", input, sizeof(double), 1, &six);
        cl_dump_npy(opt.common.dump, "output", "<f8", result, sizeof(double), 1, &two);
        cl_dump_npy(opt.common.dump, "gold", "<f8", gold, sizeof(double), 1, &two);
    }
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }

// matmul: C = alpha*A*B + beta*C, row-major, the Oxford course's practical 5 (simpleCUBLAS)
// made a ladder: fp32 on the CUDA cores, tf32 / bf16 / fp16 on the tensor cores.
//
// Order of a run: options; the inputs (uniform in [-1, 1], rounded to the precision) and
// the checks every result faces: element by element against a reference computed in double
// on the GPU (reference.cu; itself checked against the CPU gold where that is quick, m n k
// <= 2^31), and past that also Freivalds' check on the CPU; each selected version and the
// cuBLAS peer verified, then timed; or --check's score table.
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "matmul.h"

enum { FREIVALDS_VECTORS = 4 };
static const double gold_limit = 2147483648.0; // m n k past this: no CPU gold, Freivalds'

typedef struct {
    cl_common_args common; // -n: N, and M and K unless --m, --k say otherwise
    int precision;
    size_t m, k; // 0: as -n
    double alpha, beta;
} options;

typedef struct {
    int m, n, k;
    matmul_precision precision;
    double alpha, beta;
    uint64_t seed;
    float *a, *b;        // the inputs as the GPU reads them (rounded to bf16/fp16), as floats
    void *a_mem, *b_mem; // the bytes to upload: a and b themselves, or 16-bit words
    float *c0;           // C before the multiply (beta != 0), else NULL
    double *gold, *tol;  // the CPU gold and each element's allowed error; NULL past gold_limit
} problem;

static size_t elements(size_t rows, size_t cols) { return rows * cols; }

// --- input and the check ---------------------------------------------------------

// Host bytes a problem takes: A and B as floats (and as 16-bit words), C0, the result
// read back, and the gold with its tolerances when there is one.
static double host_bytes(size_t m, size_t n, size_t k, matmul_precision p, bool gold, bool beta)
{
    const double inputs = (double)(m * k + k * n);
    return inputs * (4.0 + (matmul_element_bytes(p) == 2 ? 2.0 : 0.0)) +
           (beta ? 4.0 : 0.0) * m * n + 4.0 * m * n + (gold ? 16.0 * m * n : 0.0);
}

// Fills `count` inputs uniform in [-1, 1) and rounds them to the precision, keeping the
// rounded values as floats for the CPU and the words for the GPU.
static void make_input(float *values, void **words, size_t count, matmul_precision p, uint64_t key)
{
    cl_fill_uniform_f32(values, count, key, -1.0f, 1.0f);
    if (matmul_element_bytes(p) == 4) {
        *words = values;
        return;
    }
    uint16_t *w = cl_host_alloc(count * sizeof(uint16_t), "inputs");
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < count; i++) {
        w[i] = p == MATMUL_BF16 ? matmul_float_to_bf16(values[i]) : matmul_float_to_fp16(values[i]);
        values[i] = p == MATMUL_BF16 ? matmul_bf16_to_float(w[i]) : matmul_fp16_to_float(w[i]);
    }
    *words = w;
}

static problem make_problem(int m, int n, int k, matmul_precision p, double alpha, double beta,
                            uint64_t seed)
{
    problem pr = {
        .m = m, .n = n, .k = k, .precision = p, .alpha = alpha, .beta = beta, .seed = seed};
    const bool gold = (double)m * n * k <= gold_limit;
    cl_require_host_memory((size_t)host_bytes(m, n, k, p, gold, beta != 0.0), 0);
    pr.a = cl_host_alloc(elements(m, k) * sizeof(float), "A");
    pr.b = cl_host_alloc(elements(k, n) * sizeof(float), "B");
    make_input(pr.a, &pr.a_mem, elements(m, k), p, cl_rng_key(seed, 0));
    make_input(pr.b, &pr.b_mem, elements(k, n), p, cl_rng_key(seed, 1));
    if (beta != 0.0) {
        pr.c0 = cl_host_alloc(elements(m, n) * sizeof(float), "C0");
        cl_fill_uniform_f32(pr.c0, elements(m, n), cl_rng_key(seed, 2), -1.0f, 1.0f);
    }
    if (gold) {
        pr.gold = cl_host_alloc(elements(m, n) * sizeof(double), "gold");
        pr.tol = cl_host_alloc(elements(m, n) * sizeof(double), "tolerances");
        matmul_gold(m, n, k, alpha, pr.a, pr.b, beta, pr.c0, matmul_roundoff_of(p, false), pr.gold,
                    pr.tol);
    }
    return pr;
}

static void free_problem(problem *pr)
{
    if (pr->a_mem != pr->a)
        free(pr->a_mem);
    if (pr->b_mem != pr->b)
        free(pr->b_mem);
    free(pr->a);
    free(pr->b);
    free(pr->c0);
    free(pr->gold);
    free(pr->tol);
}

// --- device data: copies of A, B, C rotated so timed runs read DRAM, not L2 ---------

typedef struct {
    cl_rotating a, b, c;
    void *workspace; // the scratch the versions to run need at most (v9: padded copies)
    size_t workspace_bytes;
    matmul_reference ref; // C in double, what every result is checked against
} device_data;

// Why version k cannot run on this GPU in this build, or NULL.
static const char *refusal(int k)
{
    const cl_device_info *dev = cl_device_current();
    return matmul_versions[k].hopper_only
               ? matmul_hopper_refusal(dev->cc_major, dev->cc_minor, matmul_v9_built)
               : NULL;
}

static bool runs_precision(int k, matmul_precision p)
{
    return (matmul_versions[k].precisions & MATMUL_BIT(p)) != 0;
}

// The most scratch any version that can run the precision here asks for at these sizes.
static size_t workspace_bytes(size_t m, size_t n, size_t k, matmul_precision p)
{
    const matmul_args args = {.m = (int)m, .n = (int)n, .k = (int)k, .precision = p};
    size_t most = 0;
    for (int v = 0; v < matmul_version_count; v++)
        if (runs_precision(v, p) && !refusal(v) && matmul_versions[v].workspace) {
            const size_t bytes = matmul_versions[v].workspace(&args);
            most = bytes > most ? bytes : most;
        }
    return most;
}

static size_t device_bytes(size_t m, size_t n, size_t k, matmul_precision p, int copies)
{
    const size_t elem = matmul_element_bytes(p);
    return copies * ((m * k + k * n) * elem + m * n * sizeof(float) + 3 * 256) +
           workspace_bytes(m, n, k, p) + matmul_reference_bytes(m, n);
}

// The GPU reference against the CPU gold, element by element, in pieces of 1M: the same
// sums in double in the same order of l (to a few ulps of the FMA contractions either side
// may make), the same allowance to a float's precision. Ends the run (exit 1) when they
// disagree: every check after would be judged by a wrong reference.
static void check_reference(const problem *pr, const matmul_reference *ref)
{
    enum { PIECE = 1 << 20 };
    double *want = cl_host_alloc(PIECE * sizeof(double), "reference");
    float *spread = cl_host_alloc(PIECE * sizeof(float), "reference");
    for (size_t at = 0; at < ref->count; at += PIECE) {
        const size_t count = ref->count - at < PIECE ? ref->count - at : PIECE;
        CL_CUDA_CHECK(
            cudaMemcpy(want, ref->want + at, count * sizeof(double), cudaMemcpyDeviceToHost));
        CL_CUDA_CHECK(
            cudaMemcpy(spread, ref->spread + at, count * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t e = 0; e < count; e++) {
            const double tol = pr->tol[at + e];
            if (fabs(want[e] - pr->gold[at + e]) <= 1e-6 * tol &&
                fabs(spread[e] - tol) <= 1e-6 * tol)
                continue;
            cl_die(CL_EXIT_WRONG,
                   "the GPU reference disagrees with the CPU gold at element %zu of %zu: %.17g "
                   "allowing %.9g, the gold %.17g allowing %.9g",
                   at + e, ref->count, want[e], spread[e], pr->gold[at + e], tol);
        }
    }
    free(want);
    free(spread);
}

static device_data upload(const problem *pr)
{
    const size_t elem = matmul_element_bytes(pr->precision);
    const size_t a_bytes = elements(pr->m, pr->k) * elem, b_bytes = elements(pr->k, pr->n) * elem;
    const size_t c_bytes = elements(pr->m, pr->n) * sizeof(float);
    const int copies = cl_rotation_count(a_bytes + b_bytes + c_bytes);
    cl_require_device_memory(device_bytes(pr->m, pr->n, pr->k, pr->precision, copies), 0);
    device_data d;
    d.a = cl_rotating_alloc(a_bytes, copies);
    d.b = cl_rotating_alloc(b_bytes, copies);
    d.c = cl_rotating_alloc(c_bytes, copies);
    d.workspace_bytes = workspace_bytes(pr->m, pr->n, pr->k, pr->precision);
    d.workspace = NULL;
    if (d.workspace_bytes) {
        CL_CUDA_CHECK(cudaMalloc(&d.workspace, d.workspace_bytes));
    }
    cl_rotating_upload(&d.a, pr->a_mem, a_bytes);
    cl_rotating_upload(&d.b, pr->b_mem, b_bytes);
    if (pr->c0)
        cl_rotating_upload(&d.c, pr->c0, c_bytes);
    d.ref = matmul_reference_compute(&(matmul_args){.m = pr->m,
                                                    .n = pr->n,
                                                    .k = pr->k,
                                                    .alpha = (float)pr->alpha,
                                                    .beta = (float)pr->beta,
                                                    .precision = pr->precision,
                                                    .a = cl_rotating_at(&d.a, 0),
                                                    .b = cl_rotating_at(&d.b, 0),
                                                    .c = cl_rotating_at(&d.c, 0)},
                                     matmul_roundoff_of(pr->precision, false));
    if (pr->gold)
        check_reference(pr, &d.ref);
    return d;
}

static void free_device_data(device_data *d)
{
    cl_rotating_free(&d->a);
    cl_rotating_free(&d->b);
    cl_rotating_free(&d->c);
    CL_CUDA_CHECK(cudaFree(d->workspace));
    matmul_reference_free(&d->ref);
}

// --- the check every result faces ---------------------------------------------------------

// With CUDALAB_INJECT_FAULT set, element m n / 2 of the device result is moved first (the
// tests' wrong result): by one, or (=term) by one typical product |alpha a b| = |alpha| / 4
// of inputs uniform in [-1, 1), as if one product of its sum were dropped.
static void inject_fault(const problem *pr, float *c)
{
    const size_t at = cl_fault_index(elements(pr->m, pr->n));
    if (at == SIZE_MAX)
        return;
    float x;
    CL_CUDA_CHECK(cudaMemcpy(&x, c + at, sizeof x, cudaMemcpyDeviceToHost));
    x += (float)cl_fault_size(fabs(pr->alpha) / 4.0);
    CL_CUDA_CHECK(cudaMemcpy(c + at, &x, sizeof x, cudaMemcpyHostToDevice));
}

// Checks a result on the device against the reference, element by element, and, past the
// CPU gold's sizes, its copy read back into host_c by Freivalds' check too (a second,
// independent check). Returns the worst error over the allowed one (<= 1 passes), having
// printed why when it fails.
static double check_result(const problem *pr, const device_data *d, float *host_c,
                           bool tf32_truncates, const char *what)
{
    float *c = cl_rotating_at(&d->c, 0); // the copy verified
    inject_fault(pr, c);
    const matmul_roundoff r = matmul_roundoff_of(pr->precision, tf32_truncates);
    const cl_compare cmp = matmul_reference_compare(&d->ref, c, r.input_bias);
    cl_compare_report(what, cmp);
    CL_CUDA_CHECK(
        cudaMemcpy(host_c, c, elements(pr->m, pr->n) * sizeof(float), cudaMemcpyDeviceToHost));
    if (pr->gold)
        return cmp.max_err_over_tol;
    long row;
    double err, tol;
    const double worst =
        matmul_freivalds(pr->m, pr->n, pr->k, pr->alpha, pr->a, pr->b, pr->beta, pr->c0, host_c, r,
                         FREIVALDS_VECTORS, pr->seed, &row, &err, &tol);
    if (!(worst <= 1.0))
        fprintf(stderr,
                "%s: %s: wrong result: Freivalds' check, row %ld of %d: C x is %g from "
                "alpha A (B x) + beta C0 x, %g allowed (%d vectors x of random +-1)\n",
                cl_progname, what, row, pr->m, err, tol, FREIVALDS_VECTORS);
    return isnan(worst) || worst > cmp.max_err_over_tol ? worst : cmp.max_err_over_tol;
}

// --- one version or the peer: verify once, then time ---------------------------------

typedef struct {
    const problem *pr;
    const device_data *d;
    matmul_peer *peer;
    int version; // CL_PEER: the peer
    int iters;
    float *result; // the last result verified, for --dump
} timed_call;

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    const problem *pr = t->pr;
    const matmul_args args = {.m = pr->m,
                              .n = pr->n,
                              .k = pr->k,
                              .alpha = (float)pr->alpha,
                              .beta = (float)pr->beta,
                              .precision = pr->precision,
                              .a = cl_rotating_at(&t->d->a, rep),
                              .b = cl_rotating_at(&t->d->b, rep),
                              .c = cl_rotating_at(&t->d->c, rep),
                              .workspace = t->d->workspace,
                              .workspace_bytes = t->d->workspace_bytes};
    if (t->version == CL_PEER)
        matmul_peer_run(t->peer, &args);
    else
        matmul_versions[t->version].launch(&args, 0);
}

static const cl_column extra_columns[] = {
    {"shape", "m x n x k", 16, NULL},
    {"intensity", "flop/B", 6, "%.3g"},
    {"err_over_tol", "err/allowed", 11, "%.3f"},
};

// Arithmetic intensity of version k's tiles: a BM x BN tile loads BM + BN elements of A
// and B for each k and does 2 BM BN flops with them, so 2 BM BN / (elem (BM + BN)) flops
// a byte read from L2 or DRAM (C aside). NaN for the peer and for unknown tiles.
static double tile_intensity(int k, matmul_precision p)
{
    if (k < 0 || matmul_versions[k].tile.m == 0)
        return NAN;
    const double bm = matmul_versions[k].tile.m, bn = matmul_versions[k].tile.n;
    return 2.0 * bm * bn / ((double)matmul_element_bytes(p) * (bm + bn));
}

// Version k or the peer (cl_version_measure): C poisoned (or C0 restored), one run on
// copy 0 checked, then every copy timed in turn.
static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    timed_call *call = ctx;
    const problem *pr = call->pr;
    if (k >= 0 && (!runs_precision(k, pr->precision) || refusal(k)))
        return (cl_measured){.skipped = true};
    call->version = k;
    const cl_rotating *c = &call->d->c;
    const size_t c_bytes = elements(pr->m, pr->n) * sizeof(float);
    if (pr->c0)
        cl_rotating_upload(c, pr->c0, c_bytes);
    else
        cl_poison_device(c->base, c->pitch * c->copies);
    // Split-K's tickets start at zero (each run's last piece sets them back); the version
    // before may have copied padded operands where this one keeps them.
    if (call->d->workspace)
        CL_CUDA_CHECK(cudaMemset(call->d->workspace, 0, call->d->workspace_bytes));
    run_call(call, 0);
    const double worst =
        check_result(pr, call->d, call->result, k >= 0 && matmul_versions[k].tf32_truncates,
                     k == CL_PEER ? matmul_peer_name(pr->precision) : matmul_versions[k].info.name);
    cl_measured m = {.ok = worst <= 1.0};
    m.ms = cl_time_gpu(run_call, call, call->iters).median_ms;
    if (extra) {
        static char shape[48];
        snprintf(shape, sizeof shape, "%dx%dx%d", pr->m, pr->n, pr->k);
        extra[0] = CL_STR(shape);
        extra[1] = CL_NUM(tile_intensity(k, pr->precision));
        extra[2] = CL_NUM(worst);
    }
    return m;
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(matmul_versions, matmul_version_count, matmul_fastest_version);
}

static int version_named(const char *name)
{
    for (int k = 0; k < matmul_version_count; k++)
        if (strcmp(matmul_versions[k].info.name, name) == 0)
            return k;
    cl_die(CL_EXIT_CUDA, "no version named %s in matmul's table", name);
}

// --- the GPU's peak -------------------------------------------------------------------

// Dense TFLOPS of the precision, and where the figure comes from. H100 SXM and H200 (132
// SMs of compute capability 9.0) from NVIDIA's datasheets; other GPUs of 8.0 and 9.0
// from SMs x boost clock x the SM's flops a clock; NaN elsewhere.
static double peak_tflops(matmul_precision p, const char **source)
{
    const cl_device_info *d = cl_device_current();
    const int cc = d->cc_major * 10 + d->cc_minor;
    static const double datasheet[MATMUL_PRECISIONS] = {66.9, 494.7, 989.4, 989.4};
    if (cc == 90 && d->sm_count == 132) {
        *source = "NVIDIA's H100 SXM / H200 datasheet, dense";
        return datasheet[p];
    }
    // Flops a clock an SM: fp32 2 x 64 lanes (8.0) or 2 x 128 (9.0); fp16 and bf16 on the
    // tensor cores 2048 (8.0) or 4096 (9.0), tf32 half that.
    const double fp32 = cc == 80 ? 128 : 256, fp16 = cc == 80 ? 2048 : 4096;
    const double per_clock = p == MATMUL_FP32 ? fp32 : p == MATMUL_TF32 ? fp16 / 2 : fp16;
    int khz = 0;
    if ((cc != 80 && cc != 90) || cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d->index)) {
        *source = "not known for this GPU";
        return NAN;
    }
    *source = "SMs x boost clock x the SM's dense flops a clock";
    return d->sm_count * (khz * 1e3) * per_clock / 1e12;
}

static cl_rate flops_rate(matmul_precision p)
{
    const char *source;
    const double peak = peak_tflops(p, &source);
    cl_note("%% peak: of %.1f TFLOPS %s (%s)", peak, matmul_precision_names[p], source);
    return (cl_rate){.rate = {"tflops", "TFLOPS", 7, "%.1f"},
                     .percent = {"pct_peak", "% peak", 6, "%.0f"},
                     .unit = 1e12,
                     .peak = peak,
                     .peer_column = true};
}

// --- the ladder -----------------------------------------------------------------------

static bool run_kernels(const problem *pr, const options *opt)
{
    device_data d = upload(pr);
    timed_call call = {
        .pr = pr, .d = &d, .peer = matmul_peer_create(), .iters = (int)opt->common.iters};
    call.result = cl_host_alloc(elements(pr->m, pr->n) * sizeof(float), "C");
    const matmul_precision p = pr->precision;
    cl_note("\nC = %g A B + %g C, %s, row-major, m x n x k = %d x %d x %d (%.3g GFLOP), inputs "
            "uniform in [-1, 1), timed over %d rotating copies; checked %s",
            pr->alpha, pr->beta, matmul_precision_names[p], pr->m, pr->n, pr->k,
            2.0 * pr->m * pr->n * pr->k / 1e9, d.a.copies,
            pr->gold ? "element by element against C in double on the GPU, itself checked "
                       "against the CPU gold"
                     : "element by element against C in double on the GPU, and by Freivalds' "
                       "check on the CPU");
    if (opt->common.kernel_index < 0)
        cl_note("%s runs on %s; the versions that do not are left out", matmul_precision_names[p],
                p == MATMUL_FP32 ? "the CUDA cores" : "the tensor cores");
    const cl_rate rate = flops_rate(p);
    bool ok = cl_run_ladder_rated(&opt->common, versions(), matmul_peer_name(p), (size_t)pr->n,
                                  2.0 * pr->m * pr->n * pr->k, &rate, extra_columns, 3,
                                  measure_version, &call);
    if (opt->common.dump) {
        size_t a_shape[2] = {pr->m, pr->k}, b_shape[2] = {pr->k, pr->n},
               c_shape[2] = {pr->m, pr->n};
        cl_dump_npy(opt->common.dump, "input", "<f4", pr->a, sizeof(float), 2, a_shape);
        cl_dump_npy(opt->common.dump, "input_b", "<f4", pr->b, sizeof(float), 2, b_shape);
        cl_dump_npy(opt->common.dump, "output", "<f4", call.result, sizeof(float), 2, c_shape);
        double *gold = cl_host_alloc(elements(pr->m, pr->n) * sizeof(double), "gold");
        CL_CUDA_CHECK(cudaMemcpy(gold, d.ref.want, elements(pr->m, pr->n) * sizeof(double),
                                 cudaMemcpyDeviceToHost));
        cl_dump_npy(opt->common.dump, "gold", "<f8", gold, sizeof(double), 2, c_shape);
        free(gold);
    }
    free(call.result);
    matmul_peer_destroy(call.peer);
    free_device_data(&d);
    return ok;
}

// --- --check: the score table -----------------------------------------------------------

typedef struct {
    const options *opt;
    matmul_peer *peer;
} check_context;

static cl_check_point measure_size(void *ctx, size_t n, int k)
{
    const check_context *cc = ctx;
    const options *opt = cc->opt;
    problem pr = make_problem((int)n, (int)n, (int)n, (matmul_precision)opt->precision, opt->alpha,
                              opt->beta, (uint64_t)opt->common.seed);
    device_data d = upload(&pr);
    timed_call call = {.pr = &pr, .d = &d, .peer = cc->peer, .iters = (int)opt->common.iters};
    call.result = cl_host_alloc(elements(n, n) * sizeof(float), "C");
    cl_check_point point = cl_check_pair(measure_version, &call, k, 0);
    free(call.result);
    free_device_data(&d);
    free_problem(&pr);
    return point;
}

static bool run_check_table(const options *opt)
{
    static const size_t sizes[] = {1024, 2048, 4096, 8192};
    static const char *const labels[] = {"1024^3", "2048^3", "4096^3", "8192^3"};
    check_context cc = {opt, matmul_peer_create()};
    bool ok = cl_run_check_table_labelled(&opt->common, versions(),
                                          matmul_peer_name((matmul_precision)opt->precision),
                                          "m = n = k", labels, sizes, 4, 1.25, measure_size, &cc);
    matmul_peer_destroy(cc.peer);
    return ok;
}

// --- options --------------------------------------------------------------------------

// The version -k names must run the precision (the default: the fastest that does).
static void choose_version(options *opt)
{
    const matmul_precision p = (matmul_precision)opt->precision;
    cl_common_args *args = &opt->common;
    args->default_index =
        version_named(p == MATMUL_FP32 ? matmul_fastest_version : matmul_fastest_tensor_version);
    if (!args->kernel) {
        args->kernel_index = args->default_index;
        return;
    }
    if (args->kernel_index < 0 || runs_precision(args->kernel_index, p))
        return;
    char list[256] = "";
    for (int k = 0; k < matmul_version_count; k++)
        if (runs_precision(k, p)) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "",
                     matmul_versions[k].info.name);
        }
    cl_die(CL_EXIT_USAGE, "-k %s: %s runs %s; --precision %s runs %s", args->kernel,
           matmul_versions[args->kernel_index].info.name,
           p == MATMUL_FP32 ? "on the tensor cores (tf32, bf16, fp16)"
                            : "fp32 only (the CUDA cores)",
           matmul_precision_names[p], list);
}

// What the GPU must have for the precision and the version (after the device is open).
// The default tensor-core version, v9, gives way to v8 off Hopper; one named with -k is
// refused with the reason.
static void require_hardware(options *opt)
{
    const cl_device_info *dev = cl_device_current();
    const matmul_precision p = (matmul_precision)opt->precision;
    if (p != MATMUL_FP32 && dev->cc_major < 8)
        cl_die(CL_EXIT_USAGE,
               "--precision %s: these kernels need tensor cores with %s inputs and cp.async "
               "(compute capability 8.0 and later); this GPU is %d.%d",
               matmul_precision_names[p], matmul_precision_names[p], dev->cc_major, dev->cc_minor);
    cl_common_args *args = &opt->common;
    if (refusal(args->default_index)) // the default cannot run here: the portable one
        args->default_index = version_named(matmul_portable_tensor_version);
    const char *why = args->kernel_index >= 0 ? refusal(args->kernel_index) : NULL;
    if (why && !args->kernel)
        args->kernel_index = args->default_index;
    else if (why)
        cl_die(CL_EXIT_USAGE, "-k %s: %s cannot run here: %s; this GPU is %s (%d.%d)", args->kernel,
               matmul_versions[args->kernel_index].info.name, why, dev->name, dev->cc_major,
               dev->cc_minor);
}

static int run(int argc, char **argv)
{
    options opt = {.precision = MATMUL_FP32, .alpha = 1.0, .beta = 0.0};
    const cl_option own[] = {
        {0, "m", CL_ARG_SIZE, &opt.m, "M", "rows of A and C (default: as -n)", 1, INT_MAX, NULL},
        {0, "k", CL_ARG_SIZE, &opt.k, "K", "columns of A, rows of B (default: as -n)", 1, INT_MAX,
         NULL},
        {0, "precision", CL_ARG_CHOICE, &opt.precision, "P",
         "fp32 on the CUDA cores; tf32, bf16 or fp16 inputs on the tensor cores, adding in fp32 "
         "(the default -k: v6 for fp32; v9 for the others on Hopper, else v8)",
         0, 0, matmul_precision_names},
        {0, "alpha", CL_ARG_REAL, &opt.alpha, "A", "C = alpha A B + beta C", -1e6, 1e6, NULL},
        {0, "beta", CL_ARG_REAL, &opt.beta, "B", "0: C is only written; else C is read too", -1e6,
         1e6, NULL},
        {0},
    };
    const cl_program prog = {
        .name = "matmul",
        .summary = "C = alpha A B + beta C, row-major (A m x k, B k x n): kernel ladder from a "
                   "thread an element to the tensor cores, cuBLAS as the peer.",
        .example = "matmul -n 4096 -k all --precision bf16",
        .n_default = 4096,
        .n_min = 1,
        .n_max = INT_MAX,
        .n_meaning = "n, the columns of B and C (m and k too, unless --m, --k say otherwise)",
        .n_column = "n (C cols)",
        .n_long = "n",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    if (opt.common.check && (opt.m || opt.k))
        cl_die(CL_EXIT_USAGE, "--check times its table's own shapes; leave out --m and --k");
    choose_version(&opt);
    cl_device_open((int)opt.common.device);
    require_hardware(&opt);

    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;

    const int n = (int)opt.common.n, m = opt.m ? (int)opt.m : n, k = opt.k ? (int)opt.k : n;
    cl_require_device_memory(device_bytes(m, n, k, (matmul_precision)opt.precision, 1), 0);
    problem pr = make_problem(m, n, k, (matmul_precision)opt.precision, opt.alpha, opt.beta,
                              (uint64_t)opt.common.seed);
    bool ok = run_kernels(&pr, &opt);
    free_problem(&pr);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }

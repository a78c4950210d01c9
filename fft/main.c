// fft: batched 1D complex FFTs in single precision, any length, against cuFFT; and the
// Oxford course's practical 5 simpleCUFFT (--conv): a convolution through transforms.
//
// Order of a run: options; the input (uniform in [-1, 1) re and im, or an impulse) and
// the reference every result faces: the CPU transform in double, or for the impulse
// the closed form (all ones); each selected version and cuFFT verified (against the
// reference, by Parseval's identity, and by the round trip forward then inverse = n x),
// then timed; or --check's score table; or --conv's convolution.
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab.h"
#include "fft.h"

static const char *const input_names[] = {"random", "impulse", NULL};
enum { INPUT_RANDOM, INPUT_IMPULSE };
static const size_t default_points = (size_t)1 << 26; // no --transforms: 2^26 points in all

typedef struct {
    cl_common_args common;
    size_t batch; // 0: default_points / n
    bool inverse, in_place;
    int input;
    const char *conv;  // "SIGNAL,FILTER"
    const char *sweep; // "A..B,N,..."
} options;

typedef struct {
    int n;
    size_t batch;
    bool inverse, in_place;
    int input;
    float *x;          // the input, interleaved re, im
    double *reference; // what the output must be (NULL: the impulse's all ones)
    double *norms;     // ||x||_2 of each transform
    double ref_ms;     // the CPU transform's time
} problem;

static size_t total_points(const problem *pr) { return (size_t)pr->n * pr->batch; }

// --- input and reference ------------------------------------------------------------------

static problem make_problem(int n, size_t batch, bool inverse, bool in_place, int input,
                            uint64_t seed)
{
    problem pr = {.n = n, .batch = batch, .inverse = inverse, .in_place = in_place, .input = input};
    const size_t count = total_points(&pr);
    // x and the result as floats, the reference in double (none for the impulse).
    cl_require_host_memory(count * (8 + 8 + (input == INPUT_RANDOM ? 16 : 0)), 0);
    pr.x = cl_host_alloc(count * 2 * sizeof(float), "x");
    pr.norms = cl_host_alloc(batch * sizeof(double), "norms");
    if (input == INPUT_RANDOM)
        cl_fill_uniform_f32(pr.x, 2 * count, cl_rng_key(seed, 0), -1.0f, 1.0f);
    else {
        memset(pr.x, 0, count * 2 * sizeof(float));
        for (size_t b = 0; b < batch; b++)
            pr.x[2 * b * n] = 1.0f;
    }
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < batch; b++) {
        double s = 0.0;
        for (size_t i = 2 * b * n; i < 2 * (b + 1) * n; i++)
            s += (double)pr.x[i] * pr.x[i];
        pr.norms[b] = sqrt(s);
    }
    if (input == INPUT_RANDOM) {
        pr.reference = cl_host_alloc(count * 2 * sizeof(double), "reference");
        const double start = cl_wall_ms();
        fft_gold(n, batch, inverse, pr.x, pr.reference);
        pr.ref_ms = cl_wall_ms() - start;
    }
    return pr;
}

static void free_problem(problem *pr)
{
    free(pr->x);
    free(pr->reference);
    free(pr->norms);
}

static double reference_at(const problem *pr, size_t i) // i counts floats
{
    return pr->reference ? pr->reference[i] : (i % 2 == 0 ? 1.0 : 0.0);
}

// --- the checks ---------------------------------------------------------------------------------

typedef struct {
    bool ok;
    double rel_l2;      // ||y - reference|| / ||reference||, all transforms together
    double worst;       // the largest |y_k - reference_k| over its allowed error
    double round_trip;  // ||inverse(forward(x)) / n - x|| / ||x||
    double *forward_l1; // a transform's sum over k of |y_k - reference_k| (the round trip's)
} checks;

// Each output within fft_allowed_error(n) ||x||_2 of the reference, and Parseval:
// sum |y|^2 = n sum |x|^2 within 4 allowed errors relative. Prints the first failure.
static bool check_output(const problem *pr, float *y, const char *what, checks *c)
{
    const size_t count = total_points(pr), fault = cl_fault_index(2 * count);
    if (fault != SIZE_MAX)
        y[fault] += 1.0f;
    const double allowed = fft_allowed_error(pr->n);
    double err2 = 0.0, ref2 = 0.0, worst = 0.0;
    size_t bad = 0, first_bad = SIZE_MAX, parseval_bad = SIZE_MAX;
#pragma omp parallel for schedule(static) reduction(+ : err2, ref2, bad) reduction(max : worst) \
    reduction(min : first_bad, parseval_bad)
    for (size_t b = 0; b < pr->batch; b++) {
        const double tol = allowed * pr->norms[b];
        double energy = 0.0, l1 = 0.0;
        for (size_t k = b * pr->n; k < (b + 1) * pr->n; k++) {
            const double re = reference_at(pr, 2 * k), im = reference_at(pr, 2 * k + 1);
            const double dre = y[2 * k] - re, dim = y[2 * k + 1] - im, e2 = dre * dre + dim * dim;
            const double e = sqrt(e2);
            err2 += e2;
            l1 += e;
            ref2 += re * re + im * im;
            energy += (double)y[2 * k] * y[2 * k] + (double)y[2 * k + 1] * y[2 * k + 1];
            const double ratio = e / (tol > 0.0 ? tol : 1e-300);
            worst = ratio > worst ? ratio : worst;
            if (!(ratio <= 1.0)) {
                bad++;
                first_bad = k < first_bad ? k : first_bad;
            }
        }
        c->forward_l1[b] = l1;
        const double expect = (double)pr->n * pr->norms[b] * pr->norms[b];
        if (!(fabs(energy - expect) <= 4.0 * allowed * expect))
            parseval_bad = b < parseval_bad ? b : parseval_bad;
    }
    c->rel_l2 = ref2 > 0.0 ? sqrt(err2 / ref2) : sqrt(err2);
    c->worst = worst;
    if (bad) {
        const size_t k = first_bad, b = k / pr->n;
        fprintf(stderr,
                "%s: %s: wrong result: first bad index %zu of %zu (transform %zu, point %zu): "
                "expected (%.6g, %.6g), got (%.6g, %.6g); %zu outputs past the allowed error "
                "%.3g (%.3g ||x||)\n",
                cl_progname, what, k, count, b, k % pr->n, reference_at(pr, 2 * k),
                reference_at(pr, 2 * k + 1), y[2 * k], y[2 * k + 1], bad, allowed * pr->norms[b],
                allowed);
        return false;
    }
    if (parseval_bad != SIZE_MAX) {
        fprintf(stderr, "%s: %s: wrong result: transform %zu breaks Parseval's identity\n",
                cl_progname, what, parseval_bad);
        return false;
    }
    return true;
}

// The round trip: z = the version's inverse of its own output y = F x + e (forward of it
// for an inverse run) must be n x. z - n x = F^-1 e + the inverse's own error: the first
// term is at most sum_k |e_k| an element (each w^jk has modulus 1), e as check_output
// measured it; the second is held to what check_output allows a transform of y,
// allowed ||y||_2 = allowed sqrt(n) ||x||_2, with 2x room. A bound on e's sum, not a
// guess that its terms cancel: a structured input (the impulse) makes e coherent, and
// its whole sum lands on one element.
static bool check_round_trip(const problem *pr, const float *z, const char *what, checks *c)
{
    const double allowed = fft_allowed_error(pr->n), n = pr->n;
    double err2 = 0.0, ref2 = 0.0;
    size_t first_bad = SIZE_MAX;
#pragma omp parallel for schedule(static) reduction(+ : err2, ref2) reduction(min : first_bad)
    for (size_t b = 0; b < pr->batch; b++) {
        const double tol = c->forward_l1[b] + 2.0 * sqrt(n) * allowed * pr->norms[b];
        for (size_t i = 2 * b * pr->n; i < 2 * (b + 1) * pr->n; i += 2) {
            const double dre = z[i] - n * pr->x[i], dim = z[i + 1] - n * pr->x[i + 1];
            err2 += dre * dre + dim * dim;
            ref2 += n * n * ((double)pr->x[i] * pr->x[i] + (double)pr->x[i + 1] * pr->x[i + 1]);
            if (!(sqrt(dre * dre + dim * dim) <= tol))
                first_bad = i / 2 < first_bad ? i / 2 : first_bad;
        }
    }
    c->round_trip = ref2 > 0.0 ? sqrt(err2 / ref2) : sqrt(err2);
    if (first_bad != SIZE_MAX) {
        fprintf(stderr,
                "%s: %s: wrong round trip: %s then %s of transform %zu, point %zu gives (%.6g, "
                "%.6g), not n x = (%.6g, %.6g)\n",
                cl_progname, what, pr->inverse ? "inverse" : "forward",
                pr->inverse ? "forward" : "inverse", first_bad / pr->n, first_bad % pr->n,
                z[2 * first_bad], z[2 * first_bad + 1], n * pr->x[2 * first_bad],
                n * pr->x[2 * first_bad + 1]);
        return false;
    }
    return true;
}

// --- device data: the input and output rotated so timed runs read DRAM ---------------------

typedef struct {
    cl_rotating in, out; // out.copies == 0 in place (the result overwrites in)
    void *scratch;       // the round trip's output
} device_data;

static size_t data_bytes(const problem *pr) { return total_points(pr) * 2 * sizeof(float); }

// Device bytes of a run: the rotating copies of in (and out), the round trip's scratch and
// the largest plan; checked before the CPU reference is made.
static size_t device_need(size_t points, bool in_place, size_t plan_bytes)
{
    const size_t bytes = points * 2 * sizeof(float);
    const int copies = cl_rotation_count(in_place ? bytes : 2 * bytes);
    return (bytes + 256) * (in_place ? copies : 2 * copies) + bytes + plan_bytes;
}

static device_data upload(const problem *pr, size_t plan_bytes)
{
    const size_t bytes = data_bytes(pr);
    const int copies = cl_rotation_count(pr->in_place ? bytes : 2 * bytes);
    cl_require_device_memory(device_need(total_points(pr), pr->in_place, plan_bytes), 0);
    device_data d = {.in = cl_rotating_alloc(bytes, copies)};
    if (!pr->in_place)
        d.out = cl_rotating_alloc(bytes, copies);
    CL_CUDA_CHECK(cudaMalloc(&d.scratch, bytes));
    cl_rotating_upload(&d.in, pr->x, bytes);
    return d;
}

static void free_device_data(device_data *d)
{
    cl_rotating_free(&d->in);
    if (d->out.copies)
        cl_rotating_free(&d->out);
    CL_CUDA_CHECK(cudaFree(d->scratch));
}

// --- one version or the peer: plan, verify once, then time -----------------------------------

typedef struct {
    const problem *pr;
    device_data *d;
    int iters;
    fft_plan *plan; // the version's, or NULL for the peer
    fft_peer *peer;
    float *result; // the last result checked, for --dump
} timed_call;

static fft_args args_at(const timed_call *t, int rep)
{
    void *in = cl_rotating_at(&t->d->in, rep);
    return (fft_args){.n = t->pr->n,
                      .batch = t->pr->batch,
                      .inverse = t->pr->inverse,
                      .in = in,
                      .out = t->pr->in_place ? in : cl_rotating_at(&t->d->out, rep)};
}

static void run_args(const timed_call *t, const fft_args *a)
{
    if (t->plan)
        fft_run(t->plan, a, 0);
    else
        fft_peer_run(t->peer, a);
}

static void run_call(void *ctx, int rep)
{
    const timed_call *t = ctx;
    const fft_args a = args_at(t, rep);
    run_args(t, &a);
}

static const cl_column extra_columns[] = {
    {"plan", "plan", 34, NULL},
    {"passes", "passes", 6, "%.0f"},
    {"rel_l2", "error", 8, "%.2g"},
    {"err_over_allowed", "err/allowed", 11, "%.3f"},
    {"round_trip", "round trip", 10, "%.2g"},
};

static bool plan_version(timed_call *call, int k, bool quiet)
{
    const problem *pr = call->pr;
    char why[200];
    call->plan = fft_versions[k].plan(pr->n, pr->batch, pr->in_place, why, sizeof why);
    if (!call->plan && !quiet)
        cl_note("%s: skipped: %s", fft_versions[k].info.name, why);
    return call->plan != NULL;
}

// Version k or the peer (cl_version_measure): the plan made (not timed), the output
// poisoned, one run checked against the reference and by Parseval, its round trip
// checked, then every copy timed in turn.
static cl_measured measure_version(void *ctx, int k, cl_cell *extra)
{
    timed_call *call = ctx;
    const problem *pr = call->pr;
    const char *name = k == CL_PEER ? "cuFFT" : fft_versions[k].info.name;
    if (k == CL_PEER) {
        call->plan = NULL;
        call->peer = fft_peer_create(pr->n, pr->batch);
    } else if (!plan_version(call, k, false))
        return (cl_measured){.skipped = true};
    const size_t bytes = data_bytes(pr);
    fft_args a = args_at(call, 0);
    if (pr->in_place)
        CL_CUDA_CHECK(cudaMemcpy((void *)a.in, pr->x, bytes, cudaMemcpyHostToDevice));
    else
        cl_poison_device(a.out, bytes);
    run_args(call, &a);
    CL_CUDA_CHECK(cudaMemcpy(call->result, a.out, bytes, cudaMemcpyDeviceToHost));
    checks c = {.forward_l1 = cl_host_alloc(pr->batch * sizeof(double), "forward errors")};
    bool ok = check_output(pr, call->result, name, &c);
    // The round trip, from the output just checked into scratch.
    const fft_args back = {pr->n, pr->batch, !pr->inverse, a.out, call->d->scratch};
    cl_poison_device(call->d->scratch, bytes);
    run_args(call, &back);
    float *z = cl_host_alloc(bytes, "round trip");
    CL_CUDA_CHECK(cudaMemcpy(z, call->d->scratch, bytes, cudaMemcpyDeviceToHost));
    ok = check_round_trip(pr, z, name, &c) && ok;
    free(z);
    free(c.forward_l1);
    cl_measured m = {.ok = ok};
    m.ms = cl_time_gpu(run_call, call, call->iters).median_ms;
    if (extra) {
        static char plan_text[160]; // the versions' rows print at once; the peer's at the end
        snprintf(plan_text, sizeof plan_text, "%s",
                 call->plan ? fft_plan_describe(call->plan) : "");
        extra[0] = CL_STR(call->plan ? plan_text : "cufftPlanMany");
        extra[1] = CL_NUM(call->plan ? fft_plan_passes(call->plan) : NAN);
        extra[2] = CL_NUM(c.rel_l2);
        extra[3] = CL_NUM(c.worst);
        extra[4] = CL_NUM(c.round_trip);
    }
    if (call->plan)
        fft_plan_destroy(call->plan);
    else
        fft_peer_destroy(call->peer);
    call->plan = NULL;
    return m;
}

static cl_kernel_list versions(void)
{
    return CL_KERNEL_LIST(fft_versions, fft_version_count, fft_fastest_version);
}

// The most device memory a selected version's plan takes.
static size_t most_plan_bytes(int n, size_t batch, bool in_place, const cl_common_args *args)
{
    int first, last;
    cl_selected_versions(args, fft_version_count, &first, &last);
    size_t most = 0;
    for (int k = first; k <= last; k++) {
        const size_t b = fft_versions[k].plan_bytes(n, batch, in_place);
        most = b > most ? b : most;
    }
    return most;
}

static void dump(const problem *pr, const float *result, const char *prefix)
{
    size_t shape[2] = {pr->batch, (size_t)pr->n};
    cl_dump_npy(prefix, "input", "<c8", pr->x, 2 * sizeof(float), 2, shape);
    cl_dump_npy(prefix, "output", "<c8", result, 2 * sizeof(float), 2, shape);
    if (pr->reference)
        cl_dump_npy(prefix, "gold", "<c16", pr->reference, 2 * sizeof(double), 2, shape);
    else
        cl_note("--dump: the impulse's reference is all ones; no %s_gold.npy", prefix);
}

static bool run_versions(const problem *pr, const options *opt)
{
    device_data d = upload(pr, most_plan_bytes(pr->n, pr->batch, pr->in_place, &opt->common));
    timed_call call = {.pr = pr, .d = &d, .iters = (int)opt->common.iters};
    call.result = cl_host_alloc(data_bytes(pr), "result");
    cl_note("\n%s transforms of n = %d, batch %zu (%zu points, %.3g GB moved a call), %s, input "
            "%s, timed over %d rotating copies; checked against %s%s, by Parseval's identity and "
            "by the round trip; allowed error %.3g ||x|| an output",
            pr->inverse ? "inverse" : "forward", pr->n, pr->batch, total_points(pr),
            16.0 * total_points(pr) / 1e9, pr->in_place ? "in place" : "out of place",
            input_names[pr->input], d.in.copies,
            pr->reference ? "the CPU transform in double" : "the closed form (all ones)",
            pr->reference ? "" : ", no transform needed", fft_allowed_error(pr->n));
    const bool ok =
        cl_run_ladder(&opt->common, versions(), "cuFFT", total_points(pr), 16.0 * total_points(pr),
                      extra_columns, 5, measure_version, &call);
    if (opt->common.dump)
        dump(pr, call.result, opt->common.dump);
    free(call.result);
    free_device_data(&d);
    return ok;
}

// --- --check: the score table ----------------------------------------------------------------

typedef struct {
    int n;
    size_t batch;
    const char *label;
} check_size;

static const check_size check_sizes[] = {
    {64, (size_t)1 << 20, "64 x 2^20"},
    {256, (size_t)1 << 18, "256 x 2^18"},
    {1024, (size_t)1 << 16, "1024 x 2^16"},
    {4096, (size_t)1 << 14, "4096 x 2^14"},
    {1000, 65536, "1000 x 65536"},
    {1 << 20, 64, "2^20 x 64"},
    {1 << 24, 4, "2^24 x 4"},
    {1 << 27, 1, "2^27 x 1"},
};
enum { CHECK_SIZES = sizeof check_sizes / sizeof check_sizes[0] };

static cl_check_point measure_size(void *ctx, size_t index, int k)
{
    const options *opt = ctx;
    const check_size *s = &check_sizes[index];
    problem pr = make_problem(s->n, s->batch, opt->inverse, opt->in_place, opt->input,
                              (uint64_t)opt->common.seed);
    timed_call call = {.pr = &pr, .iters = (int)opt->common.iters};
    cl_check_point point = {.skipped = true};
    if (plan_version(&call, k, false)) {
        fft_plan_destroy(call.plan);
        device_data d = upload(&pr, fft_versions[k].plan_bytes(pr.n, pr.batch, pr.in_place));
        call.d = &d;
        call.result = cl_host_alloc(data_bytes(&pr), "result");
        const cl_measured ref = measure_version(&call, CL_PEER, NULL);
        const cl_measured mine = measure_version(&call, k, NULL);
        point =
            (cl_check_point){ref.ms, mine.ms, ref.ok && mine.ok, .bytes = 16.0 * total_points(&pr),
                             .size = (double)total_points(&pr)};
        free(call.result);
        free_device_data(&d);
    }
    free_problem(&pr);
    return point;
}

static bool run_check_table(const options *opt)
{
    size_t indices[CHECK_SIZES];
    const char *labels[CHECK_SIZES];
    for (int i = 0; i < CHECK_SIZES; i++) {
        indices[i] = (size_t)i;
        labels[i] = check_sizes[i].label;
    }
    return cl_run_check_table_labelled(&opt->common, versions(), "cuFFT", "n x batch", labels,
                                       indices, CHECK_SIZES, 1.25, measure_size, (void *)opt);
}

// --- --conv: the practical's convolution -------------------------------------------------------

typedef struct {
    const fft_plan *plan; // NULL: cuFFT (peer)
    fft_peer *peer;
    long len;
    void *signal, *filter, *signal_hat, *filter_hat; // device, len points each
    const void *signal_in, *filter_in;               // the direct convolution's inputs
    int n_signal, n_filter;
    void *direct_out;
    bool direct;
} conv_call;

static void conv_transform(const conv_call *c, const void *in, void *out, bool inverse)
{
    const fft_args a = {(int)c->len, 1, inverse, in, out};
    if (c->plan)
        fft_run(c->plan, &a, 0);
    else
        fft_peer_run(c->peer, &a);
}

// The practical's steps: both padded inputs transformed, their product scaled by 1 / len
// (ComplexPointwiseMulAndScale), transformed back.
static void conv_run(void *ctx, int rep)
{
    (void)rep;
    const conv_call *c = ctx;
    if (c->direct) {
        fft_convolve_direct(c->signal_in, c->n_signal, c->filter_in, c->n_filter, c->direct_out, 0);
        return;
    }
    conv_transform(c, c->signal, c->signal_hat, false);
    conv_transform(c, c->filter, c->filter_hat, false);
    fft_pointwise_mul_scale(c->signal_hat, c->filter_hat, (size_t)c->len, 1.0f / (float)c->len, 0);
    conv_transform(c, c->signal_hat, c->signal, true);
}

// S,F: two sizes in the suite's forms (50, 1M, 1e6, 64Ki), each 1 .. 2^27.
static void parse_conv(const char *text, int *n_signal, int *n_filter)
{
    char first[64];
    const char *comma = strchr(text, ',');
    const size_t len = comma ? (size_t)(comma - text) : 0;
    double sv = 0, fv = 0;
    if (comma && len < sizeof first) {
        memcpy(first, text, len);
        first[len] = 0;
    }
    if (!comma || len >= sizeof first || !cl_parse_size(first, &sv) ||
        !cl_parse_size(comma + 1, &fv) || sv < 1 || fv < 1 || sv > FFT_MAX_N || fv > FFT_MAX_N)
        cl_die(
            CL_EXIT_USAGE,
            "--conv %s: expected SIGNAL,FILTER, two lengths in 1..2^27 (50,11; 1M,101; 64Ki,1Ki)",
            text);
    const long s = (long)sv, f = (long)fv;
    if (f > s)
        cl_die(CL_EXIT_USAGE,
               "--conv %s: a filter of %ld taps is longer than the %ld-sample signal", text, f, s);
    if (fft_conv_length((int)(s > INT_MAX ? INT_MAX : s), (int)f) > FFT_MAX_N || s > FFT_MAX_N)
        cl_die(CL_EXIT_USAGE, "--conv %s: the padded transforms would be longer than 2^27 points",
               text);
    *n_signal = (int)s;
    *n_filter = (int)f;
}

static bool run_conv(const options *opt, int S, int F)
{
    const long len = fft_conv_length(S, F);
    const int k = opt->common.kernel_index < 0 ? versions().fastest : opt->common.kernel_index;
    float *signal = cl_host_alloc(2 * (size_t)S * sizeof(float), "signal");
    float *filter = cl_host_alloc(2 * (size_t)F * sizeof(float), "filter");
    // As the practical: real parts uniform in [0, 1), imaginary parts 0.
    for (int i = 0; i < S; i++) {
        signal[2 * i] = cl_rng_uniform_f32(cl_rng_key((uint64_t)opt->common.seed, 10), (uint64_t)i);
        signal[2 * i + 1] = 0.0f;
    }
    for (int i = 0; i < F; i++) {
        filter[2 * i] = cl_rng_uniform_f32(cl_rng_key((uint64_t)opt->common.seed, 11), (uint64_t)i);
        filter[2 * i + 1] = 0.0f;
    }
    float *padded_signal = cl_host_alloc(2 * (size_t)len * sizeof(float), "padded signal");
    float *padded_filter = cl_host_alloc(2 * (size_t)len * sizeof(float), "padded filter");
    fft_conv_pad(signal, S, filter, F, len, padded_signal, padded_filter);
    double *gold = cl_host_alloc(2 * (size_t)S * sizeof(double), "convolution");
    fft_convolve_gold(signal, S, filter, F, gold);

    const size_t bytes = 2 * (size_t)len * sizeof(float);
    char why[200];
    fft_plan *plan = fft_versions[k].plan((int)len, 1, false, why, sizeof why);
    if (!plan)
        cl_die(CL_EXIT_USAGE, "--conv: %s cannot do the %ld-point transforms: %s",
               fft_versions[k].info.name, len, why);
    conv_call c = {.plan = plan, .len = len, .n_signal = S, .n_filter = F};
    // One wrong output of 10^6 moves the relative L2 error by ~1e-6: each output is
    // checked against its own allowance too.
    const double allowed = fft_conv_allowed_error(len, signal, S, filter, F);
    void **buffers[4] = {&c.signal, &c.filter, &c.signal_hat, &c.filter_hat};
    for (int i = 0; i < 4; i++)
        CL_CUDA_CHECK(cudaMalloc(buffers[i], bytes));
    void *signal_in, *filter_in;
    CL_CUDA_CHECK(cudaMalloc(&signal_in, 8 * (size_t)S));
    CL_CUDA_CHECK(cudaMalloc(&filter_in, 8 * (size_t)F));
    CL_CUDA_CHECK(cudaMalloc(&c.direct_out, 8 * (size_t)S));
    CL_CUDA_CHECK(cudaMemcpy(signal_in, signal, 8 * (size_t)S, cudaMemcpyHostToDevice));
    CL_CUDA_CHECK(cudaMemcpy(filter_in, filter, 8 * (size_t)F, cudaMemcpyHostToDevice));
    c.signal_in = signal_in;
    c.filter_in = filter_in;
    cl_note(
        "\nThe practical's convolution: a %d-sample signal and a %d-tap filter (real parts "
        "uniform in [0, 1)), padded to %ld points (the signal and the filter's larger half, %d, "
        "rounded up to a length of factors 2, 3, 5, 7), transformed, multiplied and scaled by "
        "1/%ld, transformed back; against the host convolution in double: the practical's "
        "test (relative L2 error < 1e-5), and each output within %.3g (the transforms' "
        "allowed error times ||signal|| ||filter||)",
        S, F, len, S + F - F / 2, len, allowed);
    static const cl_column columns[] = {
        {"method", "method", 30, NULL},
        {"ms", "time (ms)", 10, "%.4f"},
        {"rel_l2", "rel. L2 error", 13, "%.3g"},
        {"err_over_allowed", "err/allowed", 11, "%.3f"},
        {"passed", "test", 6, NULL},
    };
    const cl_table table = {"conv", columns, 5};
    cl_table_header(&table);
    float *result = cl_host_alloc(2 * (size_t)S * sizeof(float), "result");
    bool ok = true;
    const int rows = opt->common.no_peer ? 2 : 3;
    for (int row = 0; row < rows; row++) {
        c.direct = row == 1;
        fft_peer *peer = row == 2 ? fft_peer_create((int)len, 1) : NULL;
        c.plan = row == 2 ? NULL : plan;
        c.peer = peer;
        CL_CUDA_CHECK(cudaMemcpy(c.signal, padded_signal, bytes, cudaMemcpyHostToDevice));
        CL_CUDA_CHECK(cudaMemcpy(c.filter, padded_filter, bytes, cudaMemcpyHostToDevice));
        conv_run(&c, 0);
        CL_CUDA_CHECK(cudaMemcpy(result, c.direct ? c.direct_out : c.signal, 8 * (size_t)S,
                                 cudaMemcpyDeviceToHost));
        // Each output (cl_compare_f32 sees the injected fault itself), then the practical's
        // L2 test on the result with the same fault.
        const cl_compare each = cl_compare_f32(result, gold, 2 * (size_t)S, 0.0, allowed);
        const size_t fault = cl_fault_index(2 * (size_t)S);
        if (fault != SIZE_MAX)
            result[fault] += 1.0f;
        const double err = fft_rel_l2(result, gold, (size_t)S);
        const bool passed = err < 1e-5 && each.ok;
        if (!each.ok)
            fprintf(stderr,
                    "%s: --conv: wrong result: output %zu (%s part) is %g, the convolution %g: "
                    "%g off, %g allowed a point\n",
                    cl_progname, each.first_bad / 2, each.first_bad % 2 ? "imaginary" : "real",
                    each.got, each.expected, fabs(each.got - each.expected), allowed);
        ok = ok && passed;
        // Timed runs transform the buffers again (the result overwrites the signal): the
        // same work on other values.
        const double ms = cl_time_gpu(conv_run, &c, (int)opt->common.iters).median_ms;
        char method[64];
        snprintf(method, sizeof method, "%s",
                 row == 0   ? fft_versions[k].info.name
                 : row == 1 ? "direct (a thread an output)"
                            : "cuFFT");
        const cl_cell cells[] = {CL_STR(method), CL_NUM(ms), CL_NUM(err),
                                 CL_NUM(each.max_err_over_tol),
                                 CL_STR(passed ? "PASSED" : "FAILED")};
        cl_table_row(&table, cells);
        if (peer)
            fft_peer_destroy(peer);
    }
    if (!ok)
        fprintf(stderr,
                "%s: --conv: wrong result: relative L2 error at or past 1e-5, or an output past "
                "its allowance\n",
                cl_progname);
    for (int i = 0; i < 4; i++)
        CL_CUDA_CHECK(cudaFree(*buffers[i]));
    CL_CUDA_CHECK(cudaFree(signal_in));
    CL_CUDA_CHECK(cudaFree(filter_in));
    CL_CUDA_CHECK(cudaFree(c.direct_out));
    fft_plan_destroy(plan);
    free(signal);
    free(filter);
    free(padded_signal);
    free(padded_filter);
    free(gold);
    free(result);
    return ok;
}

// --- --sweep: speed at every length --------------------------------------------------------------

// The sweep times one version (the default, or -k's) and cuFFT at each length, in one process,
// about SWEEP_POINTS points a call (at least one transform): the table's rows are a sample, and
// a user's n is any n. Each length's first transform is checked against the CPU transform (one
// transform's gold keeps thousands of lengths to minutes); the edge sizes' full checks are the
// tests'. The input is made and uploaded once, for the longest call: each length's call reads
// its first n x batch points, copied on the device from that pristine copy (generating 2^24
// random points and copying them from the host took most of a length's time). scripts/sweep
// fft runs it over a seeded set of lengths and writes the results file.
enum { SWEEP_POINTS = 1 << 24, SWEEP_DEFAULT_ITERS = 10, SWEEP_MAX_LENGTHS = 1 << 20 };

// LIST: items N or A..B (sizes as -n takes them), comma-separated, each 1 .. 2^27.
static long *parse_sweep(const char *text, size_t *count)
{
    long *out = cl_host_alloc(SWEEP_MAX_LENGTHS * sizeof *out, "sweep lengths");
    *count = 0;
    char item[96];
    for (const char *p = text; *p;) {
        const char *end = strchr(p, ',');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0 || len >= sizeof item)
            cl_die(CL_EXIT_USAGE, "--sweep %s: expected lengths N or ranges A..B, comma-separated",
                   text);
        memcpy(item, p, len);
        item[len] = 0;
        char *dots = strstr(item, "..");
        double lo, hi;
        if (dots)
            *dots = 0;
        if (!cl_parse_size(item, &lo) || !cl_parse_size(dots ? dots + 2 : item, &hi) || lo < 1 ||
            hi < lo || hi > FFT_MAX_N)
            cl_die(CL_EXIT_USAGE,
                   "--sweep %s: '%.*s' is not a length or a range A..B within 1..2^27", text,
                   (int)len, p);
        for (long n = (long)lo; n <= (long)hi; n++) {
            if (*count == SWEEP_MAX_LENGTHS)
                cl_die(CL_EXIT_USAGE, "--sweep %s: more than %d lengths", text, SWEEP_MAX_LENGTHS);
            out[(*count)++] = n;
        }
        p += len + (end ? 1 : 0);
    }
    if (*count == 0)
        cl_die(CL_EXIT_USAGE, "--sweep: no lengths given");
    return out;
}

typedef struct {
    fft_plan *plan; // NULL: the peer
    fft_peer *peer;
    fft_args args;
} sweep_call;

static void sweep_run(void *ctx, int rep)
{
    (void)rep;
    const sweep_call *c = ctx;
    if (c->plan)
        fft_run(c->plan, &c->args, 0);
    else
        fft_peer_run(c->peer, &c->args);
}

// One run of the call, its first transform against `gold` (each output within
// fft_allowed_error(n) ||x_0||, reported as `what` when not; its largest error over ||x_0||
// to err), then its median time over `iters`.
static double sweep_measure(sweep_call *c, const double *gold, double norm, float *first, int iters,
                            const char *what, bool *ok, double *err)
{
    const int n = c->args.n;
    cl_poison_device(c->args.out, (size_t)n * 2 * sizeof(float));
    sweep_run(c, 0);
    CL_CUDA_CHECK(
        cudaMemcpy(first, c->args.out, (size_t)n * 2 * sizeof(float), cudaMemcpyDeviceToHost));
    const cl_compare cmp =
        cl_compare_f32(first, gold, 2 * (size_t)n, 0.0, fft_allowed_error(n) * norm);
    cl_compare_report(what, cmp);
    *ok = cmp.ok;
    *err = cmp.max_abs_err / norm;
    return cl_time_gpu(sweep_run, c, iters).median_ms;
}

static bool run_sweep(const options *opt, const long *lengths, size_t count)
{
    const int k = opt->common.kernel ? opt->common.kernel_index : versions().fastest;
    const char *name = fft_versions[k].info.name;
    const int iters = opt->common.iters ? (int)opt->common.iters : SWEEP_DEFAULT_ITERS;
    static const cl_column columns[] = {
        {"kernel", "kernel", 10, NULL},    {"length", "length", 10, NULL},
        {"batch", "batch", 8, NULL},       {"largest_prime", "largest prime", 13, NULL},
        {"time_ms", "time ms", 9, "%.4f"}, {"peer_ms", "cuFFT ms", 9, "%.4f"},
        {"ratio", "/ cuFFT", 8, "%.3f"},   {"precision", "precision", 9, NULL},
        {"err", "err/|x|", 9, "%.3g"},     {"peer_err", "cuFFT's", 9, "%.3g"},
        {"plan", "plan", 40, NULL},        {"verified", "verified", 8, NULL},
    };
    const cl_table table = {"sweep", columns, sizeof columns / sizeof columns[0]};
    cl_note("\n%s and cuFFT over %zu lengths, about 2^24 points a call, forward, out of place; "
            "median of %d runs each; each length's first transform checked",
            name, count, iters);
    cl_table_header(&table);
    // A call takes n x batch <= max(SWEEP_POINTS, n) points.
    size_t most = SWEEP_POINTS;
    for (size_t i = 0; i < count; i++)
        most = (size_t)lengths[i] > most ? (size_t)lengths[i] : most;
    float *x = cl_host_alloc(most * 2 * sizeof(float), "sweep input");
    cl_fill_uniform_f32(x, 2 * most, cl_rng_key((uint64_t)opt->common.seed, 0), -1.0f, 1.0f);
    cl_device_scratch pristine = {0}, in = {0}, out = {0};
    CL_CUDA_CHECK(cudaMemcpy(cl_scratch_reserve(&pristine, most * 2 * sizeof(float)), x,
                             most * 2 * sizeof(float), cudaMemcpyHostToDevice));
    bool all_ok = true;
    for (size_t i = 0; i < count; i++) {
        const int n = (int)lengths[i];
        const size_t batch = SWEEP_POINTS / n > 0 ? SWEEP_POINTS / n : 1;
        const size_t points = (size_t)n * batch, bytes = points * 2 * sizeof(float);
        double *gold = cl_host_alloc((size_t)n * 2 * sizeof(double), "sweep gold");
        fft_gold(n, 1, false, x, gold);
        double norm = 0.0;
        for (int j = 0; j < 2 * n; j++)
            norm += (double)x[j] * x[j];
        norm = sqrt(norm);
        float *first = cl_host_alloc((size_t)n * 2 * sizeof(float), "sweep output");
        const fft_args args = {n, batch, false, cl_scratch_reserve(&in, bytes),
                               cl_scratch_reserve(&out, bytes)};
        CL_CUDA_CHECK(cudaMemcpy((void *)args.in, pristine.ptr, bytes, cudaMemcpyDeviceToDevice));
        char why[200] = "";
        sweep_call mine = {fft_versions[k].plan(n, batch, false, why, sizeof why), NULL, args};
        const bool planned = mine.plan != NULL; // else a row with why, and no time
        bool ok = false, peer_ok = false;
        double err = NAN, peer_err = NAN;
        char what[96];
        snprintf(what, sizeof what, "%s, n = %d (its first transform)", name, n);
        const double ms =
            planned ? sweep_measure(&mine, gold, norm, first, iters, what, &ok, &err) : NAN;
        static char plan_text[160];
        snprintf(plan_text, sizeof plan_text, "%s", planned ? fft_plan_describe(mine.plan) : why);
        if (planned)
            fft_plan_destroy(mine.plan);
        sweep_call peer = {NULL, fft_peer_create(n, batch), args};
        snprintf(what, sizeof what, "cuFFT, n = %d (its first transform)", n);
        const double peer_ms =
            sweep_measure(&peer, gold, norm, first, iters, what, &peer_ok, &peer_err);
        fft_peer_destroy(peer.peer);
        all_ok = all_ok && (ok || !planned) && peer_ok;
        cl_table_row(&table,
                     (cl_cell[]){CL_STR(name), CL_INT(n), CL_INT(batch),
                                 CL_INT(fft_largest_prime_factor(n)), CL_NUM(ms), CL_NUM(peer_ms),
                                 CL_NUM(ms / peer_ms), CL_STR("fp32"), CL_NUM(err),
                                 CL_NUM(peer_err), CL_STR(plan_text), CL_BOOL(ok && peer_ok)});
        fflush(stdout);
        free(gold);
        free(first);
    }
    free(x);
    cl_scratch_free(&pristine);
    cl_scratch_free(&in);
    cl_scratch_free(&out);
    return all_ok;
}

// --- options -----------------------------------------------------------------------------------

static int run(int argc, char **argv)
{
    options opt = {.batch = 0, .input = INPUT_RANDOM};
    const cl_option own[] = {
        {0, "transforms", CL_ARG_SIZE, &opt.batch, "B",
         "transforms a call, the batch (default: 2^26 points in all, at least 1)", 1,
         (double)FFT_MAX_POINTS, NULL},
        {0, "inverse", CL_ARG_FLAG, &opt.inverse, NULL,
         "the inverse transform, e^{+2 pi i jk/n}, unnormalised (as cuFFT)", 0, 0, NULL},
        {0, "in-place", CL_ARG_FLAG, &opt.in_place, NULL, "the output overwrites the input", 0, 0,
         NULL},
        {0, "input", CL_ARG_CHOICE, &opt.input, "I",
         "random (re, im uniform in [-1, 1)), or impulse (x_0 = 1: every output is 1, no CPU "
         "transform needed)",
         0, 0, input_names},
        {0, "conv", CL_ARG_STRING, &opt.conv, "S,F",
         "the Oxford practical 5's convolution of an S-sample signal with an F-tap filter "
         "through transforms (the practical: 50,11), beside the direct one and cuFFT's",
         0, 0, NULL},
        {0, "sweep", CL_ARG_STRING, &opt.sweep, "LIST",
         "time the version (-k, default the fastest) and cuFFT at every length of LIST (N or A..B, "
         "comma-separated: 2..1024,4097,1Mi), about 2^24 points a call, a row a length "
         "(scripts/sweep fft runs it over thousands)",
         0, 0, NULL},
        {0},
    };
    const cl_program prog = {
        .name = "fft",
        .summary = "batched 1D complex FFTs in single precision, any length (stages of radix 2 "
                   "to 16, Bluestein's algorithm for larger prime factors): kernel ladder from "
                   "the definition to multi-pass transforms, cuFFT as the peer.",
        .example = "fft -n 4096 -k all",
        .n_default = 4096,
        .n_min = 1,
        .n_max = FFT_MAX_N,
        .n_meaning = "points a transform",
        .n_column = "points",
        .n_long = "n",
        .kernels = versions(),
        .options = own,
    };
    cl_parse_args_or_exit(&prog, argc, argv, &opt.common);
    const int n = (int)opt.common.n;
    const size_t batch =
        opt.batch ? opt.batch : (default_points / n > 0 ? default_points / n : (size_t)1);
    if ((double)n * batch > (double)FFT_MAX_POINTS)
        cl_die(CL_EXIT_USAGE,
               "-n %d --transforms %zu: %.3g points, more than the 2^31 a call takes", n, batch,
               (double)n * batch);
    if (opt.conv && (opt.common.check || (opt.common.kernel_index == -1 && opt.common.kernel)))
        cl_die(CL_EXIT_USAGE, "--conv runs one version (-k NAME) beside cuFFT; not with %s",
               opt.common.check ? "--check" : "-k all");
    // --conv's lengths give its transforms (one forward each, one inverse); the table has its
    // own lengths and batches.
    if (opt.conv && (opt.common.n_given || opt.batch || opt.inverse || opt.in_place))
        cl_die(CL_EXIT_USAGE, "--conv %s: its lengths give the transforms; leave out %s", opt.conv,
               opt.common.n_given ? "-n"
               : opt.batch        ? "--transforms"
               : opt.inverse      ? "--inverse"
                                  : "--in-place");
    if (opt.common.check && opt.batch)
        cl_die(CL_EXIT_USAGE, "--check times its table's own batches; leave out --transforms");
    if (opt.sweep && (opt.conv || opt.common.check || opt.common.n_given || opt.batch ||
                      opt.inverse || opt.in_place || opt.common.kernel_index < 0))
        cl_die(CL_EXIT_USAGE,
               "--sweep LIST gives the lengths and times one version: leave out "
               "-n, --transforms, --inverse, --in-place, --conv, --check and -k all");
    size_t sweep_count = 0;
    long *sweep_lengths = opt.sweep ? parse_sweep(opt.sweep, &sweep_count) : NULL;
    int n_signal = 0, n_filter = 0;
    if (opt.conv)
        parse_conv(opt.conv, &n_signal, &n_filter);
    char why[200];
    const int named = opt.common.kernel ? opt.common.kernel_index : -1;
    if (named >= 0 && !opt.common.check &&
        !fft_version_fits(named, opt.conv ? (int)fft_conv_length(n_signal, n_filter) : n,
                          opt.in_place, why, sizeof why))
        cl_die(CL_EXIT_USAGE, "-k %s: %s", opt.common.kernel, why);
    cl_device_open((int)opt.common.device);

    if (opt.sweep) {
        const bool ok = run_sweep(&opt, sweep_lengths, sweep_count);
        free(sweep_lengths);
        return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
    }
    if (opt.conv)
        return run_conv(&opt, n_signal, n_filter) ? CL_EXIT_OK : CL_EXIT_WRONG;
    if (opt.common.check)
        return run_check_table(&opt) ? CL_EXIT_OK : CL_EXIT_WRONG;
    cl_require_device_memory(device_need((size_t)n * batch, opt.in_place,
                                         most_plan_bytes(n, batch, opt.in_place, &opt.common)),
                             0);
    problem pr =
        make_problem(n, batch, opt.inverse, opt.in_place, opt.input, (uint64_t)opt.common.seed);
    const bool ok = run_versions(&pr, &opt);
    free_problem(&pr);
    return ok ? CL_EXIT_OK : CL_EXIT_WRONG;
}

// One run, or one a line of a --batch file (common/cli.h).
int main(int argc, char **argv) { return cl_main(argc, argv, run); }

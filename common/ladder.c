#include "ladder.h"

#include <math.h>
#include <string.h>

#include "device.h"
#include "check.h"

#include <stdlib.h>

const cl_rate cl_rate_bytes = {
    .rate = {"gbps", "GB/s", 7, "%.0f"}, .percent = {"pct_copy", "% copy", 6, "%.0f"}, .unit = 1e9};

static const cl_column standard_head[] = {
    {"kernel", "kernel", 30, NULL},    {"n", "n", 11, NULL},
    {"time_ms", "time ms", 9, "%.4f"}, {"gbps", "GB/s", 7, "%.0f"},
    {"pct_copy", "% copy", 6, "%.0f"}, {"speedup_v1", "x v1", 7, "%.2f"},
};
enum { RATE_COLUMN = 3, PERCENT_COLUMN = 4 };
static const cl_column verified_column = {"verified", "verified", 8, NULL};
static const cl_column peer_time_column = {"time_over_peer", "/ peer", 7, "%.3f"};
enum { HEAD = sizeof standard_head / sizeof standard_head[0] };

void cl_selected_versions(const cl_common_args *args, int count, int *first, int *last)
{
    bool all = args->kernel_index < 0;
    *first = all ? 0 : args->kernel_index;
    *last = all ? count - 1 : *first;
}

void cl_ladder_begin(cl_ladder *l, const cl_column *extra, int nextra)
{
    cl_ladder_begin_rated(l, &cl_rate_bytes, extra, nextra);
}

void cl_ladder_begin_rated(cl_ladder *l, const cl_rate *rate, const cl_column *extra, int nextra)
{
    if (nextra > CL_LADDER_MAX_EXTRA)
        nextra = CL_LADDER_MAX_EXTRA;
    memcpy(l->columns, standard_head, sizeof standard_head);
    l->columns[1].header = cl_size_column;
    l->columns[RATE_COLUMN] = rate->rate;
    l->columns[PERCENT_COLUMN] = rate->percent;
    l->rate = *rate;
    for (int i = 0; i < nextra; i++)
        l->columns[HEAD + i] = extra[i];
    int count = HEAD + nextra;
    if (rate->peer_column)
        l->columns[count++] = peer_time_column;
    l->columns[count++] = verified_column;
    l->table = (cl_table){"ladder", l->columns, count};
    l->nextra = nextra;
    l->v1_ms = NAN;
    l->peer_ms = NAN;
    l->best_ms = INFINITY;
    cl_table_header(&l->table);
}

static void print_row(cl_ladder *l, const char *name, size_t n, double work, double ms, bool ok,
                      const cl_cell *extra)
{
    const double rate = work / (ms * 1e-3) / l->rate.unit;
    const double peak =
        l->rate.peak != 0 ? l->rate.peak : cl_device_current()->copy_gbps; // NaN: no peak known
    cl_cell cells[8 + CL_LADDER_MAX_EXTRA] = {
        CL_STR(name),          CL_INT(n), CL_NUM(ms), CL_NUM(rate), CL_NUM(100.0 * rate / peak),
        CL_NUM(l->v1_ms / ms),
    };
    int count = HEAD;
    for (int i = 0; i < l->nextra; i++)
        cells[count++] = extra[i];
    if (l->rate.peer_column)
        cells[count++] = CL_NUM(ms / l->peer_ms);
    cells[count] = CL_BOOL(ok);
    cl_table_row(&l->table, cells);
}

void cl_ladder_row(cl_ladder *l, const char *name, int version, size_t n, double work, double ms,
                   bool ok, const cl_cell *extra)
{
    if (version == 0)
        l->v1_ms = ms;
    if (ms < l->best_ms)
        l->best_ms = ms;
    print_row(l, name, n, work, ms, ok, extra);
}

void cl_ladder_peer(cl_ladder *l, const char *name, size_t n, double work, double ms, bool ok,
                    const cl_cell *extra)
{
    print_row(l, name, n, work, ms, ok, extra);
    cl_note("best version / peer time: %.3f (below 1 = faster than %s)", l->best_ms / ms, name);
}

static bool run_ladder(const cl_common_args *args, cl_kernel_list versions, const char *peer_name,
                       const char *second_peer_name, size_t n, double bytes, const cl_rate *rate,
                       const cl_column *extra, int nextra, cl_version_measure measure, void *ctx)
{
    cl_ladder ladder;
    cl_ladder_begin_rated(&ladder, rate, extra, nextra);
    const char *names[2] = {peer_name, second_peer_name};
    const int npeers = args->no_peer ? 0 : second_peer_name ? 2 : 1;
    cl_cell peer_extra[2][CL_LADDER_MAX_EXTRA], cells[CL_LADDER_MAX_EXTRA];
    cl_measured peers[2];
    bool ok = true;
    for (int i = 0; i < npeers; i++) {
        peers[i] = measure(ctx, i == 0 ? CL_PEER : CL_SECOND_PEER, peer_extra[i]);
        ok = ok && (peers[i].skipped || peers[i].ok);
    }
    if (npeers > 0 && !peers[0].skipped)
        ladder.peer_ms = peers[0].ms;
    int first, last;
    cl_selected_versions(args, versions.count, &first, &last);
    for (int k = first; k <= last; k++) {
        cl_measured m = measure(ctx, k, cells);
        if (m.skipped)
            continue;
        ok = ok && m.ok;
        cl_ladder_row(&ladder, cl_kernel_at(versions, k)->name, k, n, bytes, m.ms, m.ok, cells);
    }
    for (int i = 0; i < npeers; i++)
        if (!peers[i].skipped)
            cl_ladder_peer(&ladder, names[i], n, bytes, peers[i].ms, peers[i].ok, peer_extra[i]);
    return ok;
}

bool cl_run_ladder(const cl_common_args *args, cl_kernel_list versions, const char *peer_name,
                   size_t n, double bytes, const cl_column *extra, int nextra,
                   cl_version_measure measure, void *ctx)
{
    return run_ladder(args, versions, peer_name, NULL, n, bytes, &cl_rate_bytes, extra, nextra,
                      measure, ctx);
}

bool cl_run_ladder_rated(const cl_common_args *args, cl_kernel_list versions, const char *peer_name,
                         size_t n, double work, const cl_rate *rate, const cl_column *extra,
                         int nextra, cl_version_measure measure, void *ctx)
{
    return run_ladder(args, versions, peer_name, NULL, n, work, rate, extra, nextra, measure, ctx);
}

bool cl_run_ladder_two_peers(const cl_common_args *args, cl_kernel_list versions,
                             const char *peer_name, const char *second_peer_name, size_t n,
                             double bytes, const cl_column *extra, int nextra,
                             cl_version_measure measure, void *ctx)
{
    return run_ladder(args, versions, peer_name, second_peer_name, n, bytes, &cl_rate_bytes, extra,
                      nextra, measure, ctx);
}

bool cl_run_check_table(const cl_common_args *args, cl_kernel_list versions, const char *peer_name,
                        const size_t *sizes, int nsizes, double marks, cl_check_measure measure,
                        void *ctx)
{
    return cl_run_check_table_labelled(args, versions, peer_name, "Element Count", NULL, sizes,
                                       nsizes, marks, measure, ctx);
}

bool cl_run_check_table_labelled(const cl_common_args *args, cl_kernel_list versions,
                                 const char *peer_name, const char *size_header,
                                 const char *const *labels, const size_t *sizes, int nsizes,
                                 double marks, cl_check_measure measure, void *ctx)
{
    int k = args->kernel_index < 0 ? versions.fastest : args->kernel_index;
    // Another version than the default (yours, say) is scored against the faster of the
    // peer and the default, each measured at the size in this run: the score says how far
    // it is from the best the library or the suite reaches (where the peer is a course's
    // program, the suite's fastest version).
    const int best = args->default_index;
    const bool against_best = k != best;
    const char *best_name = cl_kernel_at(versions, best)->name;
    char ref_name[160];
    snprintf(ref_name, sizeof ref_name, against_best ? "the faster of %s and %s" : "%s", peer_name,
             best_name);
    cl_score_row *rows = cl_host_alloc((size_t)nsizes * sizeof *rows, "score rows");
    bool ok = true;
    int nrows = 0;
    for (int s = 0; s < nsizes; s++) {
        cl_check_point point = measure(ctx, sizes[s], k);
        if (point.skipped)
            continue;
        if (against_best) {
            const cl_check_point fastest = measure(ctx, sizes[s], best);
            ok = ok && (fastest.skipped || fastest.ok);
            if (!fastest.skipped && fastest.ok && fastest.your_ms < point.ref_ms)
                point.ref_ms = fastest.your_ms;
        }
        cl_score_row *row = &rows[nrows++];
        *row = cl_score_row_for(sizes[s], point.ref_ms, point.your_ms, point.ok, marks);
        row->bytes = point.bytes;
        if (point.size > 0)
            row->size = point.size;
        if (labels)
            snprintf(row->label, sizeof row->label, "%s", labels[s]);
        ok = ok && point.ok;
    }
    cl_score_table_print(cl_kernel_at(versions, k)->name, ref_name, size_header, rows, nrows);
    free(rows);
    return ok;
}

cl_check_point cl_check_pair(cl_version_measure measure, void *call, int k, double bytes)
{
    const cl_measured ref = measure(call, CL_PEER, NULL);
    const cl_measured mine = measure(call, k, NULL);
    return (cl_check_point){ref.ms, mine.ms, ref.ok && mine.ok, .bytes = bytes};
}

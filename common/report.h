// Result output: aligned text tables for people, or (--json) one JSON object per
// result line for scripts, from the same column definitions; and the score table.
#ifndef CUDALAB_REPORT_H
#define CUDALAB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

void cl_report_set_json(bool json, const char *exercise);
bool cl_report_json(void);

// A line of prose for people; nothing in JSON mode (stdout then holds only JSON).
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void cl_note(const char *fmt, ...);

typedef enum { CL_CELL_STR, CL_CELL_NUM, CL_CELL_INT, CL_CELL_BOOL } cl_cell_kind;

typedef struct {
    cl_cell_kind kind;
    const char *s;
    double num;
    long long i;
} cl_cell;

#define CL_STR(x) ((cl_cell){.kind = CL_CELL_STR, .s = (x)})
#define CL_NUM(x) ((cl_cell){.kind = CL_CELL_NUM, .num = (x)})
#define CL_INT(x) ((cl_cell){.kind = CL_CELL_INT, .i = (long long)(x)})
#define CL_BOOL(x) ((cl_cell){.kind = CL_CELL_BOOL, .i = (x) ? 1 : 0})

typedef struct {
    const char *key;    // JSON key
    const char *header; // text header
    int width;
    const char *fmt; // printf format for CL_NUM cells, e.g. "%.3f"; NaN prints "-"
} cl_column;

typedef struct {
    const char *name; // JSON "table" value, e.g. "ladder"
    const cl_column *columns;
    int ncolumns;
} cl_table;

void cl_table_header(const cl_table *t);
void cl_table_row(const cl_table *t, const cl_cell *cells);

// Scan-style score (the CMU 15-418 checker's): full marks if your_ms <= 1.2 ref_ms, else
// marks * ref_ms / your_ms; 0 for a wrong result.
double cl_score(double ref_ms, double your_ms, double marks, bool correct);

typedef struct {
    char label[32]; // size column, e.g. "1000000"
    double size;    // the problem size as a number (elements, cells...), for plots
    double bytes;   // bytes the scored work moves (0: its rate is not in bytes)
    double ref_ms, your_ms;
    bool correct; // both the peer's and ours verified
    double score, marks;
} cl_score_row;

// A row for a size, scored with cl_score.
cl_score_row cl_score_row_for(size_t size, double ref_ms, double your_ms, bool correct,
                              double marks);

// Prints the CMU 15-418 checker layout (or JSON lines) with the total, under a
// header line naming the version scored (Your) and the peer (Ref). A JSON row also
// carries the size as a number and, where bytes is set, both rates in GB/s.
void cl_score_table_print(const char *your_name, const char *ref_name, const char *size_header,
                          const cl_score_row *rows, int nrows);

// JSON string escaping into f (quotes included); used by the tables.
void cl_json_string(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif

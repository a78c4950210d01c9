#include "report.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

static bool json_mode;
static const char *exercise_name = "cudalab";

void cl_report_set_json(bool json, const char *exercise)
{
    json_mode = json;
    exercise_name = exercise;
}

bool cl_report_json(void) { return json_mode; }

void cl_note(const char *fmt, ...)
{
    if (json_mode)
        return;
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
}

void cl_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

void cl_table_header(const cl_table *t)
{
    if (json_mode)
        return;
    int total = 0;
    putchar('\n');
    for (int c = 0; c < t->ncolumns; c++) {
        printf("%-*s ", t->columns[c].width, t->columns[c].header);
        total += t->columns[c].width + 1;
    }
    putchar('\n');
    for (int c = 0; c < total - 1; c++)
        putchar('-');
    putchar('\n');
}

static void json_begin(const char *table)
{
    fputs("{\"exercise\":", stdout);
    cl_json_string(stdout, exercise_name);
    fputs(",\"table\":", stdout);
    cl_json_string(stdout, table);
}

void cl_table_row(const cl_table *t, const cl_cell *cells)
{
    if (json_mode) {
        json_begin(t->name);
        for (int c = 0; c < t->ncolumns; c++) {
            printf(",\"%s\":", t->columns[c].key);
            switch (cells[c].kind) {
            case CL_CELL_STR:
                cl_json_string(stdout, cells[c].s);
                break;
            case CL_CELL_NUM:
                json_number(stdout, cells[c].num);
                break;
            case CL_CELL_INT:
                printf("%lld", cells[c].i);
                break;
            case CL_CELL_BOOL:
                fputs(cells[c].i ? "true" : "false", stdout);
                break;
            }
        }
        puts("}");
        return;
    }
    for (int c = 0; c < t->ncolumns; c++) {
        char text[64];
        switch (cells[c].kind) {
        case CL_CELL_STR:
            snprintf(text, sizeof text, "%s", cells[c].s);
            break;
        case CL_CELL_NUM:
            if (isfinite(cells[c].num))
                snprintf(text, sizeof text, t->columns[c].fmt, cells[c].num);
            else
                snprintf(text, sizeof text, "-");
            break;
        case CL_CELL_INT:
            snprintf(text, sizeof text, "%lld", cells[c].i);
            break;
        case CL_CELL_BOOL:
            snprintf(text, sizeof text, "%s", cells[c].i ? "yes" : "NO");
            break;
        }
        printf("%-*s ", t->columns[c].width, text);
    }
    putchar('\n');
    fflush(stdout);
}

double cl_score(double ref_ms, double your_ms, double marks, bool correct)
{
    if (!correct || !(your_ms > 0.0))
        return 0.0;
    if (your_ms <= 1.2 * ref_ms)
        return marks;
    return marks * ref_ms / your_ms;
}

cl_score_row cl_score_row_for(size_t size, double ref_ms, double your_ms, bool correct,
                              double marks)
{
    cl_score_row row = {.size = (double)size,
                        .ref_ms = ref_ms,
                        .your_ms = your_ms,
                        .correct = correct,
                        .marks = marks};
    snprintf(row.label, sizeof row.label, "%zu", size);
    row.score = cl_score(ref_ms, your_ms, marks, correct);
    return row;
}

// "5", "3.75", "0.83": at most two decimals, no trailing zeros.
static void format_marks(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%.2f", v);
    char *dot = strchr(buf, '.');
    if (!dot)
        return;
    char *end = buf + strlen(buf) - 1;
    while (end > dot && *end == '0')
        *end-- = '\0';
    if (end == dot)
        *end = '\0';
}

// The table is 73 columns wide with a 15-column first column; a longer size header or
// label widens the first column and the rules with it.
static void rule(int first_width)
{
    for (int c = 0; c < first_width + 58; c++)
        putchar('-');
    putchar('\n');
}

void cl_score_table_print(const char *your_name, const char *ref_name, const char *size_header,
                          const cl_score_row *rows, int nrows)
{
    double total = 0.0, max_total = 0.0;
    for (int r = 0; r < nrows; r++) {
        total += rows[r].score;
        max_total += rows[r].marks;
    }
    char a[32], b[32];
    if (json_mode) {
        for (int r = 0; r < nrows; r++) {
            json_begin("score");
            fputs(",\"your\":", stdout);
            cl_json_string(stdout, your_name);
            fputs(",\"ref\":", stdout);
            cl_json_string(stdout, ref_name);
            fputs(",\"size\":", stdout);
            cl_json_string(stdout, rows[r].label);
            fputs(",\"ref_ms\":", stdout);
            json_number(stdout, rows[r].ref_ms);
            fputs(",\"your_ms\":", stdout);
            json_number(stdout, rows[r].your_ms);
            printf(",\"correct\":%s,\"score\":", rows[r].correct ? "true" : "false");
            json_number(stdout, rows[r].score);
            fputs(",\"marks\":", stdout);
            json_number(stdout, rows[r].marks);
            fputs(",\"n\":", stdout);
            json_number(stdout, rows[r].size);
            if (rows[r].bytes > 0) {
                fputs(",\"bytes\":", stdout);
                json_number(stdout, rows[r].bytes);
                fputs(",\"ref_gbps\":", stdout);
                json_number(stdout, rows[r].bytes / (rows[r].ref_ms * 1e6));
                fputs(",\"your_gbps\":", stdout);
                json_number(stdout, rows[r].bytes / (rows[r].your_ms * 1e6));
            }
            puts("}");
        }
        json_begin("score_total");
        fputs(",\"score\":", stdout);
        json_number(stdout, total);
        fputs(",\"max\":", stdout);
        json_number(stdout, max_total);
        fputs(",\"size_header\":", stdout);
        cl_json_string(stdout, size_header);
        puts("}");
        return;
    }
    int w = (int)strlen(size_header) > 15 ? (int)strlen(size_header) : 15;
    for (int r = 0; r < nrows; r++)
        if ((int)strlen(rows[r].label) > w)
            w = (int)strlen(rows[r].label);
    char title[256];
    snprintf(title, sizeof title, "Your = %s, Ref = %s (median ms)", your_name, ref_name);
    rule(w);
    if ((int)strlen(title) <= w + 54)
        printf("| %-*s |\n", w + 54, title);
    else { // too long for one line: Your and Ref a line each
        snprintf(title, sizeof title, "Your = %s", your_name);
        printf("| %-*s |\n", w + 54, title);
        snprintf(title, sizeof title, "Ref = %s (median ms)", ref_name);
        printf("| %-*s |\n", w + 54, title);
    }
    rule(w);
    printf("| %-*s | %-15s | %-15s | %-15s |\n", w, size_header, "Ref Time", "Your Time", "Score");
    rule(w);
    for (int r = 0; r < nrows; r++) {
        char score[48];
        format_marks(rows[r].score, a, sizeof a);
        snprintf(score, sizeof score, "%s%s", a, rows[r].correct ? "" : " (F)");
        printf("| %-*s | %-15.4f | %-15.4f | %-15s |\n", w, rows[r].label, rows[r].ref_ms,
               rows[r].your_ms, score);
    }
    rule(w);
    format_marks(total, a, sizeof a);
    format_marks(max_total, b, sizeof b);
    char total_text[72];
    snprintf(total_text, sizeof total_text, "%s/%s", a, b);
    printf("| %-*s | %-15s | %-15s |\n", w + 18, "", "Total score:", total_text);
    rule(w);
    fflush(stdout);
}

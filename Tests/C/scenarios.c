/* The scenario corpus (Tests/Scenarios, described in its README.md) on the C face: every scenario
 * run on a fresh loop, each timeline compared exactly, real-clock ones within their ranges.
 *
 * Usage: c_scenarios [--must-fail] CORPUS_DIR [RESULTS_DIR]. Prints each failure and "scenarios
 * (C): N passed, M failed"; exits 1 if any failed. Writes RESULTS_DIR/c.txt (pass or fail per
 * scenario, after the corpus digest) for the parity check of the Python suite. With
 * CADENCE_TEST_SLOW=1 (under valgrind) real-clock scenarios are skipped and no results are written.
 *
 * With --must-fail the corpus is deliberately wrong, to prove that the runner can fail: each
 * scenario must fail, and the run passes (exit 0) when every one did, saying so on a
 * "scenarios (C, self-check)" line that a reader of a passing log cannot take for a failure.
 *
 * Every real-clock scenario runs twice: on a loop that cadence_loop_run runs, then, named with
 * " (hosted)", on one that a poll() host drives through cadence_loop_fd, cadence_loop_timeout and
 * cadence_loop_run_pass, so that an owned and a hosted loop cannot drift apart unnoticed.
 *
 * A scenario file has one JSON object per line with flat fields (strings, numbers, true, false);
 * the small parser below reads exactly that. */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "recorder.h"

/* ---- One line: a flat JSON object ---- */

#define MAX_FIELDS 16
#define MAX_TEXT 640

typedef struct step {
    int count;
    char keys[MAX_FIELDS][24];
    char values[MAX_FIELDS][MAX_TEXT]; /* strings unescaped; numbers and booleans as written */
} step;

static const char *skip_space(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    return p;
}

/* Why the latest line was refused, for the message. */
static const char *why;

static const char *refuse(const char *reason) {
    why = reason;
    return NULL;
}

/* Appends the UTF-8 of a \uXXXX escape (p at its first hex digit) to out; the end, or NULL. */
static const char *read_escape_u(const char *p, char *out, size_t *n, size_t size) {
    unsigned code = 0;
    for (int i = 0; i < 4; i++, p++) {
        int c = *p, digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0) return refuse("a \\u escape needs four hex digits");
        code = code * 16 + (unsigned)digit;
    }
    if (code == 0 || (code >= 0xD800 && code <= 0xDFFF)) return refuse("\\u0000 and \\u escapes of surrogates are not read");
    unsigned char bytes[3];
    size_t count = code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    if (count == 1) bytes[0] = (unsigned char)code;
    else if (count == 2) bytes[0] = (unsigned char)(0xC0 | code >> 6), bytes[1] = (unsigned char)(0x80 | (code & 0x3F));
    else bytes[0] = (unsigned char)(0xE0 | code >> 12), bytes[1] = (unsigned char)(0x80 | ((code >> 6) & 0x3F)),
         bytes[2] = (unsigned char)(0x80 | (code & 0x3F));
    if (*n + count >= size) return refuse("a key or a string is too long");
    memcpy(out + *n, bytes, count);
    *n += count;
    return p;
}

/* Reads a JSON string at p (after its quote) into out; returns the end, or NULL. */
static const char *read_string(const char *p, char *out, size_t size) {
    size_t n = 0;
    while (*p != '"') {
        if (*p == '\0' || *p == '\n') return refuse("a string has no closing quote");
        if ((unsigned char)*p < 0x20) return refuse("a string has a control character (JSON escapes them)");
        if (n + 1 >= size) return refuse("a key or a string is too long");
        char c = *p++;
        if (c == '\\') {
            c = *p++;
            if (c == 'u') {
                if ((p = read_escape_u(p, out, &n, size)) == NULL) return NULL;
                continue;
            }
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t", *at = c != '\0' ? strchr(from, c) : NULL;
            if (at == NULL) return refuse("a string has an escape JSON does not have");
            c = to[at - from];
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return p + 1;
}

/* Whether the n bytes at p are a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int is_number(const char *p, size_t n) {
    const char *end = p + n;
    if (p < end && *p == '-') p++;
    if (p == end || *p < '0' || *p > '9') return 0;
    if (*p == '0') p++;
    else while (p < end && *p >= '0' && *p <= '9') p++;
    if (p < end && *p == '.') {
        if (++p == end || *p < '0' || *p > '9') return 0;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        if (++p < end && (*p == '+' || *p == '-')) p++;
        if (p == end || *p < '0' || *p > '9') return 0;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    return p == end;
}

/* Parses one line into s; returns 0, or -1 (with `why` set) for anything but a flat object of
 * strings, numbers, true and false. */
static int parse_line(const char *line, step *s) {
    s->count = 0;
    const char *p = skip_space(line);
    if (*p++ != '{') return refuse("a line must be one JSON object, starting with {"), -1;
    p = skip_space(p);
    if (*p == '}') return *skip_space(p + 1) == '\0' ? 0 : (refuse("something follows the object's }"), -1);
    for (;;) {
        if (s->count == MAX_FIELDS) return refuse("more than 16 fields"), -1;
        if (*p++ != '"') return refuse("a key must be a string"), -1;
        p = read_string(p, s->keys[s->count], sizeof s->keys[0]);
        if (p == NULL) return -1;
        p = skip_space(p);
        if (*p++ != ':') return refuse("a key must be followed by :"), -1;
        p = skip_space(p);
        char *value = s->values[s->count];
        if (*p == '"') {
            p = read_string(p + 1, value, MAX_TEXT);
            if (p == NULL) return -1;
        } else {
            size_t n = strcspn(p, ",} \t\r\n");
            if (n == 0) return refuse("a key has no value"), -1;
            if (n >= MAX_TEXT) return refuse("a value is too long"), -1;
            if (!is_number(p, n) && !(n == 4 && memcmp(p, "true", 4) == 0) && !(n == 5 && memcmp(p, "false", 5) == 0))
                return refuse("a value must be a string, a number, true or false"), -1;
            memcpy(value, p, n);
            value[n] = '\0';
            p += n;
        }
        s->count++;
        p = skip_space(p);
        if (*p == '}') return *skip_space(p + 1) == '\0' ? 0 : (refuse("something follows the object's }"), -1);
        if (*p == '\0') return refuse("the object has no closing }"), -1;
        if (*p++ != ',') return refuse("fields must be separated by ,"), -1;
        p = skip_space(p);
    }
}

static const char *field(const step *s, const char *key) {
    for (int i = 0; i < s->count; i++)
        if (strcmp(s->keys[i], key) == 0) return s->values[i];
    return NULL;
}

static const char *text(const step *s, const char *key, const char *otherwise) {
    const char *v = field(s, key);
    return v != NULL ? v : otherwise;
}

/* ---- A scenario's run ---- */

#define MAX_OBJECTS 32
#define MAX_EVENTS 64
#define MAX_ORDER 256
#define MAX_TRIGGERS 8
#define MAX_FINISHERS 16

typedef struct run run;

typedef struct record {
    run *run;
    char name[24];
    int count, checked;                 /* events so far; at the last expect that named it */
    char events[MAX_EVENTS][24];
    double dates[MAX_EVENTS];
    long long ran[MAX_EVENTS];
    double lateness[MAX_EVENTS];        /* ms */
    uint64_t skipped[MAX_EVENTS];
} record;

typedef struct object {
    char name[24];
    char kind[16];                      /* the step that made it */
    double busy;                        /* a poller's: seconds each poll runs */
    cadence_publisher publisher;
    cadence_cancellable cancellable;
} object;

typedef struct trigger {
    int record, event;                  /* after that record's event-th event */
    step then;
} trigger;

typedef struct finisher {               /* ends a busy poll */
    cadence_cancellable poller;
    uint64_t number;
} finisher;

struct run {
    cadence_loop loop;
    int is_virtual;
    int hosted;                         /* "run" steps by a poll() host, not cadence_loop_run */
    double origin;
    int failed;
    char message[1024];
    object objects[MAX_OBJECTS];
    int object_count;
    record records[MAX_OBJECTS];
    int record_count;
    int order[MAX_ORDER];
    int order_count;
    trigger triggers[MAX_TRIGGERS];
    int trigger_count;
    finisher finishers[MAX_FINISHERS];
    int finisher_count;
};

static void fail(run *r, const char *format, ...) {
    if (r->failed) return;
    r->failed = 1;
    va_list args;
    va_start(args, format);
    vsnprintf(r->message, sizeof r->message, format, args);
    va_end(args);
}

/* A Cadence call that must succeed; returns whether it did. */
static int ok(run *r, int err, const char *what) {
    if (err != 0) fail(r, "%s: %s (%s)", what, cadence_err_name(err), cadence_last_error_message());
    return err == 0;
}

/* A number field, `otherwise` if absent; a value that is not a whole number fails the run. */
static double number(run *r, const step *s, const char *key, double otherwise) {
    const char *v = field(s, key);
    if (v == NULL) return otherwise;
    char *end;
    double value = strtod(v, &end);
    if (end == v || *end != '\0') fail(r, "%s must be a number, got '%s'", key, v);
    return value;
}

static long long ms(const run *r, double seconds) { return llround((seconds - r->origin) * 1000); }

static double now(run *r) {
    double t = 0;
    ok(r, cadence_loop_now(r->loop, &t), "cadence_loop_now");
    return t;
}

static object *find_object(run *r, const char *name) {
    for (int i = 0; i < r->object_count; i++)
        if (strcmp(r->objects[i].name, name) == 0) return &r->objects[i];
    fail(r, "no object named '%s'", name);
    return NULL;
}

static object *new_object(run *r, const char *name, const char *kind) {
    if (r->object_count == MAX_OBJECTS) {
        fail(r, "too many objects");
        return NULL;
    }
    object *o = &r->objects[r->object_count++];
    snprintf(o->name, sizeof o->name, "%s", name);
    snprintf(o->kind, sizeof o->kind, "%s", kind);
    return o;
}

static int find_record(const run *r, const char *name) {
    for (int i = 0; i < r->record_count; i++)
        if (strcmp(r->records[i].name, name) == 0) return i;
    return -1;
}

static record *new_record(run *r, const char *name) {
    if (r->record_count == MAX_OBJECTS) {
        fail(r, "too many records");
        return NULL;
    }
    record *rec = &r->records[r->record_count++];
    memset(rec, 0, sizeof *rec);
    rec->run = r;
    snprintf(rec->name, sizeof rec->name, "%s", name);
    return rec;
}

/* cadence_loop_run(loop, mode, seconds) as a poll() host does it (cadence.h, "Driving a loop from
 * your own event loop"): a pass, then a wait for the descriptor or the timeout and a pass, until
 * `seconds` have passed; the last pass at or after the end, as cadence_loop_run's. */
static int run_hosted(cadence_loop loop, const char *mode, double seconds) {
    int fd = -1, err = cadence_loop_fd(loop, &fd);
    double end = 0, timeout = 0;
    if (err == 0) err = cadence_loop_now(loop, &end);
    end += seconds;
    if (err == 0) err = cadence_loop_run_pass(loop, mode);
    for (double now = 0; err == 0 && cadence_loop_now(loop, &now) == 0 && now < end;) {
        if ((err = cadence_loop_timeout(loop, &timeout)) != 0) break;
        double wait = timeout < end - now ? timeout : end - now;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)ceil(wait * 1000)) < 0 && errno != EINTR) return CADENCE_EIO;
        err = cadence_loop_run_pass(loop, mode);
    }
    return err;
}

static void do_step(run *r, const step *s);

/* Appends "label@ms(date)", then runs the triggers of that event. */
static void add_event(record *rec, const char *label, double date, uint64_t skipped) {
    run *r = rec->run;
    double t = now(r);
    if (t < date) fail(r, "%s: %s ran at %lld ms, before its fire date", rec->name, label, ms(r, t));
    if (rec->count < MAX_EVENTS) {
        snprintf(rec->events[rec->count], sizeof rec->events[0], "%s@%lld", label, ms(r, date));
        rec->dates[rec->count] = date;
        rec->ran[rec->count] = ms(r, t);
        rec->lateness[rec->count] = (t - date) * 1000;
        rec->skipped[rec->count] = skipped;
    } else {
        fail(r, "%s: more than %d events", rec->name, MAX_EVENTS);
    }
    rec->count++;
    if (r->order_count < MAX_ORDER) r->order[r->order_count++] = (int)(rec - r->records);
    int index = (int)(rec - r->records);
    for (int i = 0; i < r->trigger_count; i++) {
        trigger *tr = &r->triggers[i];
        if (tr->record == index && tr->event == rec->count) {
            tr->record = -1;                    /* once */
            do_step(r, &tr->then);
        }
    }
}

static void on_tick(const cadence_tick *tick, void *userdata) {
    record *rec = userdata;
    char label[16];
    snprintf(label, sizeof label, "%d", rec->count);
    add_event(rec, label, tick->fire_date, tick->skipped);
}

static void on_countdown(const cadence_countdown_event *event, void *userdata) {
    record *rec = userdata;
    char label[24];
    snprintf(label, sizeof label, "%lld", (long long)event->remaining);
    add_event(rec, event->finished ? "|" : label, now(rec->run), 0);
}

static void on_finisher(const cadence_tick *tick, void *userdata) {
    (void)tick;
    finisher *f = userdata;
    cadence_poller_finish(f->poller, f->number);
}

static void on_poll(const cadence_poll *poll, void *userdata) {
    record *rec = userdata;
    run *r = rec->run;
    char label[24];
    snprintf(label, sizeof label, "%llu", (unsigned long long)poll->number);
    add_event(rec, label, poll->date, 0);
    object *o = find_object(r, rec->name);
    double busy = o != NULL ? o->busy : 0;
    if (busy <= 0) {
        ok(r, cadence_poller_finish(poll->source, poll->number), "cadence_poller_finish");
    } else if (r->finisher_count < MAX_FINISHERS) {
        finisher *f = &r->finishers[r->finisher_count++];
        *f = (finisher){poll->source, poll->number};
        cadence_cancellable once;
        ok(r, cadence_loop_schedule(r->loop, busy, 0, "common", on_finisher, f, &once), "cadence_loop_schedule");
    } else {
        fail(r, "too many busy polls");
    }
}

static int missed_ticks(run *r, const step *s) {
    const char *policy = text(s, "missed", "skip");
    if (strcmp(policy, "skip") == 0) return CADENCE_MISSED_TICKS_SKIP;
    if (strcmp(policy, "burst") == 0) return CADENCE_MISSED_TICKS_BURST;
    if (strcmp(policy, "delay") == 0) return CADENCE_MISSED_TICKS_DELAY;
    fail(r, "unknown missed-tick policy '%s'", policy);
    return 0;
}

/* ---- Expectations ---- */

/* Whether value matches spec: "N", "A..B", "A.." or "..B". */
static int in_range(double value, const char *spec) {
    const char *dots = strstr(spec, "..");
    if (dots == NULL) return value == strtod(spec, NULL);
    int low_ok = dots == spec || value >= strtod(spec, NULL);
    int high_ok = dots[2] == '\0' || value <= strtod(dots + 2, NULL);
    return low_ok && high_ok;
}

/* spec with runs of spaces made one, no space at either end. */
static void normalize(const char *spec, char *out, size_t size) {
    size_t n = 0;
    for (const char *p = spec; *p != '\0' && n + 1 < size; p++) {
        if (*p == ' ' && (n == 0 || out[n - 1] == ' ')) continue;
        out[n++] = *p;
    }
    while (n > 0 && out[n - 1] == ' ') n--;
    out[n] = '\0';
}

static void append(char *out, size_t size, const char *item) {
    size_t n = strlen(out);
    snprintf(out + n, size - n, "%s%s", n ? " " : "", item);
}

static void same(run *r, const char *name, const char *what, const char *actual, const char *expected) {
    char want[MAX_TEXT];
    normalize(expected, want, sizeof want);
    if (strcmp(actual, want) != 0) fail(r, "%s %s: got '%s', expected '%s'", name, what, actual, expected);
}

static void within(run *r, const char *name, const char *what, double actual, const char *expected) {
    if (!in_range(actual, expected)) fail(r, "%s %s: got %g, expected %s", name, what, actual, expected);
}

static void expect(run *r, const step *s) {
    const char *name = text(s, "name", "");
    int index = find_record(r, name);
    static record none;
    record *rec = index >= 0 ? &r->records[index] : &none;
    int n = rec->count < MAX_EVENTS ? rec->count : MAX_EVENTS;
    for (int i = 0; i < s->count && !r->failed; i++) {
        const char *what = s->keys[i], *want = s->values[i];
        char got[MAX_TEXT * 2] = "", item[32];
        /* "event", "then", "target": the fields of an `on` step whose `then` is an expect. */
        if (strcmp(what, "do") == 0 || strcmp(what, "name") == 0 || strcmp(what, "event") == 0
            || strcmp(what, "then") == 0 || strcmp(what, "target") == 0) continue;
        if (strcmp(what, "timeline") == 0 || strcmp(what, "ran") == 0 || strcmp(what, "skipped") == 0) {
            for (int k = 0; k < n; k++) {
                if (what[0] == 't') snprintf(item, sizeof item, "%s", rec->events[k]);
                else if (what[0] == 'r') snprintf(item, sizeof item, "%lld", rec->ran[k]);
                else snprintf(item, sizeof item, "%llu", (unsigned long long)rec->skipped[k]);
                append(got, sizeof got, item);
            }
            same(r, name, what, got, want);
        } else if (strcmp(what, "order") == 0) {
            for (int k = 0; k < r->order_count; k++) append(got, sizeof got, r->records[r->order[k]].name);
            same(r, name, what, got, want);
        } else if (strcmp(what, "count") == 0) {
            within(r, name, what, rec->count, want);
        } else if (strcmp(what, "new") == 0) {
            within(r, name, what, rec->count - rec->checked, want);
        } else if (strcmp(what, "skipped_max") == 0) {
            uint64_t most = 0;
            for (int k = 0; k < n; k++) most = rec->skipped[k] > most ? rec->skipped[k] : most;
            within(r, name, what, (double)most, want);
        } else if (strcmp(what, "lateness") == 0) {
            for (int k = 0; k < n; k++) within(r, name, what, rec->lateness[k], want);
        } else if (strcmp(what, "dates_in") == 0) {
            int other = find_record(r, want);
            for (int k = 0; other >= 0 && k < n; k++) {
                int found = 0;
                for (int j = 0; j < r->records[other].count && j < MAX_EVENTS; j++)
                    found |= fabs(rec->dates[k] - r->records[other].dates[j]) < 1e-6;
                if (!found) fail(r, "%s dates_in %s: not every date is among %s's", name, want, want);
            }
            if (other < 0) fail(r, "no record named '%s'", want);
        } else if (strcmp(what, "wakeups") == 0) {
            uint64_t wakeups = 0;
            ok(r, cadence_loop_wakeups(r->loop, &wakeups), "cadence_loop_wakeups");
            within(r, name, what, (double)wakeups, want);
        } else if (strcmp(what, "armed") == 0) {
            uint64_t armed = 0;
            ok(r, cadence_loop_armed_timers(r->loop, &armed), "cadence_loop_armed_timers");
            within(r, name, what, (double)armed, want);
        } else if (strcmp(what, "now") == 0) {
            within(r, name, what, (double)ms(r, now(r)), want);
        } else if (strcmp(what, "tolerance") == 0) {
            object *o = find_object(r, name);
            double tolerance = -1;
            if (o != NULL && strcmp(o->kind, "poller") == 0)
                ok(r, cadence_poller_tolerance(o->cancellable, &tolerance), "cadence_poller_tolerance");
            else if (o != NULL)
                ok(r, cadence_timer_tolerance(o->cancellable, &tolerance), "cadence_timer_tolerance");
            within(r, name, what, tolerance, want);
        } else if (strcmp(what, "fire_date") == 0) {
            object *o = find_object(r, name);
            double date = 0;
            int err = o != NULL ? cadence_timer_fire_date(o->cancellable, &date) : 0;
            if (err == CADENCE_EALREADY) snprintf(got, sizeof got, "none");
            else if (ok(r, err, "cadence_timer_fire_date")) snprintf(got, sizeof got, "%lld", ms(r, date));
            same(r, name, what, got, want);
        } else {
            fail(r, "unknown expectation '%s'", what);
        }
    }
    rec->checked = rec->count;
}

/* ---- Steps ---- */

static void do_step(run *r, const step *s) {
    if (r->failed) return;
    const char *what = text(s, "do", ""), *name = text(s, "name", ""), *mode = text(s, "mode", "default");
    object *o;
    record *rec;
    if (strcmp(what, "publish") == 0) {
        cadence_publisher timer;
        if ((o = new_object(r, name, what)) == NULL ||
            !ok(r, cadence_publisher_create(r->loop, number(r, s, "interval", 0), number(r, s, "tolerance", 0), mode, &timer),
                "cadence_publisher_create") ||
            !ok(r, cadence_publisher_set_missed_ticks(timer, missed_ticks(r, s)), "cadence_publisher_set_missed_ticks"))
            return;
        o->publisher = timer;
        if (strcmp(text(s, "autoconnect", "false"), "true") == 0)
            ok(r, cadence_publisher_autoconnect(timer, &o->publisher), "cadence_publisher_autoconnect");
    } else if (strcmp(what, "subscribe") == 0) {
        object *to = find_object(r, text(s, "to", ""));
        if (to != NULL && (rec = new_record(r, name)) != NULL && (o = new_object(r, name, what)) != NULL)
            ok(r, cadence_publisher_subscribe(to->publisher, on_tick, rec, &o->cancellable), "cadence_publisher_subscribe");
    } else if (strcmp(what, "connect") == 0) {
        object *to = find_object(r, text(s, "to", ""));
        if (to != NULL && (o = new_object(r, name, what)) != NULL)
            ok(r, cadence_publisher_connect(to->publisher, &o->cancellable), "cadence_publisher_connect");
    } else if (strcmp(what, "cancel") == 0) {
        if ((o = find_object(r, name)) != NULL) {
            int err = cadence_cancel(o->cancellable);
            ok(r, err == CADENCE_EALREADY ? 0 : err, "cadence_cancel");  /* a fired one-shot: nothing to stop */
        }
    } else if (strcmp(what, "schedule") == 0) {
        if ((rec = new_record(r, name)) == NULL || (o = new_object(r, name, what)) == NULL) return;
        double after = number(r, s, "after", 0), tolerance = number(r, s, "tolerance", 0);
        if (field(s, "interval") != NULL)
            ok(r, cadence_loop_schedule_repeating(r->loop, after, number(r, s, "interval", 0), tolerance,
                                                  missed_ticks(r, s), mode, on_tick, rec, &o->cancellable),
               "cadence_loop_schedule_repeating");
        else
            ok(r, cadence_loop_schedule(r->loop, after, tolerance, mode, on_tick, rec, &o->cancellable),
               "cadence_loop_schedule");
    } else if (strcmp(what, "reset") == 0) {
        if ((o = find_object(r, name)) != NULL)
            ok(r, cadence_timer_reset(o->cancellable, number(r, s, "after", 0)), "cadence_timer_reset");
    } else if (strcmp(what, "countdown") == 0) {
        if ((rec = new_record(r, name)) != NULL && (o = new_object(r, name, what)) != NULL)
            ok(r, cadence_countdown_start(r->loop, now(r) + number(r, s, "deadline", 0), number(r, s, "tick", 0),
                                          on_countdown, rec, &o->cancellable),
               "cadence_countdown_start");
    } else if (strcmp(what, "poller") == 0) {
        if ((rec = new_record(r, name)) == NULL || (o = new_object(r, name, what)) == NULL) return;
        o->busy = number(r, s, "busy", 0);
        ok(r, cadence_poller_start(r->loop, number(r, s, "interval", 0), number(r, s, "tolerance", CADENCE_TOLERANCE_DEFAULT),
                                   on_poll, rec, &o->cancellable),
           "cadence_poller_start");
    } else if (strcmp(what, "active") == 0) {
        if ((o = find_object(r, name)) != NULL)
            ok(r, cadence_poller_set_active(o->cancellable, strcmp(text(s, "value", ""), "true") == 0),
               "cadence_poller_set_active");
    } else if (strcmp(what, "add_mode") == 0) {
        ok(r, cadence_loop_add_mode(r->loop, mode), "cadence_loop_add_mode");
    } else if (strcmp(what, "add_common_mode") == 0) {
        ok(r, cadence_loop_add_common_mode(r->loop, mode), "cadence_loop_add_common_mode");
    } else if (strcmp(what, "run") == 0) {
        if (r->hosted) ok(r, run_hosted(r->loop, mode, number(r, s, "for", 0)), "run_hosted");
        else ok(r, cadence_loop_run(r->loop, mode, number(r, s, "for", 0)), "cadence_loop_run");
    } else if (strcmp(what, "block") == 0) {
        if (r->is_virtual) ok(r, cadence_loop_jump_clock(r->loop, number(r, s, "for", 0)), "cadence_loop_jump_clock");
        else sleep_seconds(number(r, s, "for", 0));
    } else if (strcmp(what, "on") == 0) {
        int index = find_record(r, name);
        if (index < 0 || r->trigger_count == MAX_TRIGGERS) {
            fail(r, "on: no record '%s', or too many triggers", name);
            return;
        }
        trigger *tr = &r->triggers[r->trigger_count++];
        tr->record = index;
        tr->event = (int)number(r, s, "event", 0);
        tr->then = *s;  /* the same fields, with "do" and "name" replaced */
        for (int i = 0; i < tr->then.count; i++) {
            if (strcmp(tr->then.keys[i], "do") == 0) snprintf(tr->then.values[i], MAX_TEXT, "%s", text(s, "then", ""));
            if (strcmp(tr->then.keys[i], "name") == 0) snprintf(tr->then.values[i], MAX_TEXT, "%s", text(s, "target", name));
        }
    } else if (strcmp(what, "expect") == 0) {
        expect(r, s);
    } else {
        fail(r, "unknown step '%s'", what);
    }
}

/* ---- The corpus ---- */

typedef struct tally {
    int passed, failed, skipped;
    FILE *results;                      /* NULL under valgrind */
    int virtual_only;
    int hosted;                         /* the second round: real-clock scenarios by a poll() host */
    int must_fail;                      /* --must-fail: a deliberately wrong corpus */
} tally;

static run current;                     /* large: not on the stack */
static char scenario_name[MAX_TEXT], scenario_where[300];
static int in_scenario, skipping;

static void end_scenario(tally *t) {
    if (!in_scenario) return;
    in_scenario = 0;
    if (skipping) {
        if (!t->hosted) t->skipped++;   /* a virtual scenario is not run hosted: nothing skipped */
        return;
    }
    int err = cadence_loop_close(current.loop);
    if (err != 0) fail(&current, "cadence_loop_close: %s", cadence_err_name(err));
    if (current.failed && t->must_fail) {
        t->failed++;
        printf("failed, as it must: %s (%s): %s\n", scenario_name, scenario_where, current.message);
    } else if (current.failed) {
        t->failed++;
        fprintf(stderr, "FAIL %s (%s): %s\n", scenario_name, scenario_where, current.message);
    } else {
        t->passed++;
    }
    if (t->results != NULL) fprintf(t->results, "%s %s\n", current.failed ? "fail" : "pass", scenario_name);
}

static void start_scenario(tally *t, const step *s, const char *where) {
    end_scenario(t);
    in_scenario = 1;
    snprintf(scenario_name, sizeof scenario_name, "%s%s", text(s, "scenario", ""), t->hosted ? " (hosted)" : "");
    snprintf(scenario_where, sizeof scenario_where, "%s", where);
    memset(&current, 0, sizeof current);
    current.is_virtual = strcmp(text(s, "loop", "virtual"), "virtual") == 0;
    current.hosted = t->hosted;
    skipping = (t->virtual_only && !current.is_virtual) || (t->hosted && current.is_virtual);
    if (skipping) return;
    int err = current.is_virtual ? cadence_loop_create_virtual(&current.loop) : cadence_loop_create(&current.loop);
    if (err != 0) {
        fprintf(stderr, "cannot create a loop: %s\n", cadence_err_name(err));
        exit(1);
    }
    current.origin = now(&current);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The closing line of a --must-fail run; exit 0 only when every scenario failed. */
static int self_check_verdict(const tally *t) {
    if (t->passed == 0 && t->failed > 0) {
        printf("scenarios (C, self-check): the deliberately wrong scenario%s reported as failing, as it must\n",
               t->failed == 1 ? " was" : "s were");
        return 0;
    }
    printf("scenarios (C, self-check): %d of %d deliberately wrong scenarios reported as passing: "
           "the runner cannot fail\n", t->passed, t->passed + t->failed);
    return 1;
}

int main(int argc, char **argv) {
    tally t = {.virtual_only = timing_slack() > 0};
    if (argc > 1 && strcmp(argv[1], "--must-fail") == 0) {
        t.must_fail = 1;
        argv++;
        argc--;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: %s [--must-fail] CORPUS_DIR [RESULTS_DIR]\n", argv[0]);
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (dir == NULL) {
        fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    char *names[64];
    int file_count = 0;
    for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
        size_t n = strlen(entry->d_name);
        if (n > 6 && strcmp(entry->d_name + n - 6, ".jsonl") == 0 && file_count < 64)
            names[file_count++] = strdup(entry->d_name);
    }
    closedir(dir);
    qsort(names, (size_t)file_count, sizeof names[0], by_name);

    /* The digest first (FNV-1a 64 over the files' bytes in name order), then the scenarios. */
    uint64_t digest = 0xCBF29CE484222325ULL;
    char path[4096];
    for (int i = 0; i < file_count; i++) {
        snprintf(path, sizeof path, "%s/%s", argv[1], names[i]);
        FILE *f = fopen(path, "rb");
        for (int c; f != NULL && (c = fgetc(f)) != EOF;) digest = (digest ^ (uint64_t)c) * 0x100000001B3ULL;
        if (f != NULL) fclose(f);
    }
    if (argc > 2 && !t.virtual_only) {
        mkdir(argv[2], 0777);
        snprintf(path, sizeof path, "%s/c.txt", argv[2]);
        t.results = fopen(path, "w");
        if (t.results != NULL) fprintf(t.results, "digest %016llx\n", (unsigned long long)digest);
    }
    static step s;
    static char line[8192];
    for (int round = 0; round < 2 * file_count; round++) {
        int i = round % file_count;
        t.hosted = round >= file_count;
        snprintf(path, sizeof path, "%s/%s", argv[1], names[i]);
        FILE *f = fopen(path, "r");
        if (f == NULL) {
            fprintf(stderr, "%s: %s\n", path, strerror(errno));
            return 1;
        }
        for (int number = 1; fgets(line, sizeof line, f) != NULL; number++) {
            if (line[strspn(line, " \t\r\n")] == '\0') continue;
            char where[300];
            snprintf(where, sizeof where, "%s:%d", names[i], number);
            int too_long = strchr(line, '\n') == NULL && !feof(f);
            why = NULL;
            if (too_long) why = "longer than 8190 bytes";
            else if (parse_line(line, &s) == 0 && field(&s, "scenario") == NULL && !in_scenario)
                why = "a step before the file's first scenario line";
            if (why != NULL) {
                fprintf(stderr, "%s: not a scenario line: %s\n", where, why);
                fclose(f);
                if (in_scenario && !skipping) cadence_loop_close(current.loop);
                for (int k = 0; k < file_count; k++) free(names[k]);
                if (t.results != NULL) fclose(t.results);
                return 1;
            }
            if (field(&s, "scenario") != NULL) start_scenario(&t, &s, where);
            else if (in_scenario && !skipping) do_step(&current, &s);
        }
        fclose(f);
        end_scenario(&t);
    }
    for (int i = 0; i < file_count; i++) free(names[i]);
    if (t.results != NULL) fclose(t.results);
    if (t.must_fail) return self_check_verdict(&t);
    printf("scenarios (C): %d passed, %d failed", t.passed, t.failed);
    if (t.skipped > 0) printf(", %d real-clock ones skipped under valgrind", t.skipped);
    printf("\n");
    return t.failed == 0 && t.passed >= 60 ? 0 : 1;
}

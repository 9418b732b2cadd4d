/* A registration keeps the release function its loop had when it was made
 * (cadence_loop_set_callbacks), whatever is set after: with 40 release functions set in turn, each
 * registration's end calls its own, whether it is cancelled, given up or ended by the loop's
 * close. A loop keeps at most 31 release functions for its armed registrations (its timers keep
 * them by a 5-bit tag): a registration made with a 32nd while 31 others have registrations armed
 * fails with CADENCE_ENOMEM and leaves its userdata untouched; once one of the 31 has none left,
 * its place is taken, also when its last timer's call has just started in a fire batch. */
#include "check.h"

enum { FUNCTIONS = 40, KEPT = 31 };

/* What happened to one registration: the release function it was made with, and the one that
 * released it (-1: none yet), and how many times. */
typedef struct reg {
    int made_with;
    int released_by;
    int releases;
    int finals;
} reg;

static void released(int function, void *userdata) {
    reg *r = userdata;
    r->released_by = function;
    r->releases++;
}

#define RELEASE_FN(n) \
    static void release_##n(void *userdata) { released(n, userdata); }
#define TEN(d) RELEASE_FN(d##0) RELEASE_FN(d##1) RELEASE_FN(d##2) RELEASE_FN(d##3) RELEASE_FN(d##4) \
    RELEASE_FN(d##5) RELEASE_FN(d##6) RELEASE_FN(d##7) RELEASE_FN(d##8) RELEASE_FN(d##9)
static void release_0(void *userdata) { released(0, userdata); }
RELEASE_FN(1) RELEASE_FN(2) RELEASE_FN(3) RELEASE_FN(4) RELEASE_FN(5) RELEASE_FN(6)
RELEASE_FN(7) RELEASE_FN(8) RELEASE_FN(9)
TEN(1) TEN(2) TEN(3)

#define LIST_TEN(d) release_##d##0, release_##d##1, release_##d##2, release_##d##3, release_##d##4, \
    release_##d##5, release_##d##6, release_##d##7, release_##d##8, release_##d##9
static cadence_release_fn const releases[FUNCTIONS] = {
    release_0, release_1, release_2, release_3, release_4, release_5, release_6, release_7,
    release_8, release_9, LIST_TEN(1), LIST_TEN(2), LIST_TEN(3)};

static void on_tick(const cadence_tick *tick, void *userdata) {
    reg *r = userdata;
    if (tick->final) r->finals++;
}

/* A one-shot an hour away made with release function `function`. */
static int schedule_with(cadence_loop loop, int function, reg *r, cadence_cancellable *out) {
    CHECK_OK(cadence_loop_set_callbacks(loop, NULL, releases[function]));
    *r = (reg){.made_with = function, .released_by = -1};
    return cadence_loop_schedule(loop, 3600, 0, "default", on_tick, r, out);
}

static void each_end_calls_its_own_release_function(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    reg regs[FUNCTIONS];
    cadence_cancellable handles[FUNCTIONS];
    /* 31 release functions, each with a registration armed (one of them repeating). */
    for (int i = 0; i < KEPT; i++) CHECK_OK(schedule_with(loop, i, &regs[i], &handles[i]));
    reg repeating = {.made_with = 20, .released_by = -1};
    cadence_cancellable every;
    CHECK_OK(cadence_loop_set_callbacks(loop, NULL, releases[20]));
    CHECK_OK(cadence_loop_schedule_repeating(loop, 1, 1, 0, CADENCE_MISSED_TICKS_SKIP, "default",
                                             on_tick, &repeating, &every));

    /* A 32nd while all 31 have registrations armed: refused, its userdata never used. */
    reg refused;
    cadence_cancellable none = {0};
    CHECK_ERR(schedule_with(loop, KEPT, &refused, &none), CADENCE_ENOMEM);
    CHECK(strstr(cadence_last_error_message(), "release function") != NULL);
    CHECK_EQ(none.id, 0);
    /* The same function as an armed one is no new one: taken. */
    reg again;
    cadence_cancellable again_handle;
    CHECK_OK(schedule_with(loop, 25, &again, &again_handle));

    /* Once function 0 has no registration armed, the 32nd takes its place. */
    CHECK_OK(cadence_cancel(handles[0]));
    CHECK_EQ(regs[0].released_by, 0);
    CHECK_OK(schedule_with(loop, KEPT, &regs[KEPT], &handles[KEPT]));
    /* And so on, through all 40: each cancel frees a place for the next (functions 1 to 8, with
     * no other registration armed). */
    for (int i = KEPT + 1; i < FUNCTIONS; i++) {
        CHECK_OK(cadence_cancel(handles[i - KEPT]));
        CHECK_OK(schedule_with(loop, i, &regs[i], &handles[i]));
    }
    CHECK_OK(cadence_loop_run(loop, "default", 2.5));  /* the repeating timer ticks through all this */
    CHECK_OK(cadence_cancel(again_handle));
    CHECK_EQ(again.released_by, 25);
    /* The rest end with the loop: each by its own function, once. */
    CHECK_OK(cadence_cancellable_release(every));
    for (int i = 0; i < FUNCTIONS; i++) CHECK_OK(cadence_cancellable_release(handles[i]));
    CHECK_OK(cadence_loop_close(loop));
    for (int i = 0; i < FUNCTIONS; i++) {
        CHECK_EQ(regs[i].released_by, regs[i].made_with);
        CHECK_EQ(regs[i].releases, 1);
        CHECK_EQ(regs[i].finals, 0);
    }
    CHECK_EQ(repeating.released_by, 20);
    CHECK_EQ(repeating.releases, 1);
    CHECK_EQ(refused.releases + refused.finals, 0);
    CHECK_EQ(again.releases, 1);
}

/* A final fire needs no release: a one-shot made with a function whose place was taken since
 * fires once and calls none. */
static void a_final_fire_calls_no_release(void) {
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    reg first, later;
    cadence_cancellable a, b;
    CHECK_OK(schedule_with(loop, 3, &first, &a));
    CHECK_OK(schedule_with(loop, 4, &later, &b));
    CHECK_OK(cadence_loop_run(loop, "default", 3601));
    CHECK_EQ(first.finals, 1);
    CHECK_EQ(later.finals, 1);
    CHECK_EQ(first.releases + later.releases, 0);
    CHECK_OK(cadence_cancellable_release(a));
    CHECK_OK(cadence_cancellable_release(b));
    CHECK_OK(cadence_loop_close(loop));
}

/* In a fire batch, a record whose call has started has fired (cadence_loop_set_fire_batch): its
 * release function's place is free for a new one scheduled from that call. */
static cadence_loop batch_loop;
static int64_t batch_scheduled;
static reg batch_reg = {.made_with = KEPT, .released_by = -1};
static void on_fire(void *userdata, double fire_date, uint64_t skipped, int final) {
    (void)userdata; (void)fire_date; (void)skipped; (void)final;
}
static void on_batch(cadence_fire_record *records, size_t count, size_t *started) {
    (void)records;
    for (size_t i = 0; i < count; i++) {
        *started = i + 1;
        if (i == 0) {  /* function 0's only timer: fired */
            CHECK_OK(cadence_loop_set_callbacks(batch_loop, on_fire, releases[KEPT]));
            batch_scheduled = cadence_loop_schedule_default(batch_loop, 5, &batch_reg);
        }
    }
}
static void a_started_batch_record_frees_its_place(void) {
    CHECK_OK(cadence_loop_create_virtual(&batch_loop));
    reg regs[KEPT];
    for (int i = 0; i < KEPT; i++) {
        CHECK_OK(cadence_loop_set_callbacks(batch_loop, on_fire, releases[i]));
        regs[i] = (reg){.made_with = i, .released_by = -1};
        CHECK(cadence_loop_schedule_default(batch_loop, 1, &regs[i]) > 0);
    }
    CHECK_OK(cadence_loop_set_fire_batch(batch_loop, on_batch));
    CHECK_OK(cadence_loop_run(batch_loop, "default", 2));
    CHECK(batch_scheduled > 0);
    CHECK_OK(cadence_loop_close(batch_loop));
    for (int i = 0; i < KEPT; i++) CHECK_EQ(regs[i].releases, 0);  /* all fired: none released */
    CHECK_EQ(batch_reg.released_by, KEPT);  /* armed at the close: its own function */
    CHECK_EQ(batch_reg.releases, 1);
}

int main(void) {
    each_end_calls_its_own_release_function();
    a_final_fire_calls_no_release();
    a_started_batch_record_frees_its_place();
    puts("release_functions: ok");
    return 0;
}

/* Error names and messages for every code, for 0 and for unknown codes; the last error message,
 * per thread; and the loaded library's version against the header's macros. */
#include <limits.h>
#include <pthread.h>

#include "check.h"

static const struct { int code; const char *name; } known[] = {
    {CADENCE_ENOENT, "ENOENT"}, {CADENCE_EIO, "EIO"},       {CADENCE_EBADF, "EBADF"},
    {CADENCE_ENOMEM, "ENOMEM"}, {CADENCE_EBUSY, "EBUSY"},   {CADENCE_EINVAL, "EINVAL"},
    {CADENCE_ENOTSUP, "ENOTSUP"}, {CADENCE_EALREADY, "EALREADY"},
};
#define KNOWN_COUNT (int)(sizeof known / sizeof *known)

/* On a thread of its own: no message before a failure, then only this thread's. */
static void *fail_on_another_thread(void *unused) {
    (void)unused;
    CHECK_STR(cadence_last_error_message(), "");
    CHECK_ERR(cadence_loop_create_virtual(NULL), CADENCE_EINVAL);
    CHECK_STR(cadence_last_error_message(), "cadence_loop_create_virtual: out must not be NULL, got NULL");
    return NULL;
}

static void last_error_message(void) {
    const char *none = cadence_last_error_message();
    CHECK(none != NULL);
    CHECK_STR(none, "");                       /* nothing has failed on this thread yet */
    CHECK_ERR(cadence_loop_create(NULL), CADENCE_EINVAL);
    CHECK_STR(cadence_last_error_message(), "cadence_loop_create: out must not be NULL, got NULL");
    pthread_t other;
    CHECK_EQ(pthread_create(&other, NULL, fail_on_another_thread, NULL), 0);
    CHECK_EQ(pthread_join(other, NULL), 0);
    /* The other thread's failure left this thread's message alone, and so does a success. */
    cadence_loop loop;
    CHECK_OK(cadence_loop_create_virtual(&loop));
    CHECK_OK(cadence_loop_close(loop));
    CHECK_STR(cadence_last_error_message(), "cadence_loop_create: out must not be NULL, got NULL");
}

int main(void) {
    last_error_message();
    const char *unknown_message = cadence_strerror(INT_MIN);
    CHECK(unknown_message != NULL && unknown_message[0] != '\0');
    for (int i = 0; i < KNOWN_COUNT; i++) {
        CHECK_STR(cadence_err_name(known[i].code), known[i].name);
        const char *message = cadence_strerror(known[i].code);
        CHECK(message[0] != '\0');
        CHECK(strcmp(message, unknown_message) != 0);
        for (int j = 0; j < i; j++) CHECK(strcmp(message, cadence_strerror(known[j].code)) != 0);
        CHECK(cadence_strerror(known[i].code) == message);  /* static strings */
    }
    CHECK_STR(cadence_err_name(0), "OK");
    CHECK_STR(cadence_strerror(0), "success");
    static const int unknown[] = {1, -1, -3, -22 * 2, 22, 114, -1000, INT_MIN, INT_MAX};
    for (int i = 0; i < (int)(sizeof unknown / sizeof *unknown); i++) {
        CHECK_STR(cadence_err_name(unknown[i]), "UNKNOWN");
        CHECK_STR(cadence_strerror(unknown[i]), unknown_message);
    }

    CHECK_EQ(cadence_version(), CADENCE_VERSION_HEX);
    CHECK_EQ(CADENCE_VERSION_HEX, (CADENCE_VERSION_MAJOR << 16) | (CADENCE_VERSION_MINOR << 8) | CADENCE_VERSION_PATCH);
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", CADENCE_VERSION_MAJOR, CADENCE_VERSION_MINOR,
             CADENCE_VERSION_PATCH);
    CHECK_STR(cadence_version_string(), expected);
    CHECK(cadence_version_string() == cadence_version_string());
    return 0;
}

/* ticker: a 0.1 s timer on a Cadence loop, run for 0.55 s.
 *
 * Build against an installed Cadence:
 *     cc ticker.c $(pkg-config --cflags --libs cadence) -o ticker
 * or with CMake, against an install or with Cadence's sources: see CMakeLists.txt beside it.
 * It prints each fire date and the count, and exits 0 if the count is 4 to 6. */
#include <stdio.h>
#include <stdlib.h>

#include <cadence.h>

/* Stops the program with a message if a Cadence call failed: what was wrong, and the code's name. */
static void check(int err, const char *what) {
    if (err != 0) {
        fprintf(stderr, "ticker: %s: %s (%s)\n", what, cadence_last_error_message(), cadence_err_name(err));
        exit(1);
    }
}

/* Called on the loop's thread for every tick; userdata is our counter. */
static void on_tick(const cadence_tick *tick, void *userdata) {
    int *count = userdata;
    ++*count;
    printf("tick %d: fire date %.3f\n", *count, tick->fire_date);
}

int main(void) {
    printf("Cadence %s\n", cadence_version_string());

    cadence_loop loop;
    cadence_publisher timer;
    cadence_cancellable subscription, connection;
    int count = 0;

    check(cadence_loop_create(&loop), "create a loop");
    check(cadence_publisher_create(loop, 0.1, 0, "default", &timer), "publish a timer");
    check(cadence_publisher_subscribe(timer, on_tick, &count, &subscription), "subscribe");
    check(cadence_publisher_connect(timer, &connection), "connect");   /* the timer starts here */
    check(cadence_loop_run(loop, "default", 0.55), "run the loop");    /* ticks at 0.1 ... 0.5 s */

    check(cadence_cancel(connection), "cancel");
    check(cadence_cancellable_release(connection), "release the connection");
    check(cadence_cancellable_release(subscription), "release the subscription");
    check(cadence_publisher_release(timer), "release the timer");
    check(cadence_loop_close(loop), "destroy the loop");

    printf("%d ticks\n", count);
    return count >= 4 && count <= 6 ? 0 : 1;
}

/* loop — a thin wrapper over libevent: what the async workers and the
 * metrics endpoint need, and nothing of libevent's types outside loop.c.
 *
 * Two uses:
 *
 *  - Slots (async workers).  A loop is created with N slots, one per
 *    virtual user.  A slot waits for one thing at a time: a socket to
 *    become readable/writable, a monotonic deadline, or both
 *    (lb_loop_wait), or is made ready at once (lb_loop_ready).  When that
 *    happens the slot goes onto the loop's ready queue with the reason as a
 *    mask; lb_loop_run blocks until the queue is non-empty (or a deadline)
 *    and hands the queue to the caller.  No callback into the caller: the
 *    Lua scheduler pulls ready slots in batches, one FFI call per batch,
 *    and resumes the virtual users itself.
 *
 *  - Servers (metrics endpoint).  An HTTP server on the loop's base with
 *    named callback types; lb_loop_dispatch runs the loop until
 *    lb_loop_break, which may be called from any thread.
 *
 * A loop belongs to one thread; only lb_loop_wakeup and lb_loop_break may
 * be called from another thread.  Return convention: 0 or a documented
 * non-negative value on success, -errno on failure. */
#ifndef LB_LOOP_H
#define LB_LOOP_H

#include <stddef.h>
#include <stdint.h>

/* FFI BEGIN */
typedef struct lb_loop lb_loop;

/* Wait reasons, the same values as LB_DB_WAIT_* (and MariaDB's MYSQL_WAIT_*),
 * so a driver's wait mask passes through unchanged. */
enum { LB_LOOP_READ = 1, LB_LOOP_WRITE = 2, LB_LOOP_EXCEPT = 4, LB_LOOP_TIMEOUT = 8 };

/* A loop with `nslots` slots (0 for a server loop); NULL when out of
 * memory or when libevent cannot create a base. */
lb_loop *lb_loop_new(int nslots);
void lb_loop_free(lb_loop *l);

/* Arm slot `slot`: it becomes ready when `fd` (>= 0) is ready for `mask`
 * (LB_LOOP_READ | LB_LOOP_WRITE; EXCEPT counts as READ) or when the
 * monotonic time `until_ns` passes (< 0: no deadline).  With fd < 0 it is
 * a pure timer.  Re-arming a waiting slot replaces its wait.  -EINVAL for a
 * bad slot or a wait on nothing.
 *
 * A slot's socket stays registered for reading between waits (no epoll_ctl
 * per query); so before that socket is closed or replaced by another one
 * with the same number (disconnect, reconnect), the owner calls
 * lb_loop_forget.  A socket that becomes readable while its slot is not
 * waiting (the server closed an idle connection) is unregistered then. */
int lb_loop_wait(lb_loop *l, int slot, int fd, int mask, int64_t until_ns);

/* Drop slot `slot`'s socket registration (see lb_loop_wait). */
void lb_loop_forget(lb_loop *l, int slot);

/* Put `slot` on the ready queue at once with reason `mask` (cancelling
 * its wait, if any).  A slot is at most once on the queue. */
int lb_loop_ready(lb_loop *l, int slot, int mask);

/* Is `slot` armed (waiting, not yet ready)? */
int lb_loop_waiting(const lb_loop *l, int slot);

/* Deliver ready slots: polls the sockets, then, if nothing is ready,
 * blocks until something is, until the monotonic time `until_ns`, or
 * until lb_loop_wakeup (until_ns < 0: no limit; returns at once when
 * nothing at all is armed).
 * Copies up to `max` ready slots and their reasons (LB_LOOP_* bits of what
 * happened: READ/WRITE, TIMEOUT, or the mask given to lb_loop_ready) in
 * the order they became ready; returns how many (0 on timeout or
 * wakeup), or -errno. */
int lb_loop_run(lb_loop *l, int32_t *slots, int32_t *masks, int max, int64_t until_ns);

/* Thread-safe: make a blocked lb_loop_run return (at most one pending
 * wakeup is kept). */
void lb_loop_wakeup(lb_loop *l);
/* FFI END */

/* ---- servers (C only) ------------------------------------------------ */

/* Run the loop's events until lb_loop_break.  0, or -errno. */
int lb_loop_dispatch(lb_loop *l);
/* Thread-safe: make lb_loop_dispatch return. */
void lb_loop_break(lb_loop *l);

typedef struct lb_loop_http lb_loop_http;
typedef struct lb_loop_reply lb_loop_reply;

/* A request handler: writes the body with lb_loop_reply_printf.  Runs on
 * the loop's thread. */
typedef void (*lb_loop_http_fn)(void *ud, lb_loop_reply *rep);

/* An HTTP server on `host:port` (port 0: any free port).  NULL with a
 * one-line reason in `err` on failure (address in use, bad address). */
lb_loop_http *lb_loop_http_new(lb_loop *l, const char *host, int port, char *err, size_t errlen);
/* Serve GET/HEAD `path` with `fn`; other paths answer 404, other methods 405. */
int lb_loop_http_route(lb_loop_http *h, const char *path, const char *content_type,
                       lb_loop_http_fn fn, void *ud);
/* The port actually bound. */
int lb_loop_http_port(const lb_loop_http *h);
void lb_loop_http_free(lb_loop_http *h);

__attribute__((format(printf, 2, 3)))
void lb_loop_reply_printf(lb_loop_reply *rep, const char *fmt, ...);

#endif

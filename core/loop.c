/* loop — libevent behind lb_loop; see loop.h.
 *
 * Design notes (each choice removes system calls from the per-query path
 * of an async worker, measured with strace on point selects):
 *  - One event_base per loop with EVENT_BASE_FLAG_NOLOCK: a loop belongs
 *    to one thread, so libevent's locks would be pure cost.
 *  - A slot's socket is registered once as a persistent read event and
 *    stays registered between waits; a database socket is only readable
 *    when the server answers something we asked, so this costs nothing
 *    and saves an epoll_ctl ADD and DEL per query.  Write waits (a full
 *    send buffer) are rare and use a one-shot event.
 *  - Timers (think time, intended starts under --rate, query timeouts)
 *    are kept here in a binary min-heap of monotonic deadlines, with one
 *    timerfd (absolute CLOCK_MONOTONIC, nanosecond resolution) armed for
 *    the earliest: it is re-armed only when the earliest deadline moves
 *    earlier or after it fired, instead of libevent's precise-timer mode,
 *    which calls timerfd_settime on every dispatch.  epoll_wait's own
 *    millisecond timeout would make a paced user start up to 1 ms late,
 *    which would show up as queue time.
 *  - Cross-thread calls (wakeup, break) write to an eventfd the loop
 *    watches, instead of enabling libevent's thread support.
 */
#include "loop.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "clock.h"

enum { SLOT_IDLE, SLOT_WAITING, SLOT_QUEUED };

typedef struct slot {
    lb_loop *l;
    int idx;
    int state;
    int mask;              /* queued: reason; waiting: what it waits for */
    int fd;                /* socket registered for reading, -1 none */
    int r_on, w_on;        /* read (persistent) / write (one-shot) event added */
    int hpos;              /* index in the timer heap, -1 none */
    int64_t deadline;
} slot;

struct lb_loop {
    struct event_base *base;
    int nslots;
    slot *slots;
    char *evblock;         /* 2 events per slot (read, write) */
    size_t evsize;
    int narmed;
    /* ready queue: a ring of slot indexes, each slot at most once */
    int32_t *ring;
    int head, nready;
    /* timers: min-heap of slots by deadline, one timerfd for the earliest */
    int32_t *heap;
    int nheap;
    int tfd;
    struct event *tfd_ev;
    int64_t armed;         /* deadline the timerfd is armed for, -1 none */
    /* cross-thread wakeups */
    int wake_fd;
    struct event *wake_ev;
    _Atomic int breaking;
};

static struct event *ev_r(lb_loop *l, int i) { return (struct event *)(l->evblock + (size_t)(2 * i) * l->evsize); }
static struct event *ev_w(lb_loop *l, int i) { return (struct event *)(l->evblock + (size_t)(2 * i + 1) * l->evsize); }

/* ---- timer heap ---- */

static void heap_set(lb_loop *l, int pos, int32_t si)
{
    l->heap[pos] = si;
    l->slots[si].hpos = pos;
}

static void heap_up(lb_loop *l, int pos)
{
    int32_t si = l->heap[pos];
    int64_t d = l->slots[si].deadline;
    while (pos > 0) {
        int parent = (pos - 1) / 2;
        if (l->slots[l->heap[parent]].deadline <= d)
            break;
        heap_set(l, pos, l->heap[parent]);
        pos = parent;
    }
    heap_set(l, pos, si);
}

static void heap_down(lb_loop *l, int pos)
{
    int32_t si = l->heap[pos];
    int64_t d = l->slots[si].deadline;
    for (;;) {
        int c = 2 * pos + 1;
        if (c >= l->nheap)
            break;
        if (c + 1 < l->nheap && l->slots[l->heap[c + 1]].deadline < l->slots[l->heap[c]].deadline)
            c++;
        if (l->slots[l->heap[c]].deadline >= d)
            break;
        heap_set(l, pos, l->heap[c]);
        pos = c;
    }
    heap_set(l, pos, si);
}

static void heap_push(lb_loop *l, slot *s, int64_t deadline)
{
    s->deadline = deadline;
    heap_set(l, l->nheap++, s->idx);
    heap_up(l, s->hpos);
}

static void heap_remove(lb_loop *l, slot *s)
{
    int pos = s->hpos;
    if (pos < 0)
        return;
    s->hpos = -1;
    int32_t last = l->heap[--l->nheap];
    if (pos == l->nheap)
        return;
    heap_set(l, pos, last);
    if (pos > 0 && l->slots[last].deadline < l->slots[l->heap[(pos - 1) / 2]].deadline)
        heap_up(l, pos);
    else
        heap_down(l, pos);
}

/* ---- slots ---- */

static void enqueue(lb_loop *l, slot *s, int mask)
{
    if (s->state == SLOT_QUEUED) {
        s->mask |= mask;
        return;
    }
    if (s->state == SLOT_WAITING)
        l->narmed--;
    s->state = SLOT_QUEUED;
    s->mask = mask;
    l->ring[(l->head + l->nready) % l->nslots] = s->idx;
    l->nready++;
}

/* End a wait (its events other than the persistent read are cancelled). */
static void finish(lb_loop *l, slot *s, int mask)
{
    heap_remove(l, s);
    if (s->w_on) {
        event_del(ev_w(l, s->idx));
        s->w_on = 0;
    }
    enqueue(l, s, mask);
}

static void read_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    slot *s = arg;
    lb_loop *l = s->l;
    if (s->state == SLOT_WAITING && (s->mask & (LB_LOOP_READ | LB_LOOP_EXCEPT))) {
        finish(l, s, LB_LOOP_READ);
    } else {
        /* Readable while nobody waits (the server closed an idle
         * connection): stop watching, or a level-triggered poll would spin.
         * The next wait registers it again and sees it at once. */
        event_del(ev_r(l, s->idx));
        s->r_on = 0;
    }
}

static void write_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    slot *s = arg;
    s->w_on = 0;
    if (s->state == SLOT_WAITING)
        finish(s->l, s, LB_LOOP_WRITE);
}

static void tfd_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    uint64_t n;
    while (read(fd, &n, sizeof n) > 0)
        ;
    ((lb_loop *)arg)->armed = -1;
}

static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    lb_loop *l = arg;
    uint64_t v;
    while (read(fd, &v, sizeof v) > 0)
        ;
    if (atomic_load_explicit(&l->breaking, memory_order_acquire))
        event_base_loopbreak(l->base);
}

/* Ready every slot whose deadline has passed. */
static void expire(lb_loop *l)
{
    if (l->nheap == 0)
        return;
    int64_t now = lb_clock_ns_inline();
    while (l->nheap > 0) {
        slot *s = &l->slots[l->heap[0]];
        if (s->deadline > now)
            break;
        finish(l, s, LB_LOOP_TIMEOUT);
    }
}

/* Make sure the timerfd fires no later than `t` (< 0: nothing to time). */
static void arm(lb_loop *l, int64_t t)
{
    if (t < 0 || (l->armed >= 0 && l->armed <= t))
        return;
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    if (t < 1)
        t = 1; /* 0 would disarm */
    its.it_value.tv_sec = (time_t)(t / 1000000000LL);
    its.it_value.tv_nsec = (long)(t % 1000000000LL);
    if (timerfd_settime(l->tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
        l->armed = t;
}

lb_loop *lb_loop_new(int nslots)
{
    if (nslots < 0)
        return NULL;
    lb_loop *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->wake_fd = l->tfd = -1;
    l->armed = -1;
    struct event_config *cfg = event_config_new();
    if (!cfg)
        goto fail;
    event_config_set_flag(cfg, EVENT_BASE_FLAG_NOLOCK);
    l->base = event_base_new_with_config(cfg);
    event_config_free(cfg);
    if (!l->base)
        goto fail;
    l->nslots = nslots;
    if (nslots > 0) {
        l->evsize = (event_get_struct_event_size() + 15) / 16 * 16;
        l->slots = calloc((size_t)nslots, sizeof *l->slots);
        l->ring = calloc((size_t)nslots, sizeof *l->ring);
        l->heap = calloc((size_t)nslots, sizeof *l->heap);
        l->evblock = calloc((size_t)nslots * 2, l->evsize);
        if (!l->slots || !l->ring || !l->heap || !l->evblock)
            goto fail;
        for (int i = 0; i < nslots; i++) {
            l->slots[i].l = l;
            l->slots[i].idx = i;
            l->slots[i].fd = -1;
            l->slots[i].hpos = -1;
        }
    }
    l->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    l->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (l->tfd < 0 || l->wake_fd < 0)
        goto fail;
    l->tfd_ev = event_new(l->base, l->tfd, EV_READ | EV_PERSIST, tfd_cb, l);
    l->wake_ev = event_new(l->base, l->wake_fd, EV_READ | EV_PERSIST, wake_cb, l);
    if (!l->tfd_ev || !l->wake_ev || event_add(l->tfd_ev, NULL) != 0 || event_add(l->wake_ev, NULL) != 0)
        goto fail;
    return l;
fail:
    lb_loop_free(l);
    return NULL;
}

void lb_loop_free(lb_loop *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->nslots && l->slots && l->evblock; i++) {
        if (l->slots[i].r_on)
            event_del(ev_r(l, i));
        if (l->slots[i].w_on)
            event_del(ev_w(l, i));
    }
    if (l->wake_ev)
        event_free(l->wake_ev);
    if (l->tfd_ev)
        event_free(l->tfd_ev);
    if (l->wake_fd >= 0)
        close(l->wake_fd);
    if (l->tfd >= 0)
        close(l->tfd);
    if (l->base)
        event_base_free(l->base);
    free(l->slots);
    free(l->ring);
    free(l->heap);
    free(l->evblock);
    free(l);
}

/* Cancel a wait without readying the slot. */
static void disarm(lb_loop *l, slot *s)
{
    if (s->state == SLOT_WAITING) {
        heap_remove(l, s);
        if (s->w_on) {
            event_del(ev_w(l, s->idx));
            s->w_on = 0;
        }
        s->state = SLOT_IDLE;
        l->narmed--;
    }
}

void lb_loop_forget(lb_loop *l, int slot_i)
{
    if (!l || slot_i < 0 || slot_i >= l->nslots)
        return;
    slot *s = &l->slots[slot_i];
    if (s->r_on) {
        event_del(ev_r(l, slot_i));
        s->r_on = 0;
    }
    s->fd = -1;
}

int lb_loop_wait(lb_loop *l, int slot_i, int fd, int mask, int64_t until_ns)
{
    if (!l || slot_i < 0 || slot_i >= l->nslots)
        return -EINVAL;
    slot *s = &l->slots[slot_i];
    int rd = fd >= 0 && (mask & (LB_LOOP_READ | LB_LOOP_EXCEPT));
    int wr = fd >= 0 && (mask & LB_LOOP_WRITE);
    if (!rd && !wr && until_ns < 0)
        return -EINVAL;
    if (s->state == SLOT_QUEUED)
        return 0; /* already ready: the caller will see it on the next run */
    disarm(l, s);
    if (fd >= 0 && fd != s->fd) {
        lb_loop_forget(l, slot_i);
        s->fd = fd;
    }
    if (rd && !s->r_on) {
        struct event *ev = ev_r(l, slot_i);
        if (event_assign(ev, l->base, fd, EV_READ | EV_PERSIST, read_cb, s) != 0 || event_add(ev, NULL) != 0)
            return -EINVAL;
        s->r_on = 1;
    }
    if (wr) {
        struct event *ev = ev_w(l, slot_i);
        if (event_assign(ev, l->base, fd, EV_WRITE, write_cb, s) != 0 || event_add(ev, NULL) != 0)
            return -EINVAL;
        s->w_on = 1;
    }
    s->mask = (rd ? LB_LOOP_READ : 0) | (wr ? LB_LOOP_WRITE : 0);
    s->state = SLOT_WAITING;
    l->narmed++;
    if (until_ns >= 0)
        heap_push(l, s, until_ns);
    return 0;
}

int lb_loop_ready(lb_loop *l, int slot_i, int mask)
{
    if (!l || slot_i < 0 || slot_i >= l->nslots)
        return -EINVAL;
    slot *s = &l->slots[slot_i];
    disarm(l, s);
    enqueue(l, s, mask);
    return 0;
}

int lb_loop_waiting(const lb_loop *l, int slot_i)
{
    return l && slot_i >= 0 && slot_i < l->nslots && l->slots[slot_i].state == SLOT_WAITING;
}

int lb_loop_run(lb_loop *l, int32_t *slots, int32_t *masks, int max, int64_t until_ns)
{
    if (!l || max < 0)
        return -EINVAL;
    int rc = 0;
    expire(l);
    if (l->nready > 0) {
        /* Others are ready already: only poll, so that sockets that became
         * ready meanwhile join the queue behind them (no starvation). */
        rc = event_base_loop(l->base, EVLOOP_NONBLOCK);
    } else if (l->narmed == 0 && until_ns < 0) {
        return 0;
    } else if (until_ns < 0 || until_ns > lb_clock_ns_inline()) {
        int64_t next = l->nheap > 0 ? l->slots[l->heap[0]].deadline : -1;
        if (until_ns >= 0 && (next < 0 || until_ns < next))
            next = until_ns;
        arm(l, next);
        rc = event_base_loop(l->base, EVLOOP_ONCE);
        expire(l);
    }
    if (rc < 0)
        return -EIO;
    int n = 0;
    while (n < max && l->nready > 0) {
        int i = l->ring[l->head];
        l->head = (l->head + 1) % l->nslots;
        l->nready--;
        slot *s = &l->slots[i];
        s->state = SLOT_IDLE;
        slots[n] = i;
        masks[n] = s->mask;
        n++;
    }
    return n;
}

void lb_loop_wakeup(lb_loop *l)
{
    uint64_t one = 1;
    if (l && write(l->wake_fd, &one, sizeof one) < 0) {
        /* EAGAIN: a wakeup is pending already, which is all we need. */
    }
}

int lb_loop_dispatch(lb_loop *l)
{
    if (!l)
        return -EINVAL;
    if (atomic_load_explicit(&l->breaking, memory_order_acquire))
        return 0;
    return event_base_dispatch(l->base) < 0 ? -EIO : 0;
}

void lb_loop_break(lb_loop *l)
{
    if (!l)
        return;
    atomic_store_explicit(&l->breaking, 1, memory_order_release);
    lb_loop_wakeup(l);
}

/* ---- HTTP ------------------------------------------------------------- */

typedef struct route {
    struct route *next;
    lb_loop_http *h;
    char *path;
    char *ctype;
    lb_loop_http_fn fn;
    void *ud;
} route;

struct lb_loop_http {
    lb_loop *l;
    struct evhttp *http;
    struct evhttp_bound_socket *sock;
    route *routes;
};

struct lb_loop_reply {
    struct evbuffer *b;
};

void lb_loop_reply_printf(lb_loop_reply *rep, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    evbuffer_add_vprintf(rep->b, fmt, ap);
    va_end(ap);
}

static void not_found_cb(struct evhttp_request *req, void *arg)
{
    (void)arg;
    evhttp_send_error(req, HTTP_NOTFOUND, NULL);
}

static void route_cb(struct evhttp_request *req, void *arg)
{
    route *r = arg;
    enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
    if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD) {
        evhttp_send_error(req, 405, "Method Not Allowed");
        return;
    }
    struct evbuffer *b = evbuffer_new();
    if (!b) {
        evhttp_send_error(req, HTTP_INTERNAL, NULL);
        return;
    }
    lb_loop_reply rep = { b };
    r->fn(r->ud, &rep);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", r->ctype);
    evhttp_send_reply(req, HTTP_OK, "OK", b);
    evbuffer_free(b);
}

lb_loop_http *lb_loop_http_new(lb_loop *l, const char *host, int port, char *err, size_t errlen)
{
    lb_loop_http *h = calloc(1, sizeof *h);
    if (!h || !l) {
        snprintf(err, errlen, "out of memory");
        free(h);
        return NULL;
    }
    h->l = l;
    h->http = evhttp_new(l->base);
    if (!h->http) {
        snprintf(err, errlen, "cannot create the HTTP server");
        free(h);
        return NULL;
    }
    errno = 0;
    h->sock = evhttp_bind_socket_with_handle(h->http, host, (ev_uint16_t)port);
    if (!h->sock) {
        snprintf(err, errlen, "cannot listen on %s:%d: %s", host, port,
                 errno ? strerror(errno) : "bad address");
        evhttp_free(h->http);
        free(h);
        return NULL;
    }
    evhttp_set_allowed_methods(h->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD | EVHTTP_REQ_POST);
    evhttp_set_gencb(h->http, not_found_cb, NULL);
    evhttp_set_timeout(h->http, 10);
    return h;
}

int lb_loop_http_route(lb_loop_http *h, const char *path, const char *content_type,
                       lb_loop_http_fn fn, void *ud)
{
    route *r = calloc(1, sizeof *r);
    if (!r)
        return -ENOMEM;
    r->h = h;
    r->path = strdup(path);
    r->ctype = strdup(content_type ? content_type : "text/plain");
    r->fn = fn;
    r->ud = ud;
    if (!r->path || !r->ctype || evhttp_set_cb(h->http, path, route_cb, r) != 0) {
        free(r->path);
        free(r->ctype);
        free(r);
        return -EINVAL;
    }
    r->next = h->routes;
    h->routes = r;
    return 0;
}

int lb_loop_http_port(const lb_loop_http *h)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    int fd = (int)evhttp_bound_socket_get_fd(h->sock);
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
        return -errno;
    if (ss.ss_family == AF_INET)
        return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return -EINVAL;
}

void lb_loop_http_free(lb_loop_http *h)
{
    if (!h)
        return;
    evhttp_free(h->http);
    route *r = h->routes;
    while (r) {
        route *n = r->next;
        free(r->path);
        free(r->ctype);
        free(r);
        r = n;
    }
    free(h);
}

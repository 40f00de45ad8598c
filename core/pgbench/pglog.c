/* pgbench's per-transaction log file: see pglog.h. */
#include "pgbench/pglog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    TXLOG_BUF = 64 * 1024,
    /* the longest line: six integers of up to 20 characters and two of
     * up to 11, their separators and the newline */
    TXLOG_LINE_MAX = 6 * 21 + 2 * 12 + 1,
};

struct lb_pg_txlog {
    int fd;
    int err;        /* errno of the first failed write, else 0 */
    int64_t shift_us;
    int32_t with_lag, with_retries;
    lb_pg_prng *sample;   /* --sampling-rate's state, or NULL: every line */
    double rate;
    int64_t written_ns;   /* the end time of the line that last sent the buffer out */
    size_t len;
    char buf[TXLOG_BUF];
};

lb_pg_txlog *lb_pg_txlog_open(const char *path, int64_t shift_us, int32_t with_lag, int32_t with_retries)
{
    lb_pg_txlog *l = malloc(sizeof *l);
    if (!l) {
        errno = ENOMEM;
        return NULL;
    }
    l->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (l->fd < 0) {
        int e = errno;
        free(l);
        errno = e;
        return NULL;
    }
    l->err = 0;
    l->shift_us = shift_us;
    l->with_lag = with_lag;
    l->with_retries = with_retries;
    l->len = 0;
    l->written_ns = INT64_MIN;
    l->sample = NULL;
    l->rate = 1;
    return l;
}

void lb_pg_txlog_sample(lb_pg_txlog *l, lb_pg_prng *state, double rate)
{
    l->sample = state;
    l->rate = rate;
}

static void flush(lb_pg_txlog *l)
{
    size_t off = 0;
    while (off < l->len && !l->err) {
        ssize_t n = write(l->fd, l->buf + off, l->len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            l->err = n < 0 ? errno : EIO;
        else
            off += (size_t)n;
    }
    l->len = 0;
}

int32_t lb_pg_txlog_write(lb_pg_txlog *l, const char *text, size_t n)
{
    while (n > 0 && !l->err) {
        if (l->len == TXLOG_BUF)
            flush(l);
        size_t room = TXLOG_BUF - l->len, k = n < room ? n : room;
        memcpy(l->buf + l->len, text, k);
        l->len += k;
        text += k;
        n -= k;
    }
    return l->err ? -1 : 0;
}

/* Microseconds of a monotonic time in ns (>= 0: floor, as pgbench's
 * division of its microsecond clock). */
static int64_t us(int64_t ns) { return ns / 1000; }

static char *put_int(char *p, int64_t v, char after)
{
    p += lb_pg_format_int(v, p, 21);
    *p++ = after;
    return p;
}

int32_t lb_pg_txlog_txn(lb_pg_txlog *l, int32_t client, int64_t cnt, int32_t script, int64_t sched_ns,
                        int64_t begin_ns, int64_t end_ns, int32_t tries)
{
    /* (here rather than in the caller's Lua: a branch taken one time in
     * five left the JIT's trace there, some 1,000 instructions a line) */
    if (l->sample && lb_pg_prng_double(l->sample) > l->rate)
        return l->err ? -1 : 0;
    if (TXLOG_BUF - l->len < TXLOG_LINE_MAX)
        flush(l);
    int64_t sched = us(sched_ns), now = us(end_ns) + l->shift_us;
    char *p = l->buf + l->len;
    p = put_int(p, client, ' ');
    p = put_int(p, cnt, ' ');
    p = put_int(p, us(end_ns) - sched, ' ');
    p = put_int(p, script, ' ');
    p = put_int(p, now / 1000000, ' ');
    p = put_int(p, now % 1000000, ' ');
    if (l->with_lag)
        p = put_int(p, us(begin_ns) - sched, ' ');
    if (l->with_retries)
        p = put_int(p, (int64_t)tries - 1, ' ');
    p[-1] = '\n';
    l->len = (size_t)(p - l->buf);
    /* Out at least once a second, so that a file followed during a long
     * run at a low rate (tail -f) is never far behind: a write(2) a
     * second at most, beside one per 64 KiB. */
    if (l->written_ns == INT64_MIN) {
        l->written_ns = end_ns;
    } else if (end_ns - l->written_ns >= 1000000000) {
        flush(l);
        l->written_ns = end_ns;
    }
    return l->err ? -1 : 0;
}

int32_t lb_pg_txlog_flush(lb_pg_txlog *l)
{
    flush(l);
    return l->err ? -1 : 0;
}

int32_t lb_pg_txlog_close(lb_pg_txlog *l)
{
    if (!l)
        return 0;
    flush(l);
    int err = l->err;
    if (close(l->fd) != 0 && !err)
        err = errno;
    free(l);
    return err;
}

/* httpget — one HTTP GET over plain TCP under a hard deadline (httpget.h). */
#include "httpget.h"
#include "clock.h"

#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

/* A node exporter's page is a few hundred KiB; anything past this is not one. */
#define LB_HTTP_MAX_REPLY (64u << 20)

typedef struct {
    char host[256];
    char port[8];
    char path[1024];
} http_url;

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* strerror's text with a small first letter, as the rest of the messages. */
static void set_errno(char *err, size_t errlen, const char *what, int e)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", strerror(e));
    buf[0] = (char)tolower((unsigned char)buf[0]);
    if (what) set_err(err, errlen, "%s: %s", what, buf);
    else set_err(err, errlen, "%s", buf);
}

static int parse_url(const char *url, http_url *u, char *err, size_t errlen)
{
    if (!url) { set_err(err, errlen, "no URL"); return -1; }
    if (strncasecmp(url, "https://", 8) == 0) {
        set_err(err, errlen, "https is not supported (http:// only)");
        return -1;
    }
    if (strncasecmp(url, "http://", 7) != 0) {
        set_err(err, errlen, "'%s' is not an http:// URL", url);
        return -1;
    }
    const char *p = url + 7, *h0, *h1;
    if (*p == '[') {
        h0 = p + 1;
        h1 = strchr(h0, ']');
        if (!h1) { set_err(err, errlen, "unclosed '[' in the host of '%s'", url); return -1; }
        p = h1 + 1;
    } else {
        h0 = p;
        while (*p && *p != ':' && *p != '/' && *p != '?' && *p != '#') p++;
        h1 = p;
    }
    size_t hl = (size_t)(h1 - h0);
    if (hl == 0 || hl >= sizeof u->host) { set_err(err, errlen, "no host (or too long a host) in '%s'", url); return -1; }
    if (memchr(h0, '@', hl)) { set_err(err, errlen, "user names in URLs are not supported: '%s'", url); return -1; }
    memcpy(u->host, h0, hl);
    u->host[hl] = 0;
    long port = 80;
    if (*p == ':') {
        char *end;
        errno = 0;
        port = strtol(p + 1, &end, 10);
        if (end == p + 1 || errno || port < 1 || port > 65535) {
            set_err(err, errlen, "bad port in '%s' (expected 1-65535)", url);
            return -1;
        }
        p = end;
    }
    if (*p && *p != '/' && *p != '?') { set_err(err, errlen, "unexpected '%c' after the host in '%s'", *p, url); return -1; }
    snprintf(u->port, sizeof u->port, "%ld", port);
    const char *path = *p ? p : "/";
    size_t pl = strcspn(path, "#");
    if (pl >= sizeof u->path) { set_err(err, errlen, "path too long in '%s'", url); return -1; }
    if (*path == '?') { u->path[0] = '/'; memcpy(u->path + 1, path, pl); u->path[pl + 1] = 0; }
    else { memcpy(u->path, path, pl); u->path[pl] = 0; }
    for (const char *c = u->path; *c; c++) {
        if ((unsigned char)*c <= ' ' || *c == 0x7f) { set_err(err, errlen, "bad character in the path of '%s'", url); return -1; }
    }
    return 0;
}

int lb_http_url_check(const char *url, char *err, size_t errlen)
{
    http_url u;
    return parse_url(url, &u, err, errlen) == 0;
}

/* Milliseconds left before `deadline` (ns), at least 0. */
static int left_ms(int64_t deadline)
{
    int64_t d = deadline - lb_clock_ns_inline();
    return d <= 0 ? 0 : (int)((d + 999999) / 1000000);
}

/* Wait for `events` on `fd` until the deadline: 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short events, int64_t deadline)
{
    for (;;) {
        int ms = left_ms(deadline);
        if (ms == 0) return 0;
        struct pollfd p = { .fd = fd, .events = events, .revents = 0 };
        int r = poll(&p, 1, ms);
        if (r > 0) return 1;
        if (r == 0) continue;  /* the loop's left_ms decides */
        if (errno != EINTR) return -1;
    }
}

/* A socket connected to one of `host`'s addresses, or -1 with the reason. */
static int connect_to(const http_url *u, int64_t deadline, int timeout_ms, char *err, size_t errlen)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int g = getaddrinfo(u->host, u->port, &hints, &res);
    if (g != 0) { set_err(err, errlen, "cannot resolve '%s': %s", u->host, gai_strerror(g)); return -1; }
    int fd = -1, last = 0, timed_out = 0;
    for (struct addrinfo *a = res; a && fd < 0 && !timed_out; a = a->ai_next) {
        int s = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (s < 0) { last = errno; continue; }
        int e = 0;
        if (connect(s, a->ai_addr, a->ai_addrlen) != 0) {
            e = errno;
            if (e == EINPROGRESS) {
                int w = wait_fd(s, POLLOUT, deadline);
                socklen_t sl = sizeof e;
                if (w == 0) timed_out = 1;
                else if (w < 0) e = errno;
                else if (getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &sl) != 0) e = errno;
            }
        }
        if (e == 0 && !timed_out) fd = s;
        else { last = e; close(s); }
    }
    freeaddrinfo(res);
    if (fd >= 0) return fd;
    if (timed_out) set_err(err, errlen, "timed out after %d ms connecting", timeout_ms);
    else set_errno(err, errlen, NULL, last ? last : ECONNREFUSED);
    return -1;
}

static int send_all(int fd, const char *buf, size_t n, int64_t deadline, int timeout_ms, char *err, size_t errlen)
{
    size_t off = 0;
    while (off < n) {
        ssize_t w = send(fd, buf + off, n - off, MSG_NOSIGNAL);
        if (w > 0) { off += (size_t)w; continue; }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int r = wait_fd(fd, POLLOUT, deadline);
            if (r > 0) continue;
            if (r == 0) set_err(err, errlen, "timed out after %d ms sending the request", timeout_ms);
            else set_errno(err, errlen, "sending the request", errno);
            return -1;
        }
        set_errno(err, errlen, "sending the request", w < 0 ? errno : EPIPE);
        return -1;
    }
    return 0;
}

/* The reply's framing, from its head: status, Content-Length (-1: none),
 * chunked or not; where the body starts. */
typedef struct {
    int status;
    char reason[64];
    long long clen;
    int chunked;
    size_t body_at;
} http_head;

/* The value of header line `line` (length n) if its name is `name`, else NULL. */
static const char *header_value(const char *line, size_t n, const char *name, size_t *vlen)
{
    size_t nl = strlen(name);
    if (n <= nl || line[nl] != ':' || strncasecmp(line, name, nl) != 0) return NULL;
    const char *v = line + nl + 1, *e = line + n;
    while (v < e && (*v == ' ' || *v == '\t')) v++;
    while (e > v && (e[-1] == ' ' || e[-1] == '\t')) e--;
    *vlen = (size_t)(e - v);
    return v;
}

/* Parse the head of `buf` (NUL terminated, `hend` the offset of its blank
 * line): 0, or -1 with the reason. */
static int parse_head(const char *buf, size_t hend, http_head *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    h->clen = -1;
    h->body_at = hend + 4;
    int minor, n = 0;
    if (sscanf(buf, "HTTP/1.%d %3d%n", &minor, &h->status, &n) != 2 || h->status < 100) {
        set_err(err, errlen, "not an HTTP reply");
        return -1;
    }
    const char *eol = strstr(buf, "\r\n");
    const char *r = buf + n;
    while (*r == ' ') r++;
    size_t rl = (size_t)(eol - r) < sizeof h->reason ? (size_t)(eol - r) : sizeof h->reason - 1;
    memcpy(h->reason, r, rl);
    for (const char *line = eol + 2; line < buf + hend + 2;) {
        const char *le = strstr(line, "\r\n");
        size_t ll = (size_t)(le - line), vl;
        const char *v;
        if ((v = header_value(line, ll, "Content-Length", &vl))) {
            char *end;
            h->clen = strtoll(v, &end, 10);
            if (end != v + vl || h->clen < 0) { set_err(err, errlen, "bad Content-Length"); return -1; }
        } else if ((v = header_value(line, ll, "Transfer-Encoding", &vl))) {
            if (vl >= 7 && strncasecmp(v + vl - 7, "chunked", 7) == 0) h->chunked = 1;
        } else if ((v = header_value(line, ll, "Content-Encoding", &vl))) {
            if (!(vl == 8 && strncasecmp(v, "identity", 8) == 0)) {
                set_err(err, errlen, "unsupported Content-Encoding '%.*s'", (int)(vl < 40 ? vl : 40), v);
                return -1;
            }
        }
        line = le + 2;
    }
    return 0;
}

/* Walk the chunks of a chunked body in buf[at..len): 1 and its decoded
 * length in *out (decoding in place when `decode`) once the last chunk and
 * the trailers are in, 0 while more is needed, -1 when malformed. */
static int chunks(char *buf, size_t at, size_t len, int decode, size_t *out)
{
    size_t w = at, p = at;
    for (;;) {
        char *eol = memmem(buf + p, len - p, "\r\n", 2);
        if (!eol) return len - p > 64 ? -1 : 0;
        char *end;
        errno = 0;
        unsigned long long n = strtoull(buf + p, &end, 16);
        if (end == buf + p || errno || (*end != '\r' && *end != ';' && *end != ' ' && *end != '\t')) return -1;
        if (n > LB_HTTP_MAX_REPLY) return -1;
        p = (size_t)(eol - buf) + 2;
        if (n == 0) {
            /* Trailers (usually none), each a line, then the blank line. */
            for (;;) {
                char *t = memmem(buf + p, len - p, "\r\n", 2);
                if (!t) return 0;
                if (t == buf + p) { *out = w - at; return 1; }
                p = (size_t)(t - buf) + 2;
            }
        }
        if (len - p < n + 2) return 0;
        if (buf[p + n] != '\r' || buf[p + n + 1] != '\n') return -1;
        if (decode) memmove(buf + w, buf + p, (size_t)n);
        w += (size_t)n;
        p += (size_t)n + 2;
    }
}

/* Is the reply in buf[0..len) whole?  1 yes, 0 not yet, -1 malformed
 * (reason in err).  Sets *h once the head is in (*have_head). */
static int reply_done(char *buf, size_t len, http_head *h, int *have_head, char *err, size_t errlen)
{
    if (!*have_head) {
        char *e = strstr(buf, "\r\n\r\n");
        if (!e) return 0;
        if (parse_head(buf, (size_t)(e - buf), h, err, errlen) != 0) return -1;
        *have_head = 1;
    }
    size_t got = len - h->body_at, dummy;
    if (h->chunked) {
        int c = chunks(buf, h->body_at, len, 0, &dummy);
        if (c < 0) set_err(err, errlen, "bad chunked encoding in the reply");
        return c;
    }
    if (h->clen >= 0) return got >= (size_t)h->clen;
    return 0;  /* the body ends at the close */
}

/* Read the whole reply; returns the buffer (NUL terminated) and its length. */
static char *read_reply(int fd, int64_t deadline, int timeout_ms, size_t *len, http_head *h, char *err, size_t errlen)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    int have_head = 0, done = 0;
    if (!buf) { set_err(err, errlen, "out of memory"); return NULL; }
    buf[0] = 0;
    while (!done) {
        if (cap - n < 16384) {
            if (cap >= LB_HTTP_MAX_REPLY) { set_err(err, errlen, "reply larger than %u MiB", LB_HTTP_MAX_REPLY >> 20); goto fail; }
            char *nb = realloc(buf, cap * 2);
            if (!nb) { set_err(err, errlen, "out of memory"); goto fail; }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = recv(fd, buf + n, cap - n - 1, 0);
        if (r > 0) {
            n += (size_t)r;
            buf[n] = 0;
            int d = reply_done(buf, n, h, &have_head, err, errlen);
            if (d < 0) goto fail;
            done = d;
        } else if (r == 0) {
            if (!have_head) { set_err(err, errlen, n ? "reply truncated in its head" : "empty reply"); goto fail; }
            if (h->chunked || (h->clen >= 0 && n - h->body_at < (size_t)h->clen)) {
                set_err(err, errlen, "reply truncated (the connection closed early)");
                goto fail;
            }
            done = 1;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            int w = wait_fd(fd, POLLIN, deadline);
            if (w == 0) { set_err(err, errlen, "timed out after %d ms waiting for the reply", timeout_ms); goto fail; }
            if (w < 0) { set_errno(err, errlen, "reading the reply", errno); goto fail; }
        } else {
            set_errno(err, errlen, "reading the reply", errno);
            goto fail;
        }
    }
    *len = n;
    return buf;
fail:
    free(buf);
    return NULL;
}

char *lb_http_get(const char *url, int timeout_ms, size_t *len, char *err, size_t errlen)
{
    http_url u;
    if (err && errlen) err[0] = 0;
    if (parse_url(url, &u, err, errlen) != 0) return NULL;
    if (timeout_ms < 1) timeout_ms = 1;
    int64_t deadline = lb_clock_ns_inline() + (int64_t)timeout_ms * 1000000;
    int fd = connect_to(&u, deadline, timeout_ms, err, errlen);
    if (fd < 0) return NULL;
    char req[1536];
    int is_v6 = strchr(u.host, ':') != NULL;
    int rl = snprintf(req, sizeof req,
                      "GET %s HTTP/1.1\r\nHost: %s%s%s:%s\r\nUser-Agent: lbench\r\nAccept: text/plain\r\n"
                      "Connection: close\r\n\r\n", u.path, is_v6 ? "[" : "", u.host, is_v6 ? "]" : "", u.port);
    http_head h;
    size_t n = 0;
    char *buf = NULL;
    if (rl > 0 && (size_t)rl < sizeof req && send_all(fd, req, (size_t)rl, deadline, timeout_ms, err, errlen) == 0)
        buf = read_reply(fd, deadline, timeout_ms, &n, &h, err, errlen);
    close(fd);
    if (!buf) return NULL;
    if (h.status != 200) {
        set_err(err, errlen, "HTTP %d%s%s", h.status, h.reason[0] ? " " : "", h.reason);
        free(buf);
        return NULL;
    }
    size_t blen = n - h.body_at;
    if (h.chunked) chunks(buf, h.body_at, n, 1, &blen);
    else if (h.clen >= 0 && (size_t)h.clen < blen) blen = (size_t)h.clen;
    memmove(buf, buf + h.body_at, blen);
    buf[blen] = 0;
    if (len) *len = blen;
    return buf;
}

void lb_http_free(char *body) { free(body); }

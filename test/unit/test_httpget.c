/* lb_http_get against a local listening socket: a canned reply with a
 * length, a chunked one sent in pieces, one that ends at the close, a 404,
 * a truncated chunked body, a server that never answers (the deadline), a
 * refused connection, and URLs it must refuse. */
#include "check.h"
#include "httpget.h"
#include "clock.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct {
    int lfd;
    const char *const *pieces;  /* written one by one, NULL-terminated */
    int answer;                 /* 0: accept, read, never answer */
} server;

static int listen_local(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 4) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &sl) != 0) {
        perror("listen_local");
        exit(2);
    }
    *port = ntohs(a.sin_port);
    return fd;
}

static void *serve(void *arg)
{
    server *s = arg;
    int c = accept(s->lfd, NULL, NULL);
    if (c < 0) return NULL;
    char req[4096];
    size_t n = 0;
    while (n < sizeof req - 1) {
        ssize_t r = read(c, req + n, sizeof req - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
        req[n] = 0;
        if (strstr(req, "\r\n\r\n")) break;
    }
    if (s->answer) {
        for (const char *const *p = s->pieces; *p; p++) {
            if (write(c, *p, strlen(*p)) < 0) break;
            usleep(20000);  /* separate reads for the client */
        }
    } else {
        usleep(1500000);  /* far longer than the client's deadline */
    }
    close(c);
    return NULL;
}

static double last_ms;  /* how long the last get_from's lb_http_get took */

/* GET from a one-shot server writing `pieces`; returns the body or NULL with err. */
static char *get_from(const char *const *pieces, int answer, int timeout_ms, size_t *len, char *err, size_t errlen)
{
    int port;
    server s = { .pieces = pieces, .answer = answer };
    s.lfd = listen_local(&port);
    pthread_t th;
    pthread_create(&th, NULL, serve, &s);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/metrics", port);
    int64_t t0 = lb_clock_ns();
    char *b = lb_http_get(url, timeout_ms, len, err, errlen);
    last_ms = (double)(lb_clock_ns() - t0) / 1e6;
    pthread_join(th, NULL);
    close(s.lfd);
    return b;
}

int main(void)
{
    char err[256];
    size_t len = 0;

    static const char *const plain[] = {
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 25\r\n\r\n",
        "node_a 1\nnode_b{x=\"y\"} 2\n", NULL };
    char *b = get_from(plain, 1, 2000, &len, err, sizeof err);
    check(b && len == 25 && strcmp(b, "node_a 1\nnode_b{x=\"y\"} 2\n") == 0, "http_content_length",
          "got %s (%s)", b ? b : "NULL", err);
    lb_http_free(b);

    static const char *const chunked[] = {
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7\r\nnode_a ",
        "\r\n2\r\n21\r\n", "A;ext=1\r\ne+03\nnode_\r\n", "5\r\nb NaN\r\n0\r\nX-Trailer: 1\r\n\r\n", NULL };
    b = get_from(chunked, 1, 2000, &len, err, sizeof err);
    check(b && strcmp(b, "node_a 21e+03\nnode_b NaN") == 0 && len == strlen(b), "http_chunked",
          "got '%s' (%s)", b ? b : "NULL", err);
    lb_http_free(b);

    static const char *const at_close[] = { "HTTP/1.0 200 OK\r\n\r\nup 1\n", "down 0\n", NULL };
    b = get_from(at_close, 1, 2000, &len, err, sizeof err);
    check(b && strcmp(b, "up 1\ndown 0\n") == 0, "http_body_to_close", "got '%s' (%s)", b ? b : "NULL", err);
    lb_http_free(b);

    static const char *const notfound[] = { "HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nno\n", NULL };
    b = get_from(notfound, 1, 2000, &len, err, sizeof err);
    check(!b && strcmp(err, "HTTP 404 Not Found") == 0, "http_status_error", "got '%s'", err);

    static const char *const cut[] = { "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nshort", NULL };
    b = get_from(cut, 1, 2000, &len, err, sizeof err);
    check(!b && strstr(err, "truncated"), "http_truncated_chunked", "got '%s'", err);

    /* The deadline holds: back well before the server's 1.5 s silence ends. */
    b = get_from(NULL, 0, 300, &len, err, sizeof err);
    check(!b && strcmp(err, "timed out after 300 ms waiting for the reply") == 0 && last_ms < 1200, "http_timeout",
          "got '%s' after %.0f ms", err, last_ms);

    /* A port nobody listens on: bound, then closed. */
    int port;
    int fd = listen_local(&port);
    close(fd);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/metrics", port);
    b = lb_http_get(url, 1000, &len, err, sizeof err);
    check(!b && strcmp(err, "connection refused") == 0, "http_refused", "got '%s'", err);

    b = lb_http_get("https://127.0.0.1:9100/metrics", 1000, &len, err, sizeof err);
    check(!b && strcmp(err, "https is not supported (http:// only)") == 0, "http_https_refused", "got '%s'", err);
    check(!lb_http_url_check("host:9100/metrics", err, sizeof err) && strstr(err, "not an http:// URL"),
          "http_url_not_http", "got '%s'", err);
    check(!lb_http_url_check("http://h:99999/", err, sizeof err) && strstr(err, "bad port"), "http_url_bad_port",
          "got '%s'", err);
    check(lb_http_url_check("http://[::1]:9100/metrics", err, sizeof err) &&
          lb_http_url_check("http://node1/metrics", err, sizeof err), "http_url_ok", "refused: '%s'", err);
    return check_exit();
}

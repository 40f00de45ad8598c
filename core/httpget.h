/* httpget — one HTTP GET over plain TCP under a hard deadline.
 *
 * What the reporter needs to read another host's Prometheus node exporter
 * at a report tick without holding the tick: http:// only (https is
 * refused), a non-blocking connect and every wait in poll() against one
 * deadline for the whole exchange (name lookup aside: getaddrinfo, which
 * /etc/hosts and numeric addresses answer at once), the whole body read
 * (Content-Length, chunked transfer encoding, or up to the close).  It
 * never prints: every failure is a short message in the caller's buffer.
 * A leaf: it uses nothing of lbench but the clock. */
#ifndef LB_HTTPGET_H
#define LB_HTTPGET_H

#include <stddef.h>

/* FFI BEGIN */
/* GET `url` (http://HOST[:PORT][/PATH], HOST a name, an IPv4 address or
 * [IPv6]) within `timeout_ms`.  A reply of status 200: its body, NUL
 * terminated, from malloc (free it with lb_http_free), its length in
 * *len.  Otherwise NULL and one line in `err` (at most `errlen` bytes):
 * "connection refused", "timed out after 1000 ms waiting for the reply",
 * "HTTP 404 Not Found", "https is not supported (http:// only)"... */
char *lb_http_get(const char *url, int timeout_ms, size_t *len, char *err, size_t errlen);
void lb_http_free(char *body);

/* Is `url` one lb_http_get takes (http://, a host, a port in range)?
 * 1, or 0 with the reason in `err`. */
int lb_http_url_check(const char *url, char *err, size_t errlen);
/* FFI END */

#endif

#ifndef STRATUS_HTTP2_CLIENT_H
#define STRATUS_HTTP2_CLIENT_H

#include <stddef.h>

/// One HTTP/2 connection's worth of libcurl state: a handle keeps its connection open between requests.
typedef struct stratus_http2 stratus_http2;

/// What one request got back. `body` is malloc'd (at most 64 KB kept); free it with stratus_http2_result_free.
typedef struct {
    long status;          /* HTTP status, 0 when no answer came */
    int http2;            /* 1 when the answer came over HTTP/2 */
    char *body;
    size_t body_length;
    char apns_id[80];     /* the apns-id response header, if any */
    char error[256];      /* libcurl's message when status is 0 */
} stratus_http2_result;

/// Opens libcurl (once per process): nil when it is there, else why it is not (one line naming the package).
const char *stratus_http2_load_failure(void);

/// A client, or NULL when libcurl could not be opened (see stratus_http2_load_failure) or memory ran out.
stratus_http2 *stratus_http2_new(void);
void stratus_http2_free(stratus_http2 *client);

/// POSTs `body` to `url` (https only) over HTTP/2, with `header_count` "Name: value" lines. `ca_file` (may be NULL)
/// replaces the system's trusted roots. Blocks until the answer or `timeout_ms`. Returns 0, or -1 when no answer came.
int stratus_http2_post(stratus_http2 *client, const char *url, const char *const *headers, int header_count,
                       const void *body, size_t body_length, const char *ca_file, long timeout_ms,
                       stratus_http2_result *result);

void stratus_http2_result_free(stratus_http2_result *result);

#endif

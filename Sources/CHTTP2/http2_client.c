// A small libcurl wrapper for one job: POSTing to an HTTP/2 service (APNs) from Swift, which cannot call
// curl_easy_setopt (a variadic C function) itself. libcurl (Debian's libcurl4, with nghttp2) is opened at run time,
// when the first client is made: nothing of it is needed to build or link (see curl_types.h). Its functions are
// called through a table, never by their own names, so that the libcurl Foundation loads is never interposed.
#include "http2_client.h"

#include "curl_types.h"
#include "curl_functions.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct stratus_http2 {
    CURL *curl;
};

static struct {
    stratus_curl_global_init_fn global_init;
    stratus_curl_easy_init_fn easy_init;
    stratus_curl_easy_cleanup_fn easy_cleanup;
    stratus_curl_easy_reset_fn easy_reset;
    stratus_curl_easy_setopt_fn easy_setopt;
    stratus_curl_easy_perform_fn easy_perform;
    stratus_curl_easy_getinfo_fn easy_getinfo;
    stratus_curl_easy_strerror_fn easy_strerror;
    stratus_curl_slist_append_fn slist_append;
    stratus_curl_slist_free_all_fn slist_free_all;
} curl;
static char load_failure[256];

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void global_init(void) {
    const char *path = getenv("STRATUS_LIBCURL_PATH");
    if (path == NULL || path[0] == 0) path = "libcurl.so.4";
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(load_failure, sizeof load_failure, "push to Apple devices needs libcurl, which is not installed here (%s): apt-get install libcurl4", path);
        return;
    }
#define RESOLVE(field, name) \
    curl.field = (stratus_##name##_fn)dlsym(handle, #name); \
    if (curl.field == NULL) { snprintf(load_failure, sizeof load_failure, "%s has no %s", path, #name); return; }
    RESOLVE(global_init, curl_global_init)
    RESOLVE(easy_init, curl_easy_init)
    RESOLVE(easy_cleanup, curl_easy_cleanup)
    RESOLVE(easy_reset, curl_easy_reset)
    RESOLVE(easy_setopt, curl_easy_setopt)
    RESOLVE(easy_perform, curl_easy_perform)
    RESOLVE(easy_getinfo, curl_easy_getinfo)
    RESOLVE(easy_strerror, curl_easy_strerror)
    RESOLVE(slist_append, curl_slist_append)
    RESOLVE(slist_free_all, curl_slist_free_all)
    curl.global_init(CURL_GLOBAL_DEFAULT);
}

const char *stratus_http2_load_failure(void) {
    pthread_once(&global_once, global_init);
    return load_failure[0] ? load_failure : NULL;
}

#define BODY_LIMIT (64 * 1024)

static size_t on_body(char *data, size_t size, size_t count, void *user) {
    stratus_http2_result *r = user;
    size_t n = size * count;
    size_t keep = r->body_length >= BODY_LIMIT ? 0 : (n < BODY_LIMIT - r->body_length ? n : BODY_LIMIT - r->body_length);
    if (keep > 0) {
        char *grown = realloc(r->body, r->body_length + keep + 1);
        if (grown == NULL) return 0;
        r->body = grown;
        memcpy(r->body + r->body_length, data, keep);
        r->body_length += keep;
        r->body[r->body_length] = 0;
    }
    return n;
}

static size_t on_header(char *data, size_t size, size_t count, void *user) {
    stratus_http2_result *r = user;
    size_t n = size * count;
    const char *name = "apns-id:";
    size_t name_length = strlen(name);
    if (n > name_length && strncasecmp(data, name, name_length) == 0) {
        size_t start = name_length, end = n;
        while (start < end && (data[start] == ' ' || data[start] == '\t')) start++;
        while (end > start && (data[end - 1] == '\r' || data[end - 1] == '\n' || data[end - 1] == ' ')) end--;
        size_t length = end - start < sizeof(r->apns_id) - 1 ? end - start : sizeof(r->apns_id) - 1;
        memcpy(r->apns_id, data + start, length);
        r->apns_id[length] = 0;
    }
    return n;
}

stratus_http2 *stratus_http2_new(void) {
    if (stratus_http2_load_failure() != NULL) return NULL;
    stratus_http2 *client = calloc(1, sizeof(stratus_http2));
    if (client == NULL) return NULL;
    client->curl = curl.easy_init();
    if (client->curl == NULL) { free(client); return NULL; }
    return client;
}

void stratus_http2_free(stratus_http2 *client) {
    if (client == NULL) return;
    curl.easy_cleanup(client->curl);
    free(client);
}

int stratus_http2_post(stratus_http2 *client, const char *url, const char *const *headers, int header_count,
                       const void *body, size_t body_length, const char *ca_file, long timeout_ms,
                       stratus_http2_result *result) {
    memset(result, 0, sizeof(*result));
    CURL *c = client->curl;
    struct curl_slist *list = NULL;
    for (int i = 0; i < header_count; i++) {
        struct curl_slist *next = curl.slist_append(list, headers[i]);
        if (next == NULL) { curl.slist_free_all(list); strcpy(result->error, "out of memory"); return -1; }
        list = next;
    }
    // Options are set afresh on every request: the handle is reused only for its open connection.
    curl.easy_reset(c);
    curl.easy_setopt(c, CURLOPT_URL, url);
    curl.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
    curl.easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(c, CURLOPT_POST, 1L);
    curl.easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
    curl.easy_setopt(c, CURLOPT_HTTPHEADER, list);
    curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl.easy_setopt(c, CURLOPT_WRITEDATA, result);
    curl.easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl.easy_setopt(c, CURLOPT_HEADERDATA, result);
    curl.easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
    if (ca_file != NULL) curl.easy_setopt(c, CURLOPT_CAINFO, ca_file);
    char error[CURL_ERROR_SIZE] = {0};
    curl.easy_setopt(c, CURLOPT_ERRORBUFFER, error);
    CURLcode code = curl.easy_perform(c);
    curl.easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
    curl.easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
    curl.slist_free_all(list);
    if (code != CURLE_OK) {
        const char *message = error[0] ? error : curl.easy_strerror(code);
        strncpy(result->error, message, sizeof(result->error) - 1);
        return -1;
    }
    long status = 0, version = 0;
    curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl.easy_getinfo(c, CURLINFO_HTTP_VERSION, &version);
    result->status = status;
    result->http2 = version == CURL_HTTP_VERSION_2_0;
    return 0;
}

void stratus_http2_result_free(stratus_http2_result *result) {
    free(result->body);
    result->body = NULL;
    result->body_length = 0;
}

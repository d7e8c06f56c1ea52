// A small libcurl wrapper for one job: POSTing to an HTTP/2 service (APNs) from Swift, which cannot call
// curl_easy_setopt (a variadic C function) itself. libcurl is Debian's libcurl4 with nghttp2.
#include "http2_client.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct stratus_http2 {
    CURL *curl;
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

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
    pthread_once(&global_once, global_init);
    stratus_http2 *client = calloc(1, sizeof(stratus_http2));
    if (client == NULL) return NULL;
    client->curl = curl_easy_init();
    if (client->curl == NULL) { free(client); return NULL; }
    return client;
}

void stratus_http2_free(stratus_http2 *client) {
    if (client == NULL) return;
    curl_easy_cleanup(client->curl);
    free(client);
}

int stratus_http2_post(stratus_http2 *client, const char *url, const char *const *headers, int header_count,
                       const void *body, size_t body_length, const char *ca_file, long timeout_ms,
                       stratus_http2_result *result) {
    memset(result, 0, sizeof(*result));
    CURL *c = client->curl;
    struct curl_slist *list = NULL;
    for (int i = 0; i < header_count; i++) {
        struct curl_slist *next = curl_slist_append(list, headers[i]);
        if (next == NULL) { curl_slist_free_all(list); strcpy(result->error, "out of memory"); return -1; }
        list = next;
    }
    // Options are set afresh on every request: the handle is reused only for its open connection.
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
    curl_easy_setopt(c, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_length);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, result);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, result);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
    if (ca_file != NULL) curl_easy_setopt(c, CURLOPT_CAINFO, ca_file);
    char error[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
    CURLcode code = curl_easy_perform(c);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(list);
    if (code != CURLE_OK) {
        const char *message = error[0] ? error : curl_easy_strerror(code);
        strncpy(result->error, message, sizeof(result->error) - 1);
        return -1;
    }
    long status = 0, version = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(c, CURLINFO_HTTP_VERSION, &version);
    result->status = status;
    result->http2 = version == CURL_HTTP_VERSION_2_0;
    return 0;
}

void stratus_http2_result_free(stratus_http2_result *result) {
    free(result->body);
    result->body = NULL;
    result->body_length = 0;
}

// The types of the libcurl functions http2_client.c calls, as curl 7.88's headers declare them. NativeABITests
// assigns each installed function to its type here after including the installed curl/curl.h: one that differs
// does not compile.
#ifndef STRATUS_CURL_FUNCTIONS_H
#define STRATUS_CURL_FUNCTIONS_H

#include <stddef.h>

typedef CURLcode (*stratus_curl_global_init_fn)(long flags);
typedef CURL *(*stratus_curl_easy_init_fn)(void);
typedef void (*stratus_curl_easy_cleanup_fn)(CURL *curl);
typedef void (*stratus_curl_easy_reset_fn)(CURL *curl);
typedef CURLcode (*stratus_curl_easy_setopt_fn)(CURL *curl, CURLoption option, ...);
typedef CURLcode (*stratus_curl_easy_perform_fn)(CURL *curl);
typedef CURLcode (*stratus_curl_easy_getinfo_fn)(CURL *curl, CURLINFO info, ...);
typedef const char *(*stratus_curl_easy_strerror_fn)(CURLcode);
typedef struct curl_slist *(*stratus_curl_slist_append_fn)(struct curl_slist *list, const char *data);
typedef void (*stratus_curl_slist_free_all_fn)(struct curl_slist *list);

#endif

// Resolves libpq's functions at run time (dlopen/dlsym) and defines each one Stratus calls as a call through the
// resolved pointer: one indirect call, where a linked libpq's call goes through the PLT anyway.
#include "CLibPQ.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIBPQ_FUNCTIONS(X, V) \
    X(PGconn *, PQconnectdb, (const char *conninfo), (conninfo)) \
    V(void, PQfinish, (PGconn *conn), (conn)) \
    X(ConnStatusType, PQstatus, (const PGconn *conn), (conn)) \
    X(char *, PQerrorMessage, (const PGconn *conn), (conn)) \
    X(int, PQsocket, (const PGconn *conn), (conn)) \
    X(int, PQsetClientEncoding, (PGconn *conn, const char *encoding), (conn, encoding)) \
    X(PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query)) \
    X(PGresult *, PQprepare, (PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes), \
      (conn, stmtName, query, nParams, paramTypes)) \
    X(int, PQsendQueryPrepared, (PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, \
                                 const int *paramLengths, const int *paramFormats, int resultFormat), \
      (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat)) \
    X(PGresult *, PQgetResult, (PGconn *conn), (conn)) \
    X(int, PQsetSingleRowMode, (PGconn *conn), (conn)) \
    X(int, PQenterPipelineMode, (PGconn *conn), (conn)) \
    X(int, PQexitPipelineMode, (PGconn *conn), (conn)) \
    X(int, PQpipelineSync, (PGconn *conn), (conn)) \
    X(int, PQconsumeInput, (PGconn *conn), (conn)) \
    X(PGnotify *, PQnotifies, (PGconn *conn), (conn)) \
    V(void, PQfreemem, (void *ptr), (ptr)) \
    X(ExecStatusType, PQresultStatus, (const PGresult *res), (res)) \
    X(char *, PQresultErrorMessage, (const PGresult *res), (res)) \
    X(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode)) \
    X(int, PQntuples, (const PGresult *res), (res)) \
    X(int, PQnfields, (const PGresult *res), (res)) \
    X(Oid, PQftype, (const PGresult *res, int field_num), (res, field_num)) \
    X(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    X(int, PQgetlength, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    X(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    X(char *, PQcmdTuples, (PGresult *res), (res)) \
    X(int, PQputCopyData, (PGconn *conn, const char *buffer, int nbytes), (conn, buffer, nbytes)) \
    X(int, PQputCopyEnd, (PGconn *conn, const char *errormsg), (conn, errormsg)) \
    X(int, PQgetCopyData, (PGconn *conn, char **buffer, int async), (conn, buffer, async)) \
    V(void, PQclear, (PGresult *res), (res))

#define POINTER(ret, name, params, args) static ret (*p_##name) params;
LIBPQ_FUNCTIONS(POINTER, POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
    const char *path = getenv("STRATUS_LIBPQ_PATH");
    if (path == NULL || path[0] == 0) path = "libpq.so.5";
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(failure, sizeof failure,
                 "PostgreSQL needs its client library, which is not installed here (%s): apt-get install libpq5", path);
        return;
    }
#define RESOLVE(ret, name, params, args) \
    p_##name = (ret (*) params)dlsym(handle, #name); \
    if (p_##name == NULL) { snprintf(failure, sizeof failure, "%s has no %s: install libpq5 from PostgreSQL 14 or later", path, #name); return; }
    LIBPQ_FUNCTIONS(RESOLVE, RESOLVE)
}

int stratus_libpq_load(char *error, size_t error_size) {
    pthread_once(&once, load);
    if (failure[0] == 0) return 0;
    if (error != NULL && error_size > 0) {
        strncpy(error, failure, error_size - 1);
        error[error_size - 1] = 0;
    }
    return -1;
}

#define DEFINE(ret, name, params, args) ret name params { return p_##name args; }
#define DEFINE_VOID(ret, name, params, args) void name params { p_##name args; }
LIBPQ_FUNCTIONS(DEFINE, DEFINE_VOID)

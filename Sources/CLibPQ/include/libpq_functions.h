// The 31 libpq functions Stratus calls, as PostgreSQL 15's libpq-fe.h declares them. They are defined in
// libpq_loader.c, each calling its counterpart in libpq.so.5, which stratus_libpq_load opens at run time.
// LibPQABITests compiles this file after the installed libpq-fe.h: a declaration that differs does not compile.
#ifndef STRATUS_LIBPQ_FUNCTIONS_H
#define STRATUS_LIBPQ_FUNCTIONS_H

extern PGconn *PQconnectdb(const char *conninfo);
extern void PQfinish(PGconn *conn);
extern ConnStatusType PQstatus(const PGconn *conn);
extern char *PQerrorMessage(const PGconn *conn);
extern int PQsocket(const PGconn *conn);
extern int PQsetClientEncoding(PGconn *conn, const char *encoding);
extern PGresult *PQexec(PGconn *conn, const char *query);
extern PGresult *PQprepare(PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes);
extern int PQsendQueryPrepared(PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues,
                               const int *paramLengths, const int *paramFormats, int resultFormat);
extern PGresult *PQgetResult(PGconn *conn);
extern int PQsetSingleRowMode(PGconn *conn);
extern int PQenterPipelineMode(PGconn *conn);
extern int PQexitPipelineMode(PGconn *conn);
extern int PQpipelineSync(PGconn *conn);
extern int PQconsumeInput(PGconn *conn);
extern PGnotify *PQnotifies(PGconn *conn);
extern void PQfreemem(void *ptr);
extern ExecStatusType PQresultStatus(const PGresult *res);
extern char *PQresultErrorMessage(const PGresult *res);
extern char *PQresultErrorField(const PGresult *res, int fieldcode);
extern int PQntuples(const PGresult *res);
extern int PQnfields(const PGresult *res);
extern Oid PQftype(const PGresult *res, int field_num);
extern char *PQgetvalue(const PGresult *res, int tup_num, int field_num);
extern int PQgetlength(const PGresult *res, int tup_num, int field_num);
extern int PQgetisnull(const PGresult *res, int tup_num, int field_num);
extern char *PQcmdTuples(PGresult *res);
extern int PQputCopyData(PGconn *conn, const char *buffer, int nbytes);
extern int PQputCopyEnd(PGconn *conn, const char *errormsg);
extern int PQgetCopyData(PGconn *conn, char **buffer, int async);
extern void PQclear(PGresult *res);

#endif

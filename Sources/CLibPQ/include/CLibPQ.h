// libpq, PostgreSQL's C client, loaded when a PostgreSQL URL is first used rather than linked: the embedded default
// (SQLite) builds and runs on a machine without it. See libpq_types.h and libpq_functions.h.
#ifndef STRATUS_CLIBPQ_H
#define STRATUS_CLIBPQ_H

#include <stddef.h>
#include "libpq_types.h"
#include "libpq_functions.h"

/// Opens libpq once per process (thread-safely) and resolves every function above: from $STRATUS_LIBPQ_PATH when
/// set, else libpq.so.5. Returns 0; or -1 with a one-line reason in `error`, every call after failing the same way.
int stratus_libpq_load(char *error, size_t error_size);

#endif

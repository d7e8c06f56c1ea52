// libpq from Debian's libpq-dev (headers under /usr/include/postgresql).
#include <postgresql/libpq-fe.h>

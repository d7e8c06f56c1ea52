/* epoll and eventfd for StratusHTTP's event loop. Glibc's Swift module does not export sys/epoll.h, and
 * struct epoll_event is packed on x86-64: these wrappers take and give plain ints so Swift never touches it. */
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <stdint.h>
#include <errno.h>

static const uint32_t CEPOLL_IN = EPOLLIN, CEPOLL_OUT = EPOLLOUT, CEPOLL_ERR = EPOLLERR, CEPOLL_HUP = EPOLLHUP,
    CEPOLL_RDHUP = EPOLLRDHUP, CEPOLL_ONESHOT = EPOLLONESHOT;
static const int CEPOLL_ADD = EPOLL_CTL_ADD, CEPOLL_MOD = EPOLL_CTL_MOD;

static inline int cepoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static inline int cepoll_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

/* epoll_ctl for one descriptor; -1 with errno on failure (errno returned through *error). */
static inline int cepoll_ctl(int epfd, int op, int fd, uint32_t events, int *error) {
    struct epoll_event e;
    e.events = events;
    e.data.u64 = 0;
    e.data.fd = fd;
    int r = epoll_ctl(epfd, op, fd, &e);
    *error = r < 0 ? errno : 0;
    return r;
}

/* Waits for up to max (at most 256) events; their descriptors and event bits go to fds and events. */
static inline int cepoll_wait(int epfd, int *fds, uint32_t *events, int max, int timeout, int *error) {
    struct epoll_event evs[256];
    if (max > 256) max = 256;
    int n = epoll_wait(epfd, evs, max, timeout);
    *error = n < 0 ? errno : 0;
    for (int i = 0; i < n; i++) { fds[i] = evs[i].data.fd; events[i] = evs[i].events; }
    return n;
}
#endif

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* The telemetry commands' mailbox and replies (ctl.h). */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/signalfd.h>

#include <rte_common.h>

#if defined(__SANITIZE_ADDRESS__)
#define CTL_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CTL_LSAN 1
#endif
#endif
#ifdef CTL_LSAN
#include <sanitizer/lsan_interface.h>
#endif

#include "ctl.h"
#include "idle.h"

/*
 * How long a client waits for the forwarding loop. It polls every
 * millisecond while it runs; a sleep-on-idle mode of the loop must wake
 * well within this (and should: packets wait as long). Past it the reply
 * is "router busy" and the command is withdrawn, not run later.
 */
#define CTL_WAIT_MS		2000
/* The files that register commands (loop.c's commands()). */
#define CTL_SETS		8

/* The mailbox: the telemetry thread posts, the forwarding lcore runs. */
enum { BOX_IDLE, BOX_POSTED, BOX_TAKEN, BOX_DONE };

struct cpe_ctl {
	uint32_t state;			/* __atomic: the hand-over */
	cpe_ctl_fn fn;
	uint8_t arg[CPE_CTL_ARG_MAX];
	struct rte_tel_data *d;
	/* One command at a time, whatever the number of clients. */
	pthread_mutex_t lock;
	/* Counted on telemetry threads, folded into the loop's by it. */
	uint64_t bad_requests;
	/* SIGINT and SIGTERM (blocked: cpe_ctl_block_signals()), read by
	 * the loop; -1 once closed. */
	int sig_fd;
	struct cpe_router *r;		/* to wake its loop (idle.h) */
	/* __atomic: cpe_ctl_close() began; the loop takes no more. */
	bool closing;
#ifndef CPE_TEL_ARG
	/* The registered commands, for tel_noarg() to find a callback. */
	const struct cpe_ctl_cmd *sets[CTL_SETS];
	unsigned int set_len[CTL_SETS];
	unsigned int nb_sets;
#endif
};

#ifndef CPE_TEL_ARG
/*
 * Before DPDK 24.11 the telemetry callbacks get no argument
 * (rte_telemetry_register_cmd(); from 24.11
 * rte_telemetry_register_cmd_arg() hands them the mailbox): they find it
 * in the one pointer this file keeps, written once by cpe_ctl_init()
 * before any command is registered and never cleared; the mailbox is
 * never freed (box_kept()). Not in EAL's memory (a memzone, as DPDK's
 * objects are found): rte_eal_cleanup() unmaps that while telemetry's
 * threads still take commands, and a command in that window read
 * unmapped memory (SIGSEGV at exit, tests/cpe/cpe_ctl.sh's storm).
 * Signals need no such pointer (a signalfd the loop reads,
 * cpe_ctl_poll()).
 */
static struct cpe_ctl *tel_box;

static struct cpe_ctl *
box(void)
{
	return __atomic_load_n(&tel_box, __ATOMIC_ACQUIRE);
}

static void
box_publish(struct cpe_ctl *c)
{
	__atomic_store_n(&tel_box, c, __ATOMIC_RELEASE);
}
#endif

/* An error reply: what is wrong, and what is allowed instead. */
static int
reply_error(struct rte_tel_data *d, const char *err, const char *allowed)
{
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", err);
	if (allowed != NULL)
		rte_tel_data_add_dict_string(d, "allowed", allowed);
	return 0;
}

int
cpe_ctl_bad(struct cpe_ctl *c, struct rte_tel_data *d, const char *cmd,
	    const char *params, const char *allowed)
{
	char err[RTE_TEL_MAX_STRING_LEN];

	if (c != NULL)
		__atomic_fetch_add(&c->bad_requests, 1, __ATOMIC_RELAXED);
	snprintf(err, sizeof(err), "%s: bad parameters '%.60s'", cmd,
		 params != NULL ? params : "");
	return reply_error(d, err, allowed);
}

int
cpe_ctl_no_params(struct cpe_ctl *c, struct rte_tel_data *d,
		  const char *cmd, const char *params)
{
	if (params == NULL || params[0] == '\0')
		return 0;
	cpe_ctl_bad(c, d, cmd, params, "no parameters");
	return -EINVAL;
}

void
cpe_ctl_error(struct cpe_router *r, struct rte_tel_data *d, const char *err,
	      const char *allowed)
{
	r->st.ctl_errors++;
	reply_error(d, err, allowed);
}

struct rte_tel_data *
cpe_ctl_error_list(struct cpe_router *r, struct rte_tel_data *d,
		   const char *err)
{
	struct rte_tel_data *a = rte_tel_data_alloc();

	r->st.ctl_errors++;
	reply_error(d, err, NULL);
	if (a != NULL) {
		rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
		if (rte_tel_data_add_dict_container(d, "allowed", a, 0) != 0) {
			rte_tel_data_free(a);
			a = NULL;
		}
	}
	return a;
}

struct rte_tel_data *
cpe_ctl_list_start(struct rte_tel_data *d, const char *key)
{
	struct rte_tel_data *a = rte_tel_data_alloc();

	rte_tel_data_start_dict(d);
	if (a == NULL)
		return NULL;
	rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	if (rte_tel_data_add_dict_container(d, key, a, 0) != 0) {
		rte_tel_data_free(a);
		return NULL;
	}
	return a;
}

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * Withdrawn if not taken past the deadline, or at once when the loop has
 * ended (then d is still ours).
 */
static bool
withdrawn(struct cpe_ctl *c, uint64_t deadline, uint32_t st)
{
	uint32_t posted = BOX_POSTED;

	return st == BOX_POSTED &&
		(__atomic_load_n(&c->closing, __ATOMIC_ACQUIRE) ||
		 now_ms() >= deadline) &&
		__atomic_compare_exchange_n(&c->state, &posted, BOX_IDLE,
					    false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
}

/* The router is exiting: no command runs any more (box_kept()). */
static int
reply_stopped(struct rte_tel_data *d)
{
	return reply_error(d, "router stopped: it is shutting down", NULL);
}

int
cpe_ctl_call(struct cpe_ctl *c, cpe_ctl_fn fn, const void *arg, size_t len,
	     struct rte_tel_data *d)
{
	const struct timespec pause = { .tv_nsec = 200000 };
	uint64_t deadline;
	uint32_t st;

	if (c == NULL || len > sizeof(c->arg))
		return -EINVAL;
	pthread_mutex_lock(&c->lock);
	if (c->r == NULL) {
		/* cpe_ctl_close(): the loop is gone, not busy. */
		pthread_mutex_unlock(&c->lock);
		return reply_stopped(d);
	}
	c->fn = fn;
	if (len)
		memcpy(c->arg, arg, len);
	c->d = d;
	__atomic_store_n(&c->state, BOX_POSTED, __ATOMIC_RELEASE);
	/* The loop may be asleep (--idle interrupt). */
	cpe_idle_kick(c->r);
	deadline = now_ms() + CTL_WAIT_MS;
	while ((st = __atomic_load_n(&c->state, __ATOMIC_ACQUIRE)) !=
	       BOX_DONE) {
		if (withdrawn(c, deadline, st)) {
			pthread_mutex_unlock(&c->lock);
			if (__atomic_load_n(&c->closing, __ATOMIC_ACQUIRE))
				return reply_stopped(d);
			__atomic_fetch_add(&c->bad_requests, 1,
					   __ATOMIC_RELAXED);
			return reply_error(d, "router busy: the forwarding "
					   "loop did not take the command "
					   "within 2 s", "try again");
		}
		nanosleep(&pause, NULL);
	}
	__atomic_store_n(&c->state, BOX_IDLE, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

void
cpe_ctl_poll(struct cpe_router *r)
{
	struct cpe_ctl *c = r->ctl;
	uint32_t posted = BOX_POSTED;
	struct signalfd_siginfo si;

	if (c->sig_fd >= 0 && read(c->sig_fd, &si, sizeof(si)) == sizeof(si))
		r->quit = true;
	if (__atomic_load_n(&c->bad_requests, __ATOMIC_RELAXED) != 0)
		r->st.ctl_errors += __atomic_exchange_n(&c->bad_requests, 0,
							 __ATOMIC_RELAXED);
	if (__atomic_load_n(&c->state, __ATOMIC_RELAXED) != BOX_POSTED ||
	    !__atomic_compare_exchange_n(&c->state, &posted, BOX_TAKEN,
					 false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return;
	r->st.ctl_cmds++;
	c->fn(r, c->arg, c->d);
	__atomic_store_n(&c->state, BOX_DONE, __ATOMIC_RELEASE);
}

#ifndef CPE_TEL_ARG
/*
 * Before DPDK 24.11 every command is registered with this callback,
 * which finds the command's own by its name and gives it the mailbox.
 */
static int
tel_noarg(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct cpe_ctl *c = box();
	unsigned int s, i, n;

	n = c != NULL ? __atomic_load_n(&c->nb_sets, __ATOMIC_ACQUIRE) : 0;
	for (s = 0; s < n; s++)
		for (i = 0; i < c->set_len[s]; i++)
			if (strcmp(c->sets[s][i].cmd, cmd) == 0)
				return c->sets[s][i].fn(cmd, params, c, d);
	return -EINVAL;
}
#endif

int
cpe_ctl_register(struct cpe_ctl *c, const struct cpe_ctl_cmd *cmds,
		 unsigned int n)
{
	unsigned int i;
	int rc;

#ifndef CPE_TEL_ARG
	if (c->nb_sets == CTL_SETS)
		return -ENOSPC;
	c->sets[c->nb_sets] = cmds;
	c->set_len[c->nb_sets] = n;
	__atomic_store_n(&c->nb_sets, c->nb_sets + 1, __ATOMIC_RELEASE);
#endif
	for (i = 0; i < n; i++) {
#ifdef CPE_TEL_ARG
		rc = rte_telemetry_register_cmd_arg(cmds[i].cmd, cmds[i].fn,
						    c, cmds[i].help);
#else
		rc = rte_telemetry_register_cmd(cmds[i].cmd, tel_noarg,
						cmds[i].help);
#endif
		if (rc != 0) {
			fprintf(stderr, "ch39x-cpe: cannot register the "
				"telemetry command %s: %s\n", cmds[i].cmd,
				strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* The signals that stop the router: SIGINT and SIGTERM. */
static void
stop_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
}

int
cpe_ctl_block_signals(void)
{
	sigset_t set;

	stop_set(&set);
	return -pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/*
 * The mailbox outlives the router: telemetry keeps the commands it was
 * given and may call one until the process ends (DPDK has no way to
 * withdraw a command), so cpe_ctl_close() detaches the mailbox from the
 * router and never frees it: say that it is kept on purpose, so that
 * the sanitizer build reports real leaks only, whoever holds its address
 * at exit (tel_box before DPDK 24.11, telemetry's table from 24.11).
 */
static void
box_kept(struct cpe_ctl *c)
{
#ifdef CTL_LSAN
	__lsan_ignore_object(c);
#else
	RTE_SET_USED(c);
#endif
}

int
cpe_ctl_init(struct cpe_router *r)
{
	sigset_t set;
	int rc;

	r->ctl = calloc(1, sizeof(*r->ctl));
	if (r->ctl == NULL)
		return -ENOMEM;
	box_kept(r->ctl);
	pthread_mutex_init(&r->ctl->lock, NULL);
	r->ctl->r = r;
	/* Signals that came during EAL's start wait in it (blocked). */
	stop_set(&set);
	r->ctl->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r->ctl->sig_fd < 0) {
		rc = -errno;
		fprintf(stderr, "ch39x-cpe: signalfd: %s\n", strerror(-rc));
		return rc;
	}
#ifndef CPE_TEL_ARG
	box_publish(r->ctl);
#endif
	return 0;
}

int
cpe_ctl_signal_fd(const struct cpe_router *r)
{
	return r->ctl != NULL ? r->ctl->sig_fd : -1;
}

void
cpe_ctl_close(struct cpe_router *r)
{
	struct cpe_ctl *c = r->ctl;

	if (c == NULL)
		return;
	/* After a command in flight (taken, or withdrawn at once as the
	 * loop has ended: not after 2 s as busy), the mailbox lets go of
	 * the router, which is freed next: a later command is answered
	 * "router stopped" (box_kept()). Its signalfd closes: signals stay
	 * blocked until the exit. */
	__atomic_store_n(&c->closing, true, __ATOMIC_RELEASE);
	pthread_mutex_lock(&c->lock);
	c->r = NULL;
	pthread_mutex_unlock(&c->lock);
	if (c->sig_fd >= 0) {
		close(c->sig_fd);
		c->sig_fd = -1;
	}
	r->ctl = NULL;
}

/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The WAN's PPPoE session (--wan PORT=pppoe): pppd's ip-up hands it over
 * (/cpe/wan/pppoe, wan.c), its end takes it away. The session is the
 * WAN interface's framing state (struct cpe_pppoe_state of the graph's
 * interfaces), which the pppoe_in and pppoe_out nodes apply; a new one
 * bumps the generation: cached flows hold the old concentrator's MAC.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "wan6.h"
#include "wan_pppoe.h"
#include "wan_state.h"

static struct cpe_pppoe_state *
sess_of(struct cpe_router *r)
{
	return &r->dp->ifs.pppoe;
}

void
cpe_wan_pppoe_up(struct cpe_router *r, uint16_t sid, const uint8_t *ac)
{
	struct cpe_pppoe_state *s = sess_of(r);

	if (s->up && s->sess.sid == sid && memcmp(s->sess.ac, ac, 6) == 0)
		return;
	s->sess.sid = sid;
	memcpy(s->sess.ac, ac, 6);
	cpe_pppoe_tmpl(s->tmpl, ac, sid);
	s->up = true;
	s->sessions++;
	r->dp->env.gen++;
}

void
cpe_wan_pppoe_down(struct cpe_router *r)
{
	struct cpe_pppoe_state *s = sess_of(r);

	if (!s->up)
		return;
	s->up = false;
	s->sess.sid = 0;
	cpe_wan6_session_down(r);
	r->dp->env.gen++;
}

static void
fmt_ac(const struct cpe_pppoe_state *s, char *b, size_t n)
{
	const uint8_t *a = s->sess.ac;

	if (!s->up)
		snprintf(b, n, "none");
	else
		snprintf(b, n, "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1],
			 a[2], a[3], a[4], a[5]);
}

void
cpe_wan_pppoe_tel(struct cpe_router *r, struct rte_tel_data *d)
{
	const struct cpe_pppoe_state *s = sess_of(r);
	char ac[20];

	fmt_ac(s, ac, sizeof(ac));
	cpe_tel_u64(d, "pppoe_session_id", s->up ? s->sess.sid : 0);
	rte_tel_data_add_dict_string(d, "pppoe_concentrator", ac);
	cpe_tel_u64(d, "pppoe_sessions", s->sessions);
	cpe_tel_u64(d, "pppoe_rx_data", s->rx_data);
	cpe_tel_u64(d, "pppoe_tx_data", s->tx_data);
	cpe_tel_u64(d, "pppoe_rx_ctl", s->rx_ctl);
	cpe_tel_u64(d, "pppoe_rx_other", s->rx_other);
	cpe_tel_u64(d, "pppoe_rx_not_pppoe", s->rx_not_pppoe);
	cpe_tel_u64(d, "pppoe_rx_bad", s->rx_bad);
	cpe_tel_u64(d, "pppoe_tx_no_session", s->tx_no_session);
	cpe_tel_u64(d, "pppoe_tx_drops", s->tx_drops);
}

void
cpe_wan_pppoe_print(struct cpe_router *r, FILE *f)
{
	const struct cpe_pppoe_state *s = sess_of(r);
	char ac[20];

	fmt_ac(s, ac, sizeof(ac));
	fprintf(f, "  pppoe: session %u concentrator %s sessions %" PRIu64
		" rx_data %" PRIu64 " tx_data %" PRIu64 " rx_ctl %" PRIu64
		" rx_other %" PRIu64 " rx_not_pppoe %" PRIu64 " rx_bad %"
		PRIu64 " tx_no_session %" PRIu64 " tx_drops %" PRIu64 "\n",
		s->up ? s->sess.sid : 0, ac, s->sessions, s->rx_data,
		s->tx_data, s->rx_ctl, s->rx_other, s->rx_not_pppoe,
		s->rx_bad, s->tx_no_session, s->tx_drops);
}

void
cpe_wan_pppoe_json(struct cpe_router *r, FILE *f)
{
	const struct cpe_pppoe_state *s = sess_of(r);
	char ac[20];

	fmt_ac(s, ac, sizeof(ac));
	fprintf(f, "  \"pppoe\": {\"session_id\": %u, \"concentrator\": "
		"\"%s\", \"sessions\": %" PRIu64 ", \"rx_data\": %" PRIu64
		", \"tx_data\": %" PRIu64 ", \"rx_ctl\": %" PRIu64
		", \"rx_other\": %" PRIu64 ", \"rx_not_pppoe\": %" PRIu64
		", \"rx_bad\": %" PRIu64 ", \"tx_no_session\": %" PRIu64
		", \"tx_drops\": %" PRIu64 "},\n", s->up ? s->sess.sid : 0,
		s->up ? ac : "", s->sessions, s->rx_data, s->tx_data,
		s->rx_ctl, s->rx_other, s->rx_not_pppoe, s->rx_bad,
		s->tx_no_session, s->tx_drops);
}

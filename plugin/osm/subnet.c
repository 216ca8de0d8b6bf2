/*
 * Import of OpenSM's discovered subnet into the core and export of the
 * core's tables, as routing-engine callbacks (contract: osm_ucast_mgr.c
 * ucast_mgr_route(), osm_mcast_mgr.c mcast_mgr_process_mlid(), osm_qos.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <complib/cl_qmap.h>
#include <iba/ib_types.h>
#include <opensm/osm_config.h>
#include <opensm/osm_log.h>
#include <opensm/osm_mcast_tbl.h>
#include <opensm/osm_mcm_port.h>
#include <opensm/osm_multicast.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_port.h>
#include <opensm/osm_switch.h>

#include "plugin/osm/subnet.h"

static const char *node_name(const osm_node_t *node)
{
	return node->print_desc ? node->print_desc : "";
}

/* Every switch, its switch-to-switch cables and the CA/router ports cabled
 * to it. Ports OpenSM has no remote for (down, or not yet discovered) are
 * left out, so the core sees the fabric as it is now; so are switch links
 * OpenSM marked unhealthy (a port flooding traps, shut up and re-swept),
 * as its own engines leave them out, or the sweep would put the routes
 * back on them. */
static void import_subnet(struct ibu_osm_engine *e)
{
	osm_subn_t *subn = &e->osm->subn;
	cl_qmap_t *sw_tbl = &subn->sw_guid_tbl;
	osm_switch_t *sw;

	ibu_fabric_reset(e->core);
	for (sw = (osm_switch_t *)cl_qmap_head(sw_tbl); sw != (osm_switch_t *)cl_qmap_end(sw_tbl);
	     sw = (osm_switch_t *)cl_qmap_next(&sw->map_item)) {
		osm_node_t *node = sw->p_node;
		osm_physp_t *p0 = osm_node_get_physp_ptr(node, 0);
		uint16_t lid = p0 ? cl_ntoh16(osm_physp_get_base_lid(p0)) : 0;
		uint8_t lmc = p0 ? ib_port_info_get_lmc(&p0->port_info) : 0;

		ibu_fabric_add_switch(e->core, cl_ntoh64(osm_node_get_node_guid(node)), node_name(node),
				      sw->num_ports - 1, lid, subn->opt.lmc_esp0 ? lmc : 0);
	}
	for (sw = (osm_switch_t *)cl_qmap_head(sw_tbl); sw != (osm_switch_t *)cl_qmap_end(sw_tbl);
	     sw = (osm_switch_t *)cl_qmap_next(&sw->map_item)) {
		osm_node_t *node = sw->p_node;
		uint64_t guid = cl_ntoh64(osm_node_get_node_guid(node));
		uint8_t port;

		for (port = 1; port < sw->num_ports; port++) {
			osm_physp_t *physp = osm_node_get_physp_ptr(node, port);
			osm_physp_t *remote;
			osm_node_t *rnode;

			if (!physp || !(remote = osm_physp_get_remote(physp)))
				continue;
			rnode = osm_physp_get_node_ptr(remote);
			if (rnode->sw) {
				if (!osm_link_is_healthy(physp))
					continue;
				ibu_fabric_add_switch_link(e->core, guid, port,
							   cl_ntoh64(osm_node_get_node_guid(rnode)),
							   osm_physp_get_port_num(remote));
			} else {
				uint16_t base = cl_ntoh16(osm_physp_get_base_lid(remote));
				uint8_t lmc = ib_port_info_get_lmc(&remote->port_info);

				ibu_fabric_add_end_port(e->core, cl_ntoh64(osm_physp_get_port_guid(remote)),
							cl_ntoh64(osm_node_get_node_guid(rnode)),
							node_name(rnode), osm_physp_get_port_num(remote),
							base, lmc, guid, port);
			}
		}
	}
}

/* With several data VLs the engine's SL-to-VL tables and equal VL
 * arbitration replace OpenSM's QoS ones (qos_sl2vl, qos_vlarb_*, also per
 * port type): its freedom from credit loops rests on its VLs. Said at each
 * routing, and as an error when qos_max_vls is below the engine's VLs. */
static void note_qos_replaced(struct ibu_osm_engine *e)
{
	const osm_subn_opt_t *o = &e->osm->subn.opt;
	unsigned cap = o->qos_swe_options.max_vls ? o->qos_swe_options.max_vls : o->qos_options.max_vls;
	int vls = ibu_data_vls(e->core);

	OSM_LOG(&e->osm->log, OSM_LOG_INFO,
		"ibunion/%s: its SL-to-VL tables (%d VLs) and equal VL arbitration replace OpenSM's QoS "
		"ones (qos_sl2vl, qos_vlarb_high/low and their qos_ca_/qos_swe_/qos_sw0_ forms): the "
		"engine's freedom from credit loops rests on its VLs\n",
		ibu_engine_name(e->core), vls);
	if (cap && (int)cap < vls)
		OSM_LOG(&e->osm->log, OSM_LOG_ERROR,
			"ibunion/%s: qos_max_vls %u is below the %d VLs the engine's tables use; they are "
			"set all the same (fewer VLs could close credit loops): lower xymesh_vls or raise "
			"qos_max_vls\n",
			ibu_engine_name(e->core), cap, vls);
}

/* build_lid_matrices: import and route in one go (0 = done; OpenSM's own
 * min-hop matrices are not needed, which is most of the time saved). */
static int cb_build_lid_matrices(void *context)
{
	struct ibu_osm_engine *e = context;

	import_subnet(e);
	e->vl_short_logged = 0;
	if (ibu_route_unicast(e->core)) {
		ibu_dump(e->core, e->osm->subn.opt.dump_files_dir); /* removes the last routing's dumps */
		return -1;
	}
	/* Only once the engine routes: beside a refusal its VLs never matter. */
	if (ibu_data_vls(e->core) > 1 && e->osm->subn.opt.qos)
		note_qos_replaced(e);
	if (ibu_data_vls(e->core) > 1 && !e->osm->subn.opt.qos)
		OSM_LOG(&e->osm->log, OSM_LOG_ERROR,
			"ibunion/%s: the engine's tables use %d VLs but QoS is off, so OpenSM never "
			"calls update_sl2vl and the ports keep the SL-to-VL tables they hold, not the "
			"engine's; set 'qos TRUE' (or -Q)\n",
			ibu_engine_name(e->core), ibu_data_vls(e->core));
	return 0;
}

/* ucast_build_fwd_tables: copy the computed LFTs into new_lft, which
 * ucast_mgr_setup_all_switches() sized (lft_size) and filled with
 * OSM_NO_PATH; OpenSM then sends the blocks that changed. */
static int cb_ucast_build_fwd_tables(void *context)
{
	struct ibu_osm_engine *e = context;
	cl_qmap_t *sw_tbl = &e->osm->subn.sw_guid_tbl;
	osm_switch_t *sw;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (sw = (osm_switch_t *)cl_qmap_head(sw_tbl); sw != (osm_switch_t *)cl_qmap_end(sw_tbl);
	     sw = (osm_switch_t *)cl_qmap_next(&sw->map_item)) {
		size_t len = 0, lid, limit;
		const uint8_t *lft = ibu_lft(e->core, cl_ntoh64(osm_node_get_node_guid(sw->p_node)), &len);

		if (!lft) {
			OSM_LOG(&e->osm->log, OSM_LOG_ERROR,
				"ibunion/%s: no table computed for switch 0x%016" PRIx64 "\n",
				ibu_engine_name(e->core), cl_ntoh64(osm_node_get_node_guid(sw->p_node)));
			return -1;
		}
		limit = (size_t)sw->max_lid_ho + 1;
		if (limit > sw->lft_size)
			limit = sw->lft_size;
		for (lid = 1; lid < limit; lid++)
			sw->new_lft[lid] = lid < len ? lft[lid] : OSM_NO_PATH;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	OSM_LOG(&e->osm->log, OSM_LOG_VERBOSE, "ibunion/%s: LFTs copied into OpenSM in %.3f s\n",
		ibu_engine_name(e->core),
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	ibu_dump(e->core, e->osm->subn.opt.dump_files_dir);
	return 0;
}

struct mask_ctx {
	osm_subn_t *subn;
	uint16_t mlid;
	uint64_t refused_guid; /* the switch that cannot hold the MLID */
	unsigned refused_cap;  /* its MulticastFDBCap */
};

static int set_mask_port(void *ctx, uint64_t switch_guid, int port)
{
	struct mask_ctx *m = ctx;
	osm_switch_t *sw = osm_get_switch_by_guid(m->subn, cl_hton64(switch_guid));
	osm_mcast_tbl_t *tbl;

	if (!sw)
		return 0;
	tbl = osm_switch_get_mcast_tbl_ptr(sw);
	/* Beyond the switch's own cap (0 for a switch without multicast,
	 * which OpenSM's subnet-wide MLID limit ignores), or beyond the table
	 * OpenSM allocated for this pass: writing there would corrupt memory. */
	if ((unsigned)(m->mlid - IB_LID_MCAST_START_HO) >= tbl->num_entries ||
	    m->mlid > tbl->max_mlid_ho) {
		m->refused_guid = switch_guid;
		m->refused_cap = tbl->num_entries;
		return 1;
	}
	osm_mcast_tbl_set(tbl, m->mlid, (uint8_t)port);
	return 0;
}

/* The SL the group's senders use: fixed in its MCMemberRecord when the SA
 * created it (groups sharing an MLID share it). -1 when there is none. */
static int group_sl(osm_mgrp_box_t *mbox)
{
	osm_mgrp_t *mgrp;
	uint8_t sl, hop;
	uint32_t flow;

	if (cl_is_qlist_empty(&mbox->mgrp_list))
		return -1;
	mgrp = cl_item_obj(cl_qlist_head(&mbox->mgrp_list), mgrp, list_item);
	ib_member_get_sl_flow_hop(mgrp->mcmember_rec.sl_flow_hop, &sl, &flow, &hop);
	return sl;
}

static int mlid_alive(void *subn, uint16_t mlid)
{
	return osm_get_mbox_by_mlid(subn, cl_hton16(mlid)) != NULL;
}

/* Groups are deleted only between OpenSM's multicast passes (the SA and a
 * pass hold its lock in turn), so deleted MLIDs are looked for once a
 * pass: before every tree, a heavy sweep's pass over 16,382 groups took
 * about 1 s against 0.03 s (sim-harness/bench/adapter_mcast_bench). A pass is
 * told by a mark left on the first switch's mft_block_num, a field OpenSM
 * (3.3) uses only in mcast_mgr_set_mftables, which sets it >= 0 on every
 * switch after each pass's trees; and, should an OpenSM not clear it, by
 * an MLID no higher than the last tree's (a pass goes up by MLID). */
#define PASS_MARK (-2)

static int first_tree_of_pass(struct ibu_osm_engine *e, uint16_t mlid)
{
	osm_subn_t *subn = &e->osm->subn;
	osm_switch_t *sw = (osm_switch_t *)cl_qmap_head(&subn->sw_guid_tbl);
	int first = mlid <= e->last_tree_mlid;

	e->last_tree_mlid = mlid;
	if (sw == (osm_switch_t *)cl_qmap_end(&subn->sw_guid_tbl))
		return 1;
	first |= sw->mft_block_num != PASS_MARK;
	sw->mft_block_num = PASS_MARK;
	return first;
}

/* A group beyond some switch's MulticastFDBCap: the bits set on the
 * switches that hold its MLID would forward a group said to have no tree. */
static void clear_mlid_everywhere(osm_subn_t *subn, uint16_t mlid)
{
	cl_map_item_t *item;

	for (item = cl_qmap_head(&subn->sw_guid_tbl); item != cl_qmap_end(&subn->sw_guid_tbl);
	     item = cl_qmap_next(item))
		osm_mcast_tbl_clear_mlid(osm_switch_get_mcast_tbl_ptr((osm_switch_t *)item), mlid);
}

/* mcast_build_stree, per MLID: OpenSM has just cleared the MLID on every
 * switch (mcast_mgr_clear) and pushes changed blocks afterwards; the engine
 * only sets the bits of its tree. A refused group keeps no tree (OpenSM has
 * no fallback for a failing mcast_build_stree) and is logged. Groups OpenSM
 * deleted since the last pass, and trees of an MLID's former group, are
 * forgotten first. */
static ib_api_status_t cb_mcast_build_stree(void *context, osm_mgrp_box_t *mbox)
{
	struct ibu_osm_engine *e = context;
	cl_list_item_t *li;
	uint64_t *members = NULL;
	int n = 0, cap = 0;
	struct mask_ctx ctx = {&e->osm->subn, mbox->mlid, 0, 0};
	/* The MGIDs on the MLID, for telling its groups from deleted ones
	 * whose MLID the SA handed on; gathered in the one walk of the list
	 * with the members. Out of memory only costs that check. */
	int nmgids = (int)cl_qlist_count(&mbox->mgrp_list), k = 0, rc;
	uint8_t (*mgids)[16] = nmgids ? malloc((size_t)nmgids * sizeof(*mgids)) : NULL;

	if (!mgids)
		nmgids = 0;
	for (li = cl_qlist_head(&mbox->mgrp_list); li != cl_qlist_end(&mbox->mgrp_list);
	     li = cl_qlist_next(li)) {
		osm_mgrp_t *mgrp = cl_item_obj(li, mgrp, list_item);
		cl_map_item_t *mi;

		if (k < nmgids)
			memcpy(mgids[k++], mgrp->mcmember_rec.mgid.raw, 16);
		for (mi = cl_qmap_head(&mgrp->mcm_port_tbl); mi != cl_qmap_end(&mgrp->mcm_port_tbl);
		     mi = cl_qmap_next(mi)) {
			osm_mcm_port_t *mcm = cl_item_obj(mi, mcm, map_item);

			if (n == cap) {
				uint64_t *grown = realloc(members, (cap = cap ? 2 * cap : 16) * sizeof(*members));

				if (!grown) {
					free(members);
					free(mgids);
					return IB_INSUFFICIENT_MEMORY;
				}
				members = grown;
			}
			/* A switch joins by its port 0, whose GUID may differ from the
			 * node GUID the fabric knows switches by. */
			members[n++] = cl_ntoh64(osm_node_get_type(mcm->port->p_node) == IB_NODE_TYPE_SWITCH ?
						 osm_node_get_node_guid(mcm->port->p_node) :
						 mcm->port->guid);
		}
	}
	if (first_tree_of_pass(e, mbox->mlid))
		ibu_forget_dead_mcast(e->core, mlid_alive, &e->osm->subn);
	ibu_forget_replaced_mcast(e->core, mbox->mlid, (const uint8_t (*)[16])mgids, nmgids);
	free(mgids);
	rc = ibu_route_mcast(e->core, mbox->mlid, group_sl(mbox), members, n, set_mask_port, &ctx);
	free(members);
	if (rc < 0)
		return IB_ERROR;
	if (rc > 0) { /* refused by set_mask_port; the engine has forgotten the tree */
		clear_mlid_everywhere(&e->osm->subn, mbox->mlid);
		if (ctx.refused_cap == 0)
			OSM_LOG(&e->osm->log, OSM_LOG_ERROR,
				"ibunion/%s: multicast group 0x%04x refused: switch 0x%016" PRIx64
				" supports no multicast (MulticastFDBCap 0); other groups are unaffected\n",
				ibu_engine_name(e->core), mbox->mlid, ctx.refused_guid);
		else
			OSM_LOG(&e->osm->log, OSM_LOG_ERROR,
				"ibunion/%s: multicast group 0x%04x refused: MLID beyond the "
				"MulticastFDBCap of switch 0x%016" PRIx64 " (%u MLIDs, up to 0x%04x); "
				"other groups are unaffected\n",
				ibu_engine_name(e->core), mbox->mlid, ctx.refused_guid, ctx.refused_cap,
				IB_LID_MCAST_START_HO + ctx.refused_cap - 1);
		return IB_ERROR;
	}
	return IB_SUCCESS;
}

static uint8_t cb_path_sl(void *context, uint8_t hint, const ib_net16_t slid, const ib_net16_t dlid)
{
	struct ibu_osm_engine *e = context;
	uint8_t sl;

	if (ibu_path_sl(e->core, cl_ntoh16(slid), cl_ntoh16(dlid), &sl))
		return hint;
	return sl;
}

/* OpenSM keeps only the low bits of each VL that the port's OperVLs allow
 * (osm_qos.c sl2vl_update_table), so on a port with fewer VLs than the
 * engine uses, VLs fold onto each other without a word, and with them the
 * VL separation the engine's deadlock freedom rests on (the paper-mode
 * multicast VL lands on a data VL). Name the first such port per routing. */
static void check_op_vls(struct ibu_osm_engine *e, osm_physp_t *port, const uint8_t vl_by_sl[16])
{
	static const int vls_of_op_vls[] = {0, 1, 2, 4, 8, 15};
	uint8_t op = ib_port_info_get_op_vls(&port->port_info);
	int have = op < sizeof(vls_of_op_vls) / sizeof(vls_of_op_vls[0]) ? vls_of_op_vls[op] : 15;
	osm_node_t *node = osm_physp_get_node_ptr(port);
	int sl, need = 0;

	for (sl = 0; sl < 16; sl++)
		if (vl_by_sl[sl] != 15 && vl_by_sl[sl] + 1 > need)
			need = vl_by_sl[sl] + 1;
	if (op == 0 || need <= have || e->vl_short_logged) /* 0: not known yet */
		return;
	e->vl_short_logged = 1;
	OSM_LOG(&e->osm->log, OSM_LOG_ERROR,
		"ibunion/%s: %s %s (0x%016" PRIx64 ") port %u has %d operational VL%s (OperVLs VL0-%d), "
		"but the engine maps SLs onto VLs 0-%d: OpenSM folds VL %d and above onto lower "
		"VLs, which can close credit loops; raise max_op_vls (as far as the ports' VLCap "
		"allows) or lower xymesh_vls (further ports not named)\n",
		ibu_engine_name(e->core), node->sw ? "switch" : "host", node_name(node),
		cl_ntoh64(osm_node_get_node_guid(node)), osm_physp_get_port_num(port), have,
		have == 1 ? "" : "s", have - 1, need - 1, have);
}

static void cb_update_sl2vl(void *context, osm_physp_t *port, uint8_t in_port, uint8_t out_port,
			    ib_slvl_table_t *t)
{
	struct ibu_osm_engine *e = context;
	osm_node_t *node = osm_physp_get_node_ptr(port);
	uint8_t vl_by_sl[16];
	int sl;

	if (!node->sw) {
		/* OpenSM's qos_endport_setup asks for CA ports too (in = out = 0) */
		if (ibu_end_port_sl2vl(e->core, cl_ntoh64(port->port_guid), vl_by_sl))
			return;
	} else if (ibu_switch_sl2vl(e->core, cl_ntoh64(osm_node_get_node_guid(node)), in_port,
				    out_port, vl_by_sl)) {
		return;
	}
	check_op_vls(e, port, vl_by_sl);
	for (sl = 0; sl < 16; sl++)
		ib_slvl_table_set(t, (uint8_t)sl, vl_by_sl[sl]);
}

static void cb_update_vlarb(void *context, osm_physp_t *port, uint8_t port_num,
			    ib_vl_arb_table_t *block, unsigned block_length, unsigned block_num)
{
	struct ibu_osm_engine *e = context;
	uint8_t vl[IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK], weight[IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK];
	int n, i;

	(void)port;
	(void)port_num;
	if (block_length > IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK ||
	    ibu_vlarb_block(e->core, (int)block_num, vl, weight, (int)block_length, &n))
		return;
	for (i = 0; i < (int)block_length; i++) {
		block->vl_entry[i].vl = i < n ? vl[i] : 0;
		block->vl_entry[i].weight = i < n ? weight[i] : 0;
	}
}

static void cb_destroy(void *context)
{
	(void)context; /* the plugin's delete() frees the engine */
}

void ibu_osm_fill_callbacks(struct osm_routing_engine *re, struct ibu_osm_engine *e)
{
	re->build_lid_matrices = cb_build_lid_matrices;
	re->ucast_build_fwd_tables = cb_ucast_build_fwd_tables;
	re->mcast_build_stree = cb_mcast_build_stree;
	re->path_sl = cb_path_sl;
	/* always: the bridge leaves OpenSM's table when the engine has no VL policy */
	re->update_sl2vl = cb_update_sl2vl;
	re->update_vlarb = cb_update_vlarb;
	re->destroy = cb_destroy;
}

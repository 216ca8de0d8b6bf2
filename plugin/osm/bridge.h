/*
 * The C boundary between OpenSM and the ibunion core.
 *
 * OpenSM's headers are C (one of them even names a struct member `delete`),
 * so the adapter that touches OpenSM structures is C, and everything it
 * needs from the C++ core goes through this small C API. No C++ exception
 * crosses it: every call catches, logs through the callback and returns a
 * status.
 */
#ifndef IBUNION_PLUGIN_OSM_BRIDGE_H
#define IBUNION_PLUGIN_OSM_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ibu_engine ibu_engine;

enum { IBU_LOG_ERROR = 0, IBU_LOG_INFO = 1, IBU_LOG_VERBOSE = 2 };
typedef void (*ibu_log_fn)(void *ctx, int level, const char *msg);
/* Nonzero when a message of `level` would be written (OpenSM's log level,
 * which can change while it runs); called with the log's ctx. */
typedef int (*ibu_log_active_fn)(void *ctx, int level);
/* Receives one (switch GUID, port) of a multicast mask. Nonzero when the
 * switch cannot hold the group (its MLID beyond the switch's
 * MulticastFDBCap): no further bit is reported and the group is refused. */
typedef int (*ibu_mask_fn)(void *ctx, uint64_t switch_guid, int port);

/* The engines the plugin registers with OpenSM. event_plugin_options may
 * only hold their keys (and <engine>_dump): a key of an engine OpenSM does
 * not get (slid_ is the CLI's) would never be checked, so it is unknown. */
#define IBU_OSM_NUM_ENGINES 2
extern const char *const ibu_osm_engine_names[IBU_OSM_NUM_ENGINES];

/* Engine `name` ("mlid", "xymesh") with event_plugin_options `options`.
 * Bad options do not fail here: they are logged now and make every
 * routing call refuse, so OpenSM falls back instead of running a guess.
 * `options_shared`: nonzero when event_plugin_name loads other plugins
 * too, which get the same string; then only words with an ibunion engine's
 * key prefix (mlid_, slid_, xymesh_) are read, the rest left to them.
 * `routing_engines`: OpenSM's routing_engine option (NULL: not set, so
 * OpenSM's default minhop). An engine not in it is never called, so its
 * options are not read: words with its prefix are listed once (info),
 * not logged as errors of an engine that will refuse every fabric.
 * NULL only when out of memory. */
ibu_engine *ibu_engine_new(const char *name, const char *options, int options_shared,
			   const char *routing_engines, ibu_log_fn log, void *log_ctx);
void ibu_engine_free(ibu_engine *e);
/* Lets the engine ask before it logs: messages of levels for which
 * `active` returns 0 are not passed to the log callback, and the bridge's
 * own (the per-rebuild multicast line and its timing) are not even built.
 * Without one (or NULL) every message goes to the callback. */
void ibu_engine_set_log_active(ibu_engine *e, ibu_log_active_fn active);
const char *ibu_engine_name(const ibu_engine *e);

/* The subnet as OpenSM discovered it; GUIDs in host order. */
void ibu_fabric_reset(ibu_engine *e);
void ibu_fabric_add_switch(ibu_engine *e, uint64_t guid, const char *name, int num_ports,
			   uint16_t lid, uint8_t lmc);
void ibu_fabric_add_switch_link(ibu_engine *e, uint64_t guid, int port, uint64_t peer_guid,
				int peer_port);
void ibu_fabric_add_end_port(ibu_engine *e, uint64_t port_guid, uint64_t node_guid,
			     const char *name, int port_num, uint16_t base_lid, uint8_t lmc,
			     uint64_t switch_guid, int switch_port);

/* Recognises the fabric and computes every LFT (and SL2VL where the engine
 * has a VL policy). 0 on success; -1 when the engine refuses, with one
 * "ibunion/<engine>: refusing: <why>" line logged. */
int ibu_route_unicast(ibu_engine *e);
/* The LFT computed for a switch: out port by LID, 255 = none; NULL if the
 * switch is unknown. *len = number of entries (max LID + 1). */
const uint8_t *ibu_lft(const ibu_engine *e, uint64_t switch_guid, size_t *len);

/* Builds the tree of one multicast group from its members' port GUIDs and
 * its SL (the SA's MCMemberRecord; -1 unknown) and reports every (switch,
 * port) of its masks through `set`. Members the engine does not know (not
 * end ports of the routed fabric) are logged and skipped. 0 on success, -1
 * when the engine refuses the group (logged), 1 when `set` refused a bit:
 * then the caller logs the refusal, the engine has forgotten the tree and
 * logs nothing of it (not its verbose rebuild line). */
int ibu_route_mcast(ibu_engine *e, uint16_t mlid, int sl, const uint64_t *member_guids, int n,
		    ibu_mask_fn set, void *ctx);
/* OpenSM deletes a group (its last full member left) and clears its MLID
 * without asking the engine, and the SA hands that MLID to the next new
 * group. The engine forgets the trees of MLIDs `alive` says OpenSM no
 * longer has, so that no deleted group weighs on later ones (xymesh's
 * multicast-VL admission, its kept previous tree): O(MLIDs with a tree),
 * one check each, needed once per multicast pass (groups change only
 * between passes). */
typedef int (*ibu_mlid_alive_fn)(void *ctx, uint16_t mlid);
void ibu_forget_dead_mcast(ibu_engine *e, ibu_mlid_alive_fn alive, void *ctx);
/* Before the tree of `mlid`, whose MGIDs are now `mgids` (n of them, 16
 * bytes each; several when OpenSM consolidates groups on one MLID): its old
 * tree is forgotten if none of the MGIDs it was built for is still there,
 * so that a reused MLID starts afresh. A group deleted and created again
 * under the same MGID with no tree built in between is taken for the same
 * group. */
void ibu_forget_replaced_mcast(ibu_engine *e, uint16_t mlid, const uint8_t (*mgids)[16], int n);

/* SL for a path (OpenSM's path_sl), and a switch's SL2VL for (in, out):
 * vl_by_sl[16]. Return 0 when the engine has an answer, -1 to leave
 * OpenSM's own choice in place. */
int ibu_path_sl(const ibu_engine *e, uint16_t slid, uint16_t dlid, uint8_t *sl);
int ibu_switch_sl2vl(const ibu_engine *e, uint64_t switch_guid, int in_port, int out_port,
		     uint8_t vl_by_sl[16]);
/* A host port's own SL2VL (OpenSM asks with in = out = 0): the VLs its
 * switch uses on the link toward that host, so injection and delivery on
 * a host link use the same VL. */
int ibu_end_port_sl2vl(const ibu_engine *e, uint64_t port_guid, uint8_t vl_by_sl[16]);
int ibu_data_vls(const ibu_engine *e);
/* One VLArbitration block (0-1 low, 2-3 high) for an engine with VLs:
 * *n entries (at most max) of VL and weight, the rest weight 0. -1 leaves
 * OpenSM's qos_vlarb_* in place (one VL, or no engine). */
int ibu_vlarb_block(const ibu_engine *e, int block, uint8_t *vl, uint8_t *weight, int max, int *n);

/* Writes ibunion-<engine>-lfts.dump and, for fabrics of at most 4096 end
 * ports, ibunion-<engine>-paths.dump ("src_guid dst_guid dlid") into dir,
 * through temp files renamed into place once both are complete (both or
 * neither); a failure is logged with the file and the reason. After a
 * refused routing, with the dumps off, or beyond 4096 end ports (the map),
 * it removes the files an earlier routing left (logged): they would pass
 * for this routing's. */
void ibu_dump(const ibu_engine *e, const char *dir);

#ifdef __cplusplus
}
#endif

#endif

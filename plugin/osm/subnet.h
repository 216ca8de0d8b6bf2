/*
 * The routing-engine callbacks of one ibunion engine inside OpenSM: import
 * of the discovered subnet into the core, export of the core's tables into
 * OpenSM's switch objects.
 */
#ifndef IBUNION_PLUGIN_OSM_SUBNET_H
#define IBUNION_PLUGIN_OSM_SUBNET_H

#include "plugin/osm/bridge.h"

struct osm_opensm;
struct osm_routing_engine;

struct ibu_osm_engine {
	struct osm_opensm *osm;
	ibu_engine *core;
	int vl_short_logged; /* a port with too few operational VLs was named since the last routing */
	uint16_t last_tree_mlid; /* the MLID of the last multicast tree built (passes go up by MLID) */
};

void ibu_osm_fill_callbacks(struct osm_routing_engine *re, struct ibu_osm_engine *e);

#endif
